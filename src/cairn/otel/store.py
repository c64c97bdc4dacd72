"""Store decoded telemetry in the session archive and read it back per session for the X-ray.

Writes go in one transaction per export (all or nothing) into `otel_requests` / `otel_metrics`
(archive schema v3). The read side sums, per session: the API-request events when there are
any; else the token and cost counters exported with delta temporality (cumulative points would
double-count, so they are left out). Importing this module costs no protobuf.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable
from dataclasses import astuple
from datetime import UTC, datetime

from cairn.store.db import transaction

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cairn.otel.decode import MetricRow, RequestRow

DELTA = 1  # AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA
_METRIC_TYPE = {"input": "input", "output": "output", "cacheRead": "cache_read", "cacheCreation": "cache_write"}


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def store(con: sqlite3.Connection, requests: Iterable[RequestRow] = (), metrics: Iterable[MetricRow] = ()) -> int:
    """Insert the rows of one export; returns how many were new (a re-sent export adds none)."""
    now = _now()
    added = 0
    with transaction(con):
        for r in requests:
            cur = con.execute(
                "INSERT OR IGNORE INTO otel_requests(session_id, model, ts, input, output, cache_read, cache_write,"
                " cost_usd, duration_ms, service, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*astuple(r), now),
            )
            added += cur.rowcount
        for m in metrics:
            cur = con.execute(
                "INSERT OR IGNORE INTO otel_metrics(name, session_id, model, type, value, temporality, start_ns,"
                " end_ns, service, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (*astuple(m), now),
            )
            added += cur.rowcount
    return added


def _count(total: float) -> int:
    return int(total) if math.isfinite(total) else 0


def _span(first: str | None, last: str | None, models: str | None) -> dict:
    """When a session's telemetry begins and ends, and its models: what the X-ray shows of a session
    whose transcript is gone."""
    return {"first_activity": first, "last_activity": last, "models": sorted(set(models.split(","))) if models else []}


def _ns_iso(ns: int | None) -> str | None:
    if not ns or ns <= 0:
        return None
    try:
        return datetime.fromtimestamp(ns / 1e9, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None


def telemetry_by_session(con: sqlite3.Connection) -> dict[str, dict]:
    """{session id: {input, output, cache_read, cache_write, cost_usd, requests, source, first_activity,
    last_activity, models}}. Sums are
    TOTAL()s: SQLite's SUM() of integers raises on overflow, and one absurd row must not hide the rest."""
    out: dict[str, dict] = {}
    try:
        for sid, n, inp, outp, cr, cw, cost, first, last, models in con.execute(
            "SELECT session_id, COUNT(*), TOTAL(input), TOTAL(output), TOTAL(cache_read), TOTAL(cache_write),"
            " TOTAL(cost_usd), MIN(ts), MAX(ts), GROUP_CONCAT(DISTINCT model) FROM otel_requests"
            " WHERE session_id IS NOT NULL GROUP BY session_id"
        ):
            out[sid] = {
                "input": _count(inp),
                "output": _count(outp),
                "cache_read": _count(cr),
                "cache_write": _count(cw),
                "cost_usd": round(cost if math.isfinite(cost) else 0.0, 6),
                "requests": n,
                "source": "api_request events",
                **_span(first, last, models),
            }
        metric = con.execute(
            "SELECT session_id, name, type, TOTAL(value) FROM otel_metrics WHERE temporality = ? AND session_id"
            " IS NOT NULL GROUP BY session_id, name, type",
            (DELTA,),
        ).fetchall()
        spans = {
            sid: _span(_ns_iso(first), _ns_iso(last), models)
            for sid, first, last, models in con.execute(
                "SELECT session_id, MIN(COALESCE(start_ns, end_ns)), MAX(end_ns), GROUP_CONCAT(DISTINCT model)"
                " FROM otel_metrics WHERE temporality = ? AND session_id IS NOT NULL GROUP BY session_id",
                (DELTA,),
            )
        }
    except sqlite3.OperationalError:  # an archive from before telemetry (schema < 3) opened read-only
        return out
    for sid, name, typ, value in metric:
        if not math.isfinite(value):
            continue  # an Infinity stored before the receiver refused them
        if sid in out and out[sid]["source"] == "api_request events":
            continue
        row = out.setdefault(
            sid,
            {
                "input": 0,
                "output": 0,
                "cache_read": 0,
                "cache_write": 0,
                "cost_usd": 0.0,
                "requests": None,
                "source": "delta counters",
                **spans.get(sid, _span(None, None, None)),
            },
        )
        if name == "claude_code.cost.usage":
            row["cost_usd"] = round(row["cost_usd"] + value, 6)
        elif typ in _METRIC_TYPE:
            row[_METRIC_TYPE[typ]] += int(value)
    return out
