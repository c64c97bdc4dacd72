"""Streamable-HTTP transport for the MCP server, loopback only and behind a bearer token.

Why a token even on 127.0.0.1: any local process (or a web page via DNS rebinding, which the SDK
also blocks by Host/Origin) could otherwise call tools that write into the project. The token is
taken from CAIRN_MCP_TOKEN, else read from (or generated into) CAIRN_HOME/mcp-token with mode
0600, and compared in constant time. Binding anything but loopback needs an explicit
`allow_remote`, because the token then travels in clear text unless a TLS proxy sits in front.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path
from typing import Any

from cairn.errors import CairnError
from cairn.home import cairn_home, ensure_private_dir

TOKEN_ENV = "CAIRN_MCP_TOKEN"
TOKEN_FILE = "mcp-token"
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def token_path() -> Path:
    return cairn_home() / TOKEN_FILE


def load_or_create_token() -> tuple[str, str]:
    """(token, where it came from). Env var first; else the 0600 file, created on first use."""
    env = (os.environ.get(TOKEN_ENV) or "").strip()
    if env:
        if len(env) < 16:
            raise CairnError(f"{TOKEN_ENV} is too short: use at least 16 characters")
        return env, f"${TOKEN_ENV}"
    path = token_path()
    try:
        token = path.read_text(encoding="utf-8").strip()
        if len(token) >= 16:
            if path.stat().st_mode & 0o077:
                path.chmod(0o600)
            return token, str(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise CairnError(f"cannot read {path}: {exc}") from None
    ensure_private_dir(path.parent)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(token + "\n")
    return token, str(path)


def check_bind(host: str, allow_remote: bool) -> None:
    if host not in LOOPBACK and not allow_remote:
        raise CairnError(
            f"refusing to listen on {host}: cairn serves HTTP on 127.0.0.1 only "
            "(pass --allow-remote to override, and put TLS in front)"
        )


class BearerAuth:
    """ASGI middleware: every HTTP request needs `Authorization: Bearer <token>`."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = token.encode()

    def authorized(self, header: bytes) -> bool:
        """`Bearer <token>`; the scheme is case-insensitive (RFC 9110 §11.1), the token is not."""
        scheme, _, given = header.strip().partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(given.strip(), self.expected)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope.get("type") == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not self.authorized(given):
                body = b'{"error":"missing or wrong bearer token (see CAIRN_HOME/mcp-token)"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="cairn"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def run_http(server: Any, host: str, port: int, token: str, *, allow_remote: bool = False) -> None:
    """Serve `server` (an MCPServer) at http://host:port/mcp until interrupted."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    check_bind(host, allow_remote)
    security = None
    if host not in LOOPBACK:  # the SDK protects loopback by Host/Origin itself; elsewhere the token does
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = server.streamable_http_app(host=host, transport_security=security)
    config = uvicorn.Config(
        BearerAuth(app, token), host=host, port=port, log_level="warning", lifespan="on", access_log=False
    )
    uvicorn.Server(config).run()
