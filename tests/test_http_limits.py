"""Limits of the HTTP transport from issue 40's security review, items 4, 5, 12 and 13.

4. Memory from small bodies: 4 MiB of empty JSON objects cost ~110 MB once parsed, and 24 such calls in flight took
   the server to gigabytes it never gave back. Bodies are capped in JSON elements before anything parses them, calls
   in flight are capped per session and per client, and after a flood the memory comes back.
5. The token on the command line, readable by any local user in /proc/PID/cmdline: it now comes from the
   environment or from a private file (``--token-file``); ``--token`` is refused with a message saying so.
12. Connections that never finished their headers were never closed: a header deadline and a connection cap.
13. A 2026-07-28 (stateless) call with a made-up ``Mcp-Session-Id`` skipped the session limiter: six in flight where
   the cap was two. Every POST that is not on an open session now counts against its client's budget.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from starlette.types import Message, Receive, Scope, Send

from mcp_server.auth import TOKEN_ENV
from mcp_server.body_guard import MAX_JSON_ELEMENTS, BodyGuard
from mcp_server.http_guard import SessionLimiter
from mcp_server.json_elements import json_elements
from mcp_server.settings import parse_settings
from tests.test_attacks import HTTP_HEADERS, INIT, _post
from tests.test_http_transport import http_server_process

MODERN = "2026-07-28"
TOKEN = "file-token-5e1d"

# --- in-process: the guards on their own ----------------------------------------------------------------------------


def _elements(value: Any) -> int:
    """What a parser builds: each object, array, key and value."""
    if isinstance(value, dict):
        return 1 + sum(1 + _elements(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(_elements(v) for v in value)
    return 1


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES, st.sampled_from([{}, {"ensure_ascii": False}, {"indent": 2}, {"separators": (",", ":")}]))
def test_json_elements_are_what_a_parser_builds(value: Any, style: dict[str, Any]) -> None:
    assert json_elements(json.dumps(value, **style).encode(), 10**9) == _elements(value)


def test_counting_stops_past_the_limit_and_strings_hide_nothing() -> None:
    flood = b"[" + b",".join([b"{}"] * 1_000_000) + b"]"
    assert json_elements(flood, 20_000) > 20_000
    assert json_elements(b'["' + b"{}," * 100_000 + b'"]', 10) == 2  # brackets inside a string are text
    assert json_elements(b'"' + b'\\"' * 100_000, 10) == 1  # an unterminated string of escaped quotes: linear
    assert json_elements(b'""' * 100_000, 50) <= 52  # many strings: counted one by one, stopped at the limit


def _request(
    guard: Any, headers: list[tuple[bytes, bytes]], body: bytes = b"{}", client: str = "127.0.0.1"
) -> asyncio.Task[list[Message]]:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    async def run() -> list[Message]:
        scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers, "client": (client, 5)}
        await guard(scope, receive, send)
        return sent

    return asyncio.ensure_future(run())


class _Endpoint:
    """Opens a session for a POST without a session id, answers the others once ``release`` is set."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.reached = 0
        self.opened = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await receive()
        headers = dict(scope["headers"])
        if b"mcp-session-id" not in headers and b"mcp-protocol-version" not in headers:  # an initialize
            self.opened += 1
            session = f"s{self.opened}".encode()
            await send({"type": "http.response.start", "status": 200, "headers": [(b"mcp-session-id", session)]})
        else:
            self.reached += 1
            await self.release.wait()
            await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})


def _status(task: asyncio.Task[list[Message]]) -> int:
    return int(task.result()[0]["status"])


def _text(task: asyncio.Task[list[Message]]) -> str:
    return str(task.result()[1]["body"].decode())


def test_a_body_of_too_many_elements_is_refused_unparsed() -> None:
    async def scenario() -> tuple[asyncio.Task[list[Message]], ...]:
        endpoint = _Endpoint()
        endpoint.release.set()
        guard = BodyGuard(endpoint)
        many = b'{"params": {"arguments": [' + b",".join([b"{}"] * MAX_JSON_ELEMENTS) + b"]}}"
        few = b'{"params": {"arguments": [' + b",".join([b"{}"] * 1000) + b"]}}"
        session = [(b"mcp-session-id", b"s1")]
        refused, served = _request(guard, session, many), _request(guard, session, few)
        await asyncio.gather(refused, served)
        return refused, served

    refused, served = asyncio.run(scenario())
    assert _status(refused) == 413 and f"over {MAX_JSON_ELEMENTS} JSON elements" in _text(refused)
    assert _status(served) == 200


def test_large_bodies_in_calls_are_capped_and_small_calls_still_served() -> None:
    async def scenario() -> list[asyncio.Task[list[Message]]]:
        endpoint = _Endpoint()
        guard = BodyGuard(endpoint, max_large_in_flight=200 << 10)
        large = b'{"q": "' + b"x" * (90 << 10) + b'"}'
        session = [(b"mcp-session-id", b"s1")]
        tasks = [_request(guard, session, large) for _ in range(3)]
        await asyncio.sleep(0.05)
        small = _request(guard, session, b'{"q": "revenue"}')
        await asyncio.sleep(0.05)
        endpoint.release.set()
        await asyncio.gather(*tasks, small)
        return [*tasks, small]

    first, second, third, small = asyncio.run(scenario())
    assert [_status(first), _status(second), _status(small)] == [200, 200, 200]
    assert _status(third) == 503 and "wait for earlier calls" in _text(third)


def test_calls_in_flight_are_capped_per_session_and_per_client() -> None:
    async def scenario() -> tuple[list[int], list[int], str, str, int]:
        endpoint = _Endpoint()
        limiter = SessionLimiter(endpoint, calls_per_session=3, calls_per_client=5)
        for _ in range(2):
            await _request(limiter, [])  # sessions s1 and s2 opened
        on = {name: [(b"mcp-session-id", name.encode())] for name in ("s1", "s2")}
        first = [_request(limiter, on["s1"]) for _ in range(4)]
        second = [_request(limiter, on["s2"]) for _ in range(3)]
        await asyncio.sleep(0.05)
        endpoint.release.set()
        await asyncio.gather(*first, *second)
        after = await _request(limiter, on["s1"])  # the counts came back down
        statuses = [_status(t) for t in first], [_status(t) for t in second]
        return *statuses, _text(first[-1]), _text(second[-1]), after[0]["status"]

    first, second, session_message, client_message, after = asyncio.run(scenario())
    assert first == [200, 200, 200, 429] and "this session already has 3 calls in flight" in session_message
    assert second == [200, 200, 429] and "your address already has 5 calls in flight" in client_message
    assert "wait for earlier calls" in session_message and after == 200


def test_every_loopback_address_is_one_client() -> None:
    """A process connecting from 127.0.0.2, .3 … (all reach a loopback server) is still one client: it cannot hold
    every session; another machine's client is served."""

    async def scenario() -> list[int]:
        endpoint = _Endpoint()
        limiter = SessionLimiter(endpoint, max_sessions=4, per_client=2)
        headers = [(b"mcp-protocol-version", MODERN.encode())]
        addresses = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "::1", "::ffff:127.0.0.9", "192.0.2.7"]
        calls = [_request(limiter, headers, client=address) for address in addresses]
        await asyncio.sleep(0.05)
        endpoint.release.set()
        await asyncio.gather(*calls)
        return [_status(t) for t in calls]

    statuses = asyncio.run(scenario())
    assert statuses == [200, 200, 503, 503, 503, 503, 200]


@pytest.mark.parametrize("session_id", [b"made-up-1234", None])
def test_stateless_calls_count_against_the_clients_budget(session_id: bytes | None) -> None:
    async def scenario() -> tuple[int, list[int]]:
        endpoint = _Endpoint()
        limiter = SessionLimiter(endpoint, per_client=2)
        headers = [(b"mcp-protocol-version", MODERN.encode())]
        headers += [(b"mcp-session-id", session_id)] if session_id else []
        calls = [_request(limiter, headers) for _ in range(6)]
        await asyncio.sleep(0.05)
        reached = endpoint.reached
        endpoint.release.set()
        await asyncio.gather(*calls)
        return reached, [_status(t) for t in calls]

    reached, statuses = asyncio.run(scenario())
    assert reached == 2 and sorted(statuses) == [200, 200, 503, 503, 503, 503]


# --- the token: from the environment or a private file, never the command line ---------------------------------------


@pytest.mark.parametrize("given_as", [["--token", "s3cret-on-argv"], ["--token=s3cret-on-argv"]])
@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_a_token_on_the_command_line_is_refused(
    given_as: list[str], transport: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        parse_settings(["--index", "x", "--transport", transport, *given_as])
    error = capsys.readouterr().err
    assert exited.value.code == 2 and "s3cret-on-argv" not in error
    assert TOKEN_ENV in error and "--token-file" in error and "/proc/PID/cmdline" in error


def _token_file(folder: Path, text: str = f"{TOKEN}\n", mode: int = 0o600) -> Path:
    path = folder / f"token-{time.monotonic_ns()}"
    path.write_text(text)
    path.chmod(mode)
    return path


def _settings_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        parse_settings(argv)
    return capsys.readouterr().err


def test_a_token_file_must_be_a_private_regular_file_of_ones_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    http = ["--index", "x", "--transport", "http", "--token-file"]
    good = _token_file(tmp_path)
    assert parse_settings([*http, str(good)]).token == TOKEN
    link = tmp_path / "link"
    link.symlink_to(good)
    cases = {
        _token_file(tmp_path, mode=0o644): "chmod 600",
        _token_file(tmp_path, mode=0o620): "chmod 600",
        link: "symbolic link",
        tmp_path: "not a regular file",
        tmp_path / "missing": "cannot open",
        _token_file(tmp_path, text="\n"): "holds no token",
        _token_file(tmp_path, text="two words\n"): "without spaces",
    }
    if os.geteuid() == 0:
        theirs = _token_file(tmp_path)
        os.chown(theirs, 65534, 65534)
        cases[theirs] = "not to you"
    for path, expected in cases.items():
        error = _settings_error([*http, str(path)], capsys)
        assert expected in error and TOKEN not in error, (path, error)
    monkeypatch.setenv(TOKEN_ENV, "from-env")
    assert "use one" in _settings_error([*http, str(good)], capsys)
    assert parse_settings(http[:-1]).token == "from-env"


# --- a server with a token file, a short header deadline and two sessions per client --------------------------------


@pytest.fixture(scope="module")
def guarded(
    samples_index_dir: Path, cache_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, int]]:
    folder = tmp_path_factory.mktemp("limits")
    options = ("--token-file", str(_token_file(folder)), "--header-timeout", "2", "--max-sessions-per-client", "2")
    with http_server_process(samples_index_dir, cache_dir, folder, *options) as (url, proc):
        yield url, proc.pid


AUTH = {"Authorization": f"Bearer {TOKEN}"}


def test_the_token_from_a_file_is_served_and_not_on_the_command_line(guarded: tuple[str, int]) -> None:
    url, pid = guarded
    assert TOKEN.encode() not in Path(f"/proc/{pid}/cmdline").read_bytes()
    assert _post(url, {}).status_code == 401
    assert _post(url, AUTH).status_code == 200


async def _modern_calls(url: str, calls: int) -> list[bool]:
    async with (
        httpx2.AsyncClient(headers=AUTH, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http), mode="auto") as client,  # type: ignore[arg-type]
    ):
        assert client.protocol_version == MODERN
        results = [await client.call_tool("search_reports", {"query": "营业收入", "top_k": 1}) for _ in range(calls)]
    return [not result.is_error for result in results]


def test_a_stateless_client_is_served_call_after_call_within_the_cap(guarded: tuple[str, int]) -> None:
    url, _ = guarded
    assert asyncio.run(_modern_calls(url, 6)) == [True] * 6  # the cap is two at once, not two in all


def _connect(url: str) -> socket.socket:
    parts = urlsplit(url)
    return socket.create_connection((parts.hostname, parts.port), timeout=30)


def _closed_within(conn: socket.socket, seconds: float, trickle: bytes = b"") -> tuple[bool, bytes]:
    """Whether the server closed ``conn`` within ``seconds`` (sending ``trickle`` one byte every 0.4 s meanwhile),
    and what it said first."""
    deadline = time.monotonic() + seconds
    conn.settimeout(0.4)
    sent = 0
    while time.monotonic() < deadline:
        try:
            if sent < len(trickle):
                conn.sendall(trickle[sent : sent + 1])
                sent += 1
            answer = conn.recv(1000)
        except TimeoutError:
            continue
        except OSError:
            return True, b""
        return True, answer
    return False, b""


def test_a_connection_that_never_finishes_its_headers_is_closed(guarded: tuple[str, int]) -> None:
    url, _ = guarded
    slowloris, silent = _connect(url), _connect(url)
    trickle = f"POST /mcp HTTP/1.1\r\nHost: {urlsplit(url).netloc}\r\nX-Slow: ".encode() + b"a" * 100
    try:
        assert _post(url, AUTH).status_code == 200  # a client is served meanwhile
        closed, answer = _closed_within(slowloris, 8, trickle)  # deadline 2 s; one byte every 0.4 s would take 50 s
        assert closed and answer.startswith(b"HTTP/1.1 408"), answer
        assert b"did not arrive within 2 s" in answer
        assert _closed_within(silent, 2) == (True, b"")  # connected, sent nothing: closed without a word
    finally:
        slowloris.close()
        silent.close()


# --- many idle connections -------------------------------------------------------------------------------------------


def _is_closed(conn: socket.socket) -> bool:
    conn.settimeout(0.05)
    try:
        return conn.recv(1000) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def test_idle_connections_past_the_cap_are_closed_and_a_client_is_served(
    samples_index_dir: Path, cache_dir: Path, tmp_path: Path
) -> None:
    with http_server_process(samples_index_dir, cache_dir, tmp_path, "--max-connections", "8") as (url, _):
        idle = [_connect(url) for _ in range(20)]
        try:
            assert _post(url, {}).status_code == 200  # served while 20 idle connections are open
            time.sleep(0.5)
            closed = [_is_closed(conn) for conn in idle]  # within the header deadline (10 s): the cap closed them
        finally:
            for conn in idle:
                conn.close()
    assert sum(closed) >= 12 and closed[:12] == [True] * 12, closed  # the oldest made room: at most 8 open at once


# --- memory after a flood --------------------------------------------------------------------------------------------


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _flood_bodies(count: int) -> list[bytes]:
    """Tool calls of ~4 MiB (the body cap): half of empty objects, half of one long string."""
    objects = b",".join([b"{}"] * ((4 << 20) // 3 - 100))
    text = b'"' + b"a" * ((4 << 20) - 300) + b'"'
    bodies = []
    for n in range(count):
        junk = objects if n % 2 else text
        head = f'{{"jsonrpc": "2.0", "id": {100 + n}, "method": "tools/call", "params": {{"name": "search_reports", '
        bodies.append(head.encode() + b'"arguments": {"query": "x", "junk": [' + junk + b"]}}}")
    return bodies


async def _flood(url: str, headers: dict[str, str], bodies: list[bytes], concurrency: int) -> list[httpx2.Response]:
    gate = asyncio.Semaphore(concurrency)
    async with httpx2.AsyncClient(timeout=120, headers=headers) as client:

        async def one(body: bytes) -> httpx2.Response:
            async with gate:
                return await client.post(url, content=body)

        return await asyncio.gather(*(one(body) for body in bodies))


def test_memory_comes_back_after_a_flood_of_small_bodies(
    samples_index_dir: Path, cache_dir: Path, tmp_path: Path
) -> None:
    with http_server_process(samples_index_dir, cache_dir, tmp_path) as (url, proc):
        session = _post(url, {}).headers["mcp-session-id"]
        headers = HTTP_HEADERS | {"mcp-session-id": session, "mcp-protocol-version": str(INIT["protocolVersion"])}
        httpx2.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers, timeout=30)
        arguments = {"query": "revenue", "top_k": 1}
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "search_reports", "arguments": arguments},
        }
        assert httpx2.post(url, json=call, headers=headers, timeout=120).status_code == 200  # the index is loaded
        before = _rss_mb(proc.pid)
        answers = asyncio.run(_flood(url, headers, _flood_bodies(48), concurrency=24))
        after = _rss_mb(proc.pid)
        for _ in range(50):  # the heap is trimmed once the flood has stopped
            if after < before + 128:
                break
            time.sleep(0.2)
            after = _rss_mb(proc.pid)
        served = httpx2.post(url, json=call | {"id": 3}, headers=headers, timeout=120).status_code
    statuses = Counter(answer.status_code for answer in answers[1::2])  # the bodies of empty objects
    assert statuses == {413: 24} and "JSON elements" in answers[1].json()["error"]["message"]
    assert after < before + 128, (before, after)  # not the gigabytes a flood used to leave
    assert served == 200
