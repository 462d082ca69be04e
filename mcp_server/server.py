"""Wiring: the tools, one row each (a KnowledgeBase method of the same name, its request and result models, its
description; tool_registry serves a row), the prompt, and the server around them."""

from __future__ import annotations

import gc
import logging
import threading
from typing import Any

from fastmcp import FastMCP
from fastmcp.prompts import Prompt
from fastmcp.tools.base import ToolResult
from fastmcp.utilities.types import Image
from mcp.types import TextContent

from indexer import __version__
from indexer.answers import (
    ClaimChecks,
    DocumentList,
    Financials,
    Outline,
    PageImage,
    PageRange,
    PageResult,
    QuoteLocation,
    RenderedPage,
    SearchResult,
)
from indexer.core.errors import FilingsError
from indexer.core.exits import clean_up_on_sigterm
from indexer.core.logs import setup_logging
from indexer.core.models import wire
from indexer.evidence.claim_checks import MAX_CLAIMS
from indexer.evidence.section_text import SECTION_CHARS, SectionText
from indexer.index.store import read_manifest
from indexer.requests import (
    ClaimsRequest,
    FinancialsRequest,
    OutlineRequest,
    PageImageRequest,
    PageRequest,
    QuoteRequest,
    RenderRequest,
    SectionRequest,
)
from indexer.search.request import SearchRequest
from mcp_server.argument_errors import PlainArgumentErrors
from mcp_server.auth import SharedTokenVerifier
from mcp_server.briefs import ClaimsBrief, PageBrief, QuoteBrief, SearchBrief
from mcp_server.catalogue_briefs import DocumentsBrief
from mcp_server.coverage import coverage, coverage_line
from mcp_server.evidence_app import FOR_THE_APP, SHOWS_EVIDENCE, evidence_resource, page_image_answer
from mcp_server.http_serve import serve_http
from mcp_server.loader import IndexLoader
from mcp_server.outline_briefs import OutlineBrief
from mcp_server.page_briefs import PagesBrief
from mcp_server.prompts import due_diligence
from mcp_server.renderings import SEARCH_DETAIL, rendered_text
from mcp_server.settings import ServerSettings
from mcp_server.statement_briefs import FinancialsBrief
from mcp_server.tool_registry import Declared, served

logger = logging.getLogger(__name__)

LOAD_DELAY_S = 0.5
GC_YOUNG_THRESHOLD = 10_000  # allocations between young collections (default 700): fewer pauses in a search

_CITE = (
    "Cite every figure or statement with its document and 1-based page (e.g. BESTBUY_2024Q2_10Q.pdf p.19); "
    "read the page (get_page) before quoting."
)
INSTRUCTIONS = (
    "Search financial filings (SEC 10-K/10-Q/8-K, earnings releases) and Chinese annual reports (年报) and broker "
    f"research (研报) stored locally. {_CITE}"
)
SERVER_NAME = "filings-mcp"  # serverInfo.name; serverInfo.version is the package's


def _rendered(result: tuple[bytes, RenderedPage], detail: str) -> ToolResult:
    """render_page's answer: the PNG, then a line saying what is highlighted; its record as structured content."""
    png, info = result
    return ToolResult(
        content=[Image(data=png, format="png").to_image_content(), TextContent(type="text", text=rendered_text(info))],
        structured_content=wire(info),
    )


# The tools, in the order clients list them: each is the KnowledgeBase method of its name (see tool_registry).
TOOLS = (
    Declared(
        "list_documents",
        "List the documents in the knowledge base: company, form, period, language, pages.",
        DocumentsBrief,
        full=DocumentList,
        with_coverage=True,
    ),
    Declared(
        "search_reports",
        "Search the filings for passages: keywords (BM25) and meaning, fused; English and Chinese terms and periods "
        "are expanded (1Q25 ↔ 2025年第一季度, capex ↔ 资本开支). Returns each page's best passage, best first, with "
        "document, 1-based page, section and one box (PDF points, top-left origin). A company, year or form named in "
        "the query narrows it; so do `documents`, `company`, `year`, `form`, `broker`. To compare filings, search "
        f"each. {_CITE}",
        SearchBrief,
        request=SearchRequest,
        full=SearchResult,
        detail=SEARCH_DETAIL,
        with_coverage=True,
    ),
    Declared(
        "locate_quote",
        "Verify a quoted figure or sentence on a page; get the matched text's boxes. Tolerates whitespace, currency "
        "signs, separators, (1,234) for -1,234 and units (52.00B = 52,000 million; 1.2亿 = 12,000万), never a "
        "different number. A short figure printed several times is ambiguous (every candidate given); neighbouring "
        "pages are tried. With `label`/`period`, verified only in that table row and column, else the note says "
        "where it is. For many figures: verify_claims.",
        QuoteBrief,
        request=QuoteRequest,
        full=QuoteLocation,
        ui=SHOWS_EVIDENCE,
    ),
    Declared(
        "verify_claims",
        f"Verify up to {MAX_CLAIMS} figures or sentences in one call, each as locate_quote would (label and period "
        "optional): a verdict per claim in order — verified, ambiguous, elsewhere (the note says where it is), "
        "not_found or error. Use it once at the end for every figure you state; report unverified ones as such.",
        ClaimsBrief,
        request=ClaimsRequest,
        full=ClaimChecks,
        ui=SHOWS_EVIDENCE,
    ),
    Declared(
        "render_page",
        "Render a page as a PNG with a quote (located as by locate_quote) or given boxes highlighted, to show the "
        "evidence to the user. The long side is at most 1600 px.",
        RenderedPage,
        request=RenderRequest,
        detail=None,
        answer=_rendered,
        ui=SHOWS_EVIDENCE,
    ),
    Declared(
        "get_page",
        "Read a whole page, or up to 3 in a row (pages): its text and tables as rows.",
        PageBrief,
        request=PageRequest,
        full=PageResult,
        or_else=(PagesBrief, PageRange),
    ),
    Declared(
        "get_outline",
        "A document's outline from the headings in its body: 10-K/10-Q Parts and Items, a 年报's 节, the statements "
        "and each note, each with its pages and a `key` for read_section.",
        OutlineBrief,
        request=OutlineRequest,
        full=Outline,
    ),
    Declared(
        "read_section",
        f"Read one section (Item 7, 1A, 第四节, balance_sheet … keys from get_outline): its text, each page headed "
        f"[p.N], at most {SECTION_CHARS:,} characters a call; pass next_cursor as `cursor` to go on.",
        SectionText,
        request=SectionRequest,
    ),
    Declared(
        "get_financials",
        "The financial statements as data: each figure of the income, balance sheet, cash flow and key-data "
        "(主要会计数据) tables with its label as printed, a concept (revenue, net_income, eps_diluted, total_assets, "
        "operating_cash_flow, capex …), its period and the figure as printed, by statement and page; verified only "
        "when its value, scale, currency and period were each read from the filing (else it says what is missing); "
        "detail='full' adds values in units, sources and boxes. Parent-company-only statements (母公司) are left out. "
        "Use it for multi-year figures and ratios; cite each page.",
        FinancialsBrief,
        request=FinancialsRequest,
        full=Financials,
    ),
    Declared(
        "page_image",
        "For the evidence viewer app: a page as PNG, its size in points and the scale.",
        PageImage,
        request=PageImageRequest,
        detail=None,
        answer=page_image_answer,
        ui=FOR_THE_APP,
    ),
)


def build_server(settings: ServerSettings, loader: IndexLoader) -> FastMCP:
    """The FastMCP server: the declared tools answered on ``loader``'s index, the prompt, the index's coverage in the
    instructions and in the descriptions that ask for it."""
    try:
        manifest = read_manifest(settings.index_dir)
        scope, covers = coverage(manifest), coverage_line(manifest)
    except FilingsError as exc:
        scope = covers = f"The index is not available: {exc}"
    auth = SharedTokenVerifier(settings.token) if settings.transport == "http" and settings.token else None
    mcp = FastMCP(SERVER_NAME, instructions=f"{INSTRUCTIONS}\n{scope}", auth=auth, version=__version__)
    schemas: dict[str, dict[str, Any]] = {}
    for declared in TOOLS:
        registered = mcp.add_tool(served(declared, loader, covers))
        schemas[registered.name] = registered.parameters
    mcp.add_resource(evidence_resource())
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


def run(settings: ServerSettings) -> int:
    setup_logging(settings.log_level)
    clean_up_on_sigterm()  # a milvus-lite socket folder is removed on SIGTERM too, then SIGTERM ends the server
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
        serve_http(server, settings)
    else:
        server.run(transport="stdio", show_banner=False)
    return 0
