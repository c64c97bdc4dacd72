"""A long, report-shaped request (a pasted issue) read for what it names, not as a bag of words.

A 400-word issue holds a few names of the project's code (`BaseModel.construct`, `is_flag`,
"requires an argument") among prose, the reporter's machine (`/Users/kyle/Library/Caches/...`,
`site-packages`), version numbers and dates. Weighed by rarity alone, those last are the rarest
words of the request and fill the text channel's few terms. This stage, run by query.analyze for a
request of `LongQuery.min_words` words or more that pastes something as code (shorter requests, and
long prompts of prose, with names in `inline code`, are analysed exactly as before):

- scrub: another machine's path keeps only its part inside the package (`.../site-packages/pydantic/
  main.py` -> `pydantic/main.py`; a path from / or a drive without such a marker keeps its last two
  parts), and numbers (`1.8.2`, `line 865`) go;
- regions: what is written as code (fenced blocks, `inline code`, indented lines, tracebacks, `>>>`
  lines) and what is quoted ("requires an argument") against the prose around them;
- reweigh (query._reweigh, where the terms are made): a term's rarity weight times `code_ident` when a code-shaped word is written
  as code or quoted, `code_word` for another word written as code, `quoted` for a quoted word and
  `prose` for a word of the prose only: the names weigh most, the prose by its rarity, damped.

Bounded: the text is cut to MAX_CHARS and the regexes are linear.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from cairn.search.bugreport import frame_of
from cairn.text.tokens import query_terms, term_counts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cairn.search.ranking import LongQuery

MAX_CHARS = 100_000  # a pasted log longer than this is read from its start only
_WORDS = re.compile(r"\S+")
_TOKEN = re.compile(r"[^\s\"'`()\[\]{}<>,;]+")  # a path's candidate: a run without space, quote or bracket
_MARKERS = frozenset({"site-packages", "dist-packages", "node_modules", "vendor", ".venv", "venv", "gems"})
_SHEBANG = re.compile(r"#! ?/\S{0,200}")  # a script's interpreter (`#!/usr/bin/env python`): no code of the project
_NUMBER = re.compile(r"(?<![\w.])v?\d+(?:[.:]\d+)*(?![\w])")
_FENCE = re.compile(r"^\s*(```|~~~)")
_INLINE = re.compile(r"`([^`\n]{1,300})`")
_QUOTED = re.compile(r"(?<![\w])\"([^\"\n]{2,160})\"(?![\w])|(?<![\w])'([^'\n]{2,160})'(?![\w])")
_ERROR_LINE = re.compile(r"\b[A-Z]\w{2,60}(?:Error|Exception|Warning): ")
_CALL_OPEN = re.compile(r"\w\(")  # a call written inline: a name, then its parenthesis
_CODE_LINE = re.compile(r"^(?: {4}|\t|>>> |\.\.\. |\$ |File \"|Traceback |\s+at )")


@dataclass
class Regions:
    """A long request's terms by where they were written: as code, quoted, in the prose."""

    code: set[str]
    quoted: set[str]
    strings: set[str] = field(default_factory=set)  # one-word string literals of the code (`reader="nrrdreader"`)


MAX_TITLE_WORDS = 25


def title(text: str) -> str:
    """A report's title: its first line when a short one (MAX_TITLE_WORDS) with more text after it
    ('' for a prompt of one long line: none of its lines says what it is about more than the others)."""
    head, _, rest = text[:MAX_CHARS].strip().partition("\n")
    return head if rest.strip() and len(head.split()) <= MAX_TITLE_WORDS else ""


def is_long(text: str, r: LongQuery) -> bool:
    """A report: `r.min_words` words or more (counted up to that many: a 200 KB log costs nothing) that
    paste something as code (a fenced block, indented or prompt lines, a traceback, an error line). A long
    prompt of prose ("I want you to analyse whether...") is no report: it is read as before, also when it
    writes a name or a command as `inline code`, as developers' prompts to an agent do; inline code that is
    a call counts. Any inline code made 47 of the session replay's 48 long prompts reports (files@5 /
    novel@5 0.564 / 0.472 -> 0.561 / 0.462: the docs they asked about left the top 5), none of them with
    a call; 2 of bench/bugs' 75 long reports have inline code only, both with calls (rich#3881,
    conan#13504; without conan's fn@5 0.508 -> 0.499). docs/benchmarks.md#session-history."""
    if not r.min_words or len(text) < r.min_words * 2:
        return False
    n = 0
    for _ in _WORDS.finditer(text):
        n += 1
        if n >= r.min_words:
            return _writes_code(text[:MAX_CHARS])
    return False


def _writes_code(text: str) -> bool:
    """Pasted code, a log or a stack. `inline code` counts only as a call (`Console(markup=False)`): a
    name or a command in backticks (`posh-git`, `specstory resume`) is how a prompt names things."""
    if "```" in text or "~~~" in text or _ERROR_LINE.search(text):
        return True
    if any(_is_call(m.group(1)) for m in _INLINE.finditer(text)):
        return True
    return any(_CODE_LINE.match(line) and line.strip() for line in text.splitlines())


def _is_call(span: str) -> bool:
    m = _CALL_OPEN.search(span)
    return m is not None and ")" in span[m.end() :]


_TEMPLATE_DIRS = (".github/ISSUE_TEMPLATE", ".github", "docs", ".")
_TEMPLATE_EXTS = (".md", ".yml", ".yaml", ".txt")
_LINE_HEAD = re.compile(
    r"^[\s#>*+\-]*(?:\[[ xX]\]\s*)?(?:(?:label|description|placeholder|value|title|about|name)\s*:\s*[|>]?-?\s*)?"
)
MAX_TEMPLATE_BYTES = 64_000


def report_body(text: str, root: Path | None, r: LongQuery) -> str:
    """A report as searched: without its issue template's lines (with the tree at hand) and, with
    `r.boilerplate`, its checklists and pasted environment."""
    if r.boilerplate:  # first: the template's lines would break an issue form's run of answers
        text = without_boilerplate(text, r.forms)
    return without_template(text, root) if root is not None and r.template else text


_FRAME_LINES = frozenset({"python", "jvm", "js", "at", "dotnet"})  # formats whose frame is a line of its own


def without_foreign_frames(text: str, ours: Callable[[str], bool]) -> str:
    """The report without the frames of its stack that are no file of the project (`ours(path)`, for a
    path with folders: a bare `t.py` is the reporter's own script, its code line calls the project):
    another project's traceback, the standard library, a test runner. Their paths, functions and code
    lines name that code, not the project's (conan#6674: cpt's `packager.py` frames). A frame inside a
    line of prose (`see /usr/lib/x.py:12`) stays."""
    lines = text[:MAX_CHARS].splitlines()
    out: list[str] = []
    skip_code = False
    for line in lines:
        if skip_code and line.strip() and line[:1].isspace() and frame_of(line) is None:
            skip_code = False  # the frame's code line, printed under it
            continue
        skip_code = False
        frame = frame_of(line) if ("File " in line or "at " in line) else None
        if frame is not None and frame.fmt in _FRAME_LINES and "/" in frame.path.replace("\\", "/").strip("/"):
            if not ours(frame.path):
                skip_code = frame.fmt == "python"
                continue
        out.append(line)
    return "\n".join(out) if len(out) < len(lines) else text


def without_template(text: str, root: Path) -> str:
    """The report without the lines it kept from the project's issue template (`Output of python -c
    "import pydantic.utils; print(pydantic.utils.version_info())"`, "I have searched for similar
    issues"): those name the template's code, not the bug."""
    lines = _template_lines(str(root), _template_stamp(root))
    if not lines:
        return text
    return "\n".join(x for x in text[:MAX_CHARS].splitlines() if _norm(x) not in lines)


def _template_stamp(root: Path) -> tuple[tuple[str, int], ...]:
    """The issue templates under `root` and their modification times (the cache key)."""
    out = []
    for d in _TEMPLATE_DIRS[:1]:
        try:
            with os.scandir(root / d) as it:
                out += [(e.path, e.stat().st_mtime_ns) for e in it if e.is_file() and _is_bug_template(e.name)]
        except OSError:
            continue
    for d in _TEMPLATE_DIRS[1:]:
        p = root / d / "ISSUE_TEMPLATE.md"
        try:
            out.append((str(p), p.stat().st_mtime_ns))
        except OSError:
            continue
    return tuple(sorted(out))


def _is_bug_template(name: str) -> bool:
    low = name.lower()
    return low.endswith(_TEMPLATE_EXTS) and ("bug" in low or low.startswith("issue_template"))


@lru_cache(maxsize=64)
def _template_lines(root: str, stamp: tuple[tuple[str, int], ...]) -> frozenset[str]:
    lines: set[str] = set()
    for path, _ in stamp:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                body = fh.read(MAX_TEMPLATE_BYTES)
        except OSError:
            continue
        lines.update(n for n in map(_norm, body.splitlines()) if n)
    return frozenset(lines)


def _norm(line: str) -> str:
    """A line as a template and a report both write it: no bullet, checkbox, heading mark or yml key."""
    n = " ".join(_LINE_HEAD.sub("", line[:1000]).strip().strip("\"'").lower().split())
    return n if len(n) >= 12 else ""


_CHECKBOX = re.compile(r"^\s*(?:[-*+]\s*)?\[[ xX]\]\s")
_ENV_LINE = re.compile(r"^\s*(?:[-*+]\s*)?([A-Za-z][\w .()/+-]{0,40}?)\s*:\s+(\S.{0,300})$")
_VERSIONISH = re.compile(r"\d\.\d")  # a version (1.8.2, 3.9): linear, no run of digits retried
_ENV_VALUE = re.compile(
    r"(?i)^(?:none|true|false|yes|no|unknown|n/a|[/~\[]|[a-z]:\\|linux|darwin|mac|win|ubuntu|debian|x86|arm)"
)
_HEAD_LINE = re.compile(r"^\s*(?:[-=#*]{3,}|```\w*|~~~\w*|\$ .*|[^:]{0,200}:|[A-Z][A-Z ]{3,40})\s*$")
MIN_ENV_LINES = 3  # `key: value` lines in a row, two of them versions: a pasted environment


def without_boilerplate(text: str, forms: bool = True) -> str:
    """The report without what every report of the project holds: checklist lines (`- [x] I have
    searched the issues`) and pasted environment blocks (`pydantic version: 1.8.2`, `python: 3.9.1`,
    `platform: Linux-5.13`, the output of the project's own `show_versions()`), with the lines that
    introduce them (`Output of python -c "...version_info()":`). Their words name the project's
    version module, not the bug. A block: `key: value` lines in a row, MIN_ENV_LINES of them and two
    versions, or two lines and a version beside such a block (its next section); an issue form's
    answers (`### OS`, then `macOS 12.6.8`) are such lines too."""
    lines = text[:MAX_CHARS].splitlines()
    drop = [bool(_CHECKBOX.match(x)) for x in lines]
    runs = sorted(_setting_runs(lines) + (_form_runs(lines) if forms else []))
    strong = [pairs >= MIN_ENV_LINES and versions >= 2 for _, _, pairs, versions in runs]
    for n, (first, last, pairs, versions) in enumerate(runs):
        near = (n > 0 and strong[n - 1]) or (n + 1 < len(runs) and strong[n + 1])
        if not (strong[n] or (near and pairs >= 2 and versions >= 1)):
            continue
        k = first
        for _ in range(3):  # the lines introducing the block: a heading, `Output of ...:`, a command
            if k > 0 and (not lines[k - 1].strip() or _HEAD_LINE.match(lines[k - 1])):
                k -= 1
        for i in range(k, last + 1):
            drop[i] = drop[i] or not _FENCE.match(lines[i])  # a fence stays: the code regions stay paired
    if not any(drop):
        return text
    if forms:
        _drop_emptied_headings(lines, drop)
    return "\n".join(x for x, d in zip(lines, drop, strict=True) if not d)


def _drop_emptied_headings(lines: list[str], drop: list[bool]) -> None:
    """A heading whose whole section left (`### Code of Conduct` over its checkbox) leaves too."""
    dropped = kept = False  # the section below the heading, up to the next one
    for i in range(len(lines) - 1, -1, -1):
        if _FORM_HEAD.match(lines[i]):
            drop[i] = drop[i] or (dropped and not kept)
            dropped = kept = False
        elif drop[i]:
            dropped = True
        elif lines[i].strip():
            kept = True


def _setting_runs(lines: list[str]) -> list[tuple[int, int, int, int]]:
    """(first, last line, `key: value` lines, versions among them) of each run of setting lines; a
    run goes on over a value's continuation (`[GCC 7.3.0]`) and a heading, and ends at a blank line."""
    runs: list[tuple[int, int, int, int]] = []
    first = last = -1
    pairs = versions = 0
    for i, line in enumerate([*lines, ""]):
        m = _ENV_LINE.match(line)
        if m and _env_pair(m.group(1), m.group(2)):
            if first < 0:
                first = i
            last, pairs, versions = i, pairs + 1, versions + bool(_VERSIONISH.search(m.group(2)))
            continue
        s = line.strip()
        if first >= 0 and s and (s[:1] in "[(" or _HEAD_LINE.match(line)):
            continue
        if first >= 0:
            runs.append((first, last, pairs, versions))
        first, pairs, versions = -1, 0, 0
    return runs


_FORM_HEAD = re.compile(r"^\s{0,3}#{1,6}\s+(\S.{0,60}?)[\s#]*$")


def _form_runs(lines: list[str]) -> list[tuple[int, int, int, int]]:
    """The same for an issue form's answers (GitHub's forms print `### pip version`, a blank line, `23.2`):
    a run of headings, each answered by one short value line (a setting, as `_env_pair` reads one)."""
    runs: list[tuple[int, int, int, int]] = []
    first = last = -1
    pairs = versions = 0
    i, n = 0, len(lines)
    while i < n:
        head = _FORM_HEAD.match(lines[i])
        if head:
            j = _next_filled(lines, i + 1)
            k = _next_filled(lines, j + 1)
            value = lines[j].strip() if j < n else ""
            if (
                value
                and not _FORM_HEAD.match(lines[j])
                and not _FENCE.match(lines[j])
                and (k >= n or _FORM_HEAD.match(lines[k]))
                and _env_pair(head.group(1), value)
            ):
                first = i if first < 0 else first
                last, pairs, versions = j, pairs + 1, versions + bool(_VERSIONISH.search(value))
                i = k
                continue
        if first >= 0:
            runs.append((first, last, pairs, versions))
        first, pairs, versions = -1, 0, 0
        i += 1
    if first >= 0:
        runs.append((first, last, pairs, versions))
    return runs


def _next_filled(lines: list[str], i: int) -> int:
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


def _env_pair(key: str, value: str) -> bool:
    """`python: 3.9.1 (default, ...)`, `OS: Linux`, `byteorder: little`: a setting and its short value
    (a version, a path, a platform, a word or two), not an error line (`ValueError: bad 1.5 value`)."""
    word = key.strip().rsplit(".", 1)[-1].lower()
    if word.endswith(("error", "exception", "warning")) or word in ("e", "error", "panic", "fatal", "note"):
        return False
    return bool(_VERSIONISH.search(value) or _ENV_VALUE.match(value)) or len(value.split()) <= 2


def scrub(text: str) -> str:
    """The request without another machine's path prefixes and without numbers."""
    text = _TOKEN.sub(_local_part, _SHEBANG.sub(" ", text[:MAX_CHARS]))
    return _NUMBER.sub(" ", text)


def _local_part(m: re.Match[str]) -> str:
    path = m.group(0)
    if path.count("/") + path.count("\\") < 2:  # not a path of two folders or more
        return path
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    marks = [i for i, p in enumerate(parts) if p.lower() in _MARKERS or re.fullmatch(r"python\d[\d.]*", p.lower())]
    if marks:
        return "/".join(parts[marks[-1] + 1 :]) or " "
    foreign = path[:1] in "/\\~" or (len(path) > 1 and path[1] == ":") or "\\" in path
    return "/".join(parts[-2:]) if foreign else path


_FILE_EXT = re.compile(r"(?<=[\w-])\.([A-Za-z][A-Za-z0-9]{0,4})(?![\w.(])")
_EXT_WORDS = frozenset(
    "py pyi txt md rst json yml yaml toml cfg ini csv xml html js ts tsx jsx go rs java rb sh log lock "
    "c h cc cpp hpp cs php kt swift".split()
)


def file_extensions(text: str) -> set[str]:
    """The extensions a report writes only as such (`requirements.txt`, `views.py`): a file's type, no
    name of the code; written as code they would weigh like the names around them (pip#5716: `txt` named
    the one `requirements.txt` of the tests' data)."""
    exts: dict[str, int] = {}
    for m in _FILE_EXT.finditer(text[:MAX_CHARS]):
        ext = m.group(1).lower()
        if ext in _EXT_WORDS:
            exts[ext] = exts.get(ext, 0) + 1
    if not exts:
        return set()
    counts = term_counts(text[:MAX_CHARS])
    return {e for e, n in exts.items() if counts.get(e, 0) <= n}


_STRING_WORD = re.compile(r"[\"']([A-Za-z][A-Za-z0-9]{5,40})[\"']")


def regions(text: str, r: LongQuery | None = None) -> Regions:
    """The terms written as code (fenced, inline, indented, traceback and prompt lines) and quoted;
    with `r.file_exts`, without the extensions the report writes only as a file name's."""
    code: list[str] = []
    quoted: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or _CODE_LINE.match(line):
            code.append(line)
            continue
        code.extend(m.group(1) for m in _INLINE.finditer(line))
        prose = _INLINE.sub(" ", line)
        quoted.extend(m.group(1) or m.group(2) or "" for m in _QUOTED.finditer(prose))
    where = Regions(set(query_terms("\n".join(code))), set(query_terms("\n".join(quoted))))
    where.strings = {m.group(1).lower() for c in code for m in _STRING_WORD.finditer(c)}
    if r is not None and r.file_exts:
        exts = file_extensions(text)
        where.code -= exts
        where.quoted -= exts
    return where
