"""`cairn xray simulate`: what compacting earlier would have cost, replayed on the user's own sessions.

Every turn re-reads the whole context, so a session that grows linearly costs quadratically; a
compaction trades one summarizing call and a cache rewrite for a smaller context afterwards.
Which threshold pays depends on how the user's sessions grow, so we replay the real curves
rather than assume one. The method is stated in METHOD and printed with the result.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from cairn.errors import CairnError
from cairn.sessions.prices import CostParts, PriceTable
from cairn.sessions.usage import Dataset, Turn
from cairn.sessions.xray import main_curve, turn_cost

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

METHOD = (
    "Each session's main-thread context curve is replayed (context = input + cache write + cache read of "
    "every deduplicated turn; growth between turns as it really happened). Whenever the simulated context "
    "passes the threshold, a compaction is charged: one call reading the whole context from cache and "
    "writing a handoff of H output tokens, then a cache write of the session's start-up context S (its "
    "first turn's context) plus H; the context restarts at S + H. Every later turn is re-priced with its "
    "cache reads shrunk to the simulated context; output, fresh input and subagent turns are unchanged, "
    "and real compactions still happen. Quality is not modelled: a handoff may lose detail the agent "
    "then has to re-read."
)

DEFAULT_THRESHOLDS = [100_000, 150_000, 250_000]
DEFAULT_HANDOFF = 8_000
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([km]?)\s*$", re.IGNORECASE)


def parse_tokens(text: str, what: str) -> int:
    """`150k` -> 150000, `1m` -> 1000000, `8000` -> 8000; a clear error otherwise."""
    m = _SIZE.match(text)
    if not m:
        raise CairnError(f"{what}: {text!r} is not a token count (write 150k, 1m or 8000)")
    n = float(m.group(1)) * {"": 1, "k": 1_000, "m": 1_000_000}[m.group(2).lower()]
    if n <= 0:
        raise CairnError(f"{what}: {text!r} must be more than zero")
    return int(n)


def parse_thresholds(text: str) -> list[int]:
    vals = sorted({parse_tokens(p, "--thresholds") for p in text.split(",") if p.strip()})
    if not vals:
        raise CairnError("--thresholds: give at least one size, e.g. 100k,150k,250k")
    return vals


@dataclass
class _Run:
    cost: float = 0.0
    compactions: int = 0


def _price(prices: PriceTable, model: str | None, *, inp: int = 0, out: int = 0, w5: int = 0, w1: int = 0,
           cr: int = 0) -> CostParts | None:
    p = prices.lookup(model)
    return None if p is None else p.cost(inp, out, w5, w1, cr)


def _shrunk(t: Turn, ctx: int) -> tuple[int, int, int, int]:
    """The turn's (input, 5m write, 1h write, cache read) when its prompt is `ctx` tokens."""
    inp = min(t.input, ctx)
    cw = min(t.cache_write, ctx - inp)
    w1 = round(t.write_1h * cw / t.cache_write) if t.cache_write else 0
    return inp, cw - w1, w1, ctx - inp - cw


def replay(curve: list[Turn], prices: PriceTable, threshold: int, handoff: int,
           real: dict[int, CostParts | None] | None = None) -> _Run:
    """Cost of one session's main thread under the compact-at-threshold policy.

    `real` (id(turn) -> its actual cost) saves pricing a turn whose simulated prompt is its real one."""
    run = _Run()
    if not curve:
        return run
    start = curve[0].context
    one_hour = any(t.write_1h for t in curve)
    can_compact = start + handoff < threshold
    sim = 0
    for i, t in enumerate(curve):
        if i == 0:
            sim = t.context
        else:
            step = t.context - curve[i - 1].context
            sim = sim + step if step >= 0 else min(sim, t.context)
        if real is not None and sim == t.context:  # not compacted (yet): the turn as it was
            c = real[id(t)]
        else:
            inp, w5, w1, cr = _shrunk(t, sim)
            c = _price(prices, t.model, inp=inp, out=t.output, w5=w5, w1=w1, cr=cr)
        run.cost += c.total if c else 0.0
        if can_compact and sim > threshold and i < len(curve) - 1:
            fresh = start + handoff
            summary = _price(prices, t.model, out=handoff, cr=sim)
            rewrite = _price(prices, t.model, w1=fresh if one_hour else 0, w5=0 if one_hour else fresh)
            run.cost += (summary.total if summary else 0.0) + (rewrite.total if rewrite else 0.0)
            run.compactions += 1
            sim = fresh
    return run


def simulate(ds: Dataset, prices: PriceTable, thresholds: list[int], handoff: int) -> dict[str, Any]:
    """Per threshold: compactions and the estimated saving on total cost (all turns, all sessions)."""
    by_session: dict[str, list[Turn]] = defaultdict(list)
    for t in ds.turns:
        by_session[t.session_id].append(t)
    real = {id(t): turn_cost(t, prices) for t in ds.turns}  # each turn priced once
    total = 0.0
    for t in ds.turns:
        c = real[id(t)]
        total += c.total if c else 0.0
    curves = {sid: main_curve(turns) for sid, turns in by_session.items()}
    real_main = 0.0
    for curve in curves.values():
        for t in curve:
            c = real[id(t)]
            real_main += c.total if c else 0.0
    rows = []
    for th in thresholds:
        cost, comps, touched = 0.0, 0, 0
        for curve in curves.values():
            run = replay(curve, prices, th, handoff, real)
            cost += run.cost
            comps += run.compactions
            touched += run.compactions > 0
        saving = real_main - cost
        rows.append({"threshold": th, "compactions": comps, "sessions_compacted": touched,
                     "cost_usd": round(total - saving, 6), "saving_usd": round(saving, 6) + 0.0,
                     "saving_share": (round(saving / total, 4) if total else 0.0) + 0.0})
    best = max(rows, key=lambda r: r["saving_usd"], default=None)
    return {
        "method": METHOD.replace("H output", f"H={handoff} output"),
        "handoff_tokens": handoff,
        "sessions": len(curves),
        "baseline": {"cost_usd": round(total, 6),
                     "real_compactions": sum(1 for c in ds.compactions if not c.is_subagent)},
        "thresholds": rows,
        "best": best["threshold"] if best and best["saving_usd"] > 0 else None,
    }
