"""Secrets named in one line or field and held in another: a label or command and the line after it,
a CSV header and the rows under it, a table's name cell and the cell beside it.

`API key:` / `  sk-...`, `Password:` / `<value>`; a command whose output is the secret (`echo $TOKEN`,
`printenv API_KEY`, `cat ~/.vault-token`, `heroku auth:token`, `aws ecr get-login-password`); the
AWS console's `credentials.csv` (`User name,Password,Access key ID,Secret access key,...`) and any
CSV with a secret column; `| token | <value> |` rows (`npm token create`, markdown). The name is
judged as assign.py judges a name (`name_strength`), and the value as a value after a blank
(`assign.judge`): a strong name's value needs a digit and must not be a word or code, a weak
name's must look generated. RE2 finds the candidates in one pass each (linear); the checks in
Python run on one bounded line or row at a time.
"""

from __future__ import annotations

import re

from cairn.redact.assign import judge, name_strength
from cairn.redact.rx import compile_bytes

_WORDS = rb"(?i:pass|pwd|secret|api[_\-]?key|token|auth|credential|creds|key|cookie|salt|session)"
# a line that holds a secret word, then (after at most one blank line) a line that is one token of 6 bytes or
# more, maybe after Claude Code's output mark `⎿`; no groups, so RE2 finds it with its DFA
_PAIR = compile_bytes(
    rb"(?m)^[^\n]*"
    + _WORDS
    + rb"[^\n]*\n(?:[ \t]*\r?\n)?[ \t]*(?:"
    + "\u23bf".encode()
    + rb"[ \t]+)?[^\s]{6,}[ \t]*\r?$"
)
MAX_HEAD = 300  # a longer naming line is prose or code, not a label or a command
MAX_VALUE = 600
_LABEL = re.compile(
    r"[ \t]*(?:[-*>#]+[ \t]*)?(?:\*\*|__)?((?:[A-Za-z][\w.\-]*[ \t]+){0,5}[A-Za-z][\w.\-]*)"
    r"(?:\*\*|__)?[ \t]*:(?:\*\*|__)?[ \t]*\r?"
)
# a shell prompt (`$ `, `user@host:~$ `, `PS C:\\> `, `❯ `), else a tool call's opening (`Bash(`), before a command
_PROMPTS = (re.compile(r"[$%>#\u276f\u279c][ \t]+"), re.compile(r"\b[A-Za-z]\w*\("))
_DIGIT = re.compile(r"\d")
_VAR = re.compile(r"""["'`]*(?:\$\{?|\$env:|%)?([\w.\-:/~]+?)\}?%?["'`);]*""")
# first words that make a line code, not a label or a command (`if password:`, `def token`)
_CODE_STARTS = frozenset(
    "if elif else unless while until for foreach with def fn func function class case when "
    "return except catch try switch struct enum interface type namespace module public private "
    "protected static const let var val import from export".split()
)
MAX_WORDS = 8
_PROGRAM = re.compile(r"[A-Za-z][\w.+\-]*")
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}$")


def spans(data: bytes, lower: bytes) -> list[tuple[int, int, str]]:
    """(start, end, kind) byte spans of secrets named on another line or in another field."""
    out: list[tuple[int, int, str]] = []
    if b"\n" in data:
        out += _pair_spans(data)
        if b"," in data:
            out += _csv_spans(data, lower)
    if b"|" in data or b"\xe2\x94" in data:  # a bar, or a box-drawing one
        out += _cell_spans(data)
    return out


def _pair_spans(data: bytes) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    for m in _PAIR.finditer(data):
        s, e = m[0]
        head_end = data.find(b"\n", s, e)
        if head_end - s > MAX_HEAD:
            continue
        vs = data.rfind(b"\n", s, e) + 1
        raw = data[vs:e].decode("utf-8", "replace").strip().removeprefix("\u23bf").strip()
        value = raw.strip("\"'`")
        if len(value) > MAX_VALUE or not _DIGIT.search(value) or any(c in value for c in "\"'`"):
            continue  # a value this rule takes has a digit (a strong name's needs one, a generated one has one)
        name = _naming(data[s:head_end].decode("utf-8", "replace").rstrip("\r"))
        strength = name_strength(name) if name is not None else None
        kind = judge(name, strength, value, quoted=False, bare=True) if name and strength else None
        if kind is not None:
            at = data.find(value.encode("utf-8", "surrogatepass"), vs, e)
            out.append((at, at + len(value.encode("utf-8", "surrogatepass")), kind))
    return out


def _naming(head: str) -> str | None:
    """The secret's name a line gives: a label's words (`API key:`), or a command's last argument that names a
    secret (`echo $TOKEN`, `cat ~/.vault-token`, `heroku auth:token`, `aws ecr get-login-password --region x`)."""
    label = _LABEL.fullmatch(head) if head.rstrip(" \t*_").endswith(":") else None
    if label is not None:
        words = label.group(1).split()
        return None if words[0].lower() in _CODE_STARTS else "_".join(words)
    prompt = _PROMPTS[0].search(head) or _PROMPTS[1].search(head)
    words = head[prompt.end() if prompt else 0 :].split()
    if not words or words[0].lower() in _CODE_STARTS:
        return None
    flag = next((i for i, w in enumerate(words) if w.startswith("-")), len(words))
    words = words[:flag]  # the command and its arguments before the first flag
    if (
        not 2 <= len(words) <= MAX_WORDS
        or not _PROGRAM.fullmatch(words[0])
        or any(w.endswith((":", "=", ",", ";", "{", ".")) for w in words)
    ):
        return None  # not a program and its arguments: a list of tokens, a sentence, an assignment, code
    for word in reversed(words):
        m = _VAR.fullmatch(word)
        if m is None:
            continue
        name = _EXTENSION.sub("", m.group(1).rsplit("/", 1)[-1]).lstrip(".")
        if name and name_strength(name) is not None:
            return name
    return None


# A CSV header: two or more names of one to four words, a comma and no blank between them (not a sentence
# or an import list), one of them (checked in Python) a secret's; then a line with a comma
_CSV_FIELD = rb'"?[A-Za-z][A-Za-z0-9_\-]*(?: [A-Za-z][A-Za-z0-9_\-]*){0,3}"?'
_CSV_HEAD = compile_bytes(rb"(?m)^" + _CSV_FIELD + rb"(?:," + _CSV_FIELD + rb")+\r?\n[^\n]*,")
MAX_ROWS = 1000


def _csv_spans(data: bytes, lower: bytes) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    at = 0
    while (m := _CSV_HEAD.search(data, at)) is not None:
        s = m[0][0]
        head_end = data.find(b"\n", s)
        at = head_end + 1  # the next header may be the next line (each line is read as a row once, at most)
        columns = [c.strip().strip('"').strip() for c in data[s:head_end].decode("ascii", "replace").split(",")]
        secret = {i: (c, st) for i, c in enumerate(columns) if (st := name_strength(c.replace(" ", "_"))) is not None}
        if not secret or len(secret) == len(columns):
            continue  # no secret column, or a list of secret words (`token,key,secret`)
        for _ in range(MAX_ROWS):
            end = data.find(b"\n", at)
            end = len(data) if end == -1 else end
            row = _row(data, at, end)
            if row is None or len(row) != len(columns):
                break
            for i, (name, strength) in secret.items():
                cs, ce, cell = row[i]
                kind = judge(name.replace(" ", "_"), strength, cell, quoted=True, bare=False) if cell else None
                if kind is not None:
                    out.append((cs, ce, kind))
            at = end + 1
            if at >= len(data):
                return out
    return out


def _row(data: bytes, start: int, end: int) -> list[tuple[int, int, str]] | None:
    """A CSV line's cells as (start, end, text), quotes and blanks off; None for a line that is not a row."""
    line = data[start:end].removesuffix(b"\r")
    if not line or len(line) > 4096:
        return None
    cells, pos = [], 0
    while True:
        if line[pos : pos + 1] == b'"':
            close = line.find(b'"', pos + 1)
            if close == -1:
                return None
            a, b, stop = pos + 1, close, close + 1
            if stop < len(line) and line[stop : stop + 1] != b",":
                return None
        else:
            comma = line.find(b",", pos)
            stop = len(line) if comma == -1 else comma
            a, b = pos, stop
            while a < b and line[a : a + 1] in b" \t":
                a += 1
            while b > a and line[b - 1 : b] in b" \t":
                b -= 1
        cells.append((start + a, start + b, line[a:b].decode("utf-8", "replace")))
        if stop >= len(line):
            return cells
        pos = stop + 1  # past the comma
        if pos == len(line):
            cells.append((start + pos, start + pos, ""))
            return cells


_BAR = "(?:\\||\u2502|\u2503)".encode()  # | │ ┃
# a table row's first cell that names a secret and the cell after it, one token: `| token | npm_... |`,
# `│ token │ ... │`, a markdown row without its outer bars (`api token | VALUE`)
_CELL = compile_bytes(
    rb"(?m)^[ \t]*(?:"
    + _BAR
    + rb"[ \t]*)?`?([A-Za-z][\w.\-]*(?: [A-Za-z][\w.\-]*){0,3})`?[ \t]*"
    + _BAR
    + "[ \t]*`?([^\\s|`\u2502\u2503]+)`?[ \t]*".encode()
    + rb"(?:"
    + _BAR
    + rb"|\r?$)"
)


def _cell_spans(data: bytes) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    pos = 0
    while True:
        m = _CELL.search(data, pos)
        if m is None:
            return out
        (ns, ne), (vs, ve) = m[1], m[2]
        pos = m[0][1]
        name = data[ns:ne].decode("ascii", "replace").replace(" ", "_")
        strength = name_strength(name)
        if strength is None or ve - vs > MAX_VALUE:
            continue
        kind = judge(name, strength, data[vs:ve].decode("utf-8", "replace"), quoted=False, bare=False)
        if kind is not None:
            out.append((vs, ve, kind))
