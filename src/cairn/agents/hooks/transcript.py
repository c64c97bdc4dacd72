"""Read what a hook needs from the session transcript, cheaply and without trusting its shape.

Hooks run on every prompt and tool call while the transcript grows to megabytes, so the meter
and recall read only its tail (seek from the end, `util.jsonl.read_tail_lines`) and skip the
`progress` lines (~70% of a transcript) before parsing any JSON. The session record and the
journal read the current segment (everything after the last compaction boundary) whole.
The record format is the one Claude Code writes (its docs, `hooks` page, and the transcripts in
tests/fixtures/transcripts/claude-code/).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from cairn.sessions.context import EDIT_TOOLS, READ_TOOLS  # noqa: F401  (re-exported for digest.py)
from cairn.util.jsonl import parse_line, read_tail_lines

TAIL_BYTES = 256 * 1024
MAX_TAIL_BYTES = 4 * 1024 * 1024
SEARCH_TOOLS = frozenset({"Read", "NotebookRead", "Grep", "Glob", "LS", "WebFetch", "WebSearch"})
_SKIP = (b'"type":"progress"', b'"type":"file-history-snapshot"', b'"type":"queue-operation"')


def _parse(lines: Iterable[bytes]) -> Iterator[dict]:
    for raw in lines:
        if any(marker in raw for marker in _SKIP):
            continue
        rec = parse_line(raw)
        if rec is not None:
            yield rec


def is_boundary(rec: dict) -> bool:
    return rec.get("type") == "system" and rec.get("subtype") == "compact_boundary"


def _usage_total(rec: dict) -> int | None:
    """input + cache read + cache creation of a main-thread assistant record, else None."""
    if rec.get("type") != "assistant" or rec.get("isSidechain"):
        return None
    msg = rec.get("message")
    if not isinstance(msg, dict) or msg.get("model") == "<synthetic>":
        return None
    usage = msg.get("usage")
    if not isinstance(usage, dict):
        return None
    total = 0
    for key in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"):
        val = usage.get(key)
        if isinstance(val, int) and not isinstance(val, bool) and val > 0:
            total += val
    return total or None


def context_tokens(path: Path) -> int | None:
    """The context size the model saw last: the newest main-thread assistant usage (input +
    cache read + cache creation). None when unknown, or when a compaction came after it (the
    context was just rebuilt). Reads a growing tail window, never the whole file at once."""
    window = TAIL_BYTES
    while True:
        try:
            size = Path(path).stat().st_size
            lines = read_tail_lines(Path(path), window)
        except OSError:
            return None
        wanted = [ln for ln in lines if b'"usage"' in ln or b"compact_boundary" in ln]
        for rec in reversed(list(_parse(wanted))):
            if is_boundary(rec):
                return None
            total = _usage_total(rec)
            if total is not None:
                return total
        if window >= size or window >= MAX_TAIL_BYTES:
            return None
        window *= 4


def tail_records(path: Path, max_bytes: int = TAIL_BYTES) -> list[dict]:
    """The parseable records in the last `max_bytes` of the transcript, oldest first."""
    try:
        return list(_parse(read_tail_lines(Path(path), max_bytes)))
    except OSError:
        return []


def segment_records(path: Path) -> list[dict]:
    """The records after the last compaction boundary (the whole file if there is none)."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError:
        return []
    cut = data.rfind(b'"subtype":"compact_boundary"')
    if cut >= 0:
        cut = data.find(b"\n", cut)
        data = data[cut + 1 :] if cut >= 0 else b""
    return list(_parse(ln for ln in data.split(b"\n") if ln.strip()))


def user_prompts(records: Iterable[dict]) -> list[str]:
    """What the user typed in `records` (no tool results, meta lines, compaction summaries)."""
    out = []
    for rec in records:
        if rec.get("type") != "user" or rec.get("isMeta") or rec.get("isCompactSummary") or rec.get("isSidechain"):
            continue
        msg = rec.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            texts = [b.get("text") for b in content if isinstance(b, dict) and b.get("type") == "text"]
            out.extend(t for t in texts if isinstance(t, str))
    return out
