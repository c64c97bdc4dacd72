"""A pasted bug report read as one: its stack frames, failing test ids and error messages.

People paste a traceback, a failing test's output or an error line into the prompt; those name the
code far better than the prose around them. This module only reads the text (no index): a frame is
a file path as the report's machine wrote it (`C:\\Users\\x\\proj\\src\\a.py`, `node_modules/pkg/dist/a.js`,
`com/acme/Foo.java` from a Java frame's class), its line and function; bug_evidence.py maps them
to the project's files. Formats: Python tracebacks, Java/Kotlin and JS/TS `at ...` frames, C#
`at ... in path:line N`, and any `path.ext:line` token (Go panics, Rust backtraces, Ruby, pytest
output); pytest node ids (`tests/test_x.py::test_y`) and Go `--- FAIL: TestX`; `XError: message`
and `panic: message` lines.

Hostile input costs bounded time: the text is cut to MAX_CHARS, lines to MAX_LINE, frames to
MAX_FRAMES, and lines are read with string methods (the two patterns here are linear).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

MAX_CHARS = 200_000  # a pasted log longer than this is read from its start only
MAX_LINE = 1_000  # a longer line is cut (minified code, base64)
MAX_FRAMES = 200
MAX_MESSAGES = 12
SOURCE_EXTS = frozenset(
    "py pyi go rs java kt kts scala groovy js jsx mjs cjs ts tsx mts cts rb cs php c cc cpp cxx h hpp swift ex exs "
    "erl hs ml fs dart lua pl pm r jl clj zig vue svelte".split()
)
INNERMOST_LAST = frozenset({"python"})  # formats that print the innermost frame last
_STRIP = "()[]{}<>\"'`,;"
_ERROR_HEADS = ("error", "exception", "warning")
_BARE_HEADS = frozenset({"error", "panic", "fatal", "fatal error", "runtime error", "failed"})
_QUOTED = re.compile(r"'[^'\n]{0,200}'|\"[^\"\n]{0,200}\"|`[^`\n]{0,200}`|\b0x[0-9a-fA-F]{1,32}\b|\d{1,20}")
_WORD = re.compile(r"[A-Za-z][A-Za-z_]{1,40}")
# a CI log's line prefix: a timestamp (`[2024-12-02T18:56:38.590Z]`, GitHub Actions' `2024-01-05T10:00:00.1234567Z`,
# `[18:56:38]`), then the line as the program printed it
_LOG_STAMP = re.compile(
    r"\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:[.,]\d{1,9})?)?Z?\]?\s+|\[\d\d:\d\d:\d\d(?:[.,]\d{1,9})?\]\s+"
)


@dataclass(frozen=True)
class Frame:
    """One stack frame: the path as written, its line (0: none), function ('' none), the format
    that printed it and its place among that format's frames counted from the innermost."""

    path: str
    line: int
    func: str
    fmt: str
    depth: int = 0
    code: str = ""  # the code line printed under a Python frame (read for a long report: `frame_code`)


@dataclass
class Report:
    frames: list[Frame] = field(default_factory=list)
    tests: list[tuple[str, str]] = field(default_factory=list)  # (test file path or '', test name)
    messages: list[str] = field(default_factory=list)
    modules: list[str] = field(default_factory=list)  # dotted Python module paths (`from a.b.c import x`, `a.b.c.X`)

    def __bool__(self) -> bool:
        return bool(self.frames or self.tests or self.messages or self.modules)


def parse(text: str, test_files: bool = False, modules: bool = False, frame_code: bool = False) -> Report:
    """The frames, failing tests and error messages of a pasted report (empty for a plain request);
    with `test_files` (a long report), the test files it names count as failing tests; with `modules`,
    the dotted module paths it imports or writes (`from pkg.sub.mod import name`, `pkg.sub.mod.Name`);
    with `frame_code`, each Python frame keeps the code line printed under it."""
    rep = Report()
    if not text:
        return rep
    raw: list[tuple[str, Frame]] = []
    lines = text[:MAX_CHARS].splitlines()
    for i, full in enumerate(lines):
        if len(raw) >= MAX_FRAMES:
            break
        line = _unstamped(full[:MAX_LINE].strip())
        if not line:
            continue
        frame = _python(line) or _at_frame(line) or _token_frame(line, lines, i)
        if frame is not None:
            if frame_code and frame.fmt == "python":
                frame = replace(frame, code=_code_under(lines, i))
            raw.append((frame.fmt, frame))
        _test_ids(line, rep, test_files)
        if modules and "." in line and len(rep.modules) < MAX_MODULES:
            _modules(line, rep)
        if len(rep.messages) < MAX_MESSAGES:
            msg = _message(line)
            if msg and msg not in rep.messages:
                rep.messages.append(msg)
    by_fmt: dict[str, list[Frame]] = {}
    for fmt, f in raw:
        by_fmt.setdefault(fmt, []).append(f)
    for fmt, frames in by_fmt.items():
        order = list(reversed(frames)) if fmt in INNERMOST_LAST else frames
        rep.frames += [replace(f, depth=d) for d, f in enumerate(order)]
    return rep


def _code_under(lines: list[str], i: int) -> str:
    """The code line under a Python frame (a CI log's blank or stamped lines between them skipped)."""
    for line in lines[i + 1 : i + 4]:
        code = _unstamped(line[:MAX_LINE].strip())
        if code:
            return "" if code.startswith(('File "', "Traceback ")) else code
    return ""


MAX_MODULES = 20
_IMPORT = re.compile(r"^(?:>>> )?(?:from\s+([A-Za-z_][\w.]{0,200})\s+import\s|import\s+([A-Za-z_][\w.]{0,200}))")
_DOTTED = re.compile(r"(?<![\w.])([a-z_][a-z0-9_]{0,40}(?:\.[A-Za-z_]\w{0,60}){2,8})(?![\w(])")


def _modules(line: str, rep: Report) -> None:
    """The dotted module paths of a line: what it imports from (`from a.b.c import x`: a.b.c), and a
    dotted name of three parts or more (`a.b.c.Name`); bug_evidence.py keeps those that are the
    project's module files. A call's dotted name (`a.b.c()`) is a function's, not a module's."""
    m = _IMPORT.match(line)
    found = [m.group(1) or m.group(2)] if m and "." in (m.group(1) or m.group(2) or "") else []
    found += [d.group(1) for d in _DOTTED.finditer(line)]
    for name in found:
        name = name.strip(".")
        if name.count(".") >= 1 and name not in rep.modules and len(rep.modules) < MAX_MODULES:
            rep.modules.append(name)


def frame_of(line: str) -> Frame | None:
    """The stack frame a line prints (None when it prints none)."""
    line = _unstamped(line[:MAX_LINE].strip())
    return (_python(line) or _at_frame(line) or _token_frame(line, [line], 0)) if line else None


def _unstamped(line: str) -> str:
    """The line without a CI log's timestamp before it."""
    stamp = _LOG_STAMP.match(line) if line[:1] in "[0123456789" else None
    return line[stamp.end() :] if stamp else line


def _ext(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.rpartition(".")[2].lower() if "." in name else ""


def _python(line: str) -> Frame | None:
    """`File "/x/site-packages/click/types.py", line 865, in convert`."""
    if not line.startswith('File "'):
        return None
    path, quote, rest = line[6:].partition('"')
    if not quote or _ext(path) not in SOURCE_EXTS:
        return None
    num, func = 0, ""
    for part in rest.split(","):
        part = part.strip()
        if part.startswith("line "):
            num = _int(part[5:])
        elif part.startswith("in "):
            func = part[3:].strip()
    return Frame(path, num, func if func.isidentifier() else "", "python")


def _at_frame(line: str) -> Frame | None:
    """`at com.acme.Foo$Bar.run(Foo.java:42)` (JVM), `at fn (src/a.ts:3:9)` / `at src/a.js:3:9` (JS),
    `at Acme.Foo.Run() in C:\\src\\Foo.cs:line 42` (.NET)."""
    if not line.startswith("at "):
        return None
    body = line[3:].strip()
    if " in " in body and ":line " in body:  # .NET
        call, _, where = body.rpartition(" in ")
        file, _, digits = where.rpartition(":line ")
        return Frame(file.strip(), _int(digits), _last_name(call.partition("(")[0]), "dotnet")
    head, paren, inner = body.partition("(")
    if paren and inner.endswith(")"):
        inner = inner[:-1]
        file, _, digits = inner.partition(":")
        if _ext(file) in ("java", "kt", "scala", "groovy") and "/" not in file and "\\" not in file:
            qual = head.strip()
            cls, _, method = qual.rpartition(".")
            package = cls.split("$", 1)[0].rpartition(".")[0]
            path = (package.replace(".", "/") + "/" if package else "") + file
            return Frame(path, _int(digits.partition(":")[0]), method if method.isidentifier() else "", "jvm")
        where, func = inner, _last_name(head.strip())
    else:
        where, func = body, ""
    path, num = _path_line(where.strip(_STRIP))
    if not paren and _ext(path) in ("rs", "go"):  # Rust's `at path:line` under its call line: _token_frame
        return None
    if path and _ext(path) in SOURCE_EXTS:
        return Frame(path, num, func, "js" if _ext(path) in _JS else "at")
    return None


_JS = frozenset("js jsx mjs cjs ts tsx mts cts vue svelte".split())


def _token_frame(line: str, lines: list[str], i: int) -> Frame | None:
    """The first `path.ext:line` token of a line (Go, Rust, Ruby, pytest output, panics), with the
    function from the line around it when that is a Go or Rust frame's call line."""
    for tok in line.split():
        tok = tok.strip(_STRIP)
        if ":" not in tok or "." not in tok or tok.startswith(("http:", "https:")):
            continue
        path, num = _path_line(tok)
        if not path or not num or _ext(path) not in SOURCE_EXTS:
            continue
        ext = _ext(path)
        fmt = "go" if ext == "go" else "rust" if ext == "rs" else "file"
        return Frame(path, num, _call_near(lines, i, fmt), fmt)
    return None


def _call_near(lines: list[str], i: int, fmt: str) -> str:
    """Go prints `pkg.(*T).Method(...)` above the file line (gin's recovery: `(*T).Method: code`
    below it); Rust `N: crate::mod::func` above its `at path:line`."""
    if fmt not in ("go", "rust"):
        return ""
    prev = lines[i - 1][:MAX_LINE].strip() if i > 0 else ""
    nxt = lines[i + 1][:MAX_LINE].strip() if i + 1 < len(lines) else ""
    if fmt == "rust":
        head, colon, rest = prev.partition(": ")
        return _last_name(rest.split(" ")[0]) if colon and head.isdigit() else ""
    if prev.endswith(")") and "(" in prev and ":" not in prev.split("(")[0]:
        return _last_name(prev[: prev.rfind("(")])
    call, colon, _ = nxt.partition(": ")
    if colon and call.endswith(tuple("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")):
        return _last_name(call)
    return ""


def _path_line(tok: str) -> tuple[str, int]:
    """`src/a.go:12`, `a.rs:3:9`, `/x/a.rb:12:in` -> (path, line); a Windows drive's colon is kept."""
    tok = tok.removeprefix("file://")
    drive = ""
    if len(tok) > 2 and tok[1] == ":" and tok[0].isalpha() and tok[2] in "/\\":
        drive, tok = tok[:2], tok[2:]
    path, _, rest = tok.partition(":")
    return drive + path, _int(rest.partition(":")[0])


def _last_name(call: str) -> str:
    """`github.com/x/gin.(*Context).Next` -> Next, `serde::de::impls::deserialize` -> deserialize."""
    name = call.replace("::", ".").rstrip(").").rsplit(".", 1)[-1].strip("*()<> ")
    name = name.split("[", 1)[0]
    return name if name.isidentifier() and not name.startswith("func") else ""


def _int(s: str) -> int:
    s = s.strip()
    return int(s) if s.isdigit() and len(s) < 8 else 0


_TEST_FILE = re.compile(
    r"(?:^|/)(?:test_\w+\.py|\w+_test\.(?:py|go|rb|rs|exs?)|[\w.-]+\.(?:test|spec)\.[cm]?[jt]sx?|"
    r"\w+(?:Test|Tests|Spec)\.(?:java|kt|cs|scala|swift)|\w+_spec\.rb)$"
)


def _test_ids(line: str, rep: Report, test_files: bool) -> None:
    """pytest node ids (`FAILED tests/test_x.py::TestA::test_b[1]`), Go's `--- FAIL: TestX (0.01s)` and
    the test files a report names (`test_pretty.py fails`, "add this to gin_integration_test.go")."""
    low = line.lower() if test_files else ""
    if ("test" in low or "spec" in low) and len(rep.tests) < 20:
        for tok in line.split():
            tok = tok.strip(_STRIP + ".:!?")
            if "::" not in tok and _TEST_FILE.search(tok) and (tok, "") not in rep.tests:
                rep.tests.append((tok, ""))
    if line.startswith("--- FAIL: "):
        name = line[10:].split(" ", 1)[0].split("/", 1)[0]
        if name.isidentifier() and (name, "") not in rep.tests:
            rep.tests.append(("", name))
        return
    if "::" not in line or ".py::" not in line:
        return
    for tok in line.split():
        path, sep, rest = tok.strip(_STRIP).partition("::")
        if sep and path.endswith(".py"):
            name = rest.rsplit("::", 1)[-1].split("[", 1)[0]
            if (path, name) not in rep.tests and len(rep.tests) < 20:
                rep.tests.append((path, name if name.isidentifier() else ""))


def _message(line: str) -> str:
    """The message of `ValueError: bad thing`, `java.lang.IllegalStateException: ...`, `panic: ...`,
    `Error: Option '--name' requires an argument.`, also inside a sentence ("The message will be:
    `java.lang.NumberFormatException: empty String`"); '' for any other line."""
    head, sep, msg = line.partition(": ")
    if sep and len(head) <= 80 and msg.strip():
        low = head.lower().strip()
        if low.startswith("e  "):  # `E   ValueError: ...` in pytest output
            low = low[1:].strip()
        if low.startswith(("uncaught ", "unhandled ")):
            low = low.rsplit(" ", 1)[-1]
        if low in _BARE_HEADS or _error_name(low):
            return _unwrapped(msg)
    at = 0
    for tok in line.split()[:60]:
        at = line.find(tok, at) + len(tok)
        name = tok.strip("`'\"([")
        if name.endswith(":") and _error_name(name[:-1].lower()) and line[at:].strip():
            return _unwrapped(line[at:])
    return ""


def _unwrapped(msg: str) -> str:
    """The message without the backticks a report wraps it in (`` `X: msg` ``), up to its closing one."""
    msg = msg.strip()
    if "`" in msg:
        msg = msg.split("`", 1)[0] if not msg.startswith("`") else msg[1:].split("`", 1)[0]
    return msg.strip()[:300]


def _error_name(low: str) -> bool:
    """`valueerror`, `java.lang.illegalstateexception`, `deprecationwarning`: one dotted name."""
    word = low.rsplit(".", 1)[-1]
    return " " not in low and word.isidentifier() and word.endswith(_ERROR_HEADS) and len(word) > 5


def fragments(message: str) -> list[str]:
    """The literal runs of a message, without its quoted values, numbers and addresses (the parts a
    format string fills in): "Option '--name' requires an argument." -> ["requires an argument"]."""
    out = []
    for part in _QUOTED.split(message):
        words = _WORD.findall(part)
        if len(words) >= 3 or (len(words) == 2 and sum(map(len, words)) >= 12):
            out.append(" ".join(words))
    return out
