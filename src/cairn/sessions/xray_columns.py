"""The X-ray's turns as columns: tokens, costs and contexts in parallel lists, and group sums over them.

A group's sums (a session, a day, a project, a model) run in C over list slices or picks instead
of a Python call per turn and group, and give the floats adding turn by turn gives, to the bit:
every float sum here is a left-to-right addition from 0.0 (`fsum`), as `Acc.add` does it
(tests/sessions/test_xray_fast_paths.py checks both against the plain computation).
"""

from __future__ import annotations

import sys
from functools import reduce
from itertools import groupby
from operator import add, attrgetter, itemgetter

from cairn.sessions.prices import CostParts, PriceTable
from cairn.sessions.usage import Turn

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

if sys.version_info < (3, 12):  # `sum` of floats adds left to right in C (0.9 -> 0.13 ms per 26k floats)
    fsum: Callable[[Iterable[float], float], float] = sum
else:  # 3.12's `sum` compensates rounding (other floats than adding one by one): the plain fold

    def fsum(values: Iterable[float], start: float) -> float:
        """The float `start + v0 + v1 + ...`, added left to right (as a loop or `reduce(add, ...)` does)."""
        return reduce(add, values, start)


class Acc:
    """Tokens and cost of a group of turns."""

    __slots__ = (
        "input",
        "output",
        "cache_write",
        "cache_read",
        "c_input",
        "c_output",
        "c_cache_write",
        "c_cache_read",
        "turns",
        "unpriced_turns",
    )

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
        return {
            "cache_read": self.c_cache_read,
            "cache_write": self.c_cache_write,
            "input": self.c_input,
            "output": self.c_output,
        }

    @property
    def cost_usd(self) -> float:
        return sum((self.c_cache_read, self.c_cache_write, self.c_input, self.c_output))  # = sum(cost.values())

    def as_dict(self) -> dict[str, Any]:
        ccr, ccw, ci, co = self.c_cache_read, self.c_cache_write, self.c_input, self.c_output
        return {
            "input_tokens": self.input,
            "output_tokens": self.output,
            "cache_creation_tokens": self.cache_write,
            "cache_read_tokens": self.cache_read,
            "total_tokens": self.input + self.output + self.cache_write + self.cache_read,
            "cost_usd": round(sum((ccr, ccw, ci, co)), 6),
            "cost_by_kind": {
                "cache_read": round(ccr, 6),
                "cache_write": round(ccw, 6),
                "input": round(ci, 6),
                "output": round(co, 6),
            },
            "turns": self.turns,
        }


def turn_cost(t: Turn, prices: PriceTable) -> CostParts | None:
    """USD of one turn, or None when its model has no price (reported, never guessed)."""
    p = prices.lookup(t.model)
    if p is None:
        return None
    return p.cost(t.input, t.output, t.write_5m, t.write_1h, t.cache_read)


def main_curve(turns: list[Turn]) -> list[Turn]:
    """The session's own thread (not subagents), in time order: its context curve."""
    main = [t for t in turns if not t.is_subagent and not t.sidechain] or list(turns)
    return sorted(main, key=attrgetter("ts"))


def pick(seq: list, idx: list[int]) -> Any:
    """The items of `seq` at `idx` (at least one position), as a sequence."""
    return itemgetter(*idx)(seq) if len(idx) > 1 else (seq[idx[0]],)


class Columns:
    """The turns' tokens and costs as parallel lists, so a group's sums run in C (sum / fsum over
    its indices) instead of a Python call per turn and group. Costs of an unpriced turn are 0.0:
    adding 0.0 leaves a sum of non-negative floats unchanged, so every group total is the float
    the turn-by-turn loop (Acc.add) gives, to the bit."""

    __slots__ = (
        "input",
        "output",
        "cache_write",
        "cache_read",
        "c_input",
        "c_output",
        "c_cache_write",
        "c_cache_read",
        "unpriced",
        "any_unpriced",
        "models",
        "by_model",
        "write_1h",
        "_all",
    )

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
        self.models = [t.model or "" for t in turns]
        self.by_model = positions_of(self.models)
        self.write_1h = [t.write_1h for t in turns]
        self._all: Acc | None = None

    @classmethod
    def of_prices(cls, turns: list[Turn], prices: PriceTable) -> tuple[Columns, list[float]]:
        """The columns of `turns` priced by `prices`, and each turn's cost (CostParts.total, 0.0
        unpriced): the same floats as `turn_cost`, without an object per turn."""
        cols = cls.__new__(cls)
        cols._all = None
        cols.input = [t.input for t in turns]
        cols.output = [t.output for t in turns]
        cols.cache_write = [t.cache_write for t in turns]
        cols.cache_read = [t.cache_read for t in turns]
        n = len(turns)
        ci, co, cw, cr = [0.0] * n, [0.0] * n, [0.0] * n, [0.0] * n
        unpriced = [0] * n
        w5 = [t.write_5m for t in turns]
        w1 = [t.write_1h for t in turns]
        cols.models = [t.model or "" for t in turns]
        cols.by_model = positions_of(cols.models)
        for model, idx in cols.by_model.items():  # priced a model at a time, in columns ("": none, as lookup(None))
            p = prices.lookup(model)
            if p is None:
                for i in idx:
                    unpriced[i] = 1 if turns[i].total > 0 else 0
                continue
            if type(idx) is range:
                at = slice(idx.start, idx.stop)
                ci[at], co[at], cw[at], cr[at] = p.parts_columns(
                    cols.input[at], cols.output[at], w5[at], w1[at], cols.cache_read[at]
                )
                continue
            parts = p.parts_columns(
                pick(cols.input, idx), pick(cols.output, idx), pick(w5, idx), pick(w1, idx), pick(cols.cache_read, idx)
            )  # a model found in several runs
            for col, values in zip((ci, co, cw, cr), parts, strict=True):
                for i, v in zip(idx, values, strict=True):
                    col[i] = v
        cols.c_input, cols.c_output, cols.c_cache_write, cols.c_cache_read = ci, co, cw, cr
        cols.write_1h = w1
        totals = [a + b + c + d for a, b, c, d in zip(ci, co, cw, cr, strict=True)]  # CostParts.total's order
        cols.unpriced, cols.any_unpriced = unpriced, any(unpriced)
        return cols, totals

    def contexts(self) -> list[int]:
        """Each turn's prompt size (Turn.context: input + cache write + cache read)."""
        return [a + b + c for a, b, c in zip(self.input, self.cache_write, self.cache_read, strict=True)]

    def acc(self, idx: list[int] | range) -> Acc:
        """The Acc of the turns at `idx` (in order), equal to adding them one by one. The Acc of
        every turn is made once and shared: callers only read it."""
        n = len(idx)
        if n == len(self.input) and n:  # every turn (the total, or a group holding all: one agent, one model)
            if self._all is None:
                self._all = self._sums(
                    (
                        self.input,
                        self.output,
                        self.cache_write,
                        self.cache_read,
                        self.c_input,
                        self.c_output,
                        self.c_cache_write,
                        self.c_cache_read,
                        self.unpriced,
                    )
                )
            return self._all
        if n == 0:
            return Acc()
        if type(idx) is range:  # one run of positions (a session read from one file): slices, in C
            at = slice(idx.start, idx.stop)
            return self._sums(
                (
                    self.input[at],
                    self.output[at],
                    self.cache_write[at],
                    self.cache_read[at],
                    self.c_input[at],
                    self.c_output[at],
                    self.c_cache_write[at],
                    self.c_cache_read[at],
                    self.unpriced[at] if self.any_unpriced else (),
                )
            )
        pick = itemgetter(*idx) if n > 1 else (lambda seq: (seq[idx[0]],))
        return self._sums(
            (
                pick(self.input),
                pick(self.output),
                pick(self.cache_write),
                pick(self.cache_read),
                pick(self.c_input),
                pick(self.c_output),
                pick(self.c_cache_write),
                pick(self.c_cache_read),
                pick(self.unpriced) if self.any_unpriced else (),
            )
        )

    @staticmethod
    def _sums(cols: tuple) -> Acc:
        a = Acc()
        a.turns = len(cols[0])
        a.input, a.output, a.cache_write, a.cache_read = sum(cols[0]), sum(cols[1]), sum(cols[2]), sum(cols[3])
        a.c_input, a.c_output = fsum(cols[4], 0.0), fsum(cols[5], 0.0)
        a.c_cache_write, a.c_cache_read = fsum(cols[6], 0.0), fsum(cols[7], 0.0)
        a.unpriced_turns = sum(cols[8])
        return a


def positions_of(keys: list[str]) -> dict[str, list[int] | range]:
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


def group_sums(cols: Columns, keys: list[str]) -> dict[str, Acc]:
    return {k: cols.acc(idx) for k, idx in positions_of(keys).items()}
