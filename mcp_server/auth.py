"""A shared secret for the HTTP transport: requests must carry `Authorization: Bearer <token>`."""

from __future__ import annotations

import hmac
import ipaddress

from fastmcp.server.auth import AccessToken, TokenVerifier

TOKEN_ENV = "FILINGS_MCP_TOKEN"


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
