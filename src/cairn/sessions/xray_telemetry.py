"""How far each session's transcript is from what the agent reported over OpenTelemetry.

Claude Code's JSONL is known to miss some requests; the OpenTelemetry events it exports
(`cairn otel serve` stores them) count every API request. For each X-rayed session that has
telemetry, this puts the two side by side per token kind and cost, and sums up the sessions where
the transcript counts less than the telemetry ("the transcript undercounts input by 38% in 3
sessions"). Differences within TOLERANCE are agreement (rounding, a request still in flight).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TOLERANCE = 0.01
KINDS = (("input", "input_tokens"), ("output", "output_tokens"), ("cache_read", "cache_read_tokens"),
         ("cache_write", "cache_creation_tokens"))


def _gap(transcript: float, telemetry: float) -> float | None:
    """(transcript - telemetry) / telemetry: negative when the transcript undercounts."""
    if not telemetry:
        return None if not transcript else 1.0
    return round((transcript - telemetry) / telemetry, 4)


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
        row["cost_usd"] = {"transcript": s["cost_usd"], "telemetry": tel["cost_usd"],
                           "gap": _gap(s["cost_usd"], tel["cost_usd"])}
        rows.append(row)
    summary = {}
    for kind, _ in (*KINDS, ("cost_usd", "")):
        under = [r for r in rows if r[kind]["gap"] is not None and r[kind]["gap"] < -TOLERANCE]
        tel = sum(r[kind]["telemetry"] for r in under)
        trans = sum(r[kind]["transcript"] for r in under)
        summary[kind] = {"sessions_undercounted": len(under),
                         "undercount": round((tel - trans) / tel, 4) if tel else 0.0}
    return {"sessions": rows, "covered": len(rows), "summary": summary}


def finding(section: dict[str, Any]) -> str | None:
    """One sentence for the X-ray's findings, or None without telemetry."""
    if not section["covered"]:
        return None
    parts = [f"{kind.replace('_usd', '').replace('_', ' ')} by {v['undercount'] * 100:.0f}% in "
             f"{v['sessions_undercounted']} session(s)" for kind, v in section["summary"].items()
             if v["sessions_undercounted"]]
    n = section["covered"]
    if not parts:
        return (f"OpenTelemetry covers {n} session(s); the transcripts agree with it within "
                f"{TOLERANCE * 100:.0f}%.")
    return f"OpenTelemetry covers {n} session(s); against it the transcript undercounts " + "; ".join(parts) + "."
