"""Wiring: the tools (mcp_server/tools/, one module each; tool_registry serves a row), the prompt, and the server
around them."""

from __future__ import annotations

import gc
import logging
import threading
from typing import Any

from fastmcp import FastMCP
from fastmcp.prompts import Prompt

from indexer import __version__
from indexer.core.errors import FilingsError
from indexer.core.exits import clean_up_on_sigterm
from indexer.core.logs import setup_logging
from indexer.index.store import read_manifest
from mcp_server.argument_errors import PlainArgumentErrors
from mcp_server.auth import SharedTokenVerifier
from mcp_server.coverage import coverage, coverage_line
from mcp_server.evidence_app import evidence_resource
from mcp_server.http_serve import serve_http
from mcp_server.loader import IndexLoader
from mcp_server.prompts import due_diligence
from mcp_server.settings import ServerSettings
from mcp_server.tool_registry import CITE, served
from mcp_server.tools import TOOLS

__all__ = ["TOOLS", "build_server", "run"]

logger = logging.getLogger(__name__)

LOAD_DELAY_S = 0.5
GC_YOUNG_THRESHOLD = 10_000  # allocations between young collections (default 700): fewer pauses in a search

INSTRUCTIONS = (
    "Search financial filings (SEC 10-K/10-Q/8-K, earnings releases) and Chinese annual reports (年报) and broker "
    f"research (研报) stored locally. {CITE}"
)
SERVER_NAME = "filings-mcp"  # serverInfo.name; serverInfo.version is the package's


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
