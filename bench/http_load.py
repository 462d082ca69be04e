"""Load test of the Streamable HTTP transport from a second process: throughput and latency of a shared server.

    python bench/http_load.py --index INDEX [--clients 8] [--requests 400] [--seconds 120] [--json out.json]

Starts `filings-mcp --transport http` on a free loopback port, then opens ``--clients`` MCP sessions (as several
agents sharing one server would) that each send calls one after another — 8 searches, then a page read, then a
quote check, in turn — until ``--requests`` calls in all have been answered or ``--seconds`` have passed.
Prints calls/s and latency percentiles, per tool and overall; every call must succeed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from stats import percentile

QUERIES = [
    "total revenue",
    "营业收入",
    "net income attributable to shareholders",
    "经营活动产生的现金流量净额",
    "capital expenditures",
    "毛利率",
    "share repurchase",
    "研发投入",
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


Call = tuple[str, dict[str, Any]]


async def _plan(url: str) -> tuple[list[Call], list[Call]]:
    """The calls to cycle through: searches, and page reads and quote checks of those searches' first hits."""
    async with (
        httpx2.AsyncClient(timeout=120) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        searches: list[Call] = []
        others: list[Call] = []
        for query in QUERIES:
            result = await session.call_tool("search_reports", {"query": query, "top_k": 5})
            if result.is_error:
                raise RuntimeError(f"search {query!r} failed: {result.content}")
            hit = result.structured_content["hits"][0]  # type: ignore[index]
            figure = next((w for w in hit["text"].split() if any(c.isdigit() for c in w) and len(w) > 4), None)
            searches.append(("search_reports", {"query": query, "top_k": 5}))
            others.append(("get_page", {"document": hit["document"], "page": hit["page"]}))
            if figure:
                others.append(("locate_quote", {"document": hit["document"], "page": hit["page"], "quote": figure}))
    return searches, others


async def _client(
    url: str, plan: tuple[list[Call], list[Call]], offset: int, budget: list[int], deadline: float
) -> list[tuple[str, float]]:
    searches, others = plan
    timings: list[tuple[str, float]] = []
    async with (
        httpx2.AsyncClient(timeout=120) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        n = offset
        while budget[0] > 0 and time.monotonic() < deadline:
            budget[0] -= 1
            tool, arguments = searches[n % len(searches)] if n % 9 < 8 else others[n // 9 % len(others)]
            started = time.perf_counter()
            result = await session.call_tool(tool, arguments)
            if result.is_error:
                raise RuntimeError(f"{tool} {arguments} failed: {result.content}")
            timings.append((tool, (time.perf_counter() - started) * 1000))
            n += 1
    return timings


def _summary(latencies: list[float], seconds: float) -> dict[str, float]:
    return {
        "calls": len(latencies),
        "calls_per_s": round(len(latencies) / seconds, 1),
        "p50_ms": round(percentile(latencies, 0.50), 1),
        "p95_ms": round(percentile(latencies, 0.95), 1),
        "p99_ms": round(percentile(latencies, 0.99), 1),
    }


async def load_test(url: str, clients: int, requests: int, seconds: float) -> dict[str, Any]:
    plan = await _plan(url)
    budget = [requests]
    started = time.perf_counter()
    deadline = time.monotonic() + seconds
    runs = await asyncio.gather(*(_client(url, plan, 7 * k, budget, deadline) for k in range(clients)))
    wall = time.perf_counter() - started
    timings = [t for run in runs for t in run]
    out: dict[str, Any] = {"clients": clients, "seconds": round(wall, 1)}
    out["all"] = _summary([t for _, t in timings], wall)
    for tool in sorted({name for name, _ in timings}):
        out[tool] = _summary([t for name, t in timings if name == tool], wall)
    return out


@contextmanager
def serving(index: Path, *options: str) -> Iterator[tuple[str, int]]:
    """`filings-mcp --transport http` on ``index`` in its own process, on a free loopback port: (URL, pid)."""
    port = _free_port()
    command = [sys.executable, "-m", "mcp_server", "--index", str(index), "--transport", "http", "--port", str(port)]
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen([*command, *options], stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                        break
                except OSError as exc:
                    if server.poll() is not None or time.monotonic() > deadline:
                        log.seek(0)
                        failure = log.read().decode(errors="replace")
                        raise RuntimeError(f"the HTTP server did not start: {failure}") from exc
                    time.sleep(0.2)
            yield f"http://127.0.0.1:{port}/mcp", server.pid
        finally:
            server.terminate()
            server.wait(timeout=30)


def run_load_test(index: Path, clients: int, requests: int, seconds: float) -> dict[str, Any]:
    """Start the HTTP server on ``index`` in its own process, load it from this one, stop it."""
    with serving(index) as (url, _):
        return asyncio.run(load_test(url, clients, requests, seconds))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    result = run_load_test(args.index, args.clients, args.requests, args.seconds)
    print(json.dumps(result, indent=2))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
