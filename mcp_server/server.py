"""Wiring: FastMCP tools over the functions in mcp_server.tools. Errors become ToolError here."""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from typing import Annotated, TypeVar

from fastmcp import FastMCP
from fastmcp.exceptions import ToolError
from pydantic import Field

from indexer.errors import FilingsError
from indexer.store import read_manifest
from mcp_server.loader import IndexLoader
from mcp_server.settings import ServerSettings
from mcp_server.tools import coverage, get_page_tool, list_documents_tool, search_reports_tool
from mcp_server.types import DocumentList, PageResult, SearchResult

logger = logging.getLogger(__name__)

T = TypeVar("T")
LOAD_DELAY_S = 0.5
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}

_CITE = (
    "Every figure or statement you take from a result must be cited with its document and 1-based page "
    "(e.g. BESTBUY_2024Q2_10Q.pdf p.19); call get_page to read the whole page before quoting."
)


def _call(loader: IndexLoader, work: Callable[..., T], *args: object) -> T:
    try:
        return work(loader.get(), *args)
    except FilingsError as exc:
        raise ToolError(str(exc)) from exc


def build_server(settings: ServerSettings, loader: IndexLoader) -> FastMCP:
    try:
        scope = coverage(read_manifest(settings.index_dir))
    except FilingsError as exc:
        scope = f"The index is not available: {exc}"
    mcp = FastMCP(
        "filings",
        instructions=(
            "Search financial filings (SEC 10-K/10-Q/8-K, earnings releases) and Chinese annual reports (年报) and "
            f"broker research (研报) stored locally. {_CITE}\n{scope}"
        ),
    )

    def list_documents() -> DocumentList:
        return _call(loader, list_documents_tool)

    def search_reports(
        query: Annotated[
            str,
            Field(
                description="question or key terms, English or Chinese, e.g. 'capital expenditures 2022' or '营业收入'"
            ),
        ],
        top_k: Annotated[int, Field(ge=1, le=20, description="number of passages to return (1-20)")] = 5,
        documents: Annotated[
            str | None, Field(description="restrict to file names matching this glob, e.g. '*2022*' or 'BESTBUY_*'")
        ] = None,
        company: Annotated[
            str | None,
            Field(description="restrict to one company: a name as in list_documents, a ticker or a stock code"),
        ] = None,
        year: Annotated[
            int | None, Field(ge=1900, le=2100, description="restrict to documents of this fiscal year")
        ] = None,
        form: Annotated[
            str | None, Field(description="restrict to a document type: 10-K, 10-Q, 8-K, earnings release, 年报, 研报")
        ] = None,
        use_regex: Annotated[
            bool,
            Field(description=r"treat query as a case-insensitive regular expression, e.g. '\$[\d,]+\s*million'"),
        ] = False,
    ) -> SearchResult:
        return _call(loader, search_reports_tool, query, top_k, documents, company, year, form, use_regex)

    def get_page(
        document: Annotated[str, Field(description="a file name exactly as list_documents gives it")],
        page: Annotated[int, Field(description="1-based page number")],
    ) -> PageResult:
        return _call(loader, get_page_tool, document, page)

    mcp.tool(
        list_documents,
        description=f"List the documents in the knowledge base: company, form, period, language, pages.\n{scope}",
        annotations=READ_ONLY,
    )
    mcp.tool(
        search_reports,
        description=(
            "Search the filings for passages (keyword BM25 + semantic search, fused; English and Chinese terms "
            "and periods are expanded, e.g. 1Q25 ↔ 2025年第一季度, capex ↔ 资本开支). Returns the best passage of each "
            "page, best first, with its document, 1-based page, and the bounding boxes of its lines (PDF points, "
            "top-left origin). A company, year or form named in the query narrows the search to those filings; "
            "`documents`, `company`, `year` and `form` do so explicitly. To compare filings, search each one. "
            f"{_CITE}\n{scope}"
        ),
        annotations=READ_ONLY,
    )
    mcp.tool(
        get_page,
        description=(
            "Read one whole page of a document: its text and each line with its bounding box. Use it to check "
            "context around a search hit before quoting. Only documents from list_documents can be read."
        ),
        annotations=READ_ONLY,
    )
    return mcp


def run(settings: ServerSettings) -> int:
    logging.basicConfig(stream=sys.stderr, level=settings.log_level, format="%(levelname)s %(name)s: %(message)s")
    for noisy in ("bm25s", "jieba", "fastmcp", "mcp", "httpx"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, logging.getLogger().level))
    loader = IndexLoader(settings.index_dir, settings.cache_dir, settings.load_timeout)
    server = build_server(settings, loader)
    # Loading holds the GIL in long stretches (jieba's dictionary); give the handshake a head start. A call that
    # arrives earlier starts the load itself.
    timer = threading.Timer(LOAD_DELAY_S, loader.start)
    timer.daemon = True
    timer.start()
    server.run(transport="stdio", show_banner=False)
    return 0
