"""Terminal rendering of the X-ray: findings first in plain words, then the tables behind them."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.padding import Padding
from rich.table import Table

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

TOP_SESSIONS = 12
TOP_ROWS = 10
RECENT_DAYS = 14


def tokens(n: int | float | None) -> str:
    """Short token counts: 950, 12.3k, 4.56M."""
    if n is None:
        return "-"
    n = float(n)
    if n >= 1e6:
        return f"{n / 1e6:.2f}M"
    if n >= 1e3:
        return f"{n / 1e3:.1f}k"
    return f"{n:.0f}"


def gap(x: float | None) -> str:
    """A transcript-vs-telemetry gap as a signed percentage ("-38%"), "-" when there is nothing to compare."""
    return "-" if x is None else f"{x * 100:+.0f}%"


def usd(x: float) -> str:
    return f"${x:,.2f}"


def pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _table(title: str, *cols: str) -> Table:
    t = Table(
        title=title, title_justify="left", title_style="bold", header_style="bold", pad_edge=False, box=box.SIMPLE_HEAD
    )
    for i, c in enumerate(cols):
        t.add_column(c, justify="left" if i == 0 else "right", no_wrap=True, overflow="ellipsis")
    return t


def _usage_rows(t: Table, rows: list[dict[str, Any]], label: str, limit: int) -> None:
    for r in rows[:limit]:
        t.add_row(
            str(r[label]),
            tokens(r["cache_read_tokens"]),
            tokens(r["cache_creation_tokens"]),
            tokens(r["input_tokens"]),
            tokens(r["output_tokens"]),
            usd(r["cost_usd"]),
            pct(r["cost_share"]),
        )
    if len(rows) > limit:
        t.add_row(f"... {len(rows) - limit} more", "", "", "", "", "", "")


USAGE_COLS = ("cache read", "cache write", "input", "output", "cost", "share")


def console() -> Console:
    """A terminal console, or a 110-column one when piped (rich would squeeze tables to 80)."""
    con = Console()
    return con if con.is_terminal else Console(width=max(con.width, 110))


def render(r: dict[str, Any], con: Console | None = None) -> None:
    """Print the whole X-ray report."""
    con = con or console()
    inc, tot = r["included"], r["totals"]
    span = f"{(inc['first_activity'] or '')[:10]} to {(inc['last_activity'] or '')[:10]}"
    con.print(
        f"[bold]Token X-ray[/bold]  {tot['sessions']} sessions in {tot['projects']} projects, "
        f"{inc['files']} files, {span}; {describe_filters(inc['filters'])}"
    )
    con.print("\n[bold]What stands out[/bold]")
    for f in r["findings"]:
        con.print(Padding(f"• {f}", (0, 0, 0, 2), expand=False))
    con.print()

    t = _table("Cost by kind", "kind", "tokens", "cost", "share")
    for k in r["by_kind"]:
        t.add_row(k["label"], tokens(k["tokens"]), usd(k["cost_usd"]), pct(k["cost_share"]))
    t.add_row("[bold]total[/bold]", tokens(tot["total_tokens"]), f"[bold]{usd(tot['cost_usd'])}[/bold]", "")
    con.print(t)

    t = _table(
        f"Sessions (top {min(TOP_SESSIONS, len(r['sessions']))} by cost; context at start and peak, "
        "compactions, cache expiries)",
        "session",
        "project",
        "start",
        "peak",
        "turns",
        "comp",
        "exp",
        "cost",
        "share",
    )
    for s in r["sessions"][:TOP_SESSIONS]:
        t.add_row(
            s["session_id"][:8],
            s["project"][:20],
            tokens(s["start_context"]),
            tokens(s["peak_context"]),
            str(s["main_turns"] + s["subagent_turns"]),
            str(s["compactions"]),
            str(s["cache_expiries"]),
            usd(s["cost_usd"]),
            pct(s["cost_share"]),
        )
    con.print(t)

    t = _table("Cost by session size (peak context)", "peak context", "sessions", "cost", "share")
    for b in r["session_size"]["buckets"]:
        t.add_row(b["bucket"], str(b["sessions"]), usd(b["cost_usd"]), pct(b["cost_share"]))
    con.print(t)

    for title, key, label in (
        ("By agent", "by_agent", "agent"),
        ("By project", "by_project", "project"),
        ("By model", "by_model", "model"),
    ):
        t = _table(title, label, *USAGE_COLS)
        _usage_rows(t, r[key], label, TOP_ROWS)
        con.print(t)
    t = _table(f"By day (last {RECENT_DAYS} active days, UTC)", "day", *USAGE_COLS)
    _usage_rows(t, r["by_day"][-RECENT_DAYS:], "day", RECENT_DAYS)
    con.print(t)

    tools = r["tools"]
    if tools["rows"]:
        t = _table("Tool output entering the context", "tool", "calls", "~tokens", "share")
        for row in tools["rows"][:TOP_ROWS]:
            t.add_row(row["tool"], str(row["calls"]), tokens(row["est_tokens"]), pct(row["share"]))
        con.print(t)
        con.print(f"[dim]{tools['method']}[/dim]")

    ce = r["cache_expiries"]
    if ce["events"]:
        t = _table("Cache expiries mid-session", "session", "at (UTC)", "pause", "rewritten", "extra cost")
        for e in ce["events"][:TOP_ROWS]:
            t.add_row(
                e["session_id"][:8],
                e["at"].replace("T", " ")[:16],
                f"{e['gap_minutes']:.0f} min",
                tokens(e["rewritten_tokens"]),
                usd(e["extra_cost_usd"]),
            )
        con.print(t)
    tel = r.get("telemetry")
    if tel and tel["covered"]:
        t = _table(
            "Transcript vs OpenTelemetry (gap = transcript / telemetry - 1)",
            "session",
            "source",
            "input",
            "output",
            "cache read",
            "cache write",
            "cost",
        )
        for row in tel["sessions"][:TOP_ROWS]:
            t.add_row(
                row["session_id"][:8],
                row["source"],
                *(gap(row[k]["gap"]) for k in ("input", "output", "cache_read", "cache_write", "cost_usd")),
            )
        con.print(t)
    only = (tel or {}).get("telemetry_only")
    if only:
        t = _table(
            "Sessions known only from OpenTelemetry (transcript gone; not in the totals above)",
            "session",
            "first (UTC)",
            "last (UTC)",
            "models",
            "tokens",
            "cost",
        )
        for row in only[:TOP_ROWS]:
            t.add_row(
                row["session_id"][:8],
                (row["first_activity"] or "-").replace("T", " ")[:16],
                (row["last_activity"] or "-").replace("T", " ")[:16],
                ", ".join(row["models"])[:30],
                tokens(row["total_tokens"]),
                usd(row["cost_usd"]),
            )
        if len(only) > TOP_ROWS:
            t.add_row(f"... {len(only) - TOP_ROWS} more", "", "", "", "", "")
        con.print(t)
    if r["unpriced_models"]:
        t = _table("Models without a price (tokens counted, cost not)", "model", "turns", "tokens")
        for m in r["unpriced_models"]:
            t.add_row(m["model"], str(m["turns"]), tokens(m["tokens"]))
        con.print(t)
    p = r["prices"]
    extra = f"; overridden in config: {', '.join(p['overridden'])}" if p["overridden"] else ""
    skipped = f"; {inc['skipped_lines']} unreadable lines skipped" if inc["skipped_lines"] else ""
    con.print(f"[dim]Prices as of {p['as_of']} ({p['source']}){extra}{skipped}.[/dim]")


def describe_filters(f: dict[str, Any]) -> str:
    """One phrase saying what was included, so a default never hides a choice."""
    parts = []
    parts.append(f"project {f['project']}" if f.get("project") else "all projects")
    if f.get("days"):
        parts.append(f"activity in the last {f['days']} days")
    if f.get("session"):
        parts.append(f"session {f['session']}")
    if f.get("paths"):
        parts.append("from " + ", ".join(f["paths"]))
    else:
        parts.append("from the agents' transcript folders")
    return ", ".join(parts)


def render_simulation(sim: dict[str, Any], con: Console | None = None) -> None:
    """Print the simulator's table, its best threshold and the method."""
    con = con or console()
    base = sim["baseline"]
    con.print(
        f"[bold]Compaction simulator[/bold]  {sim['sessions']} sessions, real cost {usd(base['cost_usd'])}, "
        f"{base['real_compactions']} real compactions, handoff {tokens(sim['handoff_tokens'])} tokens"
    )
    t = _table(
        "Compact whenever the context passes ...",
        "threshold",
        "compactions",
        "sessions",
        "estimated cost",
        "saving",
        "saving %",
    )
    for row in sim["thresholds"]:
        t.add_row(
            tokens(row["threshold"]),
            str(row["compactions"]),
            str(row["sessions_compacted"]),
            usd(row["cost_usd"]),
            usd(row["saving_usd"]),
            pct(row["saving_share"]),
        )
    con.print(t)
    if sim["best"]:
        setting = (
            f"CLAUDE_CODE_AUTO_COMPACT_WINDOW={sim['best']}"
            if sim["best"] >= 100_000
            else "Claude Code's auto-compact window cannot go below 100000; compact by hand with /compact"
        )
        con.print(f"Best here: compact at {tokens(sim['best'])} tokens ({setting}).")
    else:
        con.print("None of these thresholds would have saved money on these sessions.")
    con.print(f"[dim]Method: {sim['method']}[/dim]")


def render_periods(r: dict[str, Any], con: Console | None = None) -> None:
    """Print `cairn xray --by month|block`: one row per month or billing block, then the total."""
    con = con or console()
    month = r["by"] == "month"
    if not r["rows"]:
        left = r.get("other_agents_left_out")
        con.print(f"No Claude Code turns among those read ({left} of other agents): billing blocks are Claude's.")
        return
    label = "month (UTC)" if month else "block start (UTC)"
    t = _table("By month" if month else "By 5-hour billing block", label, *USAGE_COLS[:-1], "models")
    for row in r["rows"]:
        if row.get("is_gap"):
            hours = (_epoch(row["end"]) - _epoch(row["start"])) / 3600
            t.add_row(f"[dim]no activity for {hours:.0f} h[/dim]", "", "", "", "", "", "")
            continue
        name = row["month"] if month else row["start"][:16].replace("T", " ") + (" ACTIVE" if row["is_active"] else "")
        t.add_row(
            name,
            tokens(row["cache_read_tokens"]),
            tokens(row["cache_creation_tokens"]),
            tokens(row["input_tokens"]),
            tokens(row["output_tokens"]),
            usd(row["cost_usd"]),
            ", ".join(row["models"])[:40],
        )
    tot = r["totals"]
    t.add_row(
        "[bold]total[/bold]",
        tokens(tot["cache_read_tokens"]),
        tokens(tot["cache_creation_tokens"]),
        tokens(tot["input_tokens"]),
        tokens(tot["output_tokens"]),
        f"[bold]{usd(tot['cost_usd'])}[/bold]",
        "",
    )
    con.print(t)
    active = r.get("active")
    if active and active["projection"]:
        p, rate = active["projection"], active["burn_rate"]
        con.print(
            f"Active block: {usd(active['cost_usd'])} so far, {usd(rate['cost_per_hour'])}/hour; at this rate "
            f"{usd(p['cost_usd'])} and {tokens(p['total_tokens'])} tokens by its end ({p['remaining_minutes']} min left)."
        )
    if r.get("other_agents_left_out"):
        con.print(f"[dim]{r['other_agents_left_out']} turns of other agents left out (the window is Claude's).[/dim]")
    con.print(f"[dim]Method: {r['method']}.[/dim]")


def _epoch(stamp: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
