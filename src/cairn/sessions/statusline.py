"""`cairn xray statusline`: one line for Claude Code's status line, from the JSON it pipes in.

Claude Code runs the `statusLine` command after each assistant message (at most every 300 ms) with
the session's JSON on stdin (`session_id`, `transcript_path`, `model.display_name`,
`cost.total_cost_usd`, `context_window`...) and shows the first line printed. The line is
ccusage `statusline`'s, with the same inputs: the session's cost, today's (UTC), the active 5-hour
billing block's with its time left and burn rate, and the context's size.

It must be quick on every message, so it reads only what can change those figures: the Claude Code
transcripts written since the start of the window it looks at (a day, widened until the active
block's chain of blocks is known to start after a pause of more than 5 hours, which is when a
block's start is fixed: xray_periods.py), and those only from where it stopped last time: the
turns read are kept per file in this process (a warm command-line server keeps them between calls;
warm/hook_server.py) and a file that grew is read from its last complete line on.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson

from cairn.errors import CairnError
from cairn.sessions.prices import PriceTable
from cairn.sessions.transcript import find_transcripts, is_subagent_file, session_id_for
from cairn.sessions.usage import lines_to_parse
from cairn.sessions.usage_entry import Deduper, Turn, usage_turn
from cairn.sessions.xray_columns import turn_cost
from cairn.sessions.xray_periods import BLOCK_HOURS, HOUR_MS, burn_rate, identify_blocks, iso_ms
from cairn.util.jsonl import parse_line

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

DAY = 86400
WINDOWS = (DAY, 4 * DAY, 16 * DAY, 64 * DAY, None)  # None: every transcript
DEFAULT_CONTEXT = 200_000  # ccusage's context size when Claude Code does not say


class _File:
    """The usage turns of one transcript read so far, and where the reading stopped."""

    __slots__ = ("mtime_ns", "offset", "size", "turns")

    def __init__(self) -> None:
        self.mtime_ns = self.size = self.offset = 0
        self.turns: list[Turn] = []


_FILES: dict[str, _File] = {}  # kept between calls in a warm server


def _read(path: str, st: os.stat_result) -> list[Turn]:
    """The usage turns of `path`, read from where the last call stopped when the file only grew."""
    f = _FILES.get(path)
    if f is not None and f.mtime_ns == st.st_mtime_ns and f.size == st.st_size:
        return f.turns
    if f is None or st.st_size < f.offset:  # new, or rewritten shorter: read whole
        f = _FILES[path] = _File()
    try:
        with open(path, "rb") as fh:
            fh.seek(f.offset)
            data = fh.read()
    except OSError:
        return f.turns
    end = data.rfind(b"\n") + 1  # a last line still being written is read next time, whole
    p = Path(path)
    sid, info = session_id_for(p), (path, is_subagent_file(p))
    lines, _ = lines_to_parse(data[:end])
    for raw, has_usage in lines:
        if has_usage is False or (has_usage is None and b'"usage":{' not in raw):
            continue
        try:
            rec = orjson.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            rec = parse_line(raw)
        if isinstance(rec, dict):
            turn = usage_turn(rec, raw, p, sid, info)
            if turn is not None:
                f.turns.append(turn)
    f.offset += end
    f.mtime_ns, f.size = st.st_mtime_ns, st.st_size
    return f.turns


def _stats(roots: list[Path]) -> list[tuple[str, os.stat_result]]:
    """Every Claude Code transcript under `roots` with its stat, in ccusage's order (full path text)."""
    out = []
    for p in find_transcripts(roots) if roots else ():
        try:
            out.append((str(p), os.stat(p)))
        except OSError:
            continue
    out.sort(key=lambda x: x[0])
    if len(_FILES) > len(out):  # transcripts deleted since: forget them
        seen = {p for p, _ in out}
        for gone in [p for p in _FILES if p not in seen]:
            del _FILES[gone]
    return out


_DEDUPED: dict[tuple, list[Turn]] = {}  # the last few answers of _deduped, by the files' states


def _deduped(files: list[tuple[str, os.stat_result]], since: float | None) -> list[Turn]:
    """ccusage's deduplication over the turns of `files` (path order), those at `since` or later
    (the same files unchanged: the same list, without deduplicating again)."""
    key = tuple((p, st.st_mtime_ns, st.st_size) for p, st in files)
    kept = _DEDUPED.get(key)
    if kept is None:
        d = Deduper()
        for path, st in files:
            for t in _read(path, st):
                d.add(t)
        kept = d.kept
        if len(_DEDUPED) >= 8:
            _DEDUPED.clear()
        _DEDUPED[key] = kept
    return kept if since is None else [t for t in kept if t.ts >= since]


def recent(now: float, roots: list[Path]) -> tuple[list[Turn], float | None]:
    """The turns of the smallest window (WINDOWS) that holds today (UTC) and the last block's whole
    chain, and the window's start (None: everything was read).

    A turn at `t` is in a file written at `t` or later, so a file last written before the window
    holds no turn of it. The chain of blocks is known from the first turn that follows a pause of
    more than 5 hours; the window's start counts as a pause when its first turn comes later than that."""
    stats = _stats(roots)
    span = BLOCK_HOURS * 3600
    day_start = now - now % DAY
    for window in WINDOWS:
        since = None if window is None else min(day_start, now - window)
        files = stats if since is None else [(p, st) for p, st in stats if st.st_mtime >= since]
        turns = sorted(_deduped(files, since), key=lambda t: t.ts)
        if since is None or not turns or now - turns[-1].ts >= span:  # no block can be active
            return turns, since
        if turns[0].ts - since > span or any(b.ts - a.ts > span for a, b in zip(turns, turns[1:], strict=False)):
            return turns, since
    return [], None  # not reached: the last window reads everything


def _session_cost(hook: dict, prices: PriceTable) -> float | None:
    """The session's cost from its own transcript and its subagents' (ccusage's "ccusage" source)."""
    path = hook.get("transcript_path")
    if not isinstance(path, str) or not path:
        return None
    main = Path(path)
    files = [main, *sorted(main.with_suffix("").glob("subagents/*.jsonl"))]
    found = []
    for p in files:
        try:
            found.append((str(p), os.stat(p)))
        except OSError:
            continue
    if not found:
        return None
    total = 0.0
    for t in _deduped(found, None):
        c = turn_cost(t, prices)
        total += c.total if c is not None else 0.0
    return total


def _context(hook: dict) -> tuple[int, int] | None:
    """(tokens in the context, the window's size) from Claude Code's JSON, else from the transcript's
    last usage entry (as ccusage does)."""
    cw = hook.get("context_window")
    size = DEFAULT_CONTEXT
    if isinstance(cw, dict):
        if isinstance(cw.get("context_window_size"), int) and cw["context_window_size"] > 0:
            size = cw["context_window_size"]
        cur = cw.get("current_usage")
        if isinstance(cur, dict):
            keys = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
            return sum(v for k in keys if isinstance(v := cur.get(k), int)), size
        if isinstance(cw.get("total_input_tokens"), int):
            return cw["total_input_tokens"], size
    path = hook.get("transcript_path")
    if isinstance(path, str) and path:
        try:
            turns = _read(path, os.stat(path))
        except OSError:
            return None
        main = [t for t in turns if not t.sidechain]
        if main:
            return main[-1].context, size
    return None


def usd(x: float) -> str:
    return f"${x:,.2f}"


def parse_input(text: str) -> dict:
    """Claude Code's status line JSON, or a one-line CairnError saying what is wrong with it."""
    if not text.strip():
        raise CairnError("no status line input: Claude Code pipes its session JSON into the statusLine command")
    try:
        hook = orjson.loads(text)
    except ValueError:
        raise CairnError("status line input is not JSON (Claude Code's statusLine passes JSON on stdin)") from None
    if not isinstance(hook, dict) or not isinstance(hook.get("session_id"), str):
        raise CairnError("status line input has no session_id: is this Claude Code's statusLine JSON?")
    return hook


def figures(
    hook: dict, prices: PriceTable, roots: list[Path], *, now: float | None = None, cost_source: str = "auto"
) -> dict[str, Any]:
    """What the line shows, as data (`--json`); `roots`: Claude Code's transcript folders."""
    now = time.time() if now is None else now
    turns, since = recent(now, roots)
    day_start = now - now % DAY
    costs = [(t, turn_cost(t, prices)) for t in turns]
    today = sum(c.total for t, c in costs if c is not None and t.ts >= day_start)
    cc = hook.get("cost")
    cc_cost = cc.get("total_cost_usd") if isinstance(cc, dict) else None
    cc_cost = float(cc_cost) if isinstance(cc_cost, int | float) and not isinstance(cc_cost, bool) else None
    if cost_source == "cc" or (cost_source == "auto" and cc_cost is not None):
        session = cc_cost
    else:
        session = _session_cost(hook, prices)
    block = None
    found = identify_blocks([t for t, _ in costs]) if turns else []
    now_ms = round(now * 1000)
    span = BLOCK_HOURS * HOUR_MS
    if found:
        start, inside = found[-1]
        if inside and now_ms - round(inside[-1].ts * 1000) < span and now_ms < start + span:
            cost = sum(c.total for c in (turn_cost(t, prices) for t in inside) if c is not None)
            block = {
                "start": iso_ms(start),
                "cost_usd": cost,
                "minutes_left": (start + span - now_ms) // 60_000,
                "burn_rate": burn_rate(inside, cost),
            }
    model = hook.get("model")
    name = model.get("display_name") or model.get("id") if isinstance(model, dict) else None
    return {
        "model": name if isinstance(name, str) else None,
        "session_cost_usd": session,
        "today_cost_usd": today,
        "block": block,
        "context": _context(hook),
        "window_start": None if since is None else iso_ms(round(since * 1000)),  # what was read: from then on
    }


def render(f: dict[str, Any]) -> str:
    """ccusage's line: model | session / today / block (time left) | burn rate | context (%)."""
    session = "N/A" if f["session_cost_usd"] is None else usd(f["session_cost_usd"])
    b = f["block"]
    if b is None:
        block, burn = "No active block", ""
    else:
        left = b["minutes_left"]
        when = f"{left // 60}h {left % 60}m left" if left >= 60 else f"{left}m left"
        block = f"{usd(b['cost_usd'])} block ({when})"
        burn = f" | 🔥 {usd(b['burn_rate']['cost_per_hour'])}/hr" if b["burn_rate"] else ""
    ctx = f["context"]
    context = "N/A" if ctx is None else f"{ctx[0]:,} ({_half_up(ctx[0] / ctx[1] * 100) if ctx[1] else 0}%)"
    return (
        f"🤖 {f['model'] or 'Claude'} | 💰 {session} session / {usd(f['today_cost_usd'])} today / {block}{burn}"
        f" | 🧠 {context}"
    )


def _half_up(x: float) -> int:
    """`x` rounded half away from zero (Rust's `round`, ccusage's percentage), for x >= 0: Python's
    `round` goes to the even number (0.5 -> 0)."""
    whole = int(x)
    return whole + (x - whole >= 0.5)
