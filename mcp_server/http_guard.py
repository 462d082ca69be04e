"""What the HTTP transport checks before a request reaches the MCP endpoint (ASGI middleware, pure Starlette):

- ``HostOriginGuard``: the ``Host`` header must name this server (loopback names, the bound address, or a name
  given with ``--allow-host``), else 421; an ``Origin`` header, when a browser sends one, must be a loopback origin,
  an allowed host, or one given with ``--allow-origin``, else 403. This stops DNS rebinding: a web page on
  ``evil.example`` that resolves to 127.0.0.1 cannot read the user's index, token or not.
- ``SessionLimiter``: at most ``max_sessions`` open sessions, and ``per_client`` per client address. A new session
  over either cap closes an idle session of that client (or, for the global cap, of the client holding the most):
  sessions that never went past the handshake first, then the least recently used. A session with a call in flight
  or one made within the idle timeout is never closed for a newcomer: the newcomer is refused (503, Retry-After).
  Every loopback address counts as one client (``client_of``), so a local process that opens sessions and calls
  in each cannot close another client's working session, whatever 127.x address it uses; a flood of
  ``initialize`` calls only closes the flooder's own sessions.
  A POST that is not on an open session — an ``initialize``, a stateless 2026-07-28 call, or one that names a
  session this server does not have — is counted as opening one while it runs (issue 40: stateless calls with a
  made-up ``Mcp-Session-Id`` used to skip the count, six in flight where the cap was two). Calls in flight are
  capped too, ``calls_per_session`` per session and ``calls_per_client`` per client address (else 429 with
  ``Retry-After``): each call holds its parsed body until it is answered.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import math
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from mcp_server.auth import TOKEN_ENV, is_loopback

logger = logging.getLogger(__name__)

SESSION_HEADER = b"mcp-session-id"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})
MAX_SESSIONS = 256
MAX_SESSIONS_PER_CLIENT = 64
SESSION_IDLE_TIMEOUT_S = 600.0
MCP_PATH = "/mcp"  # FastMCP's Streamable HTTP endpoint
RETRY_AFTER_MAX_S = 60  # a refused newcomer is told to come back within a minute at the latest
HANDSHAKE_POSTS = 2  # initialize, then notifications/initialized: a session with no more has done no work
MAX_CALLS_PER_SESSION = 64  # in flight at once; an agent sends a few, the tests 60 (50 searches, 10 page reads)
MAX_CALLS_PER_CLIENT = 128  # in flight at once from one address (every loopback client shares one)
CALL_RETRY_AFTER_S = 1


LOOPBACK_CLIENT = "this machine (loopback)"


def client_of(scope: Scope) -> str:
    """Who a request comes from, as the caps count clients: its address, except that every loopback address
    (127.0.0.0/8, ::1, ::ffff:127.x) is one client, this machine's: a process that connects from 127.0.0.2, .3 … is
    still one client, and cannot take every session by changing its address."""
    host = str((scope.get("client") or ("unknown", 0))[0])
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host
    mapped = getattr(address, "ipv4_mapped", None)
    return LOOPBACK_CLIENT if (mapped or address).is_loopback else str(address)


async def refuse(send: Send, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": message}}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()), *(headers or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def host_name(authority: str) -> str:
    """The host of a ``Host`` header or URL authority, lower-cased, without port or IPv6 brackets."""
    authority = authority.strip().lower()
    if authority.startswith("["):
        return authority[1 : authority.find("]")] if "]" in authority else authority
    return authority.rsplit(":", 1)[0] if authority.count(":") == 1 else authority


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class HostPolicy:
    """Which Host and Origin headers a server bound to ``bind`` answers."""

    bind: str
    allowed_hosts: frozenset[str] = frozenset()
    allowed_origins: frozenset[str] = frozenset()

    @classmethod
    def create(cls, bind: str, hosts: Iterable[str] = (), origins: Iterable[str] = ()) -> HostPolicy:
        return cls(
            bind=host_name(bind),
            allowed_hosts=frozenset(host_name(h) for h in hosts),
            allowed_origins=frozenset(o.strip().rstrip("/").lower() for o in origins),
        )

    def host_allowed(self, host: str | None) -> bool:
        if not host:
            return False
        name = host_name(host)
        if name in LOOPBACK_NAMES or name == self.bind or name in self.allowed_hosts:
            return True
        # Bound to every interface: any address is this machine's; a name needs --allow-host (a rebinding attack
        # always arrives under the attacker's name, never under an address).
        return self.bind in WILDCARD_BINDS and _is_ip(name)

    def origin_allowed(self, origin: str | None) -> bool:
        if origin is None:
            return True  # not a browser (CLI clients, SDKs, the Inspector's proxy)
        normalised = origin.strip().rstrip("/").lower()
        if normalised in self.allowed_origins:
            return True
        parts = urlsplit(normalised)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False
        name = parts.hostname
        return is_loopback(name) or name in LOOPBACK_NAMES or name in self.allowed_hosts


class HostOriginGuard:
    def __init__(self, app: ASGIApp, policy: HostPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = _header(scope, b"host")
        if not self.policy.host_allowed(host):
            logger.warning("refused a request for Host %r (not this server's)", (host or "")[:100])
            await refuse(
                send,
                421,
                f"Host {(host or '(none)')[:100]!r} is not a name of this server; connect to 127.0.0.1 or localhost, "
                "or start filings-mcp with --allow-host NAME",
            )
            return
        origin = _header(scope, b"origin")
        if not self.policy.origin_allowed(origin):
            logger.warning("refused a request from Origin %r", (origin or "")[:100])
            await refuse(
                send,
                403,
                f"Origin {(origin or '')[:100]!r} may not use this server; start filings-mcp with --allow-origin "
                "ORIGIN to allow a web client",
            )
            return
        await self.app(scope, receive, send)


class TokenGuard:
    """With a token, requests to the MCP endpoint must carry ``Authorization: Bearer <token>``; a missing or wrong one
    gets a 401 that says how to send it (FastMCP's own check, behind this one, answers with OAuth metadata that a
    client with a shared token cannot use)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and str(scope.get("path", "")).startswith(MCP_PATH):
            scheme, _, given = (_header(scope, b"authorization") or "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), self._token):
                logger.warning("refused a request without the token (Authorization header missing or wrong)")
                await refuse(
                    send,
                    401,
                    "missing or wrong token: send the header 'Authorization: Bearer <the server's token>' (the one in "
                    f"its {TOKEN_ENV} or --token-file)",
                    [(b"www-authenticate", b'Bearer realm="filings-mcp"')],
                )
                return
        await self.app(scope, receive, send)


@dataclass
class _Session:
    client: str
    template: dict[str, Any]  # the opening request's scope (path, auth), to close the session through the endpoint
    headers: list[tuple[bytes, bytes]]
    created: float = field(default_factory=time.monotonic)
    last_used: float = field(default_factory=time.monotonic)
    posts: int = 1
    in_flight: int = 0


class SessionLimiter:
    """Caps open Streamable HTTP sessions, in total and per client address, by closing idle ones (see module)."""

    def __init__(
        self,
        app: ASGIApp,
        max_sessions: int = MAX_SESSIONS,
        per_client: int = MAX_SESSIONS_PER_CLIENT,
        idle_timeout: float = SESSION_IDLE_TIMEOUT_S,
        path: str = MCP_PATH,
        calls_per_session: int = MAX_CALLS_PER_SESSION,
        calls_per_client: int = MAX_CALLS_PER_CLIENT,
    ) -> None:
        self.app = app
        self.idle_timeout = idle_timeout
        self.path = path.rstrip("/")
        self.max_sessions = max_sessions
        self.per_client = per_client
        self.calls_per_session = calls_per_session
        self.calls_per_client = calls_per_client
        self.sessions: dict[str, _Session] = {}
        self.opening: dict[str, int] = {}  # requests not on an open session, running now, per client (see module)
        self.calls: dict[str, int] = {}  # calls in flight per client, opening ones included
        self.evicted = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path", "").rstrip("/") != self.path:
            await self.app(scope, receive, send)  # only the MCP endpoint opens sessions
            return
        session_id = _header(scope, SESSION_HEADER)
        session = self.sessions.get(session_id) if session_id is not None else None
        if session is None:
            if scope["method"] == "POST":  # a new session, a stateless call, or a session we do not have
                await self._open(scope, receive, send)
            else:
                await self.app(scope, receive, send)  # answered 404/405 at once: no work
            return
        counted = scope["method"] != "GET"  # a GET is the session's long-lived event stream, not work
        if counted:
            if await self._over_call_caps(send, session.client, session):
                return
            session.posts += 1
            session.in_flight += 1
            session.last_used = time.monotonic()
            self.calls[session.client] = self.calls.get(session.client, 0) + 1
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            if counted:
                session.in_flight -= 1
                self._call_ended(session.client)
            if status == 404 or scope["method"] == "DELETE":  # expired, or ended by its client
                self.sessions.pop(session_id or "", None)

    async def _open(self, scope: Scope, receive: Receive, send: Send) -> None:
        client = client_of(scope)
        if await self._over_call_caps(send, client, None):
            return
        if not await self._make_room(client):
            wait = self._retry_after(client)
            logger.info("refused a new session of %s: every session it could replace is working", client)
            await refuse(
                send,
                503,
                f"every session of this server is working, or your calls outside sessions are at the cap; try "
                f"again in {wait} s",
                [(b"retry-after", str(wait).encode())],
            )
            return
        self.opening[client] = self.opening.get(client, 0) + 1
        self.calls[client] = self.calls.get(client, 0) + 1
        created: str | None = None

        async def watch(message: Message) -> None:
            nonlocal created
            if message["type"] == "http.response.start" and message["status"] < 400:
                created = next(
                    (bytes(v).decode("latin-1") for k, v in message.get("headers", ()) if k.lower() == SESSION_HEADER),
                    None,
                )
            await send(message)

        try:
            await self.app(scope, receive, watch)
        finally:
            self.opening[client] -= 1
            if not self.opening[client]:
                del self.opening[client]
            self._call_ended(client)
        if created is not None:
            keep = [(k, v) for k, v in scope.get("headers", ()) if k in (b"host", b"authorization")]
            template = {k: v for k, v in scope.items() if k not in ("headers", "method", "state")}
            self.sessions[created] = _Session(client=client, template=template, headers=keep)

    async def _over_call_caps(self, send: Send, client: str, session: _Session | None) -> bool:
        """True, the caller told to wait (429), if one more call would pass a cap on calls in flight."""
        if session is not None and session.in_flight >= self.calls_per_session:
            message = f"this session already has {session.in_flight} calls in flight (at most {self.calls_per_session})"
        elif self.calls.get(client, 0) >= self.calls_per_client:
            message = f"your address already has {self.calls[client]} calls in flight (at most {self.calls_per_client})"
        else:
            return False
        logger.info("refused a call of %s: %s", client, message)
        retry = [(b"retry-after", str(CALL_RETRY_AFTER_S).encode())]
        await refuse(send, 429, f"{message}; wait for earlier calls to be answered, then send it again", retry)
        return True

    def _call_ended(self, client: str) -> None:
        self.calls[client] -= 1
        if not self.calls[client]:
            del self.calls[client]

    async def _make_room(self, client: str) -> bool:
        """Close sessions until ``client`` may open one; False if every candidate is busy."""
        while True:
            mine = [sid for sid, s in self.sessions.items() if s.client == client]
            if len(mine) + self.opening.get(client, 0) >= self.per_client:
                candidates = mine
            elif len(self.sessions) + sum(self.opening.values()) >= self.max_sessions:
                counts: dict[str, int] = {}
                for s in self.sessions.values():
                    counts[s.client] = counts.get(s.client, 0) + 1
                busiest = max(counts, key=lambda c: counts[c])
                candidates = [sid for sid, s in self.sessions.items() if s.client == busiest]
            else:
                return True
            victim = self._victim(candidates)
            if victim is None:
                return False
            await self._close(victim)

    def _working(self, session: _Session, now: float) -> bool:
        """A call in flight, or one made within the idle timeout: such a session is never closed for a newcomer."""
        called = session.posts > HANDSHAKE_POSTS and now - session.last_used < self.idle_timeout
        return session.in_flight > 0 or called

    def _victim(self, candidates: list[str]) -> str | None:
        now = time.monotonic()
        idle = [sid for sid in candidates if not self._working(self.sessions[sid], now)]
        if not idle:
            return None
        # handshake-only sessions first, then the least recently used
        return min(idle, key=lambda sid: (self.sessions[sid].posts > HANDSHAKE_POSTS, self.sessions[sid].last_used))

    def _retry_after(self, client: str) -> int:
        """Seconds until a session that blocks ``client`` could be closed: the soonest a working one goes idle; or
        a second, when the client's own requests outside sessions (openings, stateless calls) take up its share."""
        if self.opening.get(client):
            return CALL_RETRY_AFTER_S
        now = time.monotonic()
        mine = [s for s in self.sessions.values() if s.client == client]
        blocking = mine if len(mine) >= self.per_client else list(self.sessions.values())
        waits = [s.last_used + self.idle_timeout - now for s in blocking if s.in_flight == 0]
        return max(1, min(RETRY_AFTER_MAX_S, math.ceil(min(waits, default=RETRY_AFTER_MAX_S))))

    async def _close(self, session_id: str) -> None:
        """End a session the way its client would: a DELETE through the endpoint, with the opening request's
        credentials (the session manager only lets its owner end it)."""
        session = self.sessions.pop(session_id)
        self.evicted += 1
        scope = dict(session.template)
        scope["method"] = "DELETE"
        scope["headers"] = [*session.headers, (SESSION_HEADER, session_id.encode())]
        scope["state"] = {}

        async def receive() -> Message:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def discard(message: Message) -> None:
            return None

        try:
            await self.app(scope, receive, discard)
        except Exception:  # a session that ended meanwhile; it is forgotten either way
            logger.debug("closing session %s failed", session_id, exc_info=True)
        logger.info("closed idle session %s of %s to make room", session_id[:12], session.client)
