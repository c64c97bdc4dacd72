"""Mask secrets (API keys, tokens, private keys, passwords) with typed placeholders.

Transcripts are full of pasted credentials; nothing cairn stores or re-injects may carry one in
clear. Runs on every archived line and on every hook injection, so it is stdlib only and makes
one compiled pass per pattern family: private-key blocks, provider tokens (one alternation, the
first branch that matches names the kind), Slack webhooks, URL and `curl -u` passwords, `.env`
lines, Bearer/Basic headers, then assignments to secret-ish names (where a generic name like
`token` needs a high-entropy value to count).
Placeholders look like `[REDACTED:github-token]`; already-redacted text is left as is.
"""

from __future__ import annotations

import math
import re
from collections import Counter

PLACEHOLDER = "[REDACTED:{}]"

_B = r"(?<![A-Za-z0-9_\-])"  # token start: not glued to a longer identifier
_E = r"(?![A-Za-z0-9_\-])"  # token end

# Order matters: at one position the first branch that matches wins (sk-ant- before sk-).
_TOKEN_KINDS: list[tuple[str, str]] = [
    ("anthropic-key", r"sk-ant-(?:api|admin|oat|sid)\d{2}-[A-Za-z0-9_\-]{20,}"),
    ("stripe-key", r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("stripe-webhook-secret", r"whsec_[A-Za-z0-9]{24,}"),
    ("openai-key", r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_\-]{20,}"),
    ("github-token", r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"),
    ("gitlab-token", r"gl(?:pat|dt|ptt|rt|oas)-[A-Za-z0-9_\-]{20,}"),
    ("slack-token", r"xox[abposr]-[A-Za-z0-9\-]{10,}|xapp-\d-[A-Za-z0-9\-]{10,}"),
    ("aws-access-key-id", r"(?:AKIA|ASIA|ABIA|ACCA|AROA|AIDA)[A-Z0-9]{16}"),
    ("google-api-key", r"AIza[A-Za-z0-9_\-]{35}"),
    ("google-oauth-token", r"ya29\.[A-Za-z0-9_\-]{20,}|GOCSPX-[A-Za-z0-9_\-]{20,}"),
    ("npm-token", r"npm_[A-Za-z0-9]{36}"),
    ("pypi-token", r"pypi-[A-Za-z0-9_\-]{50,}"),
    ("sendgrid-key", r"SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{30,50}"),
    ("twilio-key", r"SK[0-9a-f]{32}"),
    ("huggingface-token", r"hf_[A-Za-z0-9]{30,}"),
    ("digitalocean-token", r"do[pro]_v1_[a-f0-9]{64}"),
    ("shopify-token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ("databricks-token", r"dapi[a-f0-9]{32}"),
    ("jwt", r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ("telegram-bot-token", r"\d{8,10}:AA[A-Za-z0-9_\-]{33}"),
    ("discord-token", r"[MNO][A-Za-z0-9]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,38}"),
    ("mailgun-key", r"key-[0-9a-f]{32}"),
    ("mailchimp-key", r"[0-9a-f]{32}-us\d{1,2}"),
    ("square-token", r"sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,43}"),
    ("age-secret-key", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    ("groq-key", r"gsk_[A-Za-z0-9]{48,}"),
    ("replicate-token", r"r8_[A-Za-z0-9]{37}"),
    ("linear-key", r"lin_api_[A-Za-z0-9]{40}"),
    ("tailscale-key", r"tskey-[a-z]+-[A-Za-z0-9\-]{20,}"),
    ("postman-key", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),
    ("atlassian-token", r"ATATT3[A-Za-z0-9_\-=]{100,}"),
    ("grafana-token", r"gl(?:sa|c)_[A-Za-z0-9_\-+/=]{32,}"),
    ("supabase-token", r"sbp_[a-f0-9]{40}"),
]
_NEEDS_DIGITS = frozenset({"openai-key", "discord-token"})
_TOKEN_NAMES = {f"k{i}": kind for i, (kind, _) in enumerate(_TOKEN_KINDS)}
_TOKENS = re.compile(
    _B + "(?:" + "|".join(f"(?P<k{i}>{pat})" for i, (_, pat) in enumerate(_TOKEN_KINDS)) + ")" + _E
)
# Long runs of token characters: a provider token can only live inside one of these, and
# finding the runs is much cheaper than trying every alternative at every position.
_RUN = re.compile(r"[A-Za-z0-9_\-.:+/=]{15,}")

_SLACK_WEBHOOK = re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_\-]{20,}")

_PRIVATE_KEY = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ ){0,3})PRIVATE KEY( BLOCK)?-----"
    r"(?:.*?-----END \1PRIVATE KEY\2-----"
    r"|(?:(?:\r?\n|\\n)[A-Za-z0-9+/=]{1,100})*)",  # cut short: its base64 lines (maybe JSON-escaped)
    re.S,
)

_AUTH_HEADER = re.compile(
    r"(?i)(?<![A-Za-z0-9_])(bearer|basic|token)(\s+)([A-Za-z0-9._~+/\-]{16,}=*)(?![A-Za-z0-9._~+/\-])"
)

# scheme://user:password@host  (the user name stays, the password goes)
_URL_PASSWORD = re.compile(
    r"([a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@'\"<>\[\]]{1,128}:)([^\s@/'\"<>\[\]]{1,256})@"
)

# curl -u user:password, --user=user:password (the user name stays)
_USER_FLAG = re.compile(r"(?<!\S)((?:-u|--user)[ =]['\"]?[^\s:'\"]{1,128}:)([^\s'\"]{1,256})")

_SECRET_WORDS = (
    r"passw(?:or)?d|passwd|pwd|passphrase|secret|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key"
    r"|auth[_\-]?token|access[_\-]?token|refresh[_\-]?token|client[_\-]?secret|credentials?"
)
_WEAK_WORDS = r"token|key|auth|sig(?:nature)?|cookie|salt"
_STRONG = re.compile(_SECRET_WORDS, re.I)
# Where a secret-ish name may start, searched case-sensitively in the lowered text: a trie-shaped
# literal pattern is ~6x faster than the case-insensitive alternation over every position.
_NAME_STARTS = re.compile(
    r"p(?:ass|wd|rivate)|s(?:ecret|ig|alt)|a(?:pi|ccess|uth)|key|token|c(?:lient|redential|ookie)|refresh"
)
_AUTH_STARTS = re.compile(r"bearer|basic|token")

# name = value, name: value, "name": "value", --name value  (quoted or bare). The match starts at
# the secret word (quick to find); the callback looks back for the rest of the identifier.
_ASSIGN = re.compile(
    r"(?i)(?P<name>" + _SECRET_WORDS + "|" + _WEAK_WORDS + r")[A-Za-z0-9_\-]*[\"']?\]?"
    r"(?P<sep>\s*(?::=|=>|[=:])\s*|\s+)"
    r"(?:(?P<q>[\"'`])(?P<qv>[^\"'`\n]{1,512})(?P=q)"
    r"|(?P<bv>[^\s\"'`,;(){}\[\]<>\\]{4,512})(?P<call>\()?)"
)
_IDENT_TAIL = re.compile(r"(?:--?)?[A-Za-z0-9_.\-]*[\"']?$")

# .env / shell style, whole line, upper-case name: SECRET_X=..., export DB_PASSWORD="...". Runs
# before _ASSIGN so the whole value (commas and all, up to a blank) is masked.
_ENV_LINE = re.compile(
    r"^([ \t]*(?:export[ \t]+)?[A-Z0-9_]*?(?P<name>SECRET|PASSWORD|PASSWD|PRIVATE_?KEY|CREDENTIALS?|TOKEN"
    r"|API_?KEY|ACCESS_?KEY|AUTH(?!OR))[A-Z0-9_]*=)(['\"]?)([^\s'\"#]+)\3",
    re.M,
)
_ENV_STRONG = re.compile(r"SECRET|PASSWORD|PASSWD|PRIVATE_?KEY|CREDENTIALS?")

_NOT_A_VALUE = re.compile(
    r"^(?:\$|%|\{\{|<|\*{3}|x{4,}|\.\.\.|none|null|nil|true|false|undefined|os\.|process\.env|env\["
    r"|getenv|required|optional|string|str|int|bool|self\.|this\.|\[REDACTED)",
    re.I,
)
_CODE_EXPR = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-fA-F]+")


def entropy(s: str) -> float:
    """Shannon entropy in bits per character."""
    if not s:
        return 0.0
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def looks_random(value: str) -> bool:
    """A credential-like value: long, letters and digits mixed, high entropy, not a path or UUID.

    Only asked about values next to a secret-ish name, so a long hex string counts there (many
    tokens are hex) while UUIDs, paths and identifiers without digits do not.
    """
    if len(value) < 16 or " " in value or value.count("/") > 2 or _UUID.fullmatch(value):
        return False
    if not any(c.isdigit() for c in value) or not any(c.isalpha() for c in value):
        return False
    if _HEX.fullmatch(value):
        return len(value) >= 32
    return entropy(value) >= 3.3


def _placeholder(kind: str) -> str:
    return PLACEHOLDER.format(kind)


def _token_sub(m: re.Match) -> str:
    kind = _TOKEN_NAMES[m.lastgroup or ""]
    value = m.group(0)
    if kind in _NEEDS_DIGITS and (not any(c.isdigit() for c in value) or entropy(value) < 3.0):
        return value  # "sk-" + a long slug, or a dotted identifier: words, not a key
    return _placeholder(kind)


def _run_sub(m: re.Match) -> str:
    return _TOKENS.sub(_token_sub, m.group(0))


def _auth_sub(m: re.Match) -> str:
    value = m.group(3)
    if not looks_random(value.rstrip("=")):
        return m.group(0)
    kind = "basic-auth" if m.group(1).lower() == "basic" else "bearer-token"
    return f"{m.group(1)}{m.group(2)}{_placeholder(kind)}"


def _url_sub(m: re.Match) -> str:
    if _NOT_A_VALUE.match(m.group(2)):
        return m.group(0)
    return f"{m.group(1)}{_placeholder('url-password')}@"


def _user_flag_sub(m: re.Match) -> str:
    if _NOT_A_VALUE.match(m.group(2)):
        return m.group(0)
    return f"{m.group(1)}{_placeholder('password')}"


def _env_sub(m: re.Match) -> str:
    value = m.group(4)
    if _NOT_A_VALUE.match(value) or len(value) < 3:
        return m.group(0)
    if not _ENV_STRONG.search(m.group("name")) and not looks_random(value):
        return m.group(0)  # MAX_TOKENS=4096, AUTH_MODE=oauth
    return f"{m.group(1)}{m.group(3)}{_placeholder('env-secret')}{m.group(3)}"


def _assign_kind(ident: str) -> str:
    ident = ident.lower()
    if "aws" in ident and "secret" in ident:
        return "aws-secret-key"
    for word, kind in (("pass", "password"), ("pwd", "password"), ("secret", "secret"),
                       ("key", "api-key"), ("token", "token")):
        if word in ident:
            return kind
    return "credential"


def _assign_sub(m: re.Match) -> str:
    quoted = m.group("qv") is not None
    value = m.group("qv") if quoted else m.group("bv")
    start = m.start()
    tail = _IDENT_TAIL.search(m.string, max(0, start - 64), start)
    pre = tail.group(0) if tail else ""
    if not m.group("sep").strip() and not pre.lstrip("\"'").startswith("-"):
        return m.group(0)  # "password reset flow" is prose; `--password VALUE` is not
    if _NOT_A_VALUE.match(value) or "[REDACTED" in value or m.group("call"):
        return m.group(0)
    name = m.group("name")
    if _STRONG.fullmatch(name):
        if " " in value.strip() or (not quoted and _CODE_EXPR.match(value)):
            return m.group(0)
    elif not looks_random(value):
        return m.group(0)
    group = "qv" if quoted else "bv"
    whole = m.group(0)
    return (whole[: m.start(group) - start] + _placeholder(_assign_kind(pre + m.group(0)))
            + whole[m.end(group) - start:])


def _sub_at(text: str, lower: str, starts: re.Pattern, rx: re.Pattern, fn) -> str:
    """`rx.sub(fn, text)`, trying `rx` only where `starts` matches in `lower` (same length)."""
    out: list[str] = []
    last = 0
    for hit in starts.finditer(lower):
        pos = hit.start()
        if pos < last:
            continue
        m = rx.match(text, pos)
        if m is None:
            continue
        out.append(text[last:pos])
        out.append(fn(m))
        last = m.end()
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def redact(text: str) -> str:
    """`text` with every recognised secret replaced by `[REDACTED:<kind>]`."""
    if not text:
        return text
    if "PRIVATE KEY" in text:
        text = _PRIVATE_KEY.sub(_placeholder("private-key"), text)
    text = _RUN.sub(_run_sub, text)
    if "hooks.slack.com" in text:
        text = _SLACK_WEBHOOK.sub(_placeholder("slack-webhook"), text)
    if "://" in text:
        text = _URL_PASSWORD.sub(_url_sub, text)
    if "-u" in text:
        text = _USER_FLAG.sub(_user_flag_sub, text)
    if "=" in text:
        text = _ENV_LINE.sub(_env_sub, text)
    lower = text.lower()
    if len(lower) == len(text):
        text = _sub_at(text, lower, _AUTH_STARTS, _AUTH_HEADER, _auth_sub)
        text = _sub_at(text, text.lower(), _NAME_STARTS, _ASSIGN, _assign_sub)
    else:  # lowering changed the length (rare Unicode): positions would not line up
        text = _AUTH_HEADER.sub(_auth_sub, text)
        text = _ASSIGN.sub(_assign_sub, text)
    return text


def redact_obj(obj):
    """Redact every string inside a JSON-like value (hook payloads, log records)."""
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        return {k: redact_obj(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [redact_obj(v) for v in obj]
    return obj
