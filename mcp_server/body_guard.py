"""Request bodies over HTTP arrive whole, soon, and small, or not at all (ASGI middleware, pure Starlette).

A request whose body never finishes would hold whatever it was counted against (an opening session, a worker)
for as long as the client keeps the connection open. ``BodyGuard`` reads the body of every request to the MCP
endpoint before anything else sees it: within ``deadline_s`` (else 408), at most ``max_bytes`` (else 413), and no
more than ``max_unfinished`` bodies are being read at once (a newcomer over that is told 503 with ``Retry-After``).
The body is then handed on as one message, so the session limits and the endpoint only ever see finished requests.

What a body costs once parsed is capped too (issue 40): at most ``max_elements`` JSON objects, arrays, keys and
values, counted on the text before anything parses it (else 413; a parsed empty object costs ~80 bytes, so 4 MiB
of ``[{},{},…]`` cost 110 MB), and at most ``max_large_in_flight`` bytes of large bodies (``LARGE_BODY_BYTES`` and
over) in calls at once (else 503, ``Retry-After``); small calls are never refused for it. After large bodies the
heap is trimmed (``mcp_server/heap.py``), so the memory of a flood is given back.
"""

from __future__ import annotations

import asyncio
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_server.heap import HeapTrimmer
from mcp_server.http_guard import MCP_PATH, refuse
from mcp_server.json_elements import json_elements

logger = logging.getLogger(__name__)

BODY_DEADLINE_S = 10.0  # a tool call's body is a few KB: on loopback it arrives in milliseconds
MAX_BODY_BYTES = 4 << 20  # the largest call the argument caps allow (50 claims, 200 boxes) is well under 1 MB
MAX_UNFINISHED = 32  # bodies being read at once, in all
MAX_JSON_ELEMENTS = 20_000  # the largest real call (200 boxes of 5 numbers, 50 claims) has under 3,000
LARGE_BODY_BYTES = 64 << 10  # a search or a page read is a few hundred bytes; 64 KiB and over is "large"
MAX_LARGE_IN_FLIGHT_BYTES = 32 << 20  # large bodies in calls at once: 8 of 4 MiB, each ~40 MB at its peak
RETRY_AFTER_S = 1


class BodyGuard:
    def __init__(
        self,
        app: ASGIApp,
        deadline_s: float = BODY_DEADLINE_S,
        max_bytes: int = MAX_BODY_BYTES,
        max_unfinished: int = MAX_UNFINISHED,
        path: str = MCP_PATH,
        max_elements: int = MAX_JSON_ELEMENTS,
        max_large_in_flight: int = MAX_LARGE_IN_FLIGHT_BYTES,
    ) -> None:
        self.app = app
        self.deadline_s = deadline_s
        self.max_bytes = max_bytes
        self.max_unfinished = max_unfinished
        self.max_elements = max_elements
        self.max_large_in_flight = max_large_in_flight
        self.path = path.rstrip("/")
        self.unfinished = 0
        self.large_in_flight = 0  # bytes of large bodies whose calls are under way
        self.refused = {408: 0, 413: 0, 503: 0}
        self.trimmer = HeapTrimmer()
        self.trimmer.when_idle(lambda: self.large_in_flight > 0)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") in ("GET", "HEAD", "DELETE")
            or scope.get("path", "").rstrip("/") != self.path
        ):
            await self.app(scope, receive, send)
            return
        body = await self._admitted(receive, send)
        if body is None:
            return
        large = len(body) >= LARGE_BODY_BYTES
        self.large_in_flight += len(body) if large else 0
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: the client's disconnect, as the endpoint expects

        try:
            await self.app(scope, replay, send)
        finally:
            if large:
                self.large_in_flight -= len(body)
                self.trimmer.soon()

    async def _admitted(self, receive: Receive, send: Send) -> bytes | None:
        """The whole body if every limit holds; else None, the client told why (or gone)."""
        if self.unfinished >= self.max_unfinished:
            await self._refuse(send, 503, "too many requests are still sending their bodies; try again shortly")
            return None
        self.unfinished += 1
        try:
            body = await self._read(receive)
        except TimeoutError:
            await self._refuse(send, 408, f"the request body did not arrive within {self.deadline_s:g} s")
            return None
        except _TooLarge:
            await self._refuse(send, 413, f"the request body is over {self.max_bytes} bytes")
            self.trimmer.soon()
            return None
        except _Disconnected:
            return None  # the client left: nobody to answer
        finally:
            self.unfinished -= 1
        if json_elements(body, self.max_elements) > self.max_elements:
            await self._refuse(
                send,
                413,
                f"the request body holds over {self.max_elements} JSON elements (objects, arrays, keys and values); "
                "no tool call needs that many: send the call's own arguments, and split a long list over several "
                "calls",
            )
            self.trimmer.soon()
            return None
        if len(body) >= LARGE_BODY_BYTES and self.large_in_flight + len(body) > self.max_large_in_flight:
            await self._refuse(
                send,
                503,
                f"over {self.max_large_in_flight / (1 << 20):g} MiB of large request bodies are in calls now; "
                "wait for earlier calls to finish, then try again",
            )
            return None
        return body

    async def _read(self, receive: Receive) -> bytes:
        parts: list[bytes] = []
        size = 0
        async with asyncio.timeout(self.deadline_s):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    raise _Disconnected
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > self.max_bytes:
                    raise _TooLarge
                parts.append(chunk)
                if not message.get("more_body", False):
                    return b"".join(parts)

    async def _refuse(self, send: Send, status: int, message: str) -> None:
        self.refused[status] += 1
        logger.info("refused a request (%d): %s", status, message)
        headers = [(b"retry-after", str(RETRY_AFTER_S).encode()), (b"connection", b"close")]
        await refuse(send, status, message, headers if status == 503 else [(b"connection", b"close")])


class _TooLarge(Exception):
    pass


class _Disconnected(Exception):
    pass
