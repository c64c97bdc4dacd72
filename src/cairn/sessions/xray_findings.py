"""The X-ray's findings: the few sentences that matter in a report `xray.analyze` made, in plain words.

Only words: every number they state is already in the report (its `--json` shape).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any


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
        out.append(
            f"{_pct(cr['cost_share'])} of your cost (${cr['cost_usd']:.2f} of ${cost:.2f}) was re-reading "
            f"context from the cache; writing it cost {_pct(cw['cost_share'])}, output "
            f"{_pct(kinds['output']['cost_share'])}, fresh input {_pct(kinds['input']['cost_share'])}."
        )
        o150, o400 = r["session_size"]["over_150k"], r["session_size"]["over_400k"]
        out.append(
            f"{_pct(o150['cost_share'])} of the cost came from the {o150['sessions']} of {tot['sessions']} "
            f"sessions whose context grew past 150k tokens"
            + (f"; {_pct(o400['cost_share'])} from {o400['sessions']} past 400k." if o400["sessions"] else ".")
        )
    sim = r.get("simulation")
    smallest = min((row["threshold"] for row in sim["thresholds"]), default=0) if sim else 0
    if sim and cost > 0 and any(s["peak_context"] > smallest for s in r["sessions"]):
        best = next((row for row in sim["thresholds"] if row["threshold"] == sim["best"]), None)
        if best:
            out.append(
                f"Compacting whenever the context passes {_k(best['threshold'])} tokens would have cost about "
                f"{_pct(best['saving_share'])} less (${best['saving_usd']:.2f}), by `cairn xray simulate`."
            )
        else:
            out.append("Compacting earlier would not have saved money on these sessions (`cairn xray simulate`).")
    if r["sessions"]:
        out.append(
            f"A session starts with a median of {_k(r['start_context_median'])} tokens of context "
            f"before any work; every later turn re-reads it."
        )
    rows = r["tools"]["rows"][:3]
    if rows and r["tools"]["est_tokens"]:
        parts = ", ".join(f"{x['tool']} ~{_k(x['est_tokens'])} tokens ({_pct(x['share'])})" for x in rows)
        out.append(f"Tool output that entered the context: {parts}.")
    ce = r["cache_expiries"]
    if ce["count"]:
        out.append(
            f"The cache expired mid-session {ce['count']} time(s) in {ce['sessions']} session(s) (a pause longer "
            f"than the cache lifetime, then the context written again), about ${ce['extra_cost_usd']:.2f} extra."
        )
    cp = r["compactions"]
    if cp["count"]:
        med = f", median {_k(cp['median_pre_tokens'])} tokens before" if cp["median_pre_tokens"] else ""
        out.append(
            f"{cp['count']} compactions in {cp['sessions']} sessions ({cp['auto']} automatic{med}); "
            f"the summarizing runs cost ${cp['compaction_runs_cost_usd']:.2f}."
        )
    else:
        out.append("No compactions seen.")
    if r["unpriced_models"]:
        names = ", ".join(m["model"] for m in r["unpriced_models"])
        out.append(
            f"No price for {names}: those turns count in tokens but not in cost "
            f'(add [prices."<model>"] to ~/.cairn/config.toml).'
        )
    return out
