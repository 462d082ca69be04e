"""Request bodies over HTTP arrive whole, soon, and small, or not at all (ASGI middleware, pure Starlette).

A request whose body never finishes would hold whatever it was counted against (an opening session, a worker)
for as long as the client keeps the connection open. ``BodyGuard`` reads the body of every request to the MCP
endpoint before anything else sees it: within ``deadline_s`` (else 408), at most ``max_bytes`` (else 413), and no
more than ``max_unfinished`` bodies are being read at once (a newcomer over that is told 503 with ``Retry-After``).
The body is then handed on as one message, so the session limits and the endpoint only ever see finished requests.
"""

from __future__ import annotations

import asyncio
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_server.http_guard import MCP_PATH, refuse

logger = logging.getLogger(__name__)

BODY_DEADLINE_S = 10.0  # a tool call's body is a few KB: on loopback it arrives in milliseconds
MAX_BODY_BYTES = 4 << 20  # the largest call the argument caps allow (50 claims, 200 boxes) is well under 1 MB
MAX_UNFINISHED = 32  # bodies being read at once, in all
RETRY_AFTER_S = 1


class BodyGuard:
    def __init__(
        self,
        app: ASGIApp,
        deadline_s: float = BODY_DEADLINE_S,
        max_bytes: int = MAX_BODY_BYTES,
        max_unfinished: int = MAX_UNFINISHED,
        path: str = MCP_PATH,
    ) -> None:
        self.app = app
        self.deadline_s = deadline_s
        self.max_bytes = max_bytes
        self.max_unfinished = max_unfinished
        self.path = path.rstrip("/")
        self.unfinished = 0
        self.refused = {408: 0, 413: 0, 503: 0}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") in ("GET", "HEAD", "DELETE")
            or scope.get("path", "").rstrip("/") != self.path
        ):
            await self.app(scope, receive, send)
            return
        if self.unfinished >= self.max_unfinished:
            await self._refuse(send, 503, "too many requests are still sending their bodies; try again shortly")
            return
        self.unfinished += 1
        try:
            body = await self._read(receive)
        except TimeoutError:
            body = None
            await self._refuse(send, 408, f"the request body did not arrive within {self.deadline_s:g} s")
        except _TooLarge:
            body = None
            await self._refuse(send, 413, f"the request body is over {self.max_bytes} bytes")
        except _Disconnected:
            body = None  # the client left: nobody to answer
        finally:
            self.unfinished -= 1
        if body is None:
            return
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: the client's disconnect, as the endpoint expects

        await self.app(scope, replay, send)

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
