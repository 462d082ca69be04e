"""filings-mcp: a stdio MCP server over a filings index built by `filings-index build`."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    # First thing: stray prints from any library go to stderr; stdout carries only JSON-RPC.
    from mcp_server.stdio_guard import guard_stdout

    guard_stdout()

    from mcp_server.server import run
    from mcp_server.settings import parse_settings

    settings = parse_settings(argv)
    return run(settings)
