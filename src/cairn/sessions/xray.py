"""The token X-ray: where an agent's tokens and money went, from its own transcripts.

Agents are billed for every token they re-read, and most of a bill is cache reads of a context
that keeps growing. This turns deduplicated usage turns (sessions.usage) into the few numbers
that show it: cost by kind, by session, project, model and day; context size at session start;
which tools' outputs fill the context; cache expiries mid-session; how much cost came from
sessions that grew past 150k / 400k tokens; compactions; and each session's context curve.
`analyze` returns plain data (the `--json` shape); xray_report and xray_html render it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache, reduce
from itertools import groupby
from operator import add, attrgetter, itemgetter
from pathlib import Path

from cairn.sessions.prices import CostParts, PriceTable
from cairn.sessions.usage import Dataset, Turn

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

KINDS = ("cache_read", "cache_write", "input", "output")
KIND_LABEL = {"cache_read": "cache read (re-reading context)", "cache_write": "cache write",
              "input": "fresh input", "output": "output"}
SIZE_LIMITS = (150_000, 400_000)
SIZE_BUCKETS = (("under 50k", 0, 50_000), ("50k-150k", 50_000, 150_000),
                ("150k-400k", 150_000, 400_000), ("over 400k", 400_000, None))
TTL_5M, TTL_1H = 300, 3600
EXPIRY_MIN_CONTEXT = 10_000  # ignore tiny prefixes: rewriting them costs nothing worth telling
EXPIRY_REWRITE_SHARE = 0.5  # a write of at least half the previous context = the prefix was lost
CHARS_PER_TOKEN = 4.0  # rough estimate for tool output text; stated in the output


_MODEL, _TS, _SUB = attrgetter("model"), attrgetter("ts"), attrgetter("is_subagent")  # read in C, per session
_TOOL, _CHARS = attrgetter("tool"), attrgetter("chars")


def turn_cost(t: Turn, prices: PriceTable) -> CostParts | None:
    """USD of one turn, or None when its model has no price (reported, never guessed)."""
    p = prices.lookup(t.model)
    if p is None:
        return None
    return p.cost(t.input, t.output, t.write_5m, t.write_1h, t.cache_read)


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


class _Acc:
    """Tokens and cost of a group of turns."""

    __slots__ = ("input", "output", "cache_write", "cache_read", "c_input", "c_output", "c_cache_write",
                 "c_cache_read", "turns", "unpriced_turns")

    def __init__(self) -> None:
        self.input = self.output = self.cache_write = self.cache_read = self.turns = self.unpriced_turns = 0
        self.c_input = self.c_output = self.c_cache_write = self.c_cache_read = 0.0

    def add(self, t: Turn, c: CostParts | None) -> None:
        self.input += t.input
        self.output += t.output
        self.cache_write += t.cache_write
        self.cache_read += t.cache_read
        self.turns += 1
        if c is None:
            self.unpriced_turns += t.total > 0
            return
        self.c_input += c.input
        self.c_output += c.output
        self.c_cache_write += c.cache_write
        self.c_cache_read += c.cache_read

    @property
    def cost(self) -> dict[str, float]:
        """USD by kind, in KINDS order."""
        return {"cache_read": self.c_cache_read, "cache_write": self.c_cache_write, "input": self.c_input,
                "output": self.c_output}

    @property
    def cost_usd(self) -> float:
        return sum(self.cost.values())

    def as_dict(self) -> dict[str, Any]:
        return {"input_tokens": self.input, "output_tokens": self.output,
                "cache_creation_tokens": self.cache_write, "cache_read_tokens": self.cache_read,
                "total_tokens": self.input + self.output + self.cache_write + self.cache_read,
                "cost_usd": round(self.cost_usd, 6),
                "cost_by_kind": {k: round(v, 6) for k, v in self.cost.items()},
                "turns": self.turns}


@dataclass
class Expiry:
    session_id: str
    ts: float
    gap_s: float
    ttl_s: int
    rewritten: int
    extra_cost: float
    is_subagent: bool = False


def main_curve(turns: list[Turn]) -> list[Turn]:
    """The session's own thread (not subagents), in time order: its context curve."""
    main = [t for t in turns if not t.is_subagent and not t.sidechain] or list(turns)
    return sorted(main, key=_TS)


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


class _Columns:
    """The turns' tokens and costs as parallel lists, so a group's sums run in C (sum / reduce over
    its indices) instead of a Python call per turn and group. Costs of an unpriced turn are 0.0:
    adding 0.0 leaves a sum of non-negative floats unchanged, so every group total is the float
    the turn-by-turn loop (_Acc.add) gives, to the bit."""

    __slots__ = ("input", "output", "cache_write", "cache_read", "c_input", "c_output", "c_cache_write",
                 "c_cache_read", "unpriced", "any_unpriced")

    def __init__(self, turns: list[Turn], costs: list[CostParts | None]) -> None:
        self.input = [t.input for t in turns]
        self.output = [t.output for t in turns]
        self.cache_write = [t.cache_write for t in turns]
        self.cache_read = [t.cache_read for t in turns]
        zero = CostParts()
        priced = [c or zero for c in costs]
        self.c_input = [c.input for c in priced]
        self.c_output = [c.output for c in priced]
        self.c_cache_write = [c.cache_write for c in priced]
        self.c_cache_read = [c.cache_read for c in priced]
        self.unpriced = [1 if c is None and t.total > 0 else 0 for t, c in zip(turns, costs, strict=True)]
        self.any_unpriced = any(self.unpriced)

    @classmethod
    def of_prices(cls, turns: list[Turn], prices: PriceTable) -> tuple[_Columns, list[float]]:
        """The columns of `turns` priced by `prices`, and each turn's cost (CostParts.total, 0.0
        unpriced): the same floats as `turn_cost`, without an object per turn."""
        cols = cls.__new__(cls)
        cols.input = [t.input for t in turns]
        cols.output = [t.output for t in turns]
        cols.cache_write = [t.cache_write for t in turns]
        cols.cache_read = [t.cache_read for t in turns]
        n = len(turns)
        ci, co, cw, cr = [0.0] * n, [0.0] * n, [0.0] * n, [0.0] * n
        unpriced = [0] * n
        w5 = [t.write_5m for t in turns]
        w1 = [t.write_1h for t in turns]
        for model, idx in _index([t.model or "" for t in turns]).items():  # priced a model at a time, in columns ("": none, as lookup(None))
            p = prices.lookup(model)
            if p is None:
                for i in idx:
                    unpriced[i] = 1 if turns[i].total > 0 else 0
                continue
            if type(idx) is range:
                at = slice(idx.start, idx.stop)
                ci[at], co[at], cw[at], cr[at] = p.parts_columns(
                    cols.input[at], cols.output[at], w5[at], w1[at], cols.cache_read[at])
                continue
            pick = itemgetter(*idx)  # a list: a model found in several runs, so at least two positions
            parts = p.parts_columns(pick(cols.input), pick(cols.output), pick(w5), pick(w1), pick(cols.cache_read))
            for col, values in zip((ci, co, cw, cr), parts, strict=True):
                for i, v in zip(idx, values, strict=True):
                    col[i] = v
        cols.c_input, cols.c_output, cols.c_cache_write, cols.c_cache_read = ci, co, cw, cr
        totals = [a + b + c + d for a, b, c, d in zip(ci, co, cw, cr, strict=True)]  # CostParts.total's order
        cols.unpriced, cols.any_unpriced = unpriced, any(unpriced)
        return cols, totals

    def acc(self, idx: list[int] | range) -> _Acc:
        """The _Acc of the turns at `idx` (in order), equal to adding them one by one."""
        a = _Acc()
        a.turns = n = len(idx)
        if n == 0:
            return a
        cols: tuple
        if n == len(self.input):  # every turn (the total, or a group holding all: one agent, one model)
            cols = (self.input, self.output, self.cache_write, self.cache_read, self.c_input,
                                      self.c_output, self.c_cache_write, self.c_cache_read, self.unpriced)
        elif type(idx) is range:  # one run of positions (a session read from one file): slices, in C
            at = slice(idx.start, idx.stop)
            cols = (self.input[at], self.output[at], self.cache_write[at], self.cache_read[at], self.c_input[at],
                    self.c_output[at], self.c_cache_write[at], self.c_cache_read[at],
                    self.unpriced[at] if self.any_unpriced else ())
        else:
            pick = itemgetter(*idx) if n > 1 else (lambda seq: (seq[idx[0]],))
            cols = (pick(self.input), pick(self.output), pick(self.cache_write), pick(self.cache_read),
                    pick(self.c_input), pick(self.c_output), pick(self.c_cache_write), pick(self.c_cache_read),
                    pick(self.unpriced) if self.any_unpriced else ())
        a.input, a.output, a.cache_write, a.cache_read = sum(cols[0]), sum(cols[1]), sum(cols[2]), sum(cols[3])
        a.c_input, a.c_output = reduce(add, cols[4], 0.0), reduce(add, cols[5], 0.0)
        a.c_cache_write, a.c_cache_read = reduce(add, cols[6], 0.0), reduce(add, cols[7], 0.0)
        a.unpriced_turns = sum(cols[8])
        return a


def _index(keys: list[str]) -> dict[str, list[int] | range]:
    """Positions of each key, keys in first-seen order: a range for a key found in one run (a
    session, a day of one file...), else a list. Walked run by run (`groupby`, in C): the turns of
    a session, a project or a day mostly come together."""
    out: dict[str, list[int] | range] = {}
    at = 0
    for k, run in groupby(keys):
        n = len(list(run))
        here = range(at, at + n)
        at += n
        got = out.get(k)
        if got is None:
            out[k] = here
        else:
            if type(got) is range:
                got = out[k] = list(got)
            got.extend(here)
    return out


def _groups(cols: _Columns, keys: list[str]) -> dict[str, _Acc]:
    return {k: cols.acc(idx) for k, idx in _index(keys).items()}


def _rows(groups: dict[str, _Acc], label: str, total: float) -> list[dict[str, Any]]:
    rows = [{label: k, **a.as_dict(), "cost_share": _share(a.cost_usd, total)} for k, a in groups.items()]
    return sorted(rows, key=lambda r: (-r["cost_usd"], str(r[label])))


def analyze(ds: Dataset, prices: PriceTable, *, filters: dict[str, Any] | None = None,
            curves: bool = True) -> dict[str, Any]:
    """Everything the report needs, as JSON-ready data; `curves` holds each session's context curve
    (for the HTML page; `curves=False` leaves it empty, which saves a list per turn)."""
    want_curves = curves
    turns_all = ds.turns
    cols, turn_totals = _Columns.of_prices(turns_all, prices)
    total = cols.acc(range(len(turns_all)))
    grand = total.cost_usd
    idx_by_session = _index([t.session_id for t in turns_all])
    by_session = {sid: turns_all[idx.start:idx.stop] if type(idx) is range else [turns_all[i] for i in idx]
                  for sid, idx in idx_by_session.items()}
    comp_by_session: dict[str, list] = defaultdict(list)
    for c in ds.compactions:
        comp_by_session[c.session_id].append(c)
    expiries = find_expiries(turns_all, prices)
    exp_by_session: dict[str, list[Expiry]] = defaultdict(list)
    for e in expiries:
        exp_by_session[e.session_id].append(e)

    sessions, curve_points, main_curves = [], {}, {}
    for sid, turns in by_session.items():
        acc = cols.acc(idx_by_session[sid])
        curve = main_curve(turns)
        main_curves[sid] = curve
        pid, pname = project_of(ds.session_cwd.get(sid))
        comps = [c for c in comp_by_session.get(sid, []) if not c.is_subagent]
        sessions.append({
            "session_id": sid, "agent": turns[0].agent, "project": pname, "project_id": pid, "project_dir": ds.session_dir.get(sid, ""),
            "models": sorted({m for m in map(_MODEL, turns) if m}), **acc.as_dict(),
            "cost_share": _share(acc.cost_usd, grand),
            "first_activity": iso(min(map(_TS, turns))), "last_activity": iso(max(map(_TS, turns))),
            "start_context": curve[0].context, "peak_context": max(t.context for t in curve),
            "main_turns": len(curve), "subagent_turns": sum(map(_SUB, turns)),
            "compactions": len(comps), "cache_expiries": len(exp_by_session.get(sid, [])),
            "unpriced_turns": acc.unpriced_turns,
        })
        if not want_curves:
            continue
        curve_points[sid] = {"points": [[round(t.ts, 3), t.context] for t in curve],
                       "compactions": [[round(c.ts, 3), c.pre_tokens] for c in comps],
                       "expiries": [[round(e.ts, 3), e.rewritten] for e in exp_by_session.get(sid, [])
                                    if not e.is_subagent]}
    sessions.sort(key=lambda s: (-s["cost_usd"], s["session_id"]))

    proj_of_session = {s["session_id"]: s["project"] for s in sessions}
    by_kind = [{"kind": k, "label": KIND_LABEL[k],
                "tokens": {"cache_read": total.cache_read, "cache_write": total.cache_write,
                           "input": total.input, "output": total.output}[k],
                "cost_usd": round(total.cost[k], 6), "cost_share": _share(total.cost[k], grand)} for k in KINDS]
    day_numbers = [int(ts // 86400) for ts in map(_TS, turns_all)]
    day_names = {n: _day(n) for n in set(day_numbers)}  # day_of, once per day
    by_day = _rows(_groups(cols, list(map(day_names.__getitem__, day_numbers))), "day", grand)
    by_day.sort(key=lambda r: r["day"])
    size = _size_report(sessions, grand)
    unpriced: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for t, flag in zip(turns_all, cols.unpriced, strict=True):
        if flag:
            unpriced[t.model or "(no model)"][0] += 1
            unpriced[t.model or "(no model)"][1] += t.total
    comp_runs = _Acc()
    for t in ds.turns:
        if t.is_subagent and Path(t.file).name.startswith("agent-acompact"):
            comp_runs.add(t, turn_cost(t, prices))
    main_comps = [c for c in ds.compactions if not c.is_subagent]
    pre = [c.pre_tokens for c in main_comps if c.pre_tokens]
    report: dict[str, Any] = {
        "sessions": sessions,
        "totals": {**total.as_dict(), "sessions": len(sessions), "projects": len(set(proj_of_session.values()))},
        "by_kind": by_kind,
        "by_project": _rows(_groups(cols, [proj_of_session[t.session_id] for t in turns_all]), "project", grand),
        "by_model": _rows(_groups(cols, [t.model or "(no model)" for t in turns_all]), "model", grand),
        "by_agent": _rows(_groups(cols, [t.agent for t in turns_all]), "agent", grand),
        "by_day": by_day,
        "start_context_median": int(_median([s["start_context"] for s in sessions])) if sessions else 0,
        "tools": {},  # filled last (below): the Codex tool outputs may still be being read by another process
        "cache_expiries": {
            "count": len(expiries), "sessions": len(exp_by_session),
            "extra_cost_usd": round(sum(e.extra_cost for e in expiries), 6),
            "events": [{"session_id": e.session_id, "at": iso(e.ts), "gap_minutes": round(e.gap_s / 60, 1),
                        "ttl_minutes": e.ttl_s // 60, "rewritten_tokens": e.rewritten,
                        "extra_cost_usd": round(e.extra_cost, 6)} for e in expiries],
        },
        "session_size": size,
        "compactions": {
            "count": len(main_comps), "sessions": len({c.session_id for c in main_comps}),
            "auto": sum(c.trigger == "auto" for c in main_comps),
            "manual": sum(c.trigger == "manual" for c in main_comps),
            "median_pre_tokens": int(_median(pre)) if pre else None,
            "compaction_runs_cost_usd": round(comp_runs.cost_usd, 6),
        },
        "unpriced_models": [{"model": m, "turns": n, "tokens": tok} for m, (n, tok) in sorted(unpriced.items())],
        "prices": prices.describe(),
        "included": {"files": ds.files, "roots": ds.roots, "filters": filters or {},
                     "skipped_lines": 0,  # filled with "tools", once every line was read
                     "first_activity": min((s["first_activity"] for s in sessions), default=None),
                     "last_activity": max((s["last_activity"] for s in sessions), default=None)},
        "curves": curve_points,
    }
    from cairn.sessions.simulate import DEFAULT_HANDOFF, DEFAULT_THRESHOLDS, simulate

    report["simulation"] = simulate(ds, prices, DEFAULT_THRESHOLDS, DEFAULT_HANDOFF, real={id(t): x for t, x in zip(turns_all, turn_totals, strict=True)},
                                    curves=main_curves)
    report["tools"] = _tool_report(ds)  # the last part needing them: the scan of tool outputs has the most time
    report["included"]["skipped_lines"] = ds.bad_lines  # complete now (_tool_report waited for the late lines)
    report["findings"] = findings(report)
    return report


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
        buckets.append({"bucket": label, "sessions": len(inside), "cost_usd": round(cost, 6),
                        "cost_share": _share(cost, grand)})
    over = {}
    for limit in SIZE_LIMITS:
        inside = [s for s in sessions if s["peak_context"] > limit]
        cost = sum(s["cost_usd"] for s in inside)
        over[f"over_{limit // 1000}k"] = {"sessions": len(inside), "cost_usd": round(cost, 6),
                                          "cost_share": _share(cost, grand)}
    return {"buckets": buckets, **over}


def _tool_report(ds: Dataset) -> dict[str, Any]:
    ds.complete()  # the first to need the Codex tool outputs another process may still be reading
    names = list(map(_TOOL, ds.tool_results))
    calls = Counter(names)  # counted in C
    chars = dict.fromkeys(calls, 0)
    for name, n in zip(names, map(_CHARS, ds.tool_results), strict=True):
        chars[name] += n
    for name, (outputs, size) in ds.tool_totals.items():  # Codex outputs counted by tool (tool_rows=False)
        calls[name] += outputs
        chars[name] = chars.get(name, 0) + size
    whole = sum(chars.values())
    rows: list[dict[str, Any]] = [{"tool": name, "calls": calls[name], "chars": chars[name],
             "est_tokens": int(chars[name] / CHARS_PER_TOKEN), "share": _share(chars[name], whole)}
            for name in calls]
    rows.sort(key=lambda r: (-r["chars"], r["tool"]))
    return {"method": "text size of each tool's output: Claude Code's tool_result, matched to its tool_use by id; "
                      "Gemini CLI's functionResponse output and error; Codex CLI's function_call_output and "
                      "custom_tool_call_output, matched to its call by call_id; "
                      f"tokens ~ chars/{CHARS_PER_TOKEN:g}",
            "rows": rows, "est_tokens": int(whole / CHARS_PER_TOKEN)}


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def _k(n: float) -> str:
    if n >= 1e6:
        return f"{n / 1e6:.1f}M"
    return f"{n / 1000:.0f}k" if n >= 1000 else f"{n:.0f}"


def findings(r: dict[str, Any]) -> list[str]:
    """The few sentences that matter, biggest lever first, in plain words."""
    out: list[str] = []
    tot = r["totals"]
    cost = tot["cost_usd"]
    kinds = {k["kind"]: k for k in r["by_kind"]}
    if cost > 0:
        cr, cw = kinds["cache_read"], kinds["cache_write"]
        out.append(f"{_pct(cr['cost_share'])} of your cost (${cr['cost_usd']:.2f} of ${cost:.2f}) was re-reading "
                   f"context from the cache; writing it cost {_pct(cw['cost_share'])}, output "
                   f"{_pct(kinds['output']['cost_share'])}, fresh input {_pct(kinds['input']['cost_share'])}.")
        o150, o400 = r["session_size"]["over_150k"], r["session_size"]["over_400k"]
        out.append(f"{_pct(o150['cost_share'])} of the cost came from the {o150['sessions']} of {tot['sessions']} "
                   f"sessions whose context grew past 150k tokens"
                   + (f"; {_pct(o400['cost_share'])} from {o400['sessions']} past 400k." if o400["sessions"] else "."))
    sim = r.get("simulation")
    smallest = min((row["threshold"] for row in sim["thresholds"]), default=0) if sim else 0
    if sim and cost > 0 and any(s["peak_context"] > smallest for s in r["sessions"]):
        best = next((row for row in sim["thresholds"] if row["threshold"] == sim["best"]), None)
        if best:
            out.append(f"Compacting whenever the context passes {_k(best['threshold'])} tokens would have cost about "
                       f"{_pct(best['saving_share'])} less (${best['saving_usd']:.2f}), by `cairn xray simulate`.")
        else:
            out.append("Compacting earlier would not have saved money on these sessions (`cairn xray simulate`).")
    if r["sessions"]:
        out.append(f"A session starts with a median of {_k(r['start_context_median'])} tokens of context "
                   f"before any work; every later turn re-reads it.")
    rows = r["tools"]["rows"][:3]
    if rows and r["tools"]["est_tokens"]:
        parts = ", ".join(f"{x['tool']} ~{_k(x['est_tokens'])} tokens ({_pct(x['share'])})" for x in rows)
        out.append(f"Tool output that entered the context: {parts}.")
    ce = r["cache_expiries"]
    if ce["count"]:
        out.append(f"The cache expired mid-session {ce['count']} time(s) in {ce['sessions']} session(s) (a pause longer "
                   f"than the cache lifetime, then the context written again), about ${ce['extra_cost_usd']:.2f} extra.")
    cp = r["compactions"]
    if cp["count"]:
        med = f", median {_k(cp['median_pre_tokens'])} tokens before" if cp["median_pre_tokens"] else ""
        out.append(f"{cp['count']} compactions in {cp['sessions']} sessions ({cp['auto']} automatic{med}); "
                   f"the summarizing runs cost ${cp['compaction_runs_cost_usd']:.2f}.")
    else:
        out.append("No compactions seen.")
    if r["unpriced_models"]:
        names = ", ".join(m["model"] for m in r["unpriced_models"])
        out.append(f"No price for {names}: those turns count in tokens but not in cost "
                   f"(add [prices.\"<model>\"] to ~/.cairn/config.toml).")
    return out
