"""The Streamable HTTP transport: one loaded index shared by several clients, guarded by a bearer token."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from mcp_server.auth import TOKEN_ENV
from tests.conftest import ROOT, SIFANG

TOKEN = "test-token-7f3a"


@contextmanager
def http_server_process(
    index: Path, cache: Path, log_folder: Path, *options: str, token: str | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """filings-mcp over HTTP on a port it picks (--port 0); yields the endpoint's URL exactly as the server logs it
    (so the address a user would paste into a client is the one tested) and the process. A token is given the way
    users are told to give it: in the server's environment (never on its command line, which others can read)."""
    log_path = log_folder / f"server-{time.monotonic_ns()}.log"
    log = log_path.open("w+b")  # a pipe nobody reads could fill up
    command = [sys.executable, "-m", "mcp_server", "--index", str(index), "--cache-dir", str(cache)]
    env = {k: v for k, v in os.environ.items() if k != TOKEN_ENV} | ({TOKEN_ENV: token} if token else {})
    proc = subprocess.Popen(
        [*command, "--transport", "http", "--port", "0", *options],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
    )
    deadline = time.monotonic() + 60
    url = None
    while url is None and time.monotonic() < deadline and proc.poll() is None:
        found = re.search(r"serving .* at (http://\S+/mcp)\b", log_path.read_text(errors="replace"))
        url = found.group(1) if found else None
        time.sleep(0.1)
    if url is None:
        proc.kill()
        pytest.fail("the HTTP server did not log its address: " + log_path.read_text(errors="replace"))
    try:
        yield url, proc
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


@contextmanager
def serve_http(index: Path, cache: Path, log_folder: Path, *options: str, token: str | None = None) -> Iterator[str]:
    """The URL of ``http_server_process``."""
    with http_server_process(index, cache, log_folder, *options, token=token) as (url, _):
        yield url


@pytest.fixture(scope="module")
def http_server(samples_index_dir: Path, cache_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serve_http(samples_index_dir, cache_dir, tmp_path_factory.mktemp("http"), token=TOKEN) as url:
        yield url


QUESTIONS = ["营业收入", "net revenues", "金刚线 产能", "comparable sales", "总资产"]


def _mixed_call(n: int) -> tuple[str, dict[str, Any]]:
    """Call n of a mix: every sixth reads a page or verifies a quote (in turn), the others search."""
    if n % 6 == 5:
        if n // 6 % 2:
            return "locate_quote", {"document": SIFANG.name, "page": 5, "quote": "1,175,301,034.32"}
        return "get_page", {"document": SIFANG.name, "page": 5}
    return "search_reports", {"query": QUESTIONS[n % len(QUESTIONS)], "top_k": 3}


async def _session(url: str, token: str | None, calls: int) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    out: dict[str, Any] = {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        out["docs"] = await session.call_tool("list_documents", {})
        started = time.perf_counter()
        # all in flight at once
        results = await asyncio.gather(*(session.call_tool(*_mixed_call(n)) for n in range(calls)))
        out["seconds"] = time.perf_counter() - started
        out["results"] = results
    return out


def test_served_over_http_with_the_token(http_server: str) -> None:
    out = asyncio.run(_session(http_server, TOKEN, calls=60))  # 50 searches, 5 pages, 5 quotes, concurrently
    assert {d["document"] for d in out["docs"].structured_content["documents"]} >= {SIFANG.name}
    assert all(not r.is_error for r in out["results"])
    for n, result in enumerate(out["results"]):  # each answer is the answer to its own request
        tool, arguments = _mixed_call(n)
        answer = result.structured_content
        if tool == "search_reports":
            assert answer["query"] == arguments["query"] and answer["hits"]
        elif tool == "get_page":
            rows = [row for table in answer["tables"] for row in table["rows"]]
            assert answer["page"] == 5 and any("1,175,301,034.32" in row for row in rows)  # the key figures, as rows
        else:
            assert answer["verified"] and answer["bboxes"][0]["page"] == 5 and answer["boxes_total"] >= 1


def test_requests_without_the_token_are_refused(http_server: str) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    for auth in ({}, {"Authorization": "Bearer wrong"}):
        answer = httpx2.post(http_server, json=body, headers=headers | auth, timeout=30)
        assert answer.status_code == 401 and answer.headers["www-authenticate"].startswith("Bearer")
        message = answer.json()["error"]["message"]
        assert "send the header 'Authorization: Bearer <the server's token>'" in message and TOKEN_ENV in message


def test_a_public_address_without_a_token_is_refused() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "mcp_server", "--index", "x", "--transport", "http", "--host", "0.0.0.0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin"},
    )
    assert (
        run.returncode == 2 and "--token-file" in run.stderr and TOKEN_ENV in run.stderr and "127.0.0.1" in run.stderr
    )
