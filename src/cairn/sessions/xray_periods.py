"""The X-ray by month and by 5-hour billing block, as ccusage `monthly` and `blocks` count them.

People who watch their spend with ccusage think in two periods: the calendar month (the bill) and
Claude's 5-hour usage window (the rate limit). A billing block, as ccusage defines it
(`identify_session_blocks`, rust/crates/ccusage/src/blocks.rs): Claude Code's deduplicated usage
entries in time order; a block starts at the hour (UTC) of its first entry and lasts 5 hours; an
entry more than 5 hours after its block's start, or more than 5 hours after the previous entry,
starts a new block; a pause longer than 5 hours is a gap (kept as a row marked `is_gap`, as
ccusage's JSON does). A block is active while its last entry is less than 5 hours old and its end
is still ahead. Times are compared in whole milliseconds, as ccusage does. Months and days are UTC.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from cairn.sessions.prices import PriceTable
from cairn.sessions.usage import Dataset, Turn
from cairn.sessions.xray_columns import Acc, Columns, group_sums

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

BLOCK_HOURS = 5
HOUR_MS = 3_600_000
BLOCK_AGENT = "claude-code"  # the 5-hour window is Claude's (ccusage `blocks` reads Claude Code only)


def iso_ms(ms: int) -> str:
    """2026-02-11T20:00:00.000Z: ccusage's block id and times."""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def month_of(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m")


def _ms(t: Turn) -> int:
    return round(t.ts * 1000)


def by_month(ds: Dataset, prices: PriceTable) -> tuple[list[dict[str, Any]], Acc]:
    """One row per calendar month (UTC), oldest first (tokens, cost, models and agents), and their total."""
    turns = ds.turns
    cols, _ = Columns.of_prices(turns, prices)
    keys = [month_of(t.ts) for t in turns]
    rows = []
    for month, acc in sorted(group_sums(cols, keys).items()):
        inside = [t for t, k in zip(turns, keys, strict=True) if k == month]
        rows.append(
            {
                "month": month,
                **acc.as_dict(),
                "models": sorted({t.model for t in inside if t.model}),
                "agents": sorted({t.agent for t in inside}),
                "unpriced_turns": acc.unpriced_turns,
            }
        )
    return rows, cols.acc(range(len(turns)))


def identify_blocks(turns: list[Turn], hours: float = BLOCK_HOURS) -> list[tuple[int, list[Turn]]]:
    """(start in ms, its turns in time order) of each billing block; a gap is (start, [])."""
    span = int(hours * HOUR_MS)
    ordered = sorted(turns, key=_ms)  # stable: ties keep their order, as ccusage's sort_by_key
    out: list[tuple[int, list[Turn]]] = []
    start: int | None = None
    current: list[Turn] = []
    for t in ordered:
        at = _ms(t)
        if start is not None:
            last = _ms(current[-1]) if current else start
            if at - start > span or at - last > span:
                out.append((start, current))
                if at - last > span:
                    out.append((last + span, []))  # the gap, from the end of the last entry's window
                current = []
                start = at - at % HOUR_MS
        else:
            start = at - at % HOUR_MS
        current.append(t)
    if start is not None and current:
        out.append((start, current))
    return out


def burn_rate(turns: list[Turn], cost: float) -> dict[str, float] | None:
    """Tokens a minute and dollars an hour between a block's first and last entry (ccusage's
    `calculate_burn_rate`); None for a block of one instant."""
    if not turns:
        return None
    minutes = (_ms(turns[-1]) - _ms(turns[0])) / 60_000
    if minutes <= 0:
        return None
    total = sum(t.total for t in turns)
    return {
        "tokens_per_minute": total / minutes,
        "tokens_per_minute_for_indicator": sum(t.input + t.output for t in turns) / minutes,
        "cost_per_hour": cost / minutes * 60,
    }


def blocks(
    ds: Dataset, prices: PriceTable, *, now: float | None = None, hours: float = BLOCK_HOURS
) -> tuple[list[dict[str, Any]], Acc]:
    """The billing blocks of the Claude Code turns of `ds`, oldest first (gaps included, marked),
    and their total."""
    now_ms = round((time.time() if now is None else now) * 1000)
    span = int(hours * HOUR_MS)
    turns = [t for t in ds.turns if t.agent == BLOCK_AGENT]
    found = identify_blocks(turns, hours)
    cols, _ = Columns.of_prices([t for _, inside in found for t in inside], prices)
    at = 0
    rows: list[dict[str, Any]] = []
    for start, inside in found:
        if not inside:
            rows.append(_gap_row(start, found, rows))
            continue
        acc = cols.acc(range(at, at + len(inside)))
        at += len(inside)
        rows.append(block_row(start, inside, acc, now_ms, span))
    return rows, cols.acc(range(at))


def _gap_row(start: int, found: list, rows: list) -> dict[str, Any]:
    nxt = found[len(rows) + 1][1][0]  # a gap is always followed by the block its pause ended in
    return {
        "id": f"gap-{iso_ms(start)}",
        "start": iso_ms(start),
        "end": iso_ms(_ms(nxt)),
        "last_activity": None,
        "is_active": False,
        "is_gap": True,
        **Acc().as_dict(),
        "models": [],
        "burn_rate": None,
        "projection": None,
    }


def block_row(start: int, inside: list[Turn], acc: Acc, now_ms: int, span: int) -> dict[str, Any]:
    """One block as the X-ray's JSON gives it (ccusage's fields, cairn's names)."""
    end = start + span
    last = _ms(inside[-1])
    active = now_ms - last < span and now_ms < end
    models: list[str] = []
    for t in inside:
        if t.model and t.model not in models:
            models.append(t.model)
    cost = acc.cost_usd
    rate = burn_rate(inside, cost) if active else None
    projection = None
    if rate is not None:
        left = round((end - now_ms) / 60_000)
        projection = {
            "total_tokens": round(
                acc.input + acc.output + acc.cache_write + acc.cache_read + rate["tokens_per_minute"] * left
            ),
            "cost_usd": round(cost + rate["cost_per_hour"] / 60 * left, 2),
            "remaining_minutes": left,
        }
    return {
        "id": iso_ms(start),
        "start": iso_ms(start),
        "end": iso_ms(end),
        "last_activity": iso_ms(last),
        "is_active": active,
        "is_gap": False,
        **acc.as_dict(),
        "models": models,
        "burn_rate": rate,
        "projection": projection,
    }


def period_report(ds: Dataset, prices: PriceTable, by: str, *, now: float | None = None) -> dict[str, Any]:
    """`cairn xray --by month|block`: the rows and their totals (blocks: Claude Code turns only)."""
    rows, total = by_month(ds, prices) if by == "month" else blocks(ds, prices, now=now)
    out: dict[str, Any] = {
        "by": by,
        "rows": rows,
        "totals": total.as_dict(),
        "method": (
            "calendar months in UTC, every agent read"
            if by == "month"
            else f"ccusage's {BLOCK_HOURS}-hour billing blocks over Claude Code's turns: a block starts at the UTC "
            f"hour of its first entry; an entry over {BLOCK_HOURS} h after the block's start or the previous entry "
            "starts the next; longer pauses are gap rows"
        ),
    }
    if by == "block":
        out["active"] = next((r for r in rows if r["is_active"]), None)
        out["other_agents_left_out"] = sum(t.agent != BLOCK_AGENT for t in ds.turns)
    return out
