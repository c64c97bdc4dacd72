"""The token X-ray: where an agent's tokens and money went, from its own transcripts.

Agents are billed for every token they re-read, and most of a bill is cache reads of a context
that keeps growing. This turns deduplicated usage turns (sessions.usage) into the few numbers
that show it: cost by kind, by session, project, model and day; context size at session start;
which tools' outputs fill the context; cache expiries mid-session; how much cost came from
sessions that grew past 150k / 400k tokens; compactions; and each session's context curve.
`analyze` returns plain data (the `--json` shape) with xray_findings' sentences; xray_report and
xray_html render it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from itertools import compress, islice
from operator import attrgetter, le, or_
from pathlib import Path

from cairn.sessions.prices import PriceTable
from cairn.sessions.usage import Dataset, Turn
from cairn.sessions.xray_columns import Acc, Columns, fsum, group_sums, pick, positions_of, turn_cost
from cairn.sessions.xray_findings import findings

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any, TypeVar

    T = TypeVar("T")

KINDS = ("cache_read", "cache_write", "input", "output")
KIND_LABEL = {
    "cache_read": "cache read (re-reading context)",
    "cache_write": "cache write",
    "input": "fresh input",
    "output": "output",
}
SIZE_LIMITS = (150_000, 400_000)
SIZE_BUCKETS = (
    ("under 50k", 0, 50_000),
    ("50k-150k", 50_000, 150_000),
    ("150k-400k", 150_000, 400_000),
    ("over 400k", 400_000, None),
)
TTL_5M, TTL_1H = 300, 3600
EXPIRY_MIN_CONTEXT = 10_000  # ignore tiny prefixes: rewriting them costs nothing worth telling
EXPIRY_REWRITE_SHARE = 0.5  # a write of at least half the previous context = the prefix was lost
CHARS_PER_TOKEN = 4.0  # rough estimate for tool output text; stated in the output


_MODEL, _TS, _SUB, _SIDE = (
    attrgetter("model"),
    attrgetter("ts"),
    attrgetter("is_subagent"),
    attrgetter("sidechain"),
)  # read in C, per session
_TOOL = attrgetter("tool")


@lru_cache(maxsize=4096)
def project_of(cwd: str | None) -> tuple[str, str]:
    """(id, name) of the cairn project a session ran in, by the same rule as the session archive."""
    if not cwd:
        return ("unknown", "unknown")
    from cairn.project import project_for_recorded_cwd

    return project_for_recorded_cwd(cwd)


def day_of(ts: float) -> str:
    return _day(int(ts // 86400))


@lru_cache(maxsize=8192)
def _day(n: int) -> str:
    return datetime.fromtimestamp(n * 86400, UTC).strftime("%Y-%m-%d")


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


@dataclass
class Expiry:
    session_id: str
    ts: float
    gap_s: float
    ttl_s: int
    rewritten: int
    extra_cost: float
    is_subagent: bool = False


def find_expiries(turns: list[Turn], prices: PriceTable) -> list[Expiry]:
    """Gaps longer than the cache TTL followed by a rewrite of most of the context, per file.

    The TTL is that of the stream's latest cache write: 1 hour if it wrote 1-hour entries, else
    5 minutes (Claude Code switches between them within one session).
    The extra cost is the rewrite priced as a write minus what a cache read would have cost.
    """
    by_file: dict[str, list[Turn]] = defaultdict(list)
    for t in turns:
        by_file[t.file].append(t)
    out: list[Expiry] = []
    for stream in by_file.values():
        if not any(t.cache_write for t in stream):  # no write, no rewrite (Codex, Gemini): nothing can expire
            continue
        stream.sort(key=lambda t: t.ts)
        ttl = TTL_5M
        for prev, cur in zip(stream, stream[1:], strict=False):
            if prev.cache_write:  # the lifetime of the latest write is the one that can run out
                ttl = TTL_1H if prev.write_1h else TTL_5M
            ctx = prev.context
            if cur.ts - prev.ts <= ttl or ctx < EXPIRY_MIN_CONTEXT or cur.cache_write < EXPIRY_REWRITE_SHARE * ctx:
                continue
            rewritten = min(cur.cache_write, ctx)
            c, p = turn_cost(cur, prices), prices.lookup(cur.model)
            extra = 0.0
            if c is not None and p is not None and cur.cache_write:
                extra = rewritten * (c.cache_write / cur.cache_write - p.base["cache_read"] * 1e-6)
            out.append(Expiry(cur.session_id, cur.ts, cur.ts - prev.ts, ttl, rewritten, extra, cur.is_subagent))
    return sorted(out, key=lambda e: e.ts)


def _share(part: float, whole: float) -> float:
    return round(part / whole, 4) if whole else 0.0


def _rows(groups: dict[str, Acc], label: str, total: float) -> list[dict[str, Any]]:
    rows = [{label: k, **a.as_dict(), "cost_share": _share(a.cost_usd, total)} for k, a in groups.items()]
    return sorted(rows, key=lambda r: (-r["cost_usd"], str(r[label])))


def analyze(
    ds: Dataset,
    prices: PriceTable,
    *,
    filters: dict[str, Any] | None = None,
    curves: bool = True,
    before_tools: Callable[[dict[str, Any]], object] | None = None,
) -> dict[str, Any]:
    """Everything the report needs, as JSON-ready data; `curves` holds each session's context curve
    (for the HTML page; `curves=False` leaves it empty, which saves a list per turn). `before_tools`
    is given the report once all but its tools section and findings are made, before the tool
    outputs another process may still be reading are waited for."""
    from cairn.sessions.simulate import DEFAULT_HANDOFF, DEFAULT_THRESHOLDS, Prepared, simulate

    want_curves = curves
    turns_all = ds.turns
    cols, turn_totals = Columns.of_prices(turns_all, prices)
    total = cols.acc(range(len(turns_all)))
    grand = total.cost_usd
    ts_col = list(map(_TS, turns_all))
    ctx_col = cols.contexts()
    sub_col = list(map(_SUB, turns_all))
    any_sub = any(sub_col)
    aside = list(map(or_, sub_col, map(_SIDE, turns_all))) if any_sub or any(map(_SIDE, turns_all)) else None
    w1_col = cols.write_1h
    models = cols.models
    idx_by_session = positions_of([t.session_id for t in turns_all])
    comp_by_session: dict[str, list] = defaultdict(list)
    for c in ds.compactions:
        comp_by_session[c.session_id].append(c)
    expiries = find_expiries(turns_all, prices) if any(cols.cache_write) else []  # no write, nothing expires
    exp_by_session: dict[str, list[Expiry]] = defaultdict(list)
    for e in expiries:
        exp_by_session[e.session_id].append(e)

    sessions, curve_points, prepared, session_projects = [], {}, [], []
    session_days: list[int | None] = []
    main: list[int] | range | None
    for sid, idx in idx_by_session.items():  # each session's numbers from the columns, over its positions
        acc = cols.acc(idx)
        if type(idx) is range:
            at = slice(idx.start, idx.stop)
            times, names = ts_col[at], set(models[at])
            subagent_turns = sum(sub_col[at]) if any_sub else 0
            main = idx if aside is None or not any(aside[at]) else None
        else:
            times, names = pick(ts_col, idx), set(pick(models, idx))
            subagent_turns = sum(pick(sub_col, idx)) if any_sub else 0
            main = idx if aside is None or not any(pick(aside, idx)) else None
        if main is None:  # main_curve: the session's own thread, or every turn when it has none
            assert aside is not None
            main = [i for i in idx if not aside[i]] or list(idx)
        curve = _in_time_order(main, ts_col)
        if type(curve) is range:
            at = slice(curve.start, curve.stop)
            prep = Prepared(turns_all[at], turn_totals[at], ctx_col[at], any(w1_col[at]))
        else:
            prep = Prepared(
                [turns_all[i] for i in curve],
                [turn_totals[i] for i in curve],
                [ctx_col[i] for i in curve],
                any(w1_col[i] for i in curve),
            )
        prepared.append(prep)
        first_ts, last_ts = min(times), max(times)
        session_days.append(_one_day(first_ts, last_ts))
        names.discard("")  # no model
        pid, pname = project_of(ds.session_cwd.get(sid))
        session_projects.append(pname)
        comps = [c for c in comp_by_session.get(sid, []) if not c.is_subagent]
        sessions.append(
            {
                "session_id": sid,
                "agent": turns_all[idx[0]].agent,
                "project": pname,
                "project_id": pid,
                "project_dir": ds.session_dir.get(sid, ""),
                "models": sorted(names),
                **acc.as_dict(),
                "cost_share": _share(acc.cost_usd, grand),
                "first_activity": iso(first_ts),
                "last_activity": iso(last_ts),
                "start_context": prep.contexts[0],
                "peak_context": prep.peak,
                "main_turns": len(prep.contexts),
                "subagent_turns": subagent_turns,
                "compactions": len(comps),
                "cache_expiries": len(exp_by_session.get(sid, [])),
                "unpriced_turns": acc.unpriced_turns,
            }
        )
        if not want_curves:
            continue
        curve_points[sid] = {
            "points": [[round(t.ts, 3), t.context] for t in prep.turns],
            "compactions": [[round(c.ts, 3), c.pre_tokens] for c in comps],
            "expiries": [[round(e.ts, 3), e.rewritten] for e in exp_by_session.get(sid, []) if not e.is_subagent],
        }
    sessions.sort(key=lambda s: (-s["cost_usd"], s["session_id"]))

    by_kind = [
        {
            "kind": k,
            "label": KIND_LABEL[k],
            "tokens": {
                "cache_read": total.cache_read,
                "cache_write": total.cache_write,
                "input": total.input,
                "output": total.output,
            }[k],
            "cost_usd": round(total.cost[k], 6),
            "cost_share": _share(total.cost[k], grand),
        }
        for k in KINDS
    ]
    day_numbers = _day_numbers(session_days, idx_by_session.values(), ts_col)
    day_names = {n: _day(n) for n in set(day_numbers)}  # day_of, once per day
    by_day = _rows(group_sums(cols, list(map(day_names.__getitem__, day_numbers))), "day", grand)
    by_day.sort(key=lambda r: r["day"])
    size = _size_report(sessions, grand)
    unpriced: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for t in compress(turns_all, cols.unpriced) if cols.any_unpriced else ():
        unpriced[t.model or "(no model)"][0] += 1
        unpriced[t.model or "(no model)"][1] += t.total
    comp_runs = Acc()
    compacting: dict[str, bool] = {}  # file -> an agent-acompact subagent's file
    for t in compress(turns_all, sub_col) if any_sub else ():
        found = compacting.get(t.file)
        if found is None:
            found = compacting[t.file] = Path(t.file).name.startswith("agent-acompact")
        if found:
            comp_runs.add(t, turn_cost(t, prices))
    main_comps = [c for c in ds.compactions if not c.is_subagent]
    pre = [c.pre_tokens for c in main_comps if c.pre_tokens]
    report: dict[str, Any] = {
        "sessions": sessions,
        "totals": {**total.as_dict(), "sessions": len(sessions), "projects": len(set(session_projects))},
        "by_kind": by_kind,
        "by_project": _rows(
            group_sums(cols, _spread(session_projects, idx_by_session.values(), len(turns_all))), "project", grand
        ),
        "by_model": _rows(_by_model(cols), "model", grand),
        "by_agent": _rows(group_sums(cols, [t.agent for t in turns_all]), "agent", grand),
        "by_day": by_day,
        "start_context_median": int(_median([s["start_context"] for s in sessions])) if sessions else 0,
        "tools": {},  # filled last (below): the Codex tool outputs may still be being read by another process
        "cache_expiries": {
            "count": len(expiries),
            "sessions": len(exp_by_session),
            "extra_cost_usd": round(sum(e.extra_cost for e in expiries), 6),
            "events": [
                {
                    "session_id": e.session_id,
                    "at": iso(e.ts),
                    "gap_minutes": round(e.gap_s / 60, 1),
                    "ttl_minutes": e.ttl_s // 60,
                    "rewritten_tokens": e.rewritten,
                    "extra_cost_usd": round(e.extra_cost, 6),
                }
                for e in expiries
            ],
        },
        "session_size": size,
        "compactions": {
            "count": len(main_comps),
            "sessions": len({c.session_id for c in main_comps}),
            "auto": sum(c.trigger == "auto" for c in main_comps),
            "manual": sum(c.trigger == "manual" for c in main_comps),
            "median_pre_tokens": int(_median(pre)) if pre else None,
            "compaction_runs_cost_usd": round(comp_runs.cost_usd, 6),
        },
        "unpriced_models": [{"model": m, "turns": n, "tokens": tok} for m, (n, tok) in sorted(unpriced.items())],
        "prices": prices.describe(),
        "included": {
            "files": ds.files,
            "roots": ds.roots,
            "filters": filters or {},
            "skipped_lines": 0,  # filled with "tools", once every line was read
            "first_activity": min((s["first_activity"] for s in sessions), default=None),
            "last_activity": max((s["last_activity"] for s in sessions), default=None),
        },
        "curves": curve_points,
    }
    report["simulation"] = simulate(
        ds, prices, DEFAULT_THRESHOLDS, DEFAULT_HANDOFF, prepared=prepared, total=fsum(turn_totals, 0.0)
    )
    if before_tools is not None:
        before_tools(report)
    report["tools"] = _tool_report(ds)  # the last part needing them: the scan of tool outputs has the most time
    report["included"]["skipped_lines"] = ds.bad_lines  # complete now (_tool_report waited for the late lines)
    report["findings"] = findings(report)
    return report


def _in_time_order(pos: list[int] | range, ts: list[float]) -> list[int] | range:
    """`pos` sorted by time, stably (main_curve's order): `pos` itself when already in order."""
    times = ts[pos.start : pos.stop] if type(pos) is range else pick(ts, pos)
    if all(map(le, times, islice(times, 1, None))):  # no later turn earlier: a stable sort keeps them all
        return pos
    return sorted(pos, key=ts.__getitem__)


def _one_day(first: float, last: float) -> int | None:
    """The day number (`int(ts // 86400)`) of every time from `first` to `last` when they share
    one, else None. Below 2**53 a non-negative float's `// 86400` is the exact floor (its `fmod`
    and the multiple of 86400 it leaves are exact), so it never decreases as the time grows."""
    if 0.0 <= first and last < 9_007_199_254_740_992.0:
        day = int(first // 86400)
        if int(last // 86400) == day:
            return day
    return None


def _day_numbers(days: list[int | None], positions: Iterable[list[int] | range], ts: list[float]) -> list[int]:
    """Each turn's `int(ts // 86400)`: a session's one day (`_one_day`) at all its positions, else
    turn by turn."""
    positions = list(positions)
    out = _spread(days, positions, len(ts))
    for day, pos in zip(days, positions, strict=True):
        if day is None:  # a session over several days
            for i in pos:
                out[i] = int(ts[i] // 86400)
    return out  # type: ignore[return-value]  # no None is left: every session's positions were filled


def _spread(values: list[T], positions: Iterable[list[int] | range], n: int) -> list[T]:
    """A list of `n` keys: `values[k]` at each of the k-th `positions` (which cover 0..n-1)."""
    out: list = [None] * n
    for value, pos in zip(values, positions, strict=True):
        if type(pos) is range:
            out[pos.start : pos.stop] = [value] * len(pos)
        else:
            for i in pos:
                out[i] = value
    return out


def _by_model(cols: Columns) -> dict[str, Acc]:
    """The groups by model, "(no model)" for turns without one: the positions priced model by model."""
    if "(no model)" in cols.by_model and "" in cols.by_model:  # a model named so: merged with the unnamed
        return group_sums(cols, [m or "(no model)" for m in cols.models])
    return {m or "(no model)": cols.acc(idx) for m, idx in cols.by_model.items()}


def _median(values: list[int]) -> float:
    """`statistics.median` of a non-empty list (the same value: the middle one, or the mean of the two
    middle ones), without importing statistics (~5 ms of the X-ray's start-up: fractions, decimal, random)."""
    data = sorted(values)
    n = len(data)
    return data[n // 2] if n % 2 == 1 else (data[n // 2 - 1] + data[n // 2]) / 2


def _size_report(sessions: list[dict], grand: float) -> dict[str, Any]:
    buckets = []
    for label, lo, hi in SIZE_BUCKETS:
        inside = [s for s in sessions if s["peak_context"] >= lo and (hi is None or s["peak_context"] < hi)]
        cost = sum(s["cost_usd"] for s in inside)
        buckets.append(
            {"bucket": label, "sessions": len(inside), "cost_usd": round(cost, 6), "cost_share": _share(cost, grand)}
        )
    over = {}
    for limit in SIZE_LIMITS:
        inside = [s for s in sessions if s["peak_context"] > limit]
        cost = sum(s["cost_usd"] for s in inside)
        over[f"over_{limit // 1000}k"] = {
            "sessions": len(inside),
            "cost_usd": round(cost, 6),
            "cost_share": _share(cost, grand),
        }
    return {"buckets": buckets, **over}


def _tool_report(ds: Dataset) -> dict[str, Any]:
    ds.complete()  # the first to need the Codex tool outputs another process may still be reading
    calls = Counter(map(_TOOL, ds.tool_results))  # counted in C
    chars: dict[str, int] = {}
    get = chars.get
    for r in ds.tool_results:  # one attribute read each, no pairs (52k outputs in 100 MB of Codex rollouts)
        name = r.tool
        chars[name] = get(name, 0) + r.chars
    for name, (outputs, size) in ds.tool_totals.items():  # Codex outputs counted by tool (tool_rows=False)
        calls[name] += outputs
        chars[name] = get(name, 0) + size
    whole = sum(chars.values())
    rows: list[dict[str, Any]] = [
        {
            "tool": name,
            "calls": calls[name],
            "chars": chars[name],
            "est_tokens": int(chars[name] / CHARS_PER_TOKEN),
            "share": _share(chars[name], whole),
        }
        for name in calls
    ]
    rows.sort(key=lambda r: (-r["chars"], r["tool"]))
    return {
        "method": "text size of each tool's output: Claude Code's tool_result, matched to its tool_use by id; "
        "Gemini CLI's functionResponse output and error; Codex CLI's function_call_output and "
        "custom_tool_call_output, matched to its call by call_id; "
        f"tokens ~ chars/{CHARS_PER_TOKEN:g}",
        "rows": rows,
        "est_tokens": int(whole / CHARS_PER_TOKEN),
    }
