"""How far each session's transcript is from what the agent reported over OpenTelemetry, and the
sessions only telemetry still knows (their transcripts deleted).

Claude Code's JSONL is known to miss some requests; the OpenTelemetry events it exports
(`cairn otel serve` stores them) count every API request. For each X-rayed session that has
telemetry, this puts the two side by side per token kind and cost, and sums up, in each
direction, the sessions where the transcript counts less than the telemetry ("the transcript
undercounts input by 38% in 3 session(s)") and those where it counts more ("counts cache read
162% more than telemetry in 1 session(s)": a transcript can repeat a streamed message, and
telemetry can miss requests while its receiver is down). Only differences within TOLERANCE, both
ways, are agreement (rounding, a request still in flight).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TOLERANCE = 0.01
KINDS = (
    ("input", "input_tokens"),
    ("output", "output_tokens"),
    ("cache_read", "cache_read_tokens"),
    ("cache_write", "cache_creation_tokens"),
)


def _gap(transcript: float, telemetry: float) -> float | None:
    """(transcript - telemetry) / telemetry: negative when the transcript undercounts; None when
    telemetry counted nothing (no ratio to give: not "+100%")."""
    if not telemetry:
        return None
    return round((transcript - telemetry) / telemetry, 4)


def _side(cell: dict[str, Any]) -> int:
    """-1 when the transcript counts less than telemetry beyond TOLERANCE, 1 when more, else 0."""
    trans, tel = cell["transcript"] or 0, cell["telemetry"] or 0
    if trans < tel * (1 - TOLERANCE):
        return -1
    return 1 if trans > tel * (1 + TOLERANCE) else 0


def _share(rows: list[dict[str, Any]], kind: str, sign: int) -> float | None:
    """How much less (sign -1) or more (sign 1) the transcripts of `rows` count than their telemetry,
    as a share of the telemetry; None when the telemetry counted nothing at all."""
    if not rows:
        return 0.0
    tel = sum(r[kind]["telemetry"] or 0 for r in rows)
    trans = sum(r[kind]["transcript"] or 0 for r in rows)
    return round(sign * (trans - tel) / tel, 4) if tel else None


def reconcile(report: dict[str, Any], telemetry: dict[str, dict]) -> dict[str, Any]:
    """The `telemetry` section of the X-ray for the report's sessions (empty when none has telemetry)."""
    rows = []
    for s in report["sessions"]:
        tel = telemetry.get(s["session_id"])
        if tel is None:
            continue
        row: dict[str, Any] = {"session_id": s["session_id"], "source": tel["source"], "requests": tel["requests"]}
        for kind, key in KINDS:
            row[kind] = {"transcript": s[key], "telemetry": tel[kind], "gap": _gap(s[key], tel[kind])}
        row["cost_usd"] = {
            "transcript": s["cost_usd"],
            "telemetry": tel["cost_usd"],
            "gap": _gap(s["cost_usd"], tel["cost_usd"]),
        }
        rows.append(row)
    summary = {}
    for kind, _ in (*KINDS, ("cost_usd", "")):
        under = [r for r in rows if _side(r[kind]) < 0]
        over = [r for r in rows if _side(r[kind]) > 0]
        summary[kind] = {
            "sessions_undercounted": len(under),
            "undercount": _share(under, kind, -1),
            "sessions_overcounted": len(over),
            "overcount": _share(over, kind, 1),
        }
    return {"sessions": rows, "covered": len(rows), "summary": summary}


def _label(kind: str) -> str:
    return kind.replace("_usd", "").replace("_", " ")


def _pct(share: float) -> str:
    """38%, or 1.1% below 10% (a whole-number 1% would read as agreement)."""
    return f"{share * 100:.0f}%" if share >= 0.095 else f"{share * 100:.1f}%"


def _phrases(kind: str, v: dict[str, Any]) -> list[str]:
    """What the transcript does against telemetry for one kind, each direction apart."""
    out = []
    if v["sessions_undercounted"]:
        out.append(f"undercounts {_label(kind)} by {_pct(v['undercount'])} in {v['sessions_undercounted']} session(s)")
    if n := v.get("sessions_overcounted"):
        more = "where telemetry has none" if v["overcount"] is None else f"{_pct(v['overcount'])} more than telemetry"
        out.append(f"counts {_label(kind)} {more} in {n} session(s)")
    return out


def finding(section: dict[str, Any]) -> str | None:
    """One sentence for the X-ray's findings, or None without telemetry: agreement is claimed only
    when no session is off by more than TOLERANCE in either direction."""
    if not section["covered"]:
        return None
    parts = [p for kind, v in section["summary"].items() for p in _phrases(kind, v)]
    n = section["covered"]
    if not parts:
        return f"OpenTelemetry covers {n} session(s); the transcripts agree with it within {TOLERANCE * 100:.0f}%."
    return f"OpenTelemetry covers {n} session(s); against it the transcript " + "; ".join(parts) + "."


def telemetry_only(
    read: set[str], telemetry: dict[str, dict], filters: dict[str, Any], now: float | None = None
) -> list[dict[str, Any]]:
    """The sessions telemetry reported but no transcript read holds: Claude Code deletes old
    transcripts (after 30 days by default), and such a session would otherwise vanish from the X-ray.

    Only when the X-ray read the agents' own folders for every project (a PATH or --project reads a
    part of them: a session missing there may be elsewhere); --session and --days apply (a session
    whose telemetry has no time is left out under --days). Costs are the telemetry's own."""
    if filters.get("paths") or filters.get("project"):
        return []
    import time
    from datetime import datetime

    days, prefix = filters.get("days"), filters.get("session")
    cutoff = None if not days else (time.time() if now is None else now) - days * 86400
    rows = []
    for sid, tel in telemetry.items():
        if sid in read or (prefix and not sid.startswith(prefix)):
            continue
        last = tel.get("last_activity")
        if cutoff is not None:
            try:
                if last is None or datetime.fromisoformat(last.replace("Z", "+00:00")).timestamp() < cutoff:
                    continue
            except ValueError:
                continue
        tokens = {key: tel[kind] for kind, key in KINDS}
        rows.append(
            {
                "session_id": sid,
                "source": tel["source"],
                "requests": tel["requests"],
                **tokens,
                "total_tokens": sum(tokens.values()),
                "cost_usd": tel["cost_usd"],
                "first_activity": tel.get("first_activity"),
                "last_activity": last,
                "models": tel.get("models", []),
            }
        )
    rows.sort(key=lambda r: (-r["cost_usd"], r["session_id"]))
    return rows


def telemetry_only_finding(rows: list[dict[str, Any]]) -> str | None:
    if not rows:
        return None
    cost = sum(r["cost_usd"] for r in rows)
    tokens = sum(r["total_tokens"] for r in rows)
    return (
        f"{len(rows)} session(s) known only from OpenTelemetry (their transcripts are gone): ${cost:.2f} and "
        f"{tokens:,} tokens by its count, not in the totals above."
    )
