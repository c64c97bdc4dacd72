"""Who may write to `cairn otel serve`: this user's agent, not a web page or another local user.

Three checks, in the order the receiver makes them, each cheap and made before a body is read:
- the Host header must name the loopback address the receiver serves (127.0.0.1, localhost or
  [::1], with its port): a web page that rebinds its own domain to 127.0.0.1 still sends its own
  name, so DNS rebinding gets 403;
- a browser's request (an `Origin` or `Sec-Fetch-*` header, which exporters never send) gets 403;
- the request must carry the receiver's token, `X-Cairn-Token: <token>` (or `Authorization:
  Bearer <token>`), else 401. The token is made on first use and kept in CAIRN_HOME/otel/token
  (0600 in a 0700 folder); `cairn install claude --otel` puts it in Claude Code's
  OTEL_EXPORTER_OTLP_HEADERS. It is hex, so no exporter's parsing of that variable can alter it.
"""

from __future__ import annotations

import hmac
import re
import secrets
from pathlib import Path
from typing import Protocol

HEADER = "X-Cairn-Token"
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})
BROWSER_HEADERS = ("Origin", "Sec-Fetch-Site", "Sec-Fetch-Mode", "Sec-Fetch-Dest")
_TOKEN = re.compile(r"[0-9a-f]{64}")


class Headers(Protocol):
    """A request's headers, looked up by name without regard to case (http.server's Message)."""

    def get(self, name: str, /) -> str | None: ...


def token_path() -> Path:
    from cairn.home import cairn_home

    return cairn_home() / "otel" / "token"


def load_token(*, create: bool = True) -> str | None:
    """The receiver's token; made (0600) when missing or malformed and `create`, else None then.
    Two first runs at once (serve and install) agree: the file is created exclusively and the
    loser reads the winner's."""
    from cairn.home import ensure_private_dir
    from cairn.util.atomic import atomic_create_bytes, atomic_write_text

    path = token_path()
    for _ in range(2):
        try:
            text = path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            text = None
        except (OSError, UnicodeDecodeError):
            text = ""
        if text is not None and _TOKEN.fullmatch(text):
            if path.stat().st_mode & 0o077:
                path.chmod(0o600)
            return text
        if not create:
            return None
        ensure_private_dir(path.parent)
        token = secrets.token_hex(32)
        if text is None:
            try:
                atomic_create_bytes(path, (token + "\n").encode(), 0o600)
            except FileExistsError:
                continue  # made by another process just now: read it
        else:  # unreadable or malformed: replace it
            atomic_write_text(path, token + "\n", 0o600)
        return token
    return None


def exporter_headers(token: str) -> str:
    """The value of OTEL_EXPORTER_OTLP_HEADERS that makes an OTLP exporter send the token."""
    return f"{HEADER.lower()}={token}"


def host_allowed(host: str | None, port: int) -> bool:
    """Whether a Host header names this receiver: a loopback name and the port it serves."""
    if not host:
        return False
    host = host.strip().lower()
    name, sep, given = host.rpartition(":") if not host.endswith("]") else (host, "", "")
    if not sep:
        name, given = host, "80"
    return name in LOOPBACK_NAMES and given == str(port)


def from_browser(headers: Headers) -> bool:
    """A request a web page made (browsers add these headers; OTLP exporters do not)."""
    return any(headers.get(h) is not None for h in BROWSER_HEADERS)


def authorized(headers: Headers, token: str) -> bool:
    """The request carries `token` (constant-time compare), in X-Cairn-Token or as a bearer token."""
    given = headers.get(HEADER)
    if given is None:
        scheme, _, rest = (headers.get("Authorization") or "").strip().partition(" ")
        if scheme.lower() != "bearer":
            return False
        given = rest
    return hmac.compare_digest(given.strip().encode("utf-8", "replace"), token.encode())
