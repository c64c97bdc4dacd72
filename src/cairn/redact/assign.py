"""Secrets by assignment: a secret-ish name, a separator, a value that has a secret's shape.

Every shape people write a credential in: `password = "..."`, `"apiKey": "..."`, `api_key: ...`,
`export DB_PASSWORD=...`, `Password=...;` in a connection string, `<password>...</password>`,
`--token VALUE`, `aws configure set aws_secret_access_key VALUE`, `os.environ["KEY"] = "..."`.
Each occurrence of a secret word is tried on its own (a failed try never hides the next one,
so `the password password: X` is caught). The name decides how much the value must prove:
strong names (password, secret, api key, ...) take any value that is not a reference,
placeholder or code; weak ones (token, key, auth, salt, ...) only generated-looking values;
names whose head noun says "not the secret" (`key_id`, `token_count`, `password_hash`,
`secret_name`, `public_key`) take nothing. Value checks live in shape.py.
"""

from __future__ import annotations

import re
from functools import lru_cache

from cairn.redact.rx import compile_bytes
from cairn.redact.shape import is_secret_value, is_uuid, looks_random

_WORDS = compile_bytes(
    rb"(?i)pass(?:wd|word|phrase)?|pwd|pw|secret|api[_\-]?key|token|auth|credential|creds|key|sig|cookie|salt|session|pat"
)
MAX_VALUE = 600  # bytes looked at after a name: separator, quotes and a value of up to ~512
_IDENT_RUN = re.compile(rb"[A-Za-z0-9_.\-]{0,64}")  # up to 64 bytes of a name (letters, digits, _ . -)
# separator (group 1) and an opening quote (group 2), matched in a short window; the value's end is
# then found by a search without groups (cheap in RE2, whatever the value's length)
_SEP = compile_bytes(
    rb"(?:\\?[\"'])?\]?([ \t]*(?::=|=>|==|\+=|=|:|>)[ \t]*|[ \t]+(?:(?:is|was|are|to|as)[ \t]*:?[ \t]+)?|\\?[\"'][ \t]*,[ \t]*)"
    rb"(\\?[\"'`])?"
)
_QUOTED_END = compile_bytes(rb"[\"'`\\\r\n]")
_BARE_END = compile_bytes(rb"[\s\"'`;<>&|(){}\[\]\\]")
# A shortcut of `_value_span` for a weak name that is not a flag (not part of what is matched): blanks
# that `_SEP` takes whole as its separator (no operator, quote, `is`... after them), then a bare run of
# fewer than 20 bytes up to a `_BARE_END` byte (RE2's \s is [\t\n\f\r ]) or the end. Such a value
# is too short to be generated, so `_value_span` would refuse it: `class="token operator"` in HTML.
_WEAK_SHORT_BARE = re.compile(
    rb"[ \t]{1,47}(?![ \t:=+>\"'`\\]|is|was|are|to|as)[^\t\n\f\r \"'`;<>&|(){}\[\]\\]{0,19}"
    rb"(?:[\t\n\f\r \"'`;<>&|(){}\[\]\\]|\Z)"
)
_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_STRONG_JOINED = re.compile(
    r"pass(?:wd|word|phrase)|pwd|secret|apikey|accesskey|privatekey|signingkey|masterkey|encryptionkey"
    r"|(?:auth|access|refresh|bearer|api|bot|session|id|personal|deploy|admin|service)token|credential|creds"
)
_WEAK_PARTS = frozenset("token tokens key keys auth sig signature cookie salt session pat cred".split())
_PASS_PARTS = frozenset("pass pw passwd pwd passwort".split())
# Head nouns that say the value is about the secret, not the secret
_NOT_SECRET_HEADS = frozenset(
    "id ids name names file files path paths dir url uri endpoint length len size count type types hash hashed "
    "digest checksum sum fingerprint version format prefix suffix field fields header headers env var ref label "
    "placeholder hint policy mode algorithm alg method manager provider store rotation expiry expires expiration "
    "at in ttl timeout limit max min budget usage issuer audience scope scopes kind template regex pattern source "
    "location region host port user username login email enabled required reset confirm valid invalid strength "
    "rules rule min_length index column table arn ids list arg args param params schema description desc doc docs "
    "help text msg message error errors prompt title key_id flag flags option options default defaults "
    "bucket queue topic stream log logs schema schemas map maps sha md crc "
    # a mechanism that handles the secret (`password_encryption = 'scram-sha-256'`, `passwordHasher: 'argon2id'`,
    # `credential.helper=manager-core`, `secret_engine = "kv-v2"`, `PasswordAuthenticatedUserInterface: 'auto'`)
    "encryption encoder encoding hasher hashers hashing engine helper backend driver strategy plugin validator "
    "validators handler generator factory interface class".split()
)
_NOT_SECRET_MODIFIERS = frozenset(
    "public pub publishable cache sort primary foreign partition idempotency dedup dedupe lookup row object column next prev "
    "page cursor continuation csrf xsrf etag request trace span correlation lock unique natural sequence max min "
    "num total input output completion prompt cached magic".split()
)
_KINDS = (
    ("pass", "password"),
    ("pwd", "password"),
    ("secret", "secret"),
    ("key", "api-key"),
    ("token", "token"),
    ("cred", "credential"),
    ("cookie", "cookie"),
    ("sig", "signature"),
)
# Documented values of options named like a secret: fetch()'s `credentials: 'include' | 'same-origin' | 'omit'`
# (the Fetch standard's RequestCredentials), a GitHub Actions reusable workflow's `secrets: inherit`
_OPTION_VALUES = {"credentials": frozenset({"include", "same-origin", "omit"}), "secrets": frozenset({"inherit"})}
# A validation rule list (Laravel, VeeValidate: `'password' => 'required|string|min:8|confirmed'`): rule words
# joined by `|`, one of them a rule every such list has
_RULE_LIST = re.compile(r"[a-z_]+(?::[\w,.\-]*)?(?:\|[a-z_]+(?::[\w,.\-]*)?)+")
_RULE_WORDS = frozenset("required nullable sometimes string confirmed min max between size email".split())
_WORD_ONLY = re.compile(r"[A-Za-z]+[:=]?")
_PROSE_SEPS = frozenset((b"is", b"was", b"are", b"to", b"as"))
_LIST_GOES_ON = re.compile(rb"[ \t]*,[ \t]*[\"']")  # `'pass', 'raise', 'return'`: a third string follows


@lru_cache(maxsize=4096)
def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _ident_end(data: bytes, at: int) -> int:
    """Where the run of up to 64 identifier bytes starting at `at` ends (the pattern matches empty)."""
    m = _IDENT_RUN.match(data, at)
    return m.end() if m is not None else at


@lru_cache(maxsize=4096)
def name_strength(name: str) -> str | None:
    """'strong', 'weak' or None for an identifier like `DB_PASSWORD`, `apiKey`, `token_count`.

    Cached: JSON output repeats the same keys thousands of times (`cairn xray --json`)."""
    parts = [p.lower() for p in _PARTS.findall(name)]
    if not parts:
        return None
    words = [p for p in parts if not p.isdigit()] or parts  # `key_sha256`: the head is `sha`
    if words[-1] in _NOT_SECRET_HEADS or (len(words) > 1 and "_".join(words[-2:]) in _NOT_SECRET_HEADS):
        return None
    joined = "".join(parts)
    if _strong_word(parts, joined) or any(p in _PASS_PARTS for p in parts):
        return "strong" if not any(p in _NOT_SECRET_MODIFIERS for p in parts[:-1]) or "pass" in joined else None
    if any(p in _WEAK_PARTS for p in parts):
        return None if any(p in _NOT_SECRET_MODIFIERS for p in parts) else "weak"
    return None


def is_option_value(name: str, value: str) -> bool:
    """A documented option value (`credentials: 'include'`) or a validation rule list
    (`'password' => 'required|min:8'`): what the option is set to, not a secret."""
    low = value.strip().lower()
    parts = _PARTS.findall(name)
    if parts and low in _OPTION_VALUES.get(parts[-1].lower(), ()):
        return True
    return bool(_RULE_LIST.fullmatch(low)) and any(w.split(":")[0] in _RULE_WORDS for w in low.split("|"))


_WORD_ENDINGS = ("ing", "ings", "ary", "aries", "ive", "less", "ed")  # `keying`, `secretary`, `passwordless`


def _strong_word(parts: list[str], joined: str) -> bool:
    """A strong word in the name that is not the start of another word: `DBPASSWORD`, `SECRETKEY`,
    `myApiKey`, `client_secrets`, but not `master-keying`, `secretary` or `passwordless`."""
    ends, at = [], 0
    for p in parts:
        at += len(p)
        ends.append(at)
    for m in _STRONG_JOINED.finditer(joined):
        part_end = next(e for e in ends if e >= m.end())
        if joined[m.end() : part_end] not in _WORD_ENDINGS:
            return True
    return False


_KEY_OWNERS = frozenset(
    "api license auth access secret private service account subscription master admin app "
    "client sdk write read ingest deploy".split()
)


def _uuid_secret(name: str) -> bool:
    """A UUID is a secret under `*_token`, `*_secret`, `api_key` (not under a lone `key`)."""
    parts = [p.lower() for p in _PARTS.findall(name)]
    return bool(parts) and (
        parts[-1] in ("token", "tokens", "secret", "pat", "auth")
        or (parts[-1] in ("key", "keys") and any(p in _KEY_OWNERS for p in parts[:-1]))
    )


def _kind(name: str) -> str:
    low = name.lower()
    if "aws" in low and "secret" in low:
        return "aws-secret-key"
    for word, kind in _KINDS:
        if word in low:
            return kind
    return "credential"


def spans(data: bytes) -> list[tuple[int, int, str]]:
    """(start, end, kind) byte spans of values assigned to secret-ish names."""
    out: list[tuple[int, int, str]] = []
    n = len(data)
    done_until = -1
    ident = _IDENT_RUN.match  # matches the empty string too: never None
    for hit in _WORDS.finditer(data):
        (h0, h1) = hit[0]
        end = ident(data, h1).end()  # type: ignore[union-attr]  # the name goes on: up to 64 identifier bytes
        if end <= done_until:
            continue
        done_until = end
        lo = h0 - 64 if h0 > 64 else 0  # and began up to 64 identifier bytes before the word
        start = h0 - ident(data[lo:h0][::-1]).end()  # type: ignore[union-attr]  # never None (see `ident`)
        if start > 0:
            prev = data[start - 1]
            if prev == 0x5C and data[start : start + 1] in (b"n", b"t", b"r") and start < h0:  # a backslash
                start += 1  # `\npassword=...`: an escaped line break (JSON, a quoted string) ends the name before
            elif prev in (0x3A, 0x2F, 0x40) and data[max(0, start - 4) : start].lower() != b"env:":  # : / @
                continue  # inside an ARN, a URL or a path (`arn:...:secret:name`), not `$env:NAME`
        raw = data[start:end]
        flag = raw.startswith(b"-")
        name = raw.lstrip(b"-.").rstrip(b"-.").decode("ascii", "replace")
        if end < n and data[end : end + 1] == b"." or not name:
            continue
        if name == "PASS" and data[start - 4 : start] == b"--- ":
            continue  # Go's test output: `--- PASS: TestName/case (0.00s)`
        strength = name_strength(name)
        if strength is None:
            continue
        if strength == "weak" and not flag and _WEAK_SHORT_BARE.match(data, end) is not None:
            continue  # what `_value_span` would refuse, found without it (the common case by far)
        found = _value_span(data, end, name, strength, flag, start)
        if found is not None:
            out.append(found)
    return out


def _value_span(
    data: bytes, pos: int, name: str, strength: str, flag: bool, name_start: int = 0
) -> tuple[int, int, str] | None:
    n = len(data)
    m = _SEP.match(data, pos, min(n, pos + 48))
    if m is None:
        return None
    sep = data[m[1][0] : m[1][1]]
    quoted = m[2][0] >= 0
    vs = m[0][1]
    window = min(n, vs + MAX_VALUE)
    if quoted:
        stop = _QUOTED_END.search(data, vs, window)
        if stop is None:
            return None
        ve = stop[0][0]
        closer = data[ve : ve + 2] if data[ve : ve + 1] == b"\\" else data[ve : ve + 1]
        if ve == vs or closer[-1:] not in (b'"', b"'", b"`"):
            return None  # no closing quote on this line
    else:
        stop = _BARE_END.search(data, vs, window)
        ve = stop[0][0] if stop is not None else window
        if ve == vs:
            return None
        raw_end = ve
        while ve > vs and data[ve - 1 : ve] in (b",", b".", b")", b"}", b"]", b":"):
            ve -= 1  # trailing punctuation belongs to the sentence or the code around it
        if data[raw_end : raw_end + 1] == b"(":
            return None  # a call: getpass(), anthropic_api_key()
    value = data[vs:ve].decode("utf-8", "replace")
    if not value:
        return None
    if b"," in sep and (
        not quoted
        or data[name_start - 1 : name_start] not in (b'"', b"'")
        or data[name_start - 2 : name_start - 1] not in (b"(", b" ", b",", b"[")
        or data[ve + 1 : ve + 3].lstrip()[:1] == b":"
        or not flag
        and _LIST_GOES_ON.match(data, ve + 1, min(n, ve + 8)) is not None
    ):
        # `f("NAME", "value")` (define, setenv); not a JSON object's next key, not a list of names (an
        # argument list goes on after `"--password", "VALUE"`)
        return None
    if sep.strip() in (b">", b"==") and not quoted and strength == "weak":
        return None
    if quoted and len(value) < 64 and _squash(value) and _squash(value) in _squash(name):
        return None  # `SECRET_SUFFIX_KEY = "secretSuffix"`: the value names the name
    bare = not sep.strip() or sep.strip(b" \t:").lower() in _PROSE_SEPS
    kind = judge(name, strength, value, quoted=quoted, bare=bare, flag=flag, env_style=sep == b"=" and name.isupper())
    return None if kind is None else (vs, ve, kind)


def judge(
    name: str, strength: str, value: str, *, quoted: bool, bare: bool, flag: bool = False, env_style: bool = False
) -> str | None:
    """The kind of secret `value` is when it follows `name` (whose `name_strength` is `strength`), or None.

    `bare`: the value follows a blank or a word (`password VALUE`, `the password is VALUE`, a label's next
    line), not an operator or a quote, so it must be a flag's value, not a word, or generated bytes (not
    `arguments to pass to :func:`main``, `secret as plain-text`)."""
    if bare:
        if _WORD_ONLY.fullmatch(value):
            return None
        verb = name.islower() and name.rsplit("_", 1)[-1] == "pass"  # `pass `batch=1``, nginx's `proxy_pass URL`
        if not flag and (strength == "weak" or verb) and not (len(value) >= 20 and looks_random(value)):
            return None
        if not flag and strength == "strong" and not (len(value) >= 6 and any(c.isdigit() for c in value)):
            return None
    if is_option_value(name, value):
        return None
    if strength == "weak" and is_uuid(value.strip()) and _uuid_secret(name):
        return _kind(name)  # CODECOV_TOKEN=<uuid>: many services issue UUID tokens
    if not is_secret_value(value, strong=strength == "strong", quoted=quoted, env_style=env_style):
        return None
    return _kind(name)
