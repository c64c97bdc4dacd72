"""The short names code gives to what people say in full: "openid connect" -> `oidc`.

A person asks "how do we log out of OpenID Connect?"; the code says `oidc.go`, `OIDCProvider`.
Bag-of-words search cannot connect the two, and a lexical index has no other way to. This table
holds abbreviations that are conventions of the field (not of one project), from a spoken form
to the forms code spells; a request that says the long form also searches for the short ones,
at the reduced weight of related terms (search/query.py). Only long -> short: the long form's
words are common and would add noise the other way. Stdlib only.
"""

from __future__ import annotations

import re

_TABLE = {
    "openid connect": ("oidc",),
    "json web token": ("jwt",),
    "single sign on": ("sso",),
    "kubernetes": ("k8s",),
    "internationalization": ("i18n",),
    "internationalisation": ("i18n",),
    "localization": ("l10n",),
    "localisation": ("l10n",),
    "accessibility": ("a11y",),
    "remote procedure call": ("rpc",),
    "role based access control": ("rbac",),
    "cross site request forgery": ("csrf",),
    "cross site scripting": ("xss",),
    "content security policy": ("csp",),
    "time to live": ("ttl",),
    "garbage collection": ("gc",),
    "garbage collector": ("gc",),
    "message queue": ("mq",),
    "regular expression": ("regex", "regexp"),
    "web socket": ("ws", "websocket"),
    "server sent event": ("sse",),
    "websocket": ("ws",),
    "repository": ("repo",),
    "configuration": ("config", "cfg"),
    "authentication": ("auth", "authn"),
    "authorization": ("auth", "authz"),
    "authorisation": ("auth", "authz"),
    "command line": ("cli",),
    "environment variable": ("env",),
    "initialization": ("init",),
    "initialisation": ("init",),
    "implementation": ("impl",),
}
_PATTERN = re.compile(
    r"\b("
    + "|".join(sorted((re.escape(k).replace(r"\ ", r"[\s_-]+") for k in _TABLE), key=len, reverse=True))
    + r")s?\b",
    re.I,
)


def short_forms(text: str) -> list[str]:
    """The abbreviations of the long forms `text` says, in order, each once."""
    out: dict[str, None] = {}
    for m in _PATTERN.finditer(text[:20_000]):
        key = re.sub(r"[\s_-]+", " ", m.group(1).lower())
        for short in _TABLE.get(key, ()):
            out.setdefault(short, None)
    return list(out)
