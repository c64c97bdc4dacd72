"""Loading a set of transcripts: every agent's usage turns, deduplicated, and the X-ray's side facts.

The lines worth parsing are found by byte search (most are skipped unparsed); each usage entry is
read and deduplicated by ccusage's rules (usage_entry.py), and tool output sizes and compactions
are kept beside. Codex and Gemini files go to their own readers through scan_pool.py.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from cairn.errors import CairnError
from cairn.sessions.transcript import (
    find_transcripts,
    is_subagent_file,
    project_dir_for,
    session_id_for,
)
from cairn.sessions.usage_entry import Turn, dedup, parse_timestamp, uint, usage_turn
from cairn.util.jsonl import parse_line

USAGE_MARKER = b'"usage":{'

# --- Loading a set of transcripts: usage turns plus the facts the X-ray needs ------------------

_TOOL_RESULT = b'"tool_result"'
_COMPACT = b'"compact_boundary"'


@dataclass(slots=True)
class ToolResult:
    """The size of one tool's output as it entered the context (text characters)."""

    session_id: str
    ts: float
    tool: str
    chars: int


@dataclass(slots=True)
class Compaction:
    session_id: str
    ts: float
    trigger: str
    pre_tokens: int | None
    is_subagent: bool


@dataclass
class Dataset:
    """Deduplicated turns and side facts of a set of transcript files."""

    turns: list[Turn] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)
    session_cwd: dict[str, str] = field(default_factory=dict)
    session_dir: dict[str, str] = field(default_factory=dict)
    files: int = 0
    bad_lines: int = 0
    roots: list[str] = field(default_factory=list)
    # Codex tool outputs counted by tool name ({tool: [outputs, characters]}) instead of one
    # ToolResult each, when no filter will need them one by one (load_transcripts(tool_rows=False))
    tool_totals: dict[str, list[int]] = field(default_factory=dict)
    tool_rows: bool = True
    # Codex tool outputs still being read by another process (scan_pool.py): a call gives
    # (their ToolResults, their counts by tool, the lines they found bad); complete() waits for them and adds them
    late: Callable[[], tuple[list[ToolResult], dict[str, list[int]], int]] | None = field(
        default=None, repr=False, compare=False
    )

    def complete(self) -> Dataset:
        """Add the tool outputs another process is still reading, if any (waiting for them); self."""
        if self.late is not None:
            fetch, self.late = self.late, None
            results, totals, bad = fetch()
            self.tool_results.extend(results)
            add_tool_totals(self.tool_totals, totals)
            self.bad_lines += bad
        return self


def add_tool_totals(into: dict[str, list[int]], more: dict[str, list[int]]) -> None:
    """Add counts by tool ({tool: [outputs, characters]}) into `into`."""
    for name, (n, chars) in more.items():
        have = into.get(name)
        if have is None:
            into[name] = [n, chars]
        else:
            have[0] += n
            have[1] += chars


def _content_chars(content: object) -> int:
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        return sum(len(b.get("text") or "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return 0


def lines_to_parse(data: bytes) -> tuple[list[tuple[bytes, bool | None]], int]:
    """The lines of a transcript worth parsing, each with whether it holds the usage marker (None:
    not looked for, in a line holding a tool result), and the number of the other non-blank lines
    that fail a cheap shape check (not `{...}`).

    The lines are walked in the buffer by offsets: only marked lines become bytes objects
    (splitting 100 MB into lines copies it all, a third of the time of this pass)."""
    find = data.find
    size = len(data)
    out: list[tuple[bytes, bool | None]] = []
    bad = 0
    pos = 0
    while pos < size:
        end = find(b"\n", pos)
        if end == -1:
            end = size
        if find(_TOOL_RESULT, pos, end) != -1:  # early in a tool's output line, the longest lines
            out.append((data[pos:end], None))  # None: the usage marker is looked for only if needed
        elif find(USAGE_MARKER, pos, end) != -1:
            out.append((data[pos:end], True))
        elif find(_COMPACT, pos, end) != -1:
            out.append((data[pos:end], False))
        elif end > pos and not (data[pos] == 123 and data[end - 1] == 125):  # not `{` ... `}`: look closer
            stripped = data[pos:end].strip()  # lines we skip unparsed only get a cheap shape check
            if stripped and not (stripped.startswith(b"{") and stripped.endswith(b"}")):
                bad += 1
        pos = end + 1
    return out, bad


def scan_file(path: Path, ds: Dataset, raw_turns: list[Turn]) -> None:
    """Read one transcript: usage entries (not yet deduplicated), tool output sizes, compactions."""
    sid = session_id_for(path)
    sub = is_subagent_file(path)
    info = (str(path), sub)
    tool_names: dict[str, str] = {}
    with open(path, "rb") as fh:
        data = fh.read()
    lines, bad = lines_to_parse(data)
    ds.bad_lines += bad
    for raw, has_usage in lines:
        try:
            rec = orjson.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):  # orjson's JSONDecodeError is a ValueError
            rec = parse_line(raw)  # a cut emoji (lone surrogate) or a bad byte: U+FFFD, the line still counts
            if rec is None:
                ds.bad_lines += 1
                continue
        if not isinstance(rec, dict):
            ds.bad_lines += 1
            continue
        kind = rec.get("type")
        msg = rec.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if has_usage is None:  # a tool result's line: a usage entry only where usage_turn could find one
            has_usage = isinstance(msg, dict) and isinstance(msg.get("usage"), dict) and USAGE_MARKER in raw
        if has_usage:
            turn = usage_turn(rec, raw, path, sid, info)
            if turn is not None:
                raw_turns.append(turn)
                if turn.cwd and (not sub or sid not in ds.session_cwd):
                    ds.session_cwd.setdefault(sid, turn.cwd)
        if kind == "assistant" and isinstance(content, list):
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_use" and isinstance(b.get("id"), str):
                    tool_names[b["id"]] = str(b.get("name") or "?")
        elif kind == "user" and isinstance(content, list):
            ts = parse_timestamp(rec.get("timestamp")) or 0.0
            for b in content:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    name = tool_names.get(b.get("tool_use_id") or "", "unknown")
                    ds.tool_results.append(ToolResult(sid, ts, name, _content_chars(b.get("content"))))
        elif kind == "system" and rec.get("subtype") == "compact_boundary":
            meta = rec.get("compactMetadata")
            meta = meta if isinstance(meta, dict) else {}
            pre = uint(meta.get("preTokens"))
            ds.compactions.append(
                Compaction(
                    sid, parse_timestamp(rec.get("timestamp")) or 0.0, str(meta.get("trigger") or "unknown"), pre, sub
                )
            )
    ds.session_dir.setdefault(sid, project_dir_for(path))


def load_transcripts(
    paths: Iterable[str | os.PathLike] | None = None, *, late_tools: bool = False, tool_rows: bool = True
) -> Dataset:
    """Scan transcript files/folders (default: the agents' own folders) into a deduplicated Dataset.

    Missing paths and folders without transcripts are a CairnError with a one-line reason.
    `late_tools=True` may return before the Codex tool outputs are read (another process reads
    them meanwhile, see scan_pool.py): `Dataset.complete()` then adds them (the X-ray's tools
    section does so, near the end of its analysis). `tool_rows=False`: the Codex tool outputs are
    only counted by tool (`Dataset.tool_totals`), for a caller that will not filter them by time or
    session (the tools section needs only the sums; no time is parsed, no row sent between processes).
    """
    roots: list[str] = [str(p) for p in paths] if paths else []
    for p in roots:
        if not Path(p).expanduser().exists():
            raise CairnError(f"no such file or folder: {p}")
    files = sorted(find_transcripts(roots or None), key=str)  # ccusage's order: full path text
    if not files:
        where = ", ".join(roots) if roots else "~/.claude/projects, ~/.codex/sessions or ~/.gemini/tmp"
        raise CairnError(f"no agent transcripts (*.jsonl, Gemini chats/*.json) found in {where}")
    ds = Dataset(files=len(files), roots=roots or ["(default transcript folders)"], tool_rows=tool_rows)
    from cairn.sessions.scan_pool import scan_all

    raw_turns, other = scan_all(files, ds)  # on every core for large sets; same result as one pass
    ds.turns = dedup(raw_turns) + other  # Codex and Gemini entries are deduplicated as read
    if any(len(folder) == 64 for folder in ds.session_dir.values()):  # a Gemini chat folder named by hash, maybe
        from cairn.sessions.gemini_usage import name_hashed_folders

        name_hashed_folders(ds)
    return ds if late_tools else ds.complete()


def select(
    ds: Dataset, *, days: int | None = None, sessions: set[str] | None = None, now: float | None = None
) -> Dataset:
    """A copy keeping activity of the last `days` days (by record time) and of the given sessions."""
    cutoff = None if days is None else (now if now is not None else time.time()) - days * 86400

    def keep(sid: str, ts: float) -> bool:
        return (cutoff is None or ts >= cutoff) and (sessions is None or sid in sessions)

    out = Dataset(
        session_cwd=ds.session_cwd,
        session_dir=ds.session_dir,
        files=ds.files,
        bad_lines=ds.bad_lines,
        roots=ds.roots,
        tool_rows=ds.tool_rows,
    )
    if cutoff is None and sessions is None:  # nothing to filter: every item kept, without a call per item
        out.turns, out.tool_results, out.compactions = list(ds.turns), list(ds.tool_results), list(ds.compactions)
        out.tool_totals, out.late = {k: list(v) for k, v in ds.tool_totals.items()}, ds.late
        return out
    if not ds.tool_rows:
        raise ValueError("tool outputs counted by tool only (tool_rows=False) cannot be selected by time or session")
    if ds.late is not None:  # the tool outputs still being read: selected when they come
        fetch = ds.late

        def late() -> tuple[list[ToolResult], dict[str, list[int]], int]:
            results, totals, bad = fetch()
            return [r for r in results if keep(r.session_id, r.ts)], totals, bad

        out.late = late
    out.turns = [t for t in ds.turns if keep(t.session_id, t.ts)]
    out.tool_results = [r for r in ds.tool_results if keep(r.session_id, r.ts)]
    out.compactions = [c for c in ds.compactions if keep(c.session_id, c.ts)]
    return out
