"""Wiring: FastMCP tools over the functions in mcp_server.tools. Errors become ToolError here."""

from __future__ import annotations

import gc
import inspect
import logging
import socket
import threading
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

import fastmcp
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.prompts import Prompt
from fastmcp.tools import Tool
from fastmcp.tools.base import ToolResult
from fastmcp.utilities.types import Image
from mcp.types import TextContent, ToolAnnotations
from pydantic import BaseModel, Field
from starlette.middleware import Middleware

from indexer import __version__
from indexer.core.errors import FilingsError
from indexer.core.logs import setup_logging
from indexer.core.models import Box, wire
from indexer.evidence.financials import STATEMENTS
from indexer.evidence.outline import SECTION_CHARS, SectionText
from indexer.index.store import read_manifest
from indexer.search.request import MAX_DOCUMENT_CHARS, MAX_INPUT_CHARS, SearchRequest
from mcp_server.argument_errors import PlainArgumentErrors
from mcp_server.auth import SharedTokenVerifier
from mcp_server.body_guard import BodyGuard
from mcp_server.http_guard import MCP_PATH, HostOriginGuard, HostPolicy, SessionLimiter, TokenGuard
from mcp_server.loader import IndexLoader
from mcp_server.prompts import due_diligence
from mcp_server.renderings import DETAIL_HELP, Answer, Detail, as_text, rendered_text
from mcp_server.schemas import output_schema
from mcp_server.settings import ServerSettings
from mcp_server.tools import (
    coverage,
    get_financials_tool,
    get_outline_tool,
    get_page_tool,
    list_documents_tool,
    locate_quote_tool,
    read_section_tool,
    render_page_tool,
    search_reports_tool,
)
from mcp_server.types import DocumentList, Financials, Outline, PageResult, QuoteLocation, RenderedPage, SearchResult

logger = logging.getLogger(__name__)

T = TypeVar("T")
LOAD_DELAY_S = 0.5
GC_YOUNG_THRESHOLD = 10_000  # allocations between young collections (default 700): fewer pauses in a search
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

_CITE = (
    "Every figure or statement you take from a result must be cited with its document and 1-based page "
    "(e.g. BESTBUY_2024Q2_10Q.pdf p.19); call get_page to read the whole page before quoting."
)
INSTRUCTIONS = (
    "Search financial filings (SEC 10-K/10-Q/8-K, earnings releases) and Chinese annual reports (年报) and broker "
    f"research (研报) stored locally. {_CITE}"
)
SERVER_NAME = "filings-mcp"  # serverInfo.name; serverInfo.version is the package's
MAX_BOXES = 200  # boxes render_page draws (a search hit has one per line)
DOCUMENT = Field(max_length=MAX_DOCUMENT_CHARS, description="a file name exactly as list_documents gives it")
PAGE = Field(description="1-based page number")
DETAIL = Field(description=DETAIL_HELP)


@dataclass(frozen=True)
class Declared:
    """A tool as declared below: its function (the loader first, then the tool's arguments), its description, the
    model of its result, and whether the description ends with what the loaded index covers."""

    function: Callable[..., ToolResult]
    description: str
    output: type[BaseModel]
    with_coverage: bool = False


TOOLS: list[Declared] = []


def tool(
    output: type[BaseModel], description: str, *, with_coverage: bool = False
) -> Callable[[Callable[..., ToolResult]], Callable[..., ToolResult]]:
    """Declare a tool where it is written (its description beside its signature); build_server registers it."""

    def declare(function: Callable[..., ToolResult]) -> Callable[..., ToolResult]:
        TOOLS.append(Declared(function, description, output, with_coverage))
        return function

    return declare


def arguments_of(model: type[BaseModel]) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Give a tool function taking ``**arguments`` the signature of ``model``'s fields (after the loader), so that its
    input schema, validation and descriptions are the model's (declared once, used by the tool, the CLI and eval)."""

    def declare(function: Callable[..., T]) -> Callable[..., T]:
        parameters = [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if field.is_required() else field.default,
                annotation=Annotated[field.annotation, field],
            )
            for name, field in model.model_fields.items()
        ]
        loader = inspect.Parameter("loader", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=IndexLoader)
        own = inspect.signature(function)
        extra = [p for p in own.parameters.values() if p.kind == inspect.Parameter.KEYWORD_ONLY]
        returns = own.return_annotation
        parameters = [*parameters, *extra]
        function.__signature__ = inspect.Signature([loader, *parameters], return_annotation=returns)  # type: ignore[attr-defined]
        function.__annotations__ = {p.name: p.annotation for p in (loader, *parameters)} | {"return": returns}
        return function

    return declare


def _call(loader: IndexLoader, work: Callable[..., T], *args: object) -> T:
    try:
        return work(loader.get(), *args)
    except FilingsError as exc:
        raise ToolError(str(exc), log_level=logging.INFO) from exc  # the caller's mistake, answered in words


def _answer(result: Answer, detail: Detail) -> ToolResult:
    """The full result as structured content, and as text its compact rendering (or, with ``detail="full"``, its
    JSON), each serialised once (FastMCP's own conversion serialises to JSON and parses it back)."""
    return ToolResult(
        content=[TextContent(type="text", text=as_text(result, detail))],
        structured_content=wire(result),
    )


@tool(
    DocumentList,
    "List the documents in the knowledge base: company, form, period, language, pages.",
    with_coverage=True,
)
def list_documents(loader: IndexLoader, detail: Annotated[Detail, DETAIL] = "compact") -> ToolResult:
    return _answer(_call(loader, list_documents_tool), detail)


@tool(
    SearchResult,
    "Search the filings for passages (keyword BM25 + semantic search, fused; English and Chinese terms and periods "
    "are expanded, e.g. 1Q25 ↔ 2025年第一季度, capex ↔ 资本开支). Returns the best passage of each page, best first, "
    "with its document, 1-based page, and the bounding boxes of its lines (PDF points, top-left origin). A company, "
    "year or form named in the query narrows the search to those filings; `documents`, `company`, `year` and `form` "
    f"do so explicitly. To compare filings, search each one. {_CITE}",
    with_coverage=True,
)
@arguments_of(SearchRequest)
def search_reports(
    loader: IndexLoader, *, detail: Annotated[Detail, DETAIL] = "compact", **arguments: object
) -> ToolResult:
    return _answer(_call(loader, search_reports_tool, SearchRequest.model_validate(arguments)), detail)


@tool(
    QuoteLocation,
    "Verify a quoted figure or sentence against a page and get the boxes of the exact text, one per line. Matching "
    "tolerates whitespace, currency symbols, thousands separators, (1,234) for -1,234 and units (52.00B = 52 billion "
    "= 52,000 million; 1.2亿 = 12,000万) but never accepts a different number. A short figure that occurs several "
    "times is reported ambiguous (verified=false) with every candidate box. If the quote is not on the page, the "
    "pages before and after are tried and the note says so. With `label` and/or `period`, a figure is verified only "
    "in a table row whose label contains `label` and under a column whose header contains `period` (e.g. "
    "quote='46,298', label='Revenue', period='2022'); otherwise the note says which row and column it is really in. "
    "Use it for every figure you state; report unverified quotes as unverified.",
)
def locate_quote(
    loader: IndexLoader,
    document: Annotated[str, DOCUMENT],
    page: Annotated[int, Field(description="1-based page the quote is cited from")],
    quote: Annotated[
        str,
        Field(
            max_length=MAX_INPUT_CHARS,
            description="the text or figure to verify, verbatim, e.g. '394,328' or a sentence",
        ),
    ],
    label: Annotated[
        str | None, Field(max_length=200, description="the table row the figure belongs to, e.g. 'Revenue', '营业收入'")
    ] = None,
    period: Annotated[
        str | None, Field(max_length=100, description="its column's period as printed, e.g. '2022', '2019年'")
    ] = None,
    detail: Annotated[Detail, DETAIL] = "compact",
) -> ToolResult:
    return _answer(_call(loader, locate_quote_tool, document, page, quote, label, period), detail)


@tool(
    RenderedPage,
    "Render a page as a PNG image with a quote (located as by locate_quote) or given boxes highlighted in yellow, so "
    "the evidence can be shown to the user. The long side is at most 1600 px.",
)
def render_page(
    loader: IndexLoader,
    document: Annotated[str, DOCUMENT],
    page: Annotated[int, PAGE],
    quote: Annotated[
        str | None, Field(max_length=MAX_INPUT_CHARS, description="text to locate and highlight (as locate_quote)")
    ] = None,
    bboxes: Annotated[
        list[Box] | None,
        Field(max_length=MAX_BOXES, description=f"boxes to highlight (at most {MAX_BOXES}), e.g. a hit's bboxes"),
    ] = None,
    dpi: Annotated[int, Field(ge=36, le=300, description="resolution; the long side is capped at 1600 px")] = 110,
) -> ToolResult:
    png, info = _call(loader, render_page_tool, document, page, quote, bboxes, dpi)
    return ToolResult(
        content=[
            Image(data=png, format="png").to_image_content(),
            TextContent(type="text", text=rendered_text(info)),
        ],
        structured_content=wire(info),
    )


@tool(
    PageResult,
    "Read one whole page of a document: its text and each line with its bounding box. Use it to check context around "
    "a search hit before quoting. Only documents from list_documents can be read.",
)
def get_page(
    loader: IndexLoader,
    document: Annotated[str, DOCUMENT],
    page: Annotated[int, PAGE],
    detail: Annotated[Detail, DETAIL] = "compact",
) -> ToolResult:
    return _answer(_call(loader, get_page_tool, document, page), detail)


@tool(
    Outline,
    "The document's outline from the headings in its body (not its contents page): 10-K/10-Q Parts and Items, a "
    "年报's 节, the primary statements and their notes, each with the pages it spans and a `key` for read_section.",
)
def get_outline(
    loader: IndexLoader, document: Annotated[str, DOCUMENT], detail: Annotated[Detail, DETAIL] = "compact"
) -> ToolResult:
    return _answer(_call(loader, get_outline_tool, document), detail)


@tool(
    SectionText,
    f"Read one section of a document, e.g. Item 7 (MD&A), 1A (risk factors), 第四节, balance_sheet: its text from "
    f"its heading to the next one, each page headed [p.N] for citations, at most {SECTION_CHARS:,} characters per "
    "call; pass next_cursor as `cursor` to continue. Sections and keys come from get_outline.",
)
def read_section(
    loader: IndexLoader,
    document: Annotated[str, DOCUMENT],
    section: Annotated[
        str,
        Field(
            min_length=1,
            max_length=200,
            description="a key from get_outline ('7', '1A', 'II', '第十节', 'balance_sheet') or words of a title",
        ),
    ],
    cursor: Annotated[str | None, Field(max_length=20, description="next_cursor from the previous call")] = None,
    detail: Annotated[Detail, DETAIL] = "compact",
) -> ToolResult:
    return _answer(_call(loader, read_section_tool, document, section, cursor), detail)


@tool(
    Financials,
    "The financial statements as data: each figure of the income statement, balance sheet, cash flow statement and "
    "key-data tables (主要会计数据, selected financial data) as a row with its label as printed, a normalised concept "
    "(revenue, cost_of_revenue, gross_profit, operating_income, net_income, net_income_attributable, eps_diluted, "
    "total_assets, total_liabilities, total_equity, operating_cash_flow, capex, dividends_paid …), the column's period "
    "as printed with its end date and fiscal year, the figure as printed and its value in units (sign, scale such as "
    "'in millions' or 万元 applied), currency, page and the boxes of the label and the figure. Each figure is verified "
    "at its box on the page. Parent-company-only statements (母公司) are left out. Use it for multi-year figures and "
    "ratios (margins, growth, free cash flow = operating_cash_flow + capex); cite each figure with its page.",
)
def get_financials(
    loader: IndexLoader,
    document: Annotated[
        str | None, Field(max_length=MAX_DOCUMENT_CHARS, description="a file name from list_documents")
    ] = None,
    company: Annotated[
        str | None, Field(max_length=100, description="instead of document: every filing of this company")
    ] = None,
    statement: Annotated[
        Literal["income", "balance", "cash_flow", "key_data"] | None,
        Field(description=f"one of {', '.join(STATEMENTS)}; all when omitted"),
    ] = None,
    items: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=100)]] | None,
        Field(
            max_length=30,
            description="concepts (revenue, capex) or label words in either language (营业收入, 'net sales')",
        ),
    ] = None,
    year: Annotated[int | None, Field(ge=1900, le=2100, description="fiscal year of the figures")] = None,
    limit: Annotated[int, Field(ge=1, le=2000, description="rows returned at most")] = 200,
    detail: Annotated[Detail, DETAIL] = "compact",
) -> ToolResult:
    if not (document or "").strip() and not (company or "").strip():
        raise ToolError("pass document (a file name from list_documents) or company (a name, ticker or stock code)")
    return _answer(_call(loader, get_financials_tool, document, company, statement, items, year, limit), detail)


def _bound(function: Callable[..., ToolResult], loader: IndexLoader) -> Callable[..., ToolResult]:
    """The tool function with the loader given: its signature (the schema clients see) is the tool's arguments."""
    signature = inspect.signature(function)
    hints = typing.get_type_hints(function, include_extras=True)

    def call(**arguments: object) -> ToolResult:
        return function(loader, **arguments)

    parameters = [p.replace(annotation=hints[p.name]) for p in list(signature.parameters.values())[1:]]
    call.__signature__ = signature.replace(parameters=parameters, return_annotation=ToolResult)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": ToolResult}
    call.__name__ = function.__name__
    return call


def build_server(settings: ServerSettings, loader: IndexLoader) -> FastMCP:
    """The FastMCP server: the declared tools bound to ``loader``, the prompt, the index's coverage in the
    instructions and in the descriptions that ask for it."""
    try:
        scope = coverage(read_manifest(settings.index_dir))
    except FilingsError as exc:
        scope = f"The index is not available: {exc}"
    auth = SharedTokenVerifier(settings.token) if settings.transport == "http" and settings.token else None
    mcp = FastMCP(SERVER_NAME, instructions=f"{INSTRUCTIONS}\n{scope}", auth=auth, version=__version__)
    schemas: dict[str, dict[str, Any]] = {}
    for declared in TOOLS:
        registered = mcp.add_tool(
            Tool.from_function(
                _bound(declared.function, loader),
                name=declared.function.__name__,
                description=f"{declared.description}\n{scope}" if declared.with_coverage else declared.description,
                output_schema=output_schema(declared.output),
                annotations=READ_ONLY,
            )
        )
        schemas[registered.name] = registered.parameters
    prompt = mcp.add_prompt(
        Prompt.from_function(
            due_diligence,
            name="due_diligence",
            description="Answer a question from the filings with verified, page-level citations.",
        )
    )
    required = {arg.name: (arg.description or "").split("\n\n")[0] for arg in prompt.arguments or [] if arg.required}
    mcp.add_middleware(PlainArgumentErrors(schemas, {prompt.name: required}))
    return mcp


def plain_fastmcp_logs() -> None:
    """FastMCP's own rich, boxed handlers are removed: its records go through the root handler as plain lines
    (a tool error is one line; a caller's mistake is logged at INFO)."""
    fastmcp_logger = logging.getLogger("fastmcp")
    for handler in fastmcp_logger.handlers[:]:
        fastmcp_logger.removeHandler(handler)
    fastmcp_logger.propagate = True


def _bound_socket(host: str, port: int) -> socket.socket:
    """A socket bound to the address (so the address logged is one that answers; port 0 picks a free port)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(socket.SOMAXCONN)  # connections wait in the backlog until the server accepts them
    except OSError as exc:
        sock.close()
        raise FilingsError(f"cannot listen on {host}:{port} ({exc.strerror}); choose another --port or --host") from exc
    return sock


def _serve_http(server: FastMCP, settings: ServerSettings) -> None:
    fastmcp.settings.http_session_idle_timeout = settings.session_idle_timeout
    policy = HostPolicy.create(settings.host, settings.allow_hosts, settings.allow_origins)
    guards = [Middleware(HostOriginGuard, policy=policy)]
    if settings.token:
        guards.append(Middleware(TokenGuard, token=settings.token))
    bodies = Middleware(BodyGuard, deadline_s=settings.body_timeout)
    limits = Middleware(
        SessionLimiter,
        max_sessions=settings.max_sessions,
        per_client=settings.max_sessions_per_client,
        idle_timeout=settings.session_idle_timeout,
    )
    sock = _bound_socket(settings.host, settings.port)
    port = sock.getsockname()[1]
    shown = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
    shown = f"[{shown}]" if ":" in shown else shown
    logger.info(
        "filings-mcp %s serving %s at http://%s:%d%s%s",
        __version__,
        settings.index_dir,
        shown,
        port,
        MCP_PATH,
        " (send 'Authorization: Bearer <token>')" if settings.token else "",
    )
    server.run(transport="http", show_banner=False, sockets=[sock], middleware=[*guards, bodies, limits])


def run(settings: ServerSettings) -> int:
    setup_logging(settings.log_level)
    plain_fastmcp_logs()
    gc.set_threshold(GC_YOUNG_THRESHOLD, 10, 10)
    loader = IndexLoader(settings.index_dir, settings.cache_dir, settings.load_timeout)
    server = build_server(settings, loader)
    # Loading holds the GIL in long stretches (jieba's dictionary); give the handshake a head start. A call that
    # arrives earlier starts the load itself.
    timer = threading.Timer(LOAD_DELAY_S, loader.start)
    timer.daemon = True
    timer.start()
    if settings.transport == "http":
        _serve_http(server, settings)
    else:
        server.run(transport="stdio", show_banner=False)
    return 0
