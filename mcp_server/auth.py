"""A shared secret for the HTTP transport: requests must carry `Authorization: Bearer <token>`.

The token reaches the server from its environment (``FILINGS_MCP_TOKEN``, which only the server's own user can read
in /proc/PID/environ) or from a file only that user can read (``--token-file``), never from its command line: any
local user can read every process's arguments (``ps``, /proc/PID/cmdline), and a token given as ``--token`` was
readable there, then served (issue 40). ``--token`` is refused with a message saying how to pass it instead.
"""

from __future__ import annotations

import errno
import hmac
import ipaddress
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from fastmcp.server.auth import AccessToken, TokenVerifier

from indexer.core.errors import FilingsError

TOKEN_ENV = "FILINGS_MCP_TOKEN"
MAX_TOKEN_BYTES = 4096  # a token is tens of characters; a file larger than this is not a token file
TOKEN_ON_COMMAND_LINE = (
    "--token puts the token on the command line, where every local user can read it (ps, /proc/PID/cmdline): set "
    f"{TOKEN_ENV} in the server's environment instead, or write the token to a file only you can read "
    "(umask 077; openssl rand -hex 32 > FILE) and pass --token-file FILE. Treat the token just given as seen by "
    "others and choose a new one"
)


class SharedTokenVerifier(TokenVerifier):
    """Accepts exactly one bearer token, compared in constant time."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token=token, client_id="filings-mcp-client", scopes=[])
        return None


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def server_token(token_file: Path | None, environ: Mapping[str, str]) -> str | None:
    """The token from ``--token-file`` or ``$FILINGS_MCP_TOKEN`` (not both), or None for neither."""
    from_env = environ.get(TOKEN_ENV) or None
    if token_file is not None and from_env is not None:
        raise FilingsError(f"both --token-file and {TOKEN_ENV} give a token: use one (unset {TOKEN_ENV})")
    if token_file is not None:
        return _checked(_read_private_file(token_file), f"--token-file {token_file}")
    return None if from_env is None else _checked(from_env, TOKEN_ENV)


def _checked(token: str, source: str) -> str:
    token = token.strip()
    if not token:
        raise FilingsError(f"{source} holds no token: put one line in it, e.g. from `openssl rand -hex 32`")
    if not all("!" <= c <= "~" for c in token):
        raise FilingsError(
            f"{source}: a token is one line of printable ASCII without spaces (it travels in an HTTP header); "
            "make one with `openssl rand -hex 32`"
        )
    return token


def _read_private_file(path: Path) -> str:
    """The file's text, if it is a regular file of this user that nobody else may read or write. Opened without
    following a link (a link could be swapped for another file) and without blocking (a FIFO would wait)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FilingsError(f"--token-file {path} is a symbolic link: give the path of the file itself") from exc
        raise FilingsError(f"cannot open --token-file {path} ({exc.strerror}); give a file holding the token") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FilingsError(f"--token-file {path} is not a regular file: give a file holding the token")
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            raise FilingsError(
                f"--token-file {path} belongs to user {info.st_uid}, not to you ({os.geteuid()}): use a file of "
                "your own, made with umask 077"
            )
        if hasattr(os, "geteuid") and info.st_mode & 0o077:
            raise FilingsError(
                f"--token-file {path} can be read or changed by others (mode {stat.S_IMODE(info.st_mode):o}): "
                f"run chmod 600 {path}, and choose a new token if others may have read it"
            )
        data = os.read(fd, MAX_TOKEN_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_TOKEN_BYTES:
        raise FilingsError(f"--token-file {path} is over {MAX_TOKEN_BYTES} bytes: it should hold the token alone")
    try:
        return data.decode("ascii")
    except UnicodeDecodeError as exc:
        raise FilingsError(f"--token-file {path}: a token is printable ASCII, e.g. `openssl rand -hex 32`") from exc
