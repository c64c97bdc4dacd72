"""The X-ray as one self-contained HTML page: inline SVG plots, no script or style from the network.

A page a user can open offline, mail or archive. Plots: cost by kind over days, each session's
context curve with its compactions marked, and the cost share by session size. A tiny inline
script sets `data-rendered` on <body> to the number of plots drawn, which the browser test reads.
"""

from __future__ import annotations

from html import escape

from cairn.sessions.xray import KIND_LABEL, KINDS, SIZE_LIMITS
from cairn.sessions.xray_report import describe_filters, gap, pct, tokens, usd

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

COLORS = {"cache_read": "#4e79a7", "cache_write": "#f28e2b", "input": "#59a14f", "output": "#e15759"}
MAX_CURVES = 24
CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#222;margin:24px auto;max-width:1100px;padding:0 16px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
.sub{color:#666;margin:0 0 16px}.findings li{margin:4px 0}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{padding:3px 10px;text-align:right;border-bottom:1px solid #eee}
th:first-child,td:first-child{text-align:left}th{background:#f6f6f6}
.curves{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:12px}
.curve{border:1px solid #eee;border-radius:6px;padding:6px;min-width:0}.curve .t{font-size:12px;color:#444;margin:0 0 2px;overflow-wrap:anywhere}
.curve svg{max-width:100%;height:auto}svg.plot{max-width:100%;height:auto}.wide{overflow-x:auto;max-width:100%}
.legend span{display:inline-block;margin-right:14px;font-size:12px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
svg text{font:11px system-ui,sans-serif;fill:#555}.foot{color:#888;font-size:12px;margin-top:24px}
"""


def _nice_max(v: float) -> float:
    if v <= 0:
        return 1.0
    mag = 10 ** (len(str(int(v))) - 1) if v >= 1 else 10 ** -len(str(int(1 / v)))
    for m in (1, 2, 2.5, 5, 10):
        if v <= m * mag:
            return m * mag
    return 10 * mag


def _svg(w: int, h: int, body: str, label: str) -> str:
    return (
        f'<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" role="img" aria-label="{escape(label)}">{body}</svg>'
    )


def cost_by_day_svg(days: list[dict[str, Any]]) -> str:
    """Stacked bars: each day's cost split by kind."""
    w, h, left, bottom, top = 1000, 260, 56, 40, 12
    n = max(len(days), 1)
    top_val = _nice_max(max((d["cost_usd"] for d in days), default=0))
    bw = (w - left - 10) / n
    parts = []
    for i in range(5):  # y grid
        v = top_val * i / 4
        y = h - bottom - (h - bottom - top) * i / 4
        parts.append(
            f'<line x1="{left}" x2="{w - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">${v:,.2f}</text>'
        )
    step = max(1, n // 12)
    for i, d in enumerate(days):
        x, y0 = left + i * bw, h - bottom
        for k in KINDS:
            v = d["cost_by_kind"][k]
            bh = (h - bottom - top) * v / top_val
            if bh <= 0:
                continue
            y0 -= bh
            parts.append(
                f'<rect x="{x + bw * 0.1:.1f}" y="{y0:.1f}" width="{bw * 0.8:.1f}" height="{bh:.1f}" '
                f'fill="{COLORS[k]}"><title>{d["day"]} {KIND_LABEL[k]}: {usd(v)}</title></rect>'
            )
        if i % step == 0:
            parts.append(f'<text x="{x + bw / 2:.1f}" y="{h - bottom + 16}" text-anchor="middle">{d["day"][5:]}</text>')
    return _svg(w, h, "".join(parts), "cost by kind per day")


def curve_svg(
    points: list[list[float]], comps: list[list[Any]], y_max: float, expiries: list[list[Any]] | None = None
) -> str:
    """One session's context per turn; dashed lines at 150k/400k, red compactions, orange cache expiries."""
    w, h, left, bottom, top = 340, 150, 44, 18, 8
    n = len(points)
    xs = (w - left - 8) / max(n - 1, 1)

    def y(v: float) -> float:
        return h - bottom - (h - bottom - top) * min(v, y_max) / y_max

    parts = [
        f'<line x1="{left}" x2="{w - 8}" y1="{h - bottom}" y2="{h - bottom}" stroke="#ccc"/>',
        f'<text x="{left - 4}" y="{y(y_max) + 8:.1f}" text-anchor="end">{tokens(y_max)}</text>',
        f'<text x="{left - 4}" y="{h - bottom:.1f}" text-anchor="end">0</text>',
        f'<text x="{w - 8}" y="{h - 4}" text-anchor="end">{n} turns</text>',
    ]
    for limit in SIZE_LIMITS:
        if limit < y_max:
            parts.append(
                f'<line x1="{left}" x2="{w - 8}" y1="{y(limit):.1f}" y2="{y(limit):.1f}" stroke="#bbb" '
                f'stroke-dasharray="3,3"/><text x="{left + 2}" y="{y(limit) - 2:.1f}">{tokens(limit)}</text>'
            )
    times = [p[0] for p in points]
    for ts, pre in comps:
        i = next((j for j, t in enumerate(times) if t >= ts), n - 1)
        x = left + i * xs
        parts.append(
            f'<line class="compaction" x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{h - bottom}" '
            f'stroke="#d62728" stroke-dasharray="4,2"><title>compaction'
            f"{' at ' + tokens(pre) + ' tokens' if pre else ''}</title></line>"
            f'<circle cx="{x:.1f}" cy="{y(pre or 0):.1f}" r="3.5" fill="#d62728"/>'
        )
    for ts, rewritten in expiries or []:
        i = next((j for j, t in enumerate(times) if t >= ts), n - 1)
        x = left + i * xs
        parts.append(
            f'<path class="expiry" d="M{x - 5:.1f},{top} L{x + 5:.1f},{top} L{x:.1f},{top + 8} Z" '
            f'fill="#f28e2b"><title>cache expired: {tokens(rewritten)} tokens written again</title></path>'
        )
    path = " ".join(f"{left + i * xs:.1f},{y(p[1]):.1f}" for i, p in enumerate(points))
    parts.append(f'<polyline points="{path}" fill="none" stroke="#4e79a7" stroke-width="1.6"/>')
    if n <= 30:  # few turns: show each one, or a one-turn session draws nothing at all
        parts.extend(
            f'<circle cx="{left + i * xs:.1f}" cy="{y(p[1]):.1f}" r="2.2" fill="#4e79a7"/>'
            for i, p in enumerate(points)
        )
    return _svg(w, h, "".join(parts), "context per turn")


def size_share_svg(buckets: list[dict[str, Any]]) -> str:
    """Horizontal bars: share of the cost by the session's peak context."""
    w, row, left = 640, 30, 110
    h = row * len(buckets) + 10
    parts = []
    for i, b in enumerate(buckets):
        y = 5 + i * row
        bw = (w - left - 150) * b["cost_share"]
        parts.append(
            f'<text x="{left - 8}" y="{y + 17}" text-anchor="end">{escape(b["bucket"])}</text>'
            f'<rect x="{left}" y="{y + 4}" width="{max(bw, 0.5):.1f}" height="{row - 10}" fill="#4e79a7">'
            f"<title>{b['sessions']} sessions, {usd(b['cost_usd'])}</title></rect>"
            f'<text x="{left + bw + 6:.1f}" y="{y + 17}">{pct(b["cost_share"])} · {usd(b["cost_usd"])} '
            f"· {b['sessions']} sessions</text>"
        )
    return _svg(w, h, "".join(parts), "cost share by session size")


def _table(headers: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
    return f'<div class="wide"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


USAGE_HEAD = ["cache read", "cache write", "input", "output", "cost", "share"]  # the text report's order


def _usage_table(label: str, rows: list[dict[str, Any]], limit: int) -> str:
    """The text report's by-agent / project / model / day tables."""
    return _table(
        [label, *USAGE_HEAD],
        [
            [
                str(x[label]),
                tokens(x["cache_read_tokens"]),
                tokens(x["cache_creation_tokens"]),
                tokens(x["input_tokens"]),
                tokens(x["output_tokens"]),
                usd(x["cost_usd"]),
                pct(x["cost_share"]),
            ]
            for x in rows[:limit]
        ],
    )


def _extra_tables(r: dict[str, Any]) -> str:
    """Every other table of the text report: usage by agent, project, model and day, session size,
    cache expiries, unpriced models and the compaction simulator."""
    from cairn.sessions.xray_report import RECENT_DAYS, TOP_ROWS

    out = [
        f"<h2>By agent</h2>{_usage_table('agent', r.get('by_agent', []), TOP_ROWS)}",
        f"<h2>By project</h2>{_usage_table('project', r['by_project'], TOP_ROWS)}",
        f"<h2>By model</h2>{_usage_table('model', r['by_model'], TOP_ROWS)}",
        f"<h2>By day (last {RECENT_DAYS} active days, UTC)</h2>"
        f"{_usage_table('day', r['by_day'][-RECENT_DAYS:], RECENT_DAYS)}",
        "<h2>Cost by session size (peak context)</h2>"
        + _table(
            ["peak context", "sessions", "cost", "share"],
            [
                [b["bucket"], str(b["sessions"]), usd(b["cost_usd"]), pct(b["cost_share"])]
                for b in r["session_size"]["buckets"]
            ],
        ),
    ]
    events = r["cache_expiries"]["events"]
    if events:
        out.append(
            "<h2>Cache expiries mid-session</h2>"
            + _table(
                ["session", "at (UTC)", "pause", "rewritten", "extra cost"],
                [
                    [
                        e["session_id"][:13],
                        e["at"].replace("T", " ")[:16],
                        f"{e['gap_minutes']:.0f} min",
                        tokens(e["rewritten_tokens"]),
                        usd(e["extra_cost_usd"]),
                    ]
                    for e in events[:TOP_ROWS]
                ],
            )
        )
    tel = r.get("telemetry")
    if tel and tel["covered"]:
        out.append(
            "<h2>Transcript vs OpenTelemetry</h2><p class='sub'>gap = transcript / telemetry - 1; "
            "negative: the transcript counts less than Claude Code reported.</p>"
            + _table(
                ["session", "source", "input", "output", "cache read", "cache write", "cost"],
                [
                    [
                        x["session_id"][:13],
                        x["source"],
                        *(gap(x[k]["gap"]) for k in ("input", "output", "cache_read", "cache_write", "cost_usd")),
                    ]
                    for x in tel["sessions"][:TOP_ROWS]
                ],
            )
        )
    if r["unpriced_models"]:
        out.append(
            "<h2>Models without a price (tokens counted, cost not)</h2>"
            + _table(
                ["model", "turns", "tokens"],
                [[m["model"], str(m["turns"]), tokens(m["tokens"])] for m in r["unpriced_models"]],
            )
        )
    sim = r.get("simulation")
    if sim and sim.get("thresholds"):
        best = f"<p class='sub'>Best here: compact at {tokens(sim['best'])} tokens.</p>" if sim["best"] else ""
        out.append(
            "<h2>Compaction simulator: compact whenever the context passes ...</h2>"
            + _table(
                ["threshold", "compactions", "sessions", "estimated cost", "saving", "saving %"],
                [
                    [
                        tokens(x["threshold"]),
                        str(x["compactions"]),
                        str(x["sessions_compacted"]),
                        usd(x["cost_usd"]),
                        usd(x["saving_usd"]),
                        pct(x["saving_share"]),
                    ]
                    for x in sim["thresholds"]
                ],
            )
            + best
            + f"<p class='sub'>{escape(sim['method'])}</p>"
        )
    return "\n".join(out)


def render_html(r: dict[str, Any]) -> str:
    """The full page for an `analyze` report (which must still hold its `curves`)."""
    tot, inc = r["totals"], r["included"]
    legend = "".join(f'<span><i style="background:{COLORS[k]}"></i>{escape(KIND_LABEL[k])}</span>' for k in KINDS)
    shown = r["sessions"][:MAX_CURVES]
    curves = r.get("curves", {})
    y_max = _nice_max(max((s["peak_context"] for s in shown), default=1))
    cards = []
    for s in shown:
        c = curves.get(s["session_id"], {"points": [], "compactions": []})
        if not c["points"]:
            continue
        cards.append(
            f'<div class="curve"><p class="t">{escape(s["session_id"][:13])} · {escape(s["project"])} · '
            f"{usd(s['cost_usd'])} · peak {tokens(s['peak_context'])}"
            f"{' · ' + str(s['compactions']) + ' compaction(s)' if s['compactions'] else ''}</p>"
            f"{curve_svg(c['points'], c['compactions'], y_max, c.get('expiries'))}</div>"
        )
    sess_rows = [
        [
            s["session_id"][:13],
            s.get("agent", ""),
            s["project"],
            tokens(s["start_context"]),
            tokens(s["peak_context"]),
            str(s["compactions"]),
            str(s["cache_expiries"]),
            usd(s["cost_usd"]),
            pct(s["cost_share"]),
        ]
        for s in r["sessions"][:30]
    ]
    kind_rows = [[k["label"], tokens(k["tokens"]), usd(k["cost_usd"]), pct(k["cost_share"])] for k in r["by_kind"]]
    tool_rows = [
        [t["tool"], str(t["calls"]), tokens(t["est_tokens"]), pct(t["share"])] for t in r["tools"]["rows"][:12]
    ]
    findings = "".join(f"<li>{escape(f)}</li>" for f in r["findings"])
    more = (
        f"<p class='sub'>Showing the {len(cards)} costliest of {len(r['sessions'])} sessions.</p>"
        if len(r["sessions"]) > MAX_CURVES
        else ""
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>cairn token X-ray</title><style>{CSS}</style></head>
<body data-rendered="0">
<h1>Token X-ray</h1>
<p class="sub">{tot["sessions"]} sessions in {tot["projects"]} projects · {tokens(tot["total_tokens"])} tokens ·
{usd(tot["cost_usd"])} · {escape((inc["first_activity"] or "")[:10])} to {escape((inc["last_activity"] or "")[:10])} ·
{escape(describe_filters(inc["filters"]))}</p>
<h2>What stands out</h2><ul class="findings">{findings}</ul>
<h2>Cost by kind over days</h2><div class="legend">{legend}</div>{cost_by_day_svg(r["by_day"])}
{_table(["kind", "tokens", "cost", "share"], kind_rows)}
<h2>Cost share by session size (peak context)</h2>{size_share_svg(r["session_size"]["buckets"])}
<h2>Context per turn, by session</h2>
<p class="sub">Prompt size of each turn of the session's own thread (input + cache write + cache read);
red dashed lines are compactions; orange triangles are cache expiries (a pause, then the context written
again); grey dashed lines mark 150k and 400k.</p>{more}
<div class="curves">{"".join(cards)}</div>
<h2>Sessions</h2>{_table(["session", "agent", "project", "start ctx", "peak ctx", "compactions", "cache expiries", "cost", "share"], sess_rows)}
<h2>Tool output entering the context</h2>{_table(["tool", "calls", "~tokens", "share"], tool_rows)}
<p class="sub">{escape(r["tools"]["method"])}</p>
{_extra_tables(r)}
<p class="foot">Prices as of {escape(r["prices"]["as_of"])}: {escape(r["prices"]["source"])}. Generated by cairn.</p>
<script>document.body.setAttribute("data-rendered", String(document.querySelectorAll("svg.plot").length));
document.body.setAttribute("data-overflow", String([...document.querySelectorAll("h1,h2,.curve .t,.sub")]
  .filter(e => e.scrollWidth > e.clientWidth + 1).length));</script>
</body></html>
"""
