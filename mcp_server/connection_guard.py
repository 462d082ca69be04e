"""Connections to the HTTP server finish their request headers soon, and there are not too many of them.

uvicorn's h11 protocol starts no timer on a new connection, and stops its keep-alive timer at the first byte of the
next request: a client that connects and sends nothing, or one header byte every few seconds, held its connection
(a file descriptor, a protocol object) for as long as it liked, and enough of them use up the descriptors every
client needs (issue 40). ``guarded_h11`` makes a subclass of that protocol with two limits:

- Headers deadline: from the moment a connection opens or its previous response ends, the next request's line and
  headers must be complete within ``header_timeout_s``, however slowly the bytes come; else the connection is
  closed (with a 408 if part of a request had come). The body has its own deadline (``BodyGuard``), and a
  response under way (a call, an event stream) is never cut.
- Connection cap: at most ``max_connections`` open at once. A newcomer over the cap closes the connection that has
  been waiting longest for its headers, idle or half-sent; only when every connection is inside a request is the
  newcomer itself refused (503, ``Retry-After``). A flood of idle connections therefore never keeps a client that
  sends its request at once from being served. uvicorn's own ``limit_concurrency`` would answer that client 503
  while the idle ones stay.

Request lines and headers are capped at ``MAX_HEADER_BYTES`` by h11 (else 400), and WebSocket upgrades are off
(the MCP endpoint is plain HTTP), so no connection leaves this protocol.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

logger = logging.getLogger(__name__)

HEADER_DEADLINE_S = 10.0  # a request's line and headers are one packet; a person typing them needs longer
MAX_CONNECTIONS = 512  # above the session cap (each session may hold an event stream) plus calls in flight
MAX_HEADER_BYTES = 16 << 10  # h11's default, named here: a request line and headers of the MCP endpoint are < 2 KiB
REFUSAL_RETRY_AFTER_S = 1
_WAITS = itertools.count()  # the order in which connections began waiting for headers (the oldest is closed first)


def _raw_response(status: str, message: str, retry_after: int | None = None) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}).encode()
    retry = f"Retry-After: {retry_after}\r\n" if retry_after is not None else ""
    head = (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n{retry}"
        "Connection: close\r\n\r\n"
    )
    return head.encode("latin-1") + body


class _GuardedH11Protocol(H11Protocol):
    header_timeout_s = HEADER_DEADLINE_S
    max_connections = MAX_CONNECTIONS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._waiting_since = 0  # when the wait for the current request's headers began, in _WAITS order
        self._before: object = None  # the request cycle before the one awaited
        self._partial = False  # bytes of the awaited request have come

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_headers()
        if len(self.connections) > self.max_connections:
            self._make_room()

    def data_received(self, data: bytes) -> None:
        self._partial = self._partial or bool(data)
        super().data_received(data)
        self._check_headers()

    def on_response_complete(self) -> None:
        if not self.transport.is_closing():
            self._await_headers()
        super().on_response_complete()
        self._check_headers()  # a pipelined request may have begun already

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)

    def _await_headers(self) -> None:
        self._stop_waiting()
        self._waiting_since = next(_WAITS)
        self._before = self.cycle
        self._partial = False
        self._deadline = self.loop.call_later(self.header_timeout_s, self._headers_late)

    def _check_headers(self) -> None:
        if self._deadline is not None and self.cycle is not self._before:
            self._stop_waiting()  # a new request's headers are in: its body and response have their own limits

    def _stop_waiting(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _headers_late(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self._partial:
            message = f"the request line and headers did not arrive within {self.header_timeout_s:g} s"
            self.transport.write(_raw_response("408 Request Timeout", message))
        logger.info("closed a connection from %s: no complete request headers in time", self.client)
        self.transport.close()

    def _make_room(self) -> None:
        """Close the connection waiting longest for its headers; if none is, refuse this one."""
        waiting = [c for c in self.connections if isinstance(c, _GuardedH11Protocol) and c._deadline is not None]
        oldest = min((c for c in waiting if c is not self), key=lambda c: c._waiting_since, default=None)
        if oldest is not None:
            logger.info("%d connections are open: closed one that was waiting for its headers", len(self.connections))
            oldest._stop_waiting()
            oldest.transport.close()
            return
        logger.warning("refused a connection: %d are open and every one is inside a request", len(self.connections))
        self._stop_waiting()
        message = f"the server has {self.max_connections} connections busy with requests; try again shortly"
        self.transport.write(_raw_response("503 Service Unavailable", message, REFUSAL_RETRY_AFTER_S))
        self.transport.close()


def guarded_h11(header_timeout_s: float = HEADER_DEADLINE_S, max_connections: int = MAX_CONNECTIONS) -> type:
    """uvicorn's h11 protocol with these limits (uvicorn builds one per connection from the class it is given)."""
    attributes = {"header_timeout_s": header_timeout_s, "max_connections": max_connections}
    return type("GuardedH11Protocol", (_GuardedH11Protocol,), attributes)
