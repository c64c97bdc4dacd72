"""`cairn xray simulate`: what compacting earlier would have cost, replayed on the user's own sessions.

Every turn re-reads the whole context, so a session that grows linearly costs quadratically; a
compaction trades one summarizing call and a cache rewrite for a smaller context afterwards.
Which threshold pays depends on how the user's sessions grow, so we replay the real curves
rather than assume one. The method is stated in METHOD and printed with the result.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from itertools import accumulate

from cairn.errors import CairnError
from cairn.sessions.prices import PER_TOKEN, PriceTable
from cairn.sessions.usage import Dataset, Turn
from cairn.sessions.xray_columns import fsum, main_curve, turn_cost

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
_NONE = object()  # no model seen yet (None is a turn's model when it has none)
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


class _Run:
    """One curve's replayed cost and the compactions charged (a plain class: no dataclass to build at import)."""

    __slots__ = ("cost", "compactions")

    def __init__(self, cost: float = 0.0, compactions: int = 0) -> None:
        self.cost = cost
        self.compactions = compactions


def _price(
    prices: PriceTable, model: str | None, *, inp: int = 0, out: int = 0, w5: int = 0, w1: int = 0, cr: int = 0
) -> float:
    """USD of a request (0.0 for a model without a price)."""
    p = prices.lookup(model)
    return 0.0 if p is None else p.cost_total(inp, out, w5, w1, cr)


class Prepared:
    """What replaying one curve at any threshold needs, computed once: its turns, their contexts,
    their real costs (CostParts.total, 0.0 unpriced), the largest context and the sum of the
    real costs (added one by one, as replay adds them); the running maximum of the contexts is
    made the first time a threshold is passed."""

    __slots__ = ("turns", "contexts", "reals", "peak", "real_sum", "one_hour", "_peaks")

    def __init__(
        self,
        curve: list[Turn],
        real_totals: list[float],
        contexts: list[int] | None = None,
        one_hour: bool | None = None,
    ) -> None:
        self.turns = curve
        self.contexts = [t.context for t in curve] if contexts is None else contexts
        self.reals = real_totals
        self.peak = max(self.contexts, default=0)
        self.real_sum = fsum(real_totals, 0.0)
        self.one_hour = any(t.write_1h for t in curve) if one_hour is None else one_hour
        self._peaks: list[int] | None = None

    def first_above(self, threshold: int) -> int:
        """The position of the first context over `threshold` (len(contexts) when none is)."""
        if self.peak <= threshold:
            return len(self.contexts)
        if self._peaks is None:
            self._peaks = list(accumulate(self.contexts, max))
        return bisect_right(self._peaks, threshold)


def replay(
    curve: list[Turn], prices: PriceTable, threshold: int, handoff: int, prepared: Prepared | None = None
) -> _Run:
    """Cost of one session's main thread under the compact-at-threshold policy.

    Without `prepared` every turn is priced (the plain computation). With it, a turn whose
    simulated prompt is its real one costs its real cost (`prepared.reals`), and the turns before
    the first compaction are not replayed: until the context first passes the threshold the
    simulated curve is the real one, so they cost the running sum of their real costs."""
    run = _Run()
    if not curve:
        return run
    ctx = prepared.contexts if prepared is not None else [t.context for t in curve]
    start = ctx[0]
    one_hour = prepared.one_hour if prepared is not None else any(t.write_1h for t in curve)
    can_compact = start + handoff < threshold
    last = len(curve) - 1
    sim = 0
    first = 0
    reals = None
    if prepared is not None:
        reals = prepared.reals
        first = min(prepared.first_above(threshold), last) if can_compact else last + 1
        if first >= last:  # no compaction before the last turn: the real costs, added one by one
            run.cost = prepared.real_sum
            return run
        run.cost = fsum(reals[:first], 0.0)  # turns 0..first-1, exactly as the loop below adds them
        sim = ctx[first - 1] if first else 0
    cost, compactions, lookup = run.cost, 0, prices.lookup
    model: object = _NONE  # the last priced turn's model, its price and flat rates
    p = flat = None
    ri = ro = r5 = r1 = rc = 0.0
    for i in range(first, last + 1):
        here = ctx[i]
        if i == 0:
            sim = here
        else:
            step = here - ctx[i - 1]
            sim = sim + step if step >= 0 else min(sim, here)
        t = curve[i]
        if reals is not None and sim == here:  # not compacted (yet): the turn as it was
            cost += reals[i]
        else:  # the turn's (input, 5m write, 1h write, cache read) when its prompt is `sim` tokens, priced
            inp = min(t.input, sim)
            cw = min(t.cache_write, sim - inp)
            w1 = round(t.write_1h * cw / t.cache_write) if t.cache_write else 0
            if t.model != model:
                model = t.model
                p = lookup(t.model)
                flat = p.flat_rates() if p is not None else None
                if flat is not None:
                    ri, ro, r5, r1, rc = flat
            if flat is not None:  # ModelPrice.parts' products and their sum, inline (~10k turns on 100 MB)
                cost += (
                    inp * ri * PER_TOKEN
                    + t.output * ro * PER_TOKEN
                    + ((cw - w1) * r5 + w1 * r1) * PER_TOKEN
                    + (sim - inp - cw) * rc * PER_TOKEN
                )
            else:
                cost += 0.0 if p is None else p.cost_total(inp, t.output, cw - w1, w1, sim - inp - cw)
        if can_compact and sim > threshold and i < last:
            fresh = start + handoff
            summary = _price(prices, t.model, out=handoff, cr=sim)
            rewrite = _price(prices, t.model, w1=fresh if one_hour else 0, w5=0 if one_hour else fresh)
            cost += summary + rewrite
            compactions += 1
            sim = fresh
    run.cost, run.compactions = cost, compactions
    return run


def simulate(
    ds: Dataset,
    prices: PriceTable,
    thresholds: list[int],
    handoff: int,
    *,
    prepared: list[Prepared] | None = None,
    total: float | None = None,
) -> dict[str, Any]:
    """Per threshold: compactions and the estimated saving on total cost (all turns, all sessions).

    `prepared` (each session's main curve, Prepared, in first-seen session order) and `total`
    (the real cost of every turn, added in turn order) save the X-ray, which has them, from
    computing them again."""
    if prepared is None or total is None:
        real = {id(t): (c.total if (c := turn_cost(t, prices)) else 0.0) for t in ds.turns}  # each turn priced once
        total = fsum(map(real.__getitem__, map(id, ds.turns)), 0.0)
        by_session: dict[str, list[Turn]] = defaultdict(list)
        for t in ds.turns:
            by_session[t.session_id].append(t)
        curves = [main_curve(turns) for turns in by_session.values()]
        prepared = [Prepared(curve, list(map(real.__getitem__, map(id, curve)))) for curve in curves]
    real_main = 0.0
    for prep in prepared:
        real_main = fsum(prep.reals, real_main)
    rows = []
    for th in thresholds:
        cost, comps, touched = 0.0, 0, 0
        for prep in prepared:
            if prep.peak <= th:  # never past the threshold: no compaction, its real cost (replay's first step)
                cost += prep.real_sum
                continue
            run = replay(prep.turns, prices, th, handoff, prep)
            cost += run.cost
            comps += run.compactions
            touched += run.compactions > 0
        saving = real_main - cost
        rows.append(
            {
                "threshold": th,
                "compactions": comps,
                "sessions_compacted": touched,
                "cost_usd": round(total - saving, 6),
                "saving_usd": round(saving, 6) + 0.0,
                "saving_share": (round(saving / total, 4) if total else 0.0) + 0.0,
            }
        )
    best = max(rows, key=lambda r: r["saving_usd"], default=None)
    return {
        "method": METHOD.replace("H output", f"H={handoff} output"),
        "handoff_tokens": handoff,
        "sessions": len(prepared),
        "baseline": {
            "cost_usd": round(total, 6),
            "real_compactions": sum(1 for c in ds.compactions if not c.is_subagent),
        },
        "thresholds": rows,
        "best": best["threshold"] if best and best["saving_usd"] > 0 else None,
    }
