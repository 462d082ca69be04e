"""Server settings: every setting is a command-line option (clients start servers with a bare environment), but for
the HTTP token, which comes from the environment or a private file (``mcp_server/auth.py``)."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path

from indexer.core.errors import FilingsError
from indexer.ingest.settings import default_cache_dir, trusted_cache_dir
from mcp_server.auth import TOKEN_ENV, TOKEN_ON_COMMAND_LINE, is_loopback, server_token
from mcp_server.body_guard import BODY_DEADLINE_S
from mcp_server.connection_guard import HEADER_DEADLINE_S, MAX_CONNECTIONS
from mcp_server.http_guard import MAX_SESSIONS, MAX_SESSIONS_PER_CLIENT, SESSION_IDLE_TIMEOUT_S


@dataclass(frozen=True)
class ServerSettings:
    index_dir: Path
    cache_dir: Path
    load_timeout: float = 120.0
    log_level: str = "WARNING"
    transport: str = "stdio"  # or "http" (Streamable HTTP): one loaded index shared by several clients
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None  # bearer token the HTTP transport requires (mandatory off loopback): env or file only
    allow_hosts: tuple[str, ...] = ()  # Host names (besides loopback and the bound address) the HTTP server answers
    allow_origins: tuple[str, ...] = ()  # browser origins (besides loopback ones) that may call it
    max_sessions: int = MAX_SESSIONS
    max_sessions_per_client: int = MAX_SESSIONS_PER_CLIENT
    session_idle_timeout: float = SESSION_IDLE_TIMEOUT_S
    body_timeout: float = BODY_DEADLINE_S
    header_timeout: float = HEADER_DEADLINE_S
    max_connections: int = MAX_CONNECTIONS


def _http_arguments(parser: argparse.ArgumentParser) -> None:
    """The HTTP transport's options: address, token, allowed hosts and origins, session and body limits."""
    parser.add_argument("--host", default="127.0.0.1", help="HTTP: address to bind (default loopback only)")
    parser.add_argument("--port", type=int, default=8765, help="HTTP: port (default 8765)")
    parser.add_argument("--token", nargs="?", const="", default=None, help=argparse.SUPPRESS)  # refused: see auth
    parser.add_argument(
        "--token-file",
        type=Path,
        default=None,
        help=f"HTTP: a file of yours, mode 600, not a link, holding the bearer token clients must send (or set "
        f"${TOKEN_ENV}; a token on the command line is refused: other users can read it)",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        help="HTTP: a Host name clients use besides 127.0.0.1/localhost and the bound address (repeatable)",
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        help="HTTP: a browser origin allowed to call the server, e.g. https://app.example (repeatable); "
        "requests from other web pages are refused",
    )
    parser.add_argument("--max-sessions", type=int, default=MAX_SESSIONS, help="HTTP: open sessions in all")
    parser.add_argument(
        "--max-sessions-per-client", type=int, default=MAX_SESSIONS_PER_CLIENT, help="HTTP: open sessions per address"
    )
    parser.add_argument(
        "--session-idle-timeout",
        type=float,
        default=SESSION_IDLE_TIMEOUT_S,
        help="HTTP: seconds after which an idle session is closed",
    )
    parser.add_argument(
        "--body-timeout",
        type=float,
        default=BODY_DEADLINE_S,
        help="HTTP: seconds a request's body may take to arrive (then 408)",
    )
    parser.add_argument(
        "--header-timeout",
        type=float,
        default=HEADER_DEADLINE_S,
        help="HTTP: seconds a connection may take to send a request's line and headers (then it is closed)",
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=MAX_CONNECTIONS,
        help="HTTP: open connections; over it the one waiting longest for its headers is closed",
    )


def parse_settings(argv: list[str] | None = None) -> ServerSettings:
    parser = argparse.ArgumentParser(
        prog="filings-mcp", description="MCP server (stdio or HTTP) over an index built by `filings-index build`."
    )
    index_help = "index folder (default: $FILINGS_INDEX)"
    parser.add_argument("--index", type=Path, default=os.environ.get("FILINGS_INDEX"), help=index_help)
    cache_help = "cache folder (model graph, vectors, jieba's dictionary): yours alone, or refused"
    parser.add_argument("--cache-dir", type=Path, default=None, help=cache_help)
    parser.add_argument(
        "--load-timeout", type=float, default=120.0, help="seconds a call waits for the index to finish loading"
    )
    parser.add_argument(
        "--log-level",
        default=os.environ.get("FILINGS_LOG_LEVEL"),
        help="DEBUG, INFO, WARNING (default for stdio), ERROR; HTTP defaults to INFO (its address, loads, refusals)",
    )
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio", help="stdio (default) or http")
    _http_arguments(parser)
    args = parser.parse_args(argv)
    _check(parser, args)
    token: str | None = None
    if args.transport == "http":
        try:
            token = server_token(args.token_file, os.environ)
        except FilingsError as exc:
            parser.error(str(exc))
        if not is_loopback(args.host) and not token:
            parser.error(
                f"--host {args.host} exposes the index beyond this machine: set {TOKEN_ENV} or pass --token-file "
                "FILE so that only clients with the token are served, or bind to 127.0.0.1"
            )
    try:
        cache_dir = trusted_cache_dir(args.cache_dir) if args.cache_dir else default_cache_dir()
    except FilingsError as exc:
        parser.error(str(exc))
    return ServerSettings(
        index_dir=Path(args.index).expanduser().absolute(),  # not resolved: it is a link to the current version
        cache_dir=cache_dir,
        load_timeout=args.load_timeout,
        log_level=(args.log_level or ("INFO" if args.transport == "http" else "WARNING")).upper(),
        transport=args.transport,
        host=args.host,
        port=args.port,
        token=token,
        allow_hosts=tuple(args.allow_host),
        allow_origins=tuple(args.allow_origin),
        max_sessions=args.max_sessions,
        max_sessions_per_client=args.max_sessions_per_client,
        session_idle_timeout=args.session_idle_timeout,
        body_timeout=args.body_timeout,
        header_timeout=args.header_timeout,
        max_connections=args.max_connections,
    )


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Options that parse but cannot be served: said with what to pass instead (``parser.error`` exits)."""
    if args.token is not None:
        parser.error(TOKEN_ON_COMMAND_LINE)
    if min(args.max_sessions, args.max_sessions_per_client, args.max_connections) < 1 or not (
        min(args.session_idle_timeout, args.body_timeout, args.header_timeout) > 0
    ):
        parser.error(
            "--max-sessions, --max-sessions-per-client, --max-connections, --session-idle-timeout, --body-timeout "
            "and --header-timeout must be positive"
        )
    if args.index is None:
        parser.error("no index given: pass --index INDEX_DIR or set FILINGS_INDEX")
