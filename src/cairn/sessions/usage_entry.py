"""One Claude Code usage entry, read and deduplicated exactly as ccusage `session` counts it.

Why exact: Claude Code writes one line per content block of an API response, each repeating the
usage with partial output counts, and /btw or subagent logs replay parent messages. Counting
lines, or keeping the first copy, undercounts output about 4x. The rules below follow ccusage's
Rust loader (adapter/claude/mod.rs @ 5816e640), so totals match it to the token:

- only lines holding `"usage":{` are read; a line where one of a few fields is JSON null, or
  that does not fit the entry shape (numbers are non-negative integers), is skipped whole;
- an entry with a non-semver `version`, or an empty sessionId / requestId / message.id / model,
  is rejected;
- duplicates share (message.id, requestId): the one with the largest token total wins, ties go
  to the entry carrying `speed`; a sidechain entry repeating a kept message.id under another
  requestId is a replay and loses to the parent entry; entries without message.id never merge;
- `<synthetic>` turns count tokens but no model; `speed: fast` turns are model `<name>-fast`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from cairn.sessions.transcript import is_subagent_file, session_id_for

_NULL_FIELDS = frozenset(  # a line where one of these is JSON null is skipped whole (ccusage's rule)
    b"id cwd model speed costUSD version sessionId requestId isApiErrorMessage cache_read_input_tokens "
    b"cache_creation_input_tokens".split()
)


def has_null_field(raw: bytes) -> bool:
    """True when `raw` holds `"<name>":null` for a name of _NULL_FIELDS (what the regex
    `"(id|cwd|...)":null` finds, by looking only at each `":null`: twice as fast on usage lines)."""
    i = raw.find(b'":null')
    while i != -1:
        if raw[raw.rfind(b'"', 0, i) + 1 : i] in _NULL_FIELDS:
            return True
        i = raw.find(b'":null', i + 6)
    return False


_SEMVER_PREFIX = re.compile(r"\d+\.\d+\.\d")


@dataclass(slots=True)
class Turn:
    """One assistant API response as recorded in a transcript (one usage entry)."""

    session_id: str
    file: str
    is_subagent: bool
    ts: float  # epoch seconds
    timestamp: str
    model: str | None  # None for `<synthetic>` or a missing model
    message_id: str | None
    request_id: str | None
    sidechain: bool
    speed: str | None
    input: int
    output: int
    cache_write: int  # 5m + 1h when the split is recorded, else cache_creation_input_tokens
    write_5m: int
    write_1h: int
    cache_read: int
    cwd: str | None = None
    agent: str = "claude-code"
    reasoning: int = 0  # Codex: reasoning tokens, already counted in output

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_write + self.cache_read

    @property
    def context(self) -> int:
        """Prompt size of the request: what the model re-read this turn."""
        return self.input + self.cache_write + self.cache_read


def uint(value: object) -> int | None:
    """`value` when it is a non-negative integer (not a bool), else None: ccusage's token-count shape."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _opt_str(rec: dict, key: str) -> tuple[bool, str | None]:
    """(ok, value): a missing key is fine, a present non-string is a shape error."""
    val = rec.get(key)
    if val is None or isinstance(val, str):
        return True, val
    return False, None


_FROM_ISO = datetime.fromisoformat


def parse_timestamp(value: object) -> float | None:
    """Epoch seconds of an ISO 8601 time with a UTC offset or `Z` (None otherwise).

    Every `Z` of a text ending in one is read as +00:00. Python 3.11's fromisoformat reads a
    trailing `Z` so itself: a text with no other `Z` (every real one) is not rewritten first
    (the same result, tests/sessions/test_xray_fast_paths.py; this runs ~80k times on 100 MB of
    Codex rollouts)."""
    if type(value) is not str and not isinstance(value, str):
        return None
    z = value.find("Z")
    try:
        dt = _FROM_ISO(
            value if z == -1 or z == len(value) - 1 else value.replace("Z", "+00:00") if value.endswith("Z") else value
        )
    except ValueError:
        return None
    return None if dt.tzinfo is None else dt.timestamp()


def usage_turn(
    rec: dict, raw: bytes, path: Path, session_id: str | None = None, file_info: tuple[str, bool] | None = None
) -> Turn | None:
    """The usage entry of one parsed line, or None when ccusage would not count it.

    `file_info` = (str(path), is_subagent) precomputed by a caller reading many lines of one file.
    """
    if has_null_field(raw):
        return None
    msg = rec.get("message")
    if not isinstance(msg, dict):
        return None
    usage = msg.get("usage")
    if not isinstance(usage, dict):
        return None
    inp, out = uint(usage.get("input_tokens")), uint(usage.get("output_tokens"))
    if inp is None or out is None:
        return None
    cw_total = usage.get("cache_creation_input_tokens", 0)
    cr = usage.get("cache_read_input_tokens", 0)
    if uint(cw_total) is None or uint(cr) is None:
        return None
    split = usage.get("cache_creation")
    if split is not None:
        if not isinstance(split, dict):
            return None
        w5, w1 = uint(split.get("ephemeral_5m_input_tokens", 0)), uint(split.get("ephemeral_1h_input_tokens", 0))
        if w5 is None or w1 is None:
            return None
        cw = w5 + w1
    else:
        w5, w1, cw = cw_total, 0, cw_total
    speed = usage.get("speed")
    if speed is not None and speed not in ("standard", "fast"):
        return None
    ts = parse_timestamp(rec.get("timestamp"))
    if ts is None:
        return None
    checks = [_opt_str(rec, k) for k in ("sessionId", "version", "requestId")]
    checks += [_opt_str(msg, k) for k in ("id", "model")]
    if not all(ok for ok, _ in checks):
        return None
    (_, sid), (_, version), (_, request_id), (_, message_id), (_, model) = checks
    if version is not None and not _SEMVER_PREFIX.match(version):
        return None
    if sid == "" or request_id == "" or message_id == "" or model == "":
        return None
    side = rec.get("isSidechain")
    if side is not None and not isinstance(side, bool):
        return None
    if model == "<synthetic>":
        model = None
    elif model is not None and speed == "fast":
        model = f"{model}-fast"
    cwd = rec.get("cwd")
    fname, sub = file_info or (str(path), is_subagent_file(path))
    return Turn(
        session_id=session_id or session_id_for(path),
        file=fname,
        is_subagent=sub,
        ts=ts,
        timestamp=rec["timestamp"],
        model=model,
        message_id=message_id,
        request_id=request_id,
        sidechain=side is True,
        speed=speed,
        input=inp,
        output=out,
        cache_write=cw,
        write_5m=w5,
        write_1h=w1,
        cache_read=cr,
        cwd=cwd if isinstance(cwd, str) else None,
    )


def _replaces(new: Turn, old: Turn) -> bool:
    if new.sidechain != old.sidechain:
        return old.sidechain
    if new.total != old.total:
        return new.total > old.total
    return new.speed is not None and old.speed is None


class Deduper:
    """Keeps one entry per API response, in first-seen order (feed files sorted by path)."""

    def __init__(self) -> None:
        self.kept: list[Turn] = []
        self._exact: dict[tuple[str, str | None], list[int]] = {}
        self._by_message: dict[str, list[int]] = {}

    def _index(self, i: int) -> None:
        t = self.kept[i]
        if t.message_id is None:  # kept as is, never matched
            return
        for slot in (
            self._exact.setdefault((t.message_id, t.request_id), []),
            self._by_message.setdefault(t.message_id, []),
        ):
            if i not in slot:
                slot.append(i)

    def add(self, turn: Turn) -> None:
        mid = turn.message_id
        if mid is None:
            self.kept.append(turn)
            return
        if mid not in self._by_message:  # a message not seen yet (most entries): nothing to compare
            self.kept.append(turn)
            self._index(len(self.kept) - 1)
            return
        found = next(
            (
                i
                for i in self._exact.get((mid, turn.request_id), ())
                if self.kept[i].message_id == mid and self.kept[i].request_id == turn.request_id
            ),
            None,
        )
        if found is None:  # a sidechain replay of the same message under a new requestId
            found = next(
                (
                    i
                    for i in self._by_message.get(mid, ())
                    if self.kept[i].message_id == mid and (turn.sidechain or self.kept[i].sidechain)
                ),
                None,
            )
        if found is not None:
            if _replaces(turn, self.kept[found]):
                self.kept[found] = turn
                self._index(found)
            return
        self.kept.append(turn)
        self._index(len(self.kept) - 1)


def dedup(turns: list[Turn]) -> list[Turn]:
    """ccusage's deduplication over entries given in file-path then line order."""
    d = Deduper()
    for t in turns:
        d.add(t)
    return d.kept
