"""Serving the MCP server over Streamable HTTP: the bound socket, the guards in front of the endpoint (Host and
Origin, the token, request bodies, session limits), the connection limits under them (``connection_guard``) and the
log line with the address to paste into a client."""

from __future__ import annotations

import logging
import socket

import fastmcp
from fastmcp import FastMCP
from starlette.middleware import Middleware

from indexer import __version__
from indexer.core.errors import FilingsError
from mcp_server.body_guard import BodyGuard
from mcp_server.connection_guard import MAX_HEADER_BYTES, guarded_h11
from mcp_server.http_guard import MCP_PATH, HostOriginGuard, HostPolicy, SessionLimiter, TokenGuard
from mcp_server.settings import ServerSettings

logger = logging.getLogger(__name__)

FILES_BESIDES_CONNECTIONS = 256  # the index's files, the listening socket, worker pipes


def _bound_socket(host: str, port: int) -> socket.socket:
    """A socket bound to the address (so the address logged is one that answers; port 0 picks a free port)."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(socket.SOMAXCONN)  # connections wait in the backlog until the server accepts them
    except OSError as exc:
        sock.close()
        raise FilingsError(f"cannot listen on {host}:{port} ({exc.strerror}); choose another --port or --host") from exc
    return sock


def _descriptors_for(connections: int) -> None:
    """Raise the soft limit on open files so that the connection cap, not the system, is what refuses connections
    (a server out of descriptors cannot accept anyone, nor open an index file)."""
    try:
        import resource
    except ImportError:  # Windows: no such limit
        return
    wanted = connections + FILES_BESIDES_CONNECTIONS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
        if raised < wanted:
            logger.warning(
                "open files are limited to %d (ulimit -Hn): fewer than --max-connections %d needs; lower "
                "--max-connections or raise the limit",
                raised,
                connections,
            )


def serve_http(server: FastMCP, settings: ServerSettings) -> None:
    fastmcp.settings.http_session_idle_timeout = settings.session_idle_timeout
    policy = HostPolicy.create(settings.host, settings.allow_hosts, settings.allow_origins)
    guards = [Middleware(HostOriginGuard, policy=policy)]
    if settings.token:
        guards.append(Middleware(TokenGuard, token=settings.token))
    bodies = Middleware(BodyGuard, deadline_s=settings.body_timeout)
    limits = Middleware(
        SessionLimiter,
        max_sessions=settings.max_sessions,
        per_client=settings.max_sessions_per_client,
        idle_timeout=settings.session_idle_timeout,
    )
    sock = _bound_socket(settings.host, settings.port)
    port = sock.getsockname()[1]
    shown = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
    shown = f"[{shown}]" if ":" in shown else shown
    logger.info(
        "filings-mcp %s serving %s at http://%s:%d%s%s",
        __version__,
        settings.index_dir,
        shown,
        port,
        MCP_PATH,
        " (send 'Authorization: Bearer <token>')" if settings.token else "",
    )
    _descriptors_for(settings.max_connections)
    connections = {
        "http": guarded_h11(settings.header_timeout, settings.max_connections),
        "h11_max_incomplete_event_size": MAX_HEADER_BYTES,
        "ws": "none",  # the MCP endpoint is plain HTTP: no connection is handed to a WebSocket protocol
    }
    server.run(
        transport="http",
        show_banner=False,
        sockets=[sock],
        middleware=[*guards, bodies, limits],
        uvicorn_config=connections,
    )
