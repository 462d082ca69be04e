"""Session eviction and slow bodies over HTTP (issue 28, item 5): every loopback client shares one address, so a
local process that opens sessions and calls in each once closed another client's working session; request bodies
that never finish once held every opening slot."""

from __future__ import annotations

import asyncio
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

from starlette.types import Message, Receive, Scope, Send

from mcp_server.body_guard import BodyGuard
from tests.test_attacks import _list_tools, _post
from tests.test_http_transport import serve_http

AUTH = {"Authorization": "Bearer t0ken"}


def test_a_working_session_is_never_closed_for_a_newcomer(
    samples_index_dir: Path, cache_dir: Path, tmp_path: Path
) -> None:
    with serve_http(samples_index_dir, cache_dir, tmp_path, "--max-sessions-per-client", "4", token="t0ken") as url:
        mine = _post(url, AUTH).headers["mcp-session-id"]
        assert _list_tools(url, AUTH, mine) == 200  # a client that works …
        theirs = [_post(url, AUTH).headers["mcp-session-id"] for _ in range(3)]
        assert [_list_tools(url, AUTH, session) for session in theirs] == [200] * 3  # … and a process that fills
        refused = _post(url, AUTH)  # the address's cap with sessions that have each made a call
        assert refused.status_code == 503 and 1 <= int(refused.headers["retry-after"]) <= 60
        assert "try again" in refused.json()["error"]["message"]
        assert _list_tools(url, AUTH, mine) == 200  # the working session still serves


def _slow_body(url: str) -> socket.socket:
    """A POST that announces 1,000 bytes and sends 10."""
    parts = urlsplit(url)
    conn = socket.create_connection((parts.hostname, parts.port), timeout=30)
    head = (
        f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nAuthorization: Bearer t0ken\r\n"
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n"
    )
    conn.sendall(head.encode() + b'{"jsonrpc"')
    return conn


def test_bodies_that_never_finish_hold_nothing(samples_index_dir: Path, cache_dir: Path, tmp_path: Path) -> None:
    options = ("--max-sessions-per-client", "8", "--body-timeout", "3")
    with serve_http(samples_index_dir, cache_dir, tmp_path, *options, token="t0ken") as url:
        slow = [_slow_body(url) for _ in range(8)]  # connected and sent before the next one: accepted before it
        try:
            started = time.monotonic()
            assert _post(url, AUTH).status_code == 200  # a new client is served at once
            assert time.monotonic() - started < 3
            answers = [conn.recv(200).decode("latin-1") for conn in slow]  # each slow one is told, then dropped
        finally:
            for conn in slow:
                conn.close()
    assert all(answer.startswith("HTTP/1.1 408") for answer in answers), answers


def _never_finishing(release: asyncio.Event) -> Receive:
    async def receive() -> Message:
        await release.wait()
        return {"type": "http.disconnect"}

    return receive


def _whole(body: bytes) -> Receive:
    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def _endpoint(scope: Scope, receive: Receive, send: Send) -> None:
    message = await receive()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": message["body"]})


def _call(guard: BodyGuard, receive: Receive) -> asyncio.Task[list[Message]]:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def run() -> list[Message]:
        scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": []}
        await guard(scope, receive, send)
        return sent

    return asyncio.ensure_future(run())


def test_unfinished_bodies_are_capped_and_large_ones_refused() -> None:
    async def scenario() -> tuple[list[Message], list[Message], list[Message]]:
        guard = BodyGuard(_endpoint, deadline_s=30, max_bytes=100, max_unfinished=2)
        release = asyncio.Event()
        hanging = [_call(guard, _never_finishing(release)) for _ in range(2)]
        await asyncio.sleep(0)
        over_cap = await _call(guard, _whole(b"{}"))
        release.set()
        await asyncio.gather(*hanging)
        too_large = await _call(guard, _whole(b"x" * 101))
        served = await _call(guard, _whole(b'{"ok": 1}'))
        return over_cap, too_large, served

    over_cap, too_large, served = asyncio.run(scenario())
    assert over_cap[0]["status"] == 503 and (b"retry-after", b"1") in over_cap[0]["headers"]
    assert too_large[0]["status"] == 413
    assert served[0]["status"] == 200 and served[1]["body"] == b'{"ok": 1}'


def test_a_body_past_its_deadline_gets_408() -> None:
    async def scenario() -> list[Message]:
        guard = BodyGuard(_endpoint, deadline_s=0.2)
        return await _call(guard, _never_finishing(asyncio.Event()))

    answer = asyncio.run(scenario())
    assert answer[0]["status"] == 408 and b"did not arrive within 0.2 s" in answer[1]["body"]
