"""A session flood against the HTTP transport: a working client opens a session, a flooder sends N `initialize`
calls (never closing a session), then the working client calls again and a new client connects.

    python bench/session_flood.py --index INDEX [--count 10000]          # starts its own server (default settings)
    FILINGS_MCP_TOKEN=T python bench/session_flood.py --url http://127.0.0.1:8765/mcp [--pid SERVER_PID] [--count N]

The token, for a server that needs one, comes from FILINGS_MCP_TOKEN (as the server's does): on the command line
every local user could read it. Prints JSON: the flood's answers by HTTP status, whether both clients were served,
seconds, server RSS before/after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "flood", "version": "0"}},
}

JSON_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def rss_mb(pid: int | None) -> float | None:
    if pid is None:
        return None
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return None


async def _flood(url: str, count: int, concurrency: int, headers: dict[str, str]) -> dict[str, int]:
    statuses: dict[int, int] = {}
    todo = iter(range(count))
    headers = headers | JSON_HEADERS
    async with httpx2.AsyncClient(timeout=60, headers=headers) as client:

        async def worker() -> None:
            for _ in todo:
                answer = await client.post(url, content=json.dumps(INIT))
                statuses[answer.status_code] = statuses.get(answer.status_code, 0) + 1

        await asyncio.gather(*(worker() for _ in range(concurrency)))
    return {str(k): v for k, v in sorted(statuses.items())}


async def run(url: str, count: int, concurrency: int, token: str | None, pid: int | None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    out: dict[str, Any] = {"flood_calls": count}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as working,
    ):
        await working.initialize()
        await working.call_tool("search_reports", {"query": "revenue", "top_k": 1})  # index and embedder loaded
        out["rss_before_mb"] = rss_mb(pid)
        started = time.perf_counter()
        out["flood_statuses"] = await _flood(url, count, concurrency, headers)
        out["flood_seconds"] = round(time.perf_counter() - started, 2)
        out["rss_after_mb"] = rss_mb(pid)
        after = await working.call_tool("search_reports", {"query": "revenue", "top_k": 1})
        out["working_client_served"] = not after.is_error
        newcomer = await http.post(url, content=json.dumps(INIT), headers=JSON_HEADERS)  # while the flood's are open
        out["new_client_served"] = newcomer.status_code == 200
    return out


def run_flood_test(index: Path, count: int, concurrency: int = 16) -> dict[str, Any]:
    """Start the HTTP server on ``index`` (default session limits), flood it from this process, stop it."""
    from http_load import serving  # a sibling script (bench/ is on the path when run as a script)

    with serving(index) as (url, pid):
        return asyncio.run(run(url, count, concurrency, None, pid))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, default=None, help="start a server on this index")
    parser.add_argument("--url", default=None, help="or flood a running server")
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--pid", type=int, default=None, help="the server's pid, to read its memory")
    args = parser.parse_args()
    if args.index is not None:
        result = run_flood_test(args.index, args.count, args.concurrency)
    elif args.url:
        token = os.environ.get("FILINGS_MCP_TOKEN") or None
        result = asyncio.run(run(args.url, args.count, args.concurrency, token, args.pid))
    else:
        parser.error("pass --index INDEX (a server is started) or --url URL")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
