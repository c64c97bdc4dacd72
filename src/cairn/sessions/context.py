"""The session so far, as recall needs it: the files in play and the person's earlier prompts.

One reader for every front end (the UserPromptSubmit hook, `cairn search --transcript`, the MCP
`context` tool), so they can never disagree about what a session has seen (a Codex CLI rollout and
a Gemini CLI chat, in JSON lines or as one JSON document, are read too: codex_context.py,
gemini_context.py). From a Claude Code JSONL transcript it keeps, per file, how it was touched
(edited or created > read > only named in a Grep/Glob/Bash call), when (the prompt it followed, a
global order, the record's time) and how often; and the last few prompts the person typed. Paths
stay as the agent wrote them (absolute, usually); the search side maps them onto the index.

Bounded on the hook path: a cache file remembers the byte offset reached and the context built so
far, so each prompt reads only what was appended since; a file that shrank or was replaced is read
again from the start, and a backlog over MAX_CATCHUP bytes is skipped to its tail. Lines still
being written are left for the next read. A cut emoji (a lone surrogate) becomes U+FFFD
(util/jsonl.py): it could neither be looked up in the index nor printed. Stdlib only.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from cairn.sessions.markers import strip_injected
from cairn.util.jsonl import parse_line

EDIT_TOOLS = frozenset({"Edit", "MultiEdit", "Write", "NotebookEdit"})
READ_TOOLS = frozenset({"Read", "NotebookRead"})
WEAK_TOOLS = frozenset({"Grep", "Glob", "LS", "Bash"})
STRENGTH = {"named": 0, "read": 1, "edited": 2, "created": 2}
MAX_PROMPTS = 8  # earlier prompts kept (newest last)
PROMPT_CHARS = 4000  # of each
MAX_FILES = 400  # files kept, the most recently touched
MAX_CATCHUP = 8 * 1024 * 1024  # bytes read in one go; an older backlog is skipped to its tail
MAX_DOCUMENT = 4 * MAX_CATCHUP  # a whole-document chat larger than this is not read (no tail to skip to)
CACHE_VERSION = 1
_SKIP_LINES = (b'"type":"progress"', b'"type":"file-history-snapshot"', b'"type":"queue-operation"')
_WRAPPERS = re.compile(
    r"<(system-reminder|user-prompt-submit-hook|local-command-caveat|local-command-stdout|local-command-stderr"
    r"|command-message|command-name|command-args|task-notification|bash-input|bash-stdout|bash-stderr)>.*?(?:</\1>|\Z)",
    re.S,
)
_CODEX_ITEMS = (b'"type":"UserMessage"', b'"type":"CommandExecution"', b'"type":"FileChange"')  # since 0.171
_CODEX_WANTED = (
    b'"user_message"',
    b'"function_call"',
    b'"custom_tool_call"',
    b'"local_shell_call"',
    b'"session_meta"',
    b'"turn_context"',
)  # the records of a Codex rollout worth parsing
# Words of a shell command that name a file (`src/a.py`): short segments, the last with an extension.
# Long random runs (keys with a `/` in them) fail the shape; the few that pass are redacted before
# the context is cached (see _redact_new).
SHELL_WORD = re.compile(r"[\w./@~+-]+")
_FILE_WORD = re.compile(r"^(?:[\w.@~+-]{1,40}/)+[\w@~+-][\w.@~+-]{0,39}\.[A-Za-z][A-Za-z0-9]{0,7}$")


class Touch:
    """One file the session touched: its strongest kind of touch and its latest one.

    (Plain classes here and below: `dataclasses` costs every prompt hook ~9 ms to import.)"""

    __slots__ = ("how", "step", "order", "time", "count")

    def __init__(self, how: str, step: int, order: int, time: float = 0.0, count: int = 1) -> None:
        self.how = how  # created | edited | read | named
        self.step = step  # prompts typed before the latest touch (0 = before any prompt)
        self.order = order  # global order of the latest touch
        self.time = time  # epoch seconds of the latest read or edit (0 = unknown)
        self.count = count

    def as_list(self) -> list:
        return [self.how, self.step, self.order, self.time, self.count]


class SessionContext:
    """What a live session knows before the next prompt."""

    def __init__(self, steps: int = 0, order: int = 0, cwd: str = "") -> None:
        self.files: dict[str, Touch] = {}  # path as written -> latest touch
        self.prompts: list[str] = []  # earlier prompts, oldest first
        self.steps = steps  # prompts typed so far
        self.order = order
        self.cwd = cwd
        self.sid = ""  # the session's id, when the caller knows it (its past requests are not its history)

    @property
    def empty(self) -> bool:
        return not self.files and not self.prompts

    def recent_files(self, strongest_first: bool = False) -> list[str]:
        """Touched paths, newest first (strong touches only before weak ones when asked)."""
        key = (lambda kv: (-STRENGTH[kv[1].how] // 2, -kv[1].order)) if strongest_first else (lambda kv: -kv[1].order)
        return [p for p, _ in sorted(self.files.items(), key=key)]

    def add_prompt(self, text: str) -> None:
        """A prompt the person typed: kept (its first PROMPT_CHARS, the last MAX_PROMPTS), one more step."""
        self.prompts = (self.prompts + [text[:PROMPT_CHARS]])[-MAX_PROMPTS:]
        self.steps += 1

    def touch(self, path: str, how: str, when: float) -> None:
        self.order += 1
        old = self.files.get(path)
        if old is None:
            self.files[path] = Touch(how, self.steps, self.order, when)
            if len(self.files) > MAX_FILES:
                oldest = min(self.files, key=lambda p: self.files[p].order)
                del self.files[oldest]
            return
        if how == "named" and old.how != "named":
            return  # a Grep over a file already read says nothing new
        if STRENGTH[how] >= STRENGTH[old.how]:
            old.how = "edited" if old.how == "created" and how == "edited" else how
        old.step, old.order, old.count = self.steps, self.order, old.count + 1
        if when and how != "named":
            old.time = when

    def as_json(self) -> dict:
        return {
            "files": {p: t.as_list() for p, t in self.files.items()},
            "prompts": self.prompts,
            "steps": self.steps,
            "order": self.order,
            "cwd": self.cwd,
        }

    @classmethod
    def from_json(cls, data: dict) -> SessionContext:
        ctx = cls(steps=int(data.get("steps") or 0), order=int(data.get("order") or 0), cwd=str(data.get("cwd") or ""))
        ctx.prompts = [p for p in data.get("prompts") or [] if isinstance(p, str)][-MAX_PROMPTS:]
        for path, v in (data.get("files") or {}).items():
            if isinstance(v, list) and len(v) == 5 and v[0] in STRENGTH:
                ctx.files[str(path)] = Touch(v[0], int(v[1]), int(v[2]), float(v[3]), int(v[4]))
        return ctx


_ISO = re.compile(r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.\d+)?(Z|[+-]\d\d:?\d\d)?$")


def iso_epoch(ts: object) -> float:
    """Epoch seconds of an ISO 8601 time as transcripts write it (`2026-01-16T15:10:51.123Z`); 0 when
    unknown. Computed by hand: `datetime` costs a prompt hook ~2 ms to import."""
    m = _ISO.match(ts) if isinstance(ts, str) else None
    if m is None:
        return 0.0
    y, mo, d, h, mi, sec = (int(x) for x in m.groups()[:6])
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        return 0.0
    y -= mo <= 2  # days from the civil calendar (H. Hinnant's algorithm)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (mo + (-3 if mo > 2 else 9)) + 2) // 5 + d - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    off, tz = 0, m.group(7)
    if tz and tz != "Z":
        sign = -1 if tz[0] == "-" else 1
        off = sign * (int(tz[1:3]) * 3600 + int(tz[-2:]) * 60)
    return float(days * 86400 + h * 3600 + mi * 60 + sec - off)


def prompt_text(content: object) -> str:
    """The words a person typed in a user record's content ('' for tool results, wrappers, commands)."""
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
            return ""
        text = "\n".join(
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        )
    else:
        return ""
    text = strip_injected(text)
    if "<" in text:
        text = _WRAPPERS.sub("", text)
    text = text.strip()
    if text.startswith(("[Request interrupted", "Caveat:")):
        return ""
    return text


def _weak_paths(name: str, params: dict) -> list[str]:
    """Paths a Grep/Glob/LS/Bash call names: weaker evidence than a Read."""
    out = []
    for key in ("path", "file_path"):
        val = params.get(key)
        if isinstance(val, str) and val:
            out.append(val)
    if name == "Glob" and isinstance(params.get("pattern"), str) and "*" not in params["pattern"]:
        out.append(params["pattern"])
    if name == "Bash" and isinstance(params.get("command"), str):
        words = SHELL_WORD.findall(params["command"][:2000])
        out.extend(w for w in words[:80] if 2 < len(w) < 300 and _FILE_WORD.match(w))
    return out


def apply_record(ctx: SessionContext, rec: dict) -> None:
    """Fold one transcript record into the context (main thread only; subagents' own reads are theirs)."""
    if rec.get("isSidechain"):
        return
    kind = rec.get("type")
    if isinstance(rec.get("cwd"), str) and rec["cwd"]:
        ctx.cwd = rec["cwd"]
    msg = rec.get("message")
    if not isinstance(msg, dict):
        return
    if kind == "user":
        if rec.get("isMeta") or rec.get("isCompactSummary"):
            return
        text = prompt_text(msg.get("content"))
        if text:
            ctx.add_prompt(text)
        return
    if kind != "assistant" or not isinstance(msg.get("content"), list):
        return
    when = iso_epoch(rec.get("timestamp"))
    for block in msg["content"]:
        if not (isinstance(block, dict) and block.get("type") == "tool_use"):
            continue
        name, params = str(block.get("name") or ""), block.get("input")
        if not isinstance(params, dict):
            continue
        path = params.get("file_path") or params.get("notebook_path")
        if name in EDIT_TOOLS and isinstance(path, str) and path:
            ctx.touch(path, "created" if name == "Write" else "edited", when)
        elif name in READ_TOOLS and isinstance(path, str) and path:
            ctx.touch(path, "read", when)
        elif name in WEAK_TOOLS:
            for p in _weak_paths(name, params):
                ctx.touch(p, "named", when)


def _wanted(raw: bytes) -> bool:
    """Only prompts and tool calls matter: skip tool results (file contents, megabytes) and the rest
    before paying for json.loads (a Codex rollout's lines: _CODEX_WANTED)."""
    if raw.startswith(b'{"timestamp"') and b'"payload"' in raw[:200]:
        head = raw[:300]
        if b'"item_completed"' in head:  # Codex CLI 0.171: a typed prompt, a command run, files changed
            item = raw[:600]
            return any(m in item for m in _CODEX_ITEMS)
        return b'_call_output"' not in head and any(m in head for m in _CODEX_WANTED)
    if b'"tool_use"' in raw:
        return b'"assistant"' in raw
    if b'"toolCalls"' in raw:  # a Gemini CLI message with tool calls
        return b'"gemini"' in raw
    return b'"user"' in raw and b'"tool_result"' not in raw


def _fold_lines(ctx: SessionContext, data: bytes) -> None:
    for raw in data.split(b"\n"):
        if not raw.strip() or any(m in raw for m in _SKIP_LINES) or not _wanted(raw):
            continue
        rec = parse_line(raw)  # a cut emoji (lone surrogate) becomes U+FFFD: it could not be looked up or printed
        if rec is None:
            continue
        if "payload" in rec:
            from cairn.sessions.codex_context import apply_codex_record, is_codex

            if is_codex(rec):
                apply_codex_record(ctx, rec, iso_epoch(rec.get("timestamp")))
                continue
        elif "content" in rec and "message" not in rec:
            from cairn.sessions.gemini_context import apply_gemini_record, is_gemini

            if is_gemini(rec):
                apply_gemini_record(ctx, rec, iso_epoch(rec.get("timestamp")))
                continue
        apply_record(ctx, rec)


def _fold_document(ctx: SessionContext, data: bytes) -> None:
    """A Gemini CLI chat kept as one JSON document (`{"sessionId": ..., "messages": [...]}`):
    each message folded in order, as its JSON-lines form would be."""
    doc = parse_line(data)
    messages = doc.get("messages") if doc is not None else None
    if not isinstance(messages, list):
        return
    from cairn.sessions.gemini_context import apply_gemini_record, is_gemini

    for rec in messages:
        if isinstance(rec, dict) and is_gemini(rec):
            apply_gemini_record(ctx, rec, iso_epoch(rec.get("timestamp")))


def _read_from(path: Path, offset: int, max_bytes: int) -> tuple[bytes, int]:
    """Complete lines from `offset` (at most the last `max_bytes` of them) and the offset after them."""
    with open(path, "rb") as fh:
        size = fh.seek(0, 2)
        start = offset if size - offset <= max_bytes else size - max_bytes
        fh.seek(start)
        data = fh.read(size - start)
    if start != offset and start > 0:  # jumped into the middle of a line: drop its piece
        nl = data.find(b"\n")
        data, start = (data[nl + 1 :], start + nl + 1) if nl >= 0 else (b"", size)
    end = data.rfind(b"\n")  # a trailing line without its newline is still being written
    if end < 0:
        return b"", start
    return data[: end + 1], start + end + 1


def read_session(
    transcript: str | os.PathLike, cache: Path | None = None, max_bytes: int = MAX_CATCHUP
) -> SessionContext:
    """The session context of a transcript, read incrementally when `cache` is given.

    Never raises for a bad transcript: a missing, unreadable or non-JSONL file gives an empty
    (or the cached) context. The cache is a small JSON file owned by the caller. A `.json` file is
    a Gemini CLI chat kept as one document, rewritten whole as it grows: read whole (up to
    MAX_DOCUMENT bytes) whenever it changed.
    """
    path = Path(transcript)
    try:
        st = path.stat()
    except (OSError, ValueError):
        return SessionContext()
    document = path.suffix == ".json"
    # what names this version of the file: its inode (JSON lines only grow), or for a document
    # rewritten in place also its size and time, so any rewrite reads it again from the start
    ident: int | str = f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}" if document else st.st_ino
    ctx, offset = SessionContext(), 0
    if cache is not None:
        ctx, offset = _cached(cache, ident, st.st_size)
    if offset < st.st_size:
        if document and st.st_size > MAX_DOCUMENT:
            return ctx
        try:
            if document:
                with open(path, "rb") as fh:
                    chunk, offset = fh.read(), st.st_size
            else:
                chunk, offset = _read_from(path, offset, max_bytes)
        except OSError:
            return ctx
        _KEPT.pop(str(cache), None)  # the context grows here: kept again once it is saved
        steps, order = ctx.steps, ctx.order
        if document:
            _fold_document(ctx, chunk)
        else:
            _fold_lines(ctx, chunk)
        if cache is not None:
            _redact_new(ctx, ctx.steps - steps, order)
            if _save_cache(cache, {"v": CACHE_VERSION, "ino": ident, "offset": offset, "ctx": ctx.as_json()}):
                _keep(cache, ident, offset, ctx)
    return ctx


# A warm process (warm/hook_server.py) keeps the context it last read or saved per cache file, so a
# prompt does not parse the cache's JSON again while the file is the one it wrote: cache path ->
# (the cache file's identity, size and time, the transcript's identity (read_session), the offset,
# the context). The context is shared with the caller, who only reads it.
_KEPT: dict[str, tuple[tuple, int | str, int, SessionContext]] = {}
MAX_KEPT = 16


def _signature(cache: Path) -> tuple | None:
    try:
        st = os.stat(cache)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _cached(cache: Path, ident: int | str, size: int) -> tuple[SessionContext, int]:
    """The cached context of the transcript version `ident` (of `size` bytes) and the offset it
    reached, or an empty context and 0 (no cache, another transcript, a transcript that shrank)."""
    sig = _signature(cache)
    kept = _KEPT.get(str(cache))
    if sig is not None and kept is not None and kept[0] == sig:
        if kept[1] == ident and 0 <= kept[2] <= size:
            return kept[3], kept[2]
        return SessionContext(), 0
    try:
        data = parse_line(cache.read_bytes())  # a lone surrogate cached by an older version: U+FFFD
        if (
            data is not None
            and data.get("v") == CACHE_VERSION
            and data.get("ino") == ident
            and 0 <= int(data.get("offset", 0)) <= size
        ):
            ctx, offset = SessionContext.from_json(data.get("ctx") or {}), int(data["offset"])
            _keep(cache, ident, offset, ctx, sig)
            return ctx, offset
    except (OSError, ValueError, TypeError, AttributeError):
        pass
    return SessionContext(), 0


def _keep(cache: Path, ino: int | str, offset: int, ctx: SessionContext, sig: tuple | None = None) -> None:
    sig = sig or _signature(cache)
    if sig is None:
        return
    if len(_KEPT) >= MAX_KEPT:
        _KEPT.pop(next(iter(_KEPT)))
    _KEPT[str(cache)] = (sig, ino, offset, ctx)


def _redact_new(ctx: SessionContext, new_prompts: int, order: int) -> None:
    """Before the context is cached on disk: mask secrets in the prompts added since the last read,
    and drop names taken from commands since then that turn out to be secrets."""
    n = min(new_prompts, len(ctx.prompts))
    named = [p for p, t in ctx.files.items() if t.order > order and t.how == "named"]
    if not n and not named:
        return
    from cairn.redact import redact

    if n:
        ctx.prompts[-n:] = [redact(p) for p in ctx.prompts[-n:]]
    for path in named:
        if redact(path) != path:
            del ctx.files[path]


def _save_cache(cache: Path, data: dict) -> bool:
    try:
        from cairn.util.atomic import atomic_write_text

        atomic_write_text(cache, json.dumps(data), mode=0o600, durable=False)
        return True
    except OSError:
        return False  # a cache that cannot be written only costs the next prompt a longer read
