"""Secrets found by where they sit: URLs, headers, command lines and credential-file layouts.

`scheme://user:PASSWORD@host`, `Authorization: Bearer|Basic|Token ...`, `Cookie:` values,
`curl -u user:PASSWORD`, `mysql -pPASSWORD`, `sshpass -p`, `docker login -p`, `.netrc`
`password`, `.pgpass` lines, Docker `config.json` `"auth"` (base64 of user:password), `.npmrc`
`_auth`, Azure `AccountKey=`/`SharedAccessSignature=`/`sig=`, Discord webhooks and Telegram bot
tokens (bare, where gitleaks asks for a nearby name). Each pattern is RE2 (linear) and
bounded; the masked span is the secret, never the name or the user before it.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections import namedtuple

from cairn.redact.assign import is_option_value, name_strength
from cairn.redact.rx import LazyRegex, compile_bytes, keyword_set
from cairn.redact.shape import is_placeholder, is_reference, is_secret_value, is_uuid, looks_random

_E = rb"(?:[^A-Za-z0-9_\-]|$)"  # a token's end (RE2 has no look-ahead)

# One layout: the needle that must be in the lowered text, the pattern, the group of the secret, its kind, the
# check its value must pass ("any" masks every value that is not a reference or placeholder, "random" only
# generated ones...), the case that brought the layout in and the sets that measure it (rulebook.SETS)
Layout = namedtuple("Layout", "needle pattern group kind check brought_by measured_by")
LAYOUTS: list[Layout] = [
    Layout(
        b"://",
        rb"[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@'\"<>\[\]]*:([^\s@/'\"<>\[\]]+)@",
        1,
        "url-password",
        "any",
        "8733ac6 (the session archive): a database URL pasted with its password, `scheme://user:PASSWORD@host`",
        ("corpus", "held-out", "shapes", "gitleaks-cases", "trufflehog-cases"),
    ),
    Layout(
        b"authorization",
        rb"(?i)authorization[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token|digest|bot|apikey|sso-key|negotiate|ntlm)"
        rb"\s+([A-Za-z0-9._~+/=:\-]{8,})",
        1,
        "auth-header",
        "any",
        "issue 13 (b0dfaec): `Authorization: Bearer|Basic|Token ...` in curl commands, logs and configs",
        ("corpus", "held-out", "shapes", "gitleaks-cases", "trufflehog-cases"),
    ),
    Layout(
        b"bearer",
        rb"(?i)(?:^|[^A-Za-z0-9_])bearer\s+([A-Za-z0-9._~+/\-]{16,}=*)",
        1,
        "bearer-token",
        "random",
        "issue 13 (b0dfaec): a bare `Bearer <token>` outside a header",
        ("corpus", "held-out", "shapes", "gitleaks-cases", "trufflehog-cases"),
    ),
    Layout(
        b"basic",
        rb"(?i)(?:^|[^A-Za-z0-9_])basic\s+([A-Za-z0-9+/]{12,}={0,2})",
        1,
        "basic-auth",
        "basic",
        "issue 13 (b0dfaec): `Basic <base64 of user:password>` outside a header",
        ("corpus", "gitleaks-cases"),
    ),
    Layout(
        b"cookie",
        rb"(?i)(?:set-)?cookie[\"']?\s*:\s*[^\r\n=]+=([^\s;\"',]{16,})",
        1,
        "cookie",
        "random",
        "issue 13 (b0dfaec): session values in `Cookie:` and `Set-Cookie:` headers",
        ("corpus", "held-out", "gitleaks-cases"),
    ),
    # curl -u user:PASS, lftp -u user,PASS, smbclient -U user%PASS (not `-u <user:password>`, a placeholder)
    Layout(
        b"-u",
        rb"(?i)(?:^|\s)(?:-u|--user)(?:\s+|=)[\"']?[^\s:,%'\"<]+[:,%]([^\s'\"]+)",
        1,
        "password",
        "any",
        "ff82447: a password after `curl -u user:`; issue 13, fifth probe (f4a50e2): the same in lftp and smbclient",
        ("corpus", "held-out", "shapes", "gitleaks-cases"),
    ),
    # --password-file=<(echo PASS): a secret fed through process substitution
    Layout(
        b"<(",
        rb"(?i)(?:pass|secret|token|key)[\w\-]*(?:=|\s+)<\(\s*(?:echo|printf)\s+(?:-n\s+)?"
        rb"(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s'\")]+))\s*\)",
        0,
        "password",
        "any",
        "issue 13, fifth probe (f4a50e2): `--password-file=<(echo PASS)`",
        ("held-out",),
    ),
    Layout(
        b"-p",
        rb"(?i)(?:mysql|mysqldump|mysqladmin|mariadb|mysqlimport|mysqlshow|mysqlcheck)\b[^\n|;&]*?\s-p"
        rb"(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s'\"]+))",
        0,
        "password",
        "any",
        "issue 13 (b0dfaec): a password glued to `mysql -p` and the other MySQL clients",
        ("corpus",),
    ),
    Layout(
        b"sshpass",
        rb"sshpass\s+(?:-[a-oq-zA-Z]\S*\s+)*-p\s*(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s'\"]+))",
        0,
        "password",
        "any",
        "issue 13 (b0dfaec): `sshpass -p PASS ssh ...`",
        ("corpus", "held-out"),
    ),
    Layout(
        b"login",
        rb"(?i)(?:docker|podman|nerdctl|helm\s+registry|oras|skopeo|az|cf|oc)\s+login\b[^\n|;&]*?\s(?:-p|--password)(?:\s+|=)"
        rb"(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s'\"]+))",
        0,
        "password",
        "any",
        "issue 13 (b0dfaec): `docker login -p`; 2e9a328: `az`, `cf`, `oc login -p`",
        ("corpus", "held-out", "trufflehog-cases"),
    ),
    Layout(
        b"--password-stdin",
        rb"(?:echo|printf)\s+(?:-n\s+)?(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s'\"|]+))\s*\|"
        rb"\s*(?:docker|podman|helm|oras|skopeo|nerdctl)\b[^\n]*?--password-stdin",
        0,
        "password",
        "any",
        "issue 13 corpus (88a016e): `echo PASS | docker login --password-stdin`",
        ("held-out",),
    ),
    Layout(
        b"redis-cli",
        rb"redis-cli\b[^\n|;&]*?\s(?:-a|--pass)\s+(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s'\"]+))",
        0,
        "password",
        "any",
        "issue 13 corpus (88a016e): the password after `redis-cli -a`",
        ("held-out",),
    ),
    Layout(
        b"variable",
        rb"(?i)variable\s+\"[^\"\n]{0,60}(?:pass|secret|token|key|cred)[^\"\n]{0,60}\"\s*\{[^}]*?"
        rb"default\s*=\s*\"([^\"\n]{4,})\"",
        1,
        "password",
        "any",
        'issue 13 corpus (88a016e): a Terraform `variable "db_password" { default = "..." }`',
        ("held-out",),
    ),
    # a secret's name in one field, its value in the next: Kubernetes/ECS env lists, .NET appSettings,
    # Postman environments (`- name: DB_PASSWORD` / `value: ...`, `key="ApiKey" value="..."`)
    Layout(
        b"value",
        rb"(?i)\\?[\"']?(?:name|key)\\?[\"']?\s*[:=]\s*\\?[\"']?([A-Za-z0-9_.\-]*(?:pass|pwd|secret|token|"
        rb"api[_\-]?key|credential|auth|private[_\-]?key)[A-Za-z0-9_.\-]*)\\?[\"']?\s*(?:,|\r?\n|(?:\\+n)+)?\s*-?\s*"
        rb"\\?[\"']?value\\?[\"']?\s*[:=]\s*(?:\\?\"([^\"\\\r\n]+)\\?\"|\\?'([^'\\\r\n]+)\\?'|([^\s,}\]\"'<>\\]+))",
        0,
        "secret",
        "pair",
        "issue 13 (2e9a328): Kubernetes and ECS env lists, .NET appSettings, Postman environments",
        ("corpus", "held-out", "gitleaks-cases", "trufflehog-cases"),
    ),
    # `auth=('user', 'PASSWORD')`, `credentials: ["user", "PASSWORD"]` (requests, httpx, aiohttp...)
    Layout(
        b"auth",
        rb"(?i)(?:auth|basic_auth|http_auth|login)\s*[=:]\s*[\(\[]\s*(?:'[^'\n]*'|\"[^\"\n]*\")"
        rb"\s*,\s*(?:'([^'\n]+)'|\"([^\"\n]+)\")\s*[\)\]]",
        0,
        "password",
        "any",
        "issue 13 probe (3a64c3b): `auth=('user', 'PASSWORD')` in requests and httpx",
        ("held-out", "scan"),
    ),
    Layout(
        b"cred",
        rb"(?i)(?:credentials?)\s*[=:]\s*[\(\[]\s*(?:'[^'\n]*'|\"[^\"\n]*\")"
        rb"\s*,\s*(?:'([^'\n]+)'|\"([^\"\n]+)\")\s*[\)\]]",
        0,
        "password",
        "any",
        "issue 13 probe (3a64c3b): `credentials: ['user', 'PASSWORD']`, the tuple's other spelling",
        ("tests/redact/test_rulebook.py",),
    ),
    Layout(
        b"openssl",
        rb"openssl\b[^\n|;&]*?\s-(?:k|pass\s+pass:|passin\s+pass:|passout\s+pass:)\s*"
        rb"(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s'\"]+))",
        0,
        "password",
        "any",
        "issue 13, third probe (d82abf2): the password after `openssl enc ... -k`",
        ("held-out",),
    ),
    Layout(
        b"htpasswd",
        rb"htpasswd\s+(?:-[a-zA-Z]+\s+)*-[a-zA-Z]*b[a-zA-Z]*\s+(?:-[a-zA-Z]+\s+)*\S+\s+\S+\s+"
        rb"(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s'\"]+))",
        0,
        "password",
        "any",
        "issue 13, third probe (d82abf2): the password on `htpasswd -b`'s command line",
        ("held-out",),
    ),
    # `wandb login KEY`, `vault login TOKEN`: a login command's bare argument, when it is generated
    Layout(
        b"login",
        rb"(?i)\b[a-z][\w.\-]*\s+(?:auth\s+)?login\s+(?:--?[a-z][\w\-]*\s+)*([A-Za-z0-9._~+/=\-]{20,})",
        1,
        "token",
        "random",
        "issue 13, third probe (d82abf2): `vault login TOKEN`, `wandb login KEY`",
        ("corpus", "held-out", "shapes", "gitleaks-cases"),
    ),
    # Twilio's Client(ACCOUNT_SID, AUTH_TOKEN): the token has no name, only its place after the SID
    Layout(
        b"ac",
        rb"AC[0-9a-f]{32}[\"']?\s*[,:]\s*[\"']?([0-9a-f]{32})(?:[^0-9a-zA-Z]|$)",
        1,
        "twilio-auth-token",
        "any",
        "issue 13, fourth probe (a86d9ab): Twilio's `Client(ACCOUNT_SID, AUTH_TOKEN)`",
        ("held-out",),
    ),
    # `gh secret set NAME --body VALUE`, `aws secretsmanager ... --secret-string VALUE`
    Layout(
        b"secret",
        rb"(?i)(?:secrets?\s+(?:set|put|create|add)\b[^\n|;&]*?\s(?:--body|-b|--value|--data)|--secret-string)"
        rb"(?:\s+|=)(?:'([^'\n]+)'|\"([^\"\n]+)\"|([^\s'\"]+))",
        0,
        "secret",
        "any",
        "issue 13, sixth probe (a58503c): the value of `gh secret set` and of `--secret-string`",
        ("held-out",),
    ),
    # prose: "the password for the admin account is VALUE"
    Layout(
        b"pass",
        rb"(?i)\b(?:password|passphrase|passcode|pin code)\s+(?:for|of)\s[\w .'\-]{1,60}?\s(?:is|was)\s*:?\s+"
        rb"[\"'`]?([^\s\"'`]{6,})",
        1,
        "password",
        "strongvalue",
        'issue 13, sixth probe (a58503c): "the password for the admin account is VALUE"',
        ("held-out",),
    ),
    Layout(
        b"machine",
        rb"(?i)(?:machine\s+\S+|default)(?:\s+(?:login|account|port)\s+\S+){0,3}\s+password\s+(\S+)",
        1,
        "password",
        "any",
        "issue 13 (7e2549b): `.netrc` lines (machine, login, password)",
        ("corpus", "held-out"),
    ),
    Layout(
        b":",
        rb"(?m)(?:^|[\s\"'=]|\\n)([A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*|\*|\[[0-9a-fA-F:]{2,45}\]):(?:\d{1,5}|\*)"
        rb":[A-Za-z_*][\w.\-*$]*:[A-Za-z_*][\w.\-@*$]*:([^\s'\"\\:][^\s'\"\\]*)(?:[ \t]*\r?$|['\"\\]|\s)",
        2,
        "pgpass-password",
        "pgpass",
        "issue 13 (b0dfaec): `.pgpass` lines; 2746a9b: a host is required (IPv6 addresses and times are not one)",
        ("corpus", "scan"),
    ),
    Layout(
        b"auth",
        rb"\"auth\"\s*:\s*\"([A-Za-z0-9+/]{6,}={0,2})\"",
        1,
        "docker-auth",
        "basic",
        'issue 13 (b0dfaec): Docker\'s `config.json` `"auth"`, the base64 of user:password',
        ("corpus", "held-out", "trufflehog-cases"),
    ),
    Layout(
        b"_auth",
        rb"(?:^|[\s:])_auth\s*=\s*\"?([A-Za-z0-9+/]{6,}={0,2})",
        1,
        "npm-auth",
        "any",
        "issue 13 (b0dfaec): `.npmrc`'s `_auth=`",
        ("corpus",),
    ),
    Layout(
        b"accountkey",
        rb"(?i)(?:AccountKey|SharedAccessKey|SharedSecret)\s*=\s*([A-Za-z0-9+/]{16,}={0,2})",
        1,
        "azure-key",
        "any",
        "issue 13 (b0dfaec): an Azure storage key leaked whole from a connection string (`AccountKey=`)",
        ("corpus", "held-out", "trufflehog-cases"),
    ),
    Layout(
        b"sharedaccesssignature",
        rb"(?i)SharedAccessSignature\s*=\s*([^;\s\"']{16,})",
        1,
        "azure-sas",
        "any",
        "issue 13 (b0dfaec): `SharedAccessSignature=` in an Azure connection string",
        ("tests/redact/test_rulebook.py",),
    ),
    Layout(
        b"sig=",
        rb"[?&]sig=([A-Za-z0-9%+/=]{16,})",
        1,
        "azure-sas",
        "any",
        "issue 13 (b0dfaec): a SAS URL's `sig=`",
        ("corpus", "trufflehog-cases"),
    ),
    Layout(
        b"webhooks",
        rb"(?i)https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d{5,30}/([A-Za-z0-9_\-]{30,})",
        1,
        "discord-webhook",
        "any",
        "issue 13 (b0dfaec): Discord webhook URLs leaked whole",
        ("corpus", "held-out", "trufflehog-cases"),
    ),
    # any webhook URL: a host label or a path segment `hook(s)`, `webhook(s)`, `webhookb2`, then the ids and tokens
    # that make it one (Slack, Discord, Teams/Office, Mattermost, Rocket.Chat, Webex, Feishu, WeCom...): masked
    # from the first generated or UUID part after the word to the last (`/hooks/123` alone names nothing)
    Layout(
        b"hook",
        rb"(?i)https?://[^\s\"'<>`]*?[./](?:hooks?|webhooks?|webhookb2)[./]([^\s\"'<>`\\]+)",
        1,
        "webhook",
        "webhook",
        "issue 35 item 10 (ba56d57): Teams/Office, Mattermost, Feishu... webhook URLs kept their ids and tokens",
        ("corpus", "held-out", "trufflehog-cases", "tests/redact/test_named_elsewhere.py"),
    ),
]
COMPILED = [(r.needle, compile_bytes(r.pattern), r.group, r.kind, r.check) for r in LAYOUTS]
NEEDLES = list(dict.fromkeys(r.needle for r in LAYOUTS))
_NEEDLE_OF = [NEEDLES.index(r.needle) for r in LAYOUTS]
_NEEDLE_SET = None  # an RE2 set of the needles, compiled on first use


def _present(lower: bytes) -> set[int]:
    """Indices (into NEEDLES) of the needles `lower` holds: one pass, not one `in` per needle."""
    global _NEEDLE_SET
    if _NEEDLE_SET is None:
        _NEEDLE_SET = keyword_set(NEEDLES)
    return set(_NEEDLE_SET.Match(lower) or ())


def _ok(value: bytes, check: str, data: bytes = b"", m: list | None = None) -> bool:
    m = m or []
    text = value.decode("utf-8", "replace")
    if check == "pair":  # the name in group 1, the value in the first of groups 2-4 that took part
        name = data[m[1][0] : m[1][1]].decode("ascii", "replace")
        strength = name_strength(name)
        return (
            strength is not None
            and not is_option_value(name, text)
            and is_secret_value(text, strong=strength == "strong", quoted=m[4][0] < 0)
        )
    if check == "strongvalue":  # a password in prose: not a word, has a digit or a symbol
        v = text.rstrip(".,;:!?)")
        return len(v) >= 6 and not v.isalpha() and is_secret_value(v, strong=True, quoted=True)
    if check == "pgpass":  # host:port:db:user:password; an IPv6 address or a time is not one
        host = data[m[1][0] : m[1][1]].decode("ascii", "replace") if m else ""
        if re.fullmatch(r"[0-9a-fA-F]{1,4}|[0-9.\-]+", host):
            return False
        check = "any"
    if check == "random":
        return looks_random(text)
    if check == "basic":  # base64 of user:password
        try:
            decoded = base64.b64decode(value + b"=" * (-len(value) % 4), validate=True)
        except (binascii.Error, ValueError):
            return False
        return b":" in decoded and decoded.isascii()
    return not (is_reference(text) or is_placeholder(text))


_URL_PART = re.compile(rb"[A-Za-z0-9_\-]+")


def _webhook_secret(data: bytes, start: int, end: int) -> tuple[int, int]:
    """From the first part of a webhook URL's tail (`start`:`end`) that is generated or a UUID to the last."""
    first = last = -1
    for m in _URL_PART.finditer(data, start, end):
        part = m.group(0).decode("ascii")
        if is_uuid(part) or looks_random(part):
            first = m.start() if first < 0 else first
            last = m.end()
    return first, last


def spans(data: bytes, lower: bytes, present: set[int] | None = None) -> list[tuple[int, int, str]]:
    """(start, end, kind) byte spans of secrets found by their surroundings. `present`: the indices of the
    NEEDLES `lower` holds, if a pass over it found them already (the providers' keyword pass in `redact.find`)."""
    out: list[tuple[int, int, str]] = []
    if present is None:
        present = _present(lower)
    for i, (_needle, rx, group, kind, check) in enumerate(COMPILED):
        if _NEEDLE_OF[i] in present:
            out += layout_hits(data, rx, group, kind, check)
    return out


def layout_hits(data: bytes, rx: LazyRegex, group: int, kind: str, check: str) -> list[tuple[int, int, str]]:
    """The spans one layout (a row of `LAYOUTS`, compiled) masks in `data`."""
    out = []
    for m in rx.finditer(data):
        if group:
            s, e = m[group]
        else:  # the first alternative that matched (after the name, for a pair)
            s, e = next((span for span in m[2 if check == "pair" else 1 :] if span[0] >= 0), (-1, -1))
        if check == "webhook":
            s, e = _webhook_secret(data, s, e)
        elif s >= 0 and e > s and not _ok(data[s:e], check, data, m):
            continue
        if s < 0 or e <= s:
            continue
        out.append((s, e, kind))
    return out
