"""Token usage of Codex CLI rollouts, counted exactly as ccusage `codex session` counts; a rollout's scan.

The rules follow ccusage's Rust loader (adapter/codex/parser.rs and loader.rs @ 5816e640), so
token totals match it to the token (tests/fixtures/transcripts/codex/expected.ccusage-codex-session.json):

- only `event_msg` records of payload type `token_count` carry usage; `info.last_token_usage`
  is the request's own usage, else the difference of `info.total_token_usage` from the previous
  total (never below zero); a request with no input, cached input, output or reasoning is skipped;
- the model is the payload's or info's `model` / `model_name` / `metadata.model`, else that of
  the latest `turn_context`, else `gpt-5` (marked as a fallback);
- `input_tokens` includes the cached part: fresh input = input - cached (cached capped at
  input); `output_tokens` includes reasoning; Codex has no cache writes;
- a `token_count` whose cumulative total equals the previous one is a repeat (Codex writes each
  count twice, seconds apart) and is skipped (ccusage 20.0.24's behaviour, checked on a
  hand-made rollout: it counts the usage once);
- a subagent rollout (`thread_spawn` in its first 16 KiB) starts by replaying its parent's
  usage, all within one second: when its first two usage events share a second, the leading
  events of that second are skipped;
- across all files, an event equal in (timestamp, model, tokens) to one already seen is a copy
  (a forked or resumed rollout repeats its history) and is counted once.

The same scan of a rollout hands its buffer to codex_tools.py, which reads the tool outputs that
entered the context (not a ccusage count).

Not followed: ccusage's date-based substitutes for the `codex-auto-review` model name, and its
reading of headless `codex exec` JSON output (not a rollout).
"""

from __future__ import annotations

from pathlib import Path

import orjson

from cairn.sessions.codex_meta import id_from_name, record_meta
from cairn.sessions.codex_tools import tool_outputs
from cairn.sessions.transcript import marked_spans
from cairn.sessions.usage import Dataset, Turn, parse_timestamp
from cairn.util.jsonl import parse_line

_TOKEN_COUNT = b'"token_count"'
_TURN_CONTEXT = b'"turn_context"'
_SESSION_META = b'"session_meta"'
FALLBACK_MODEL = "gpt-5"
_KEYS = ("input", "cached", "output", "reasoning", "total")


def _u(value: object) -> int | None:
    if type(value) is int:  # the common case first (bool is not int here)
        return value if value >= 0 else 0
    if isinstance(value, float) and value >= 0:
        return int(value)
    return None


def _first(u: dict, keys: tuple[str, ...]) -> int | None:
    for k in keys:
        v = u.get(k)
        if v is not None and (n := _u(v)) is not None:
            return n
    return None


_IN, _OUT = ("input_tokens", "prompt_tokens", "input"), ("output_tokens", "completion_tokens", "output")
_REASONING, _CACHED = (
    ("reasoning_output_tokens", "reasoning_tokens"),
    ("cached_input_tokens", "cache_read_input_tokens", "cached_tokens"),
)


def raw_usage(u: object) -> tuple[int, int, int, int, int] | None:
    """(input, cached, output, reasoning, total) of a usage object, with ccusage's field aliases."""
    if type(u) is not dict:
        return None if not isinstance(u, dict) else _raw_usage_slow(u)
    # Codex writes these five keys as non-negative integers: then each is the first alias found
    inp, cached, out = u.get("input_tokens"), u.get("cached_input_tokens"), u.get("output_tokens")
    reasoning, total = u.get("reasoning_output_tokens"), u.get("total_tokens")
    if (
        type(inp) is int
        and type(cached) is int
        and type(out) is int
        and type(reasoning) is int
        and type(total) is int
        and inp >= 0
        and cached >= 0
        and out >= 0
        and reasoning >= 0
        and total >= 0
    ):
        if total == 0 and inp + out + reasoning != 0:
            total = inp + out + reasoning
        return inp, cached, out, reasoning, total
    return _raw_usage_slow(u)


def _raw_usage_slow(u: dict) -> tuple[int, int, int, int, int]:
    inp = _first(u, _IN) or 0
    out = _first(u, _OUT) or 0
    reasoning = _first(u, _REASONING) or 0
    cached = _first(u, _CACHED) or 0
    total = _u(u.get("total_tokens"))
    if total is None or (total == 0 and inp + out + reasoning != 0):
        total = inp + out + reasoning
    return inp, cached, out, reasoning, total


def _may_name_model(obj: dict) -> bool:
    """False when `_model_of(obj)` is surely None (none of the keys it reads)."""
    return "model" in obj or "model_name" in obj or "metadata" in obj


def _model_of(obj: object) -> str | None:
    if not isinstance(obj, dict):
        return None
    for key in ("model", "model_name"):
        if isinstance(obj.get(key), str) and obj[key].strip():
            return obj[key]
    meta = obj.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("model"), str) and meta["model"].strip():
        return meta["model"]
    return None


def _parse(raw: bytes, ds: Dataset) -> dict | None:
    try:
        rec = orjson.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        rec = parse_line(raw)  # a cut emoji (lone surrogate) or a bad byte: U+FFFD, the line still counts
        if rec is None:
            ds.bad_lines += 1
        return rec
    return rec if isinstance(rec, dict) else None


_TOTAL = b'"total_token_usage":{'  # the raw total of a count's line runs from here to its first `}` (a flat object)


_VARYING = (b'"timestamp":"', b'"turn_id":"')
_PLAIN = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:.+-"


def context_key_of(raw: bytes) -> bytes | None:
    """A `turn_context` line without the text of its first `"timestamp":"` and `"turn_id":"` values,
    when both hold only letters, digits and `:.+-` (else None); lines of one session then share a key.

    Two lines with the same key differ only inside those two JSON strings (each opened by the quote
    after the colon and closed by the next quote, with nothing to escape in between): the same
    validity, the same record type and the same `model` / `model_name` / `metadata` values. So
    a key seen before gives the model without parsing the line again."""
    out = raw
    for name in _VARYING:
        i = out.find(name)
        if i == -1:
            return None
        start = i + len(name)
        end = out.find(b'"', start)
        if end == -1 or out[start:end].strip(_PLAIN):
            return None
        out = out[:start] + out[end:]
    return out


def _session(data: bytes, path: Path, ds: Dataset, spans: dict[int, int]) -> tuple[str, str | None]:
    """(session id, cwd) of a rollout's buffer: the lines naming the session's record (the first
    line, as a rule) are looked at in order until one gives the id, no search of the rest of the file
    for it; the other lines looked at join `spans` (the usage pass reads them), the record leaves it;
    a line that fails to parse counts in ds."""
    sid = None
    cwd = None
    size = len(data)
    at = data.find(_SESSION_META)
    while at != -1 and sid is None:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = size if end == -1 else end
        rec = _parse(data[start:end], ds)
        if rec is not None and rec.get("type") == "session_meta":
            c, _, s = record_meta(rec)
            sid, cwd = s, c
            spans.pop(start, None)  # the session's record is no usage line, whatever else it holds
        else:
            spans[start] = end  # read with the usage lines, as any line naming a marker
        at = data.find(_SESSION_META, end) if sid is None else -1  # found: the rest is not searched
    return sid or id_from_name(path), cwd  # what CODEX_READER.session_id(path, []) gives


def _head(data: bytes, path: Path, ds: Dataset) -> tuple[str, str | None, dict[int, int], dict[int, int]]:
    """(session id, cwd, {start: end} of the lines the usage pass reads, those of them holding the
    `token_count` marker) of a rollout's buffer."""
    counts = marked_spans(data, (_TOKEN_COUNT,))  # the lines holding each marker: which one is known
    spans = {**marked_spans(data, (_TURN_CONTEXT,)), **counts}  # without looking into the line again
    sid, cwd = _session(data, path, ds, spans)
    return sid, cwd, spans, counts


class _UsageLines:
    """The starts of the lines the usage pass reads (`_head`), found only if asked: the tool pass
    asks about a line that fails to parse, which is rare."""

    def __init__(self, data: bytes, path: Path) -> None:
        self._data, self._path = data, path
        self._spans: dict[int, int] | None = None

    def __contains__(self, start: object) -> bool:
        if self._spans is None:
            self._spans = _head(self._data, self._path, Dataset())[2]
        return start in self._spans


def scan_codex_tools(path: Path, ds: Dataset, seen: set[tuple], rows: list[tuple] | None = None) -> None:
    """Only the tool outputs of one rollout (copies already `seen` dropped), as scan_codex_file reads
    them; for a process reading them apart from the usage (scan_pool.py). The bad lines of the
    session's record are the usage pass's to count. `rows`: see tool_outputs; counted by tool
    only (ds.tool_totals) when `ds.tool_rows` is False."""
    with open(path, "rb") as fh:
        data = fh.read()
    sid, _ = _session(data, path, Dataset(), {})
    tool_outputs(data, sid, ds, seen, _UsageLines(data, path), rows)


def scan_codex_file(
    path: Path, ds: Dataset, out: list[Turn], seen: set[tuple], keys: list[tuple] | None = None, *, tools: bool = True
) -> None:
    """Read one rollout: its usage events and tool outputs (copies already `seen` dropped), cwd and folder.

    `keys` collects, for a merge across processes (scan_pool.py), the key of each usage entry added
    to `out`; `tools=False` leaves the tool outputs out (another process reads them: scan_codex_tools)."""
    with open(path, "rb") as fh:
        data = fh.read()
    sid, cwd, spans, counts = _head(data, path, ds)
    starts = sorted(spans)
    if cwd:
        ds.session_cwd.setdefault(sid, cwd)
    ds.session_dir.setdefault(sid, "/".join(path.parent.parts[-3:]))
    if tools:
        tool_outputs(data, sid, ds, seen, spans)
    sub = b"thread_spawn" in data[: 16 * 1024]
    parsed_all: list[dict | None] | None = None
    replay = None
    if sub:  # a subagent's replayed head needs every record first
        parsed_all = [_parse(data[start : spans[start]], ds) for start in starts]
        replay = _replay_second([r for r in parsed_all if r is not None])
    previous: tuple[int, int, int, int, int] | None = None
    previous_bytes: bytes | None = None  # the raw total that set `previous`
    model: str | None = None
    fname = str(path)
    loads = orjson.loads
    contexts: dict[bytes, str | None] = {}  # turn_context lines but for their time and turn id -> model
    find = data.find
    for i, start in enumerate(starts):
        end = spans[start]
        is_count = start in counts  # `_TOKEN_COUNT in raw`, from the search that found the line
        total_raw = None
        if is_count:  # the line's raw total, searched in place: a repeated count's line is never copied
            at = find(_TOTAL, start, end)
            close = find(b"}", at, end) if at != -1 else -1
            total_raw = data[at : close + 1] if close != -1 else None
            if previous_bytes is not None and total_raw == previous_bytes:
                continue  # byte for byte the totals already counted: parsing it would end in the same `continue`
        raw = data[start:end]
        context_key = None
        if parsed_all is None and not is_count:
            context_key = context_key_of(raw)
            if context_key is not None and context_key in contexts:
                model = contexts[context_key] or model
                continue
        if parsed_all is not None:
            rec = parsed_all[i]
            if rec is None:
                continue
        else:  # _parse, inlined: this loop runs once per usage line
            try:
                rec = loads(raw)
            except (ValueError, UnicodeDecodeError, RecursionError):
                rec = _parse(raw, ds)
                if rec is None:
                    continue
            if type(rec) is not dict and not isinstance(rec, dict):
                continue
        kind = rec.get("type")
        payload = rec.get("payload")
        if type(payload) is not dict and not isinstance(payload, dict):
            payload = {}
        if kind == "turn_context":
            found = _model_of(payload)
            if context_key is not None:
                contexts[context_key] = found
            model = found or model
            continue
        if kind != "event_msg" or payload.get("type") != "token_count":
            continue
        stamp = rec.get("timestamp")
        if not isinstance(stamp, str):
            continue
        stamp = stamp.strip()
        if not stamp:
            continue
        info = payload.get("info")
        if type(info) is not dict and not isinstance(info, dict):
            info = {}
        total = raw_usage(info.get("total_token_usage"))
        if replay is not None:
            if stamp[:19] == replay:
                previous = total or previous
                previous_bytes = None
                continue
            replay = None
        if total is not None and total == previous:
            continue  # the same totals written again (Codex emits each count twice): no new request
        usage = raw_usage(info.get("last_token_usage"))
        if usage is None and total is not None:
            base = previous or (0, 0, 0, 0, 0)
            usage = tuple(max(a - b, 0) for a, b in zip(total, base, strict=True))  # type: ignore[assignment]
        if total is not None:
            previous = total
            previous_bytes = total_raw
        if usage is None:
            continue
        inp, cached, output, reasoning, tot = usage
        if not (inp or cached or output or reasoning):
            continue
        if _may_name_model(payload) or _may_name_model(info):  # Codex's own counts name none
            parsed = _model_of(payload) or _model_of(info)
            if parsed:
                model = parsed
        used = model or FALLBACK_MODEL
        if cached > inp:
            cached = inp
        ts = parse_timestamp(stamp)
        if ts is None:
            continue
        key = (stamp, used, inp, cached, output, reasoning, tot)
        if key in seen:
            continue
        seen.add(key)
        if keys is not None:  # for a merge across processes (scan_pool.py)
            keys.append(key)
        out.append(
            Turn(
                sid,
                fname,
                sub,
                ts,
                stamp,
                used,
                None,
                None,
                False,
                None,
                inp - cached,
                output,
                0,
                0,
                0,
                cached,
                cwd,
                "codex",
                reasoning,
            )
        )


def _replay_second(records: list[dict]) -> str | None:
    """The second a subagent's replayed parent usage is stamped with, if its first two usage events share it."""
    first = None
    for rec in records:
        payload = rec.get("payload")
        if rec.get("type") != "event_msg" or not isinstance(payload, dict) or payload.get("type") != "token_count":
            continue
        info = payload.get("info")
        if not isinstance(info, dict) or (
            info.get("last_token_usage") is None and info.get("total_token_usage") is None
        ):
            continue
        stamp = rec.get("timestamp")
        if not isinstance(stamp, str) or len(stamp.strip()) < 19:
            return None
        sec = stamp.strip()[:19]
        if first is None:
            first = sec
            continue
        return sec if sec == first else None
    return None
