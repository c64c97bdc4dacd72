"""Stop: archive the turn (detached) and, if enabled, ask once for durable facts after heavy exploring.

Hand the transcript's new tail to the session archive (a detached `_ingest` run, so the turn never
waits for it), then the harvest (off by default: `[hooks.harvest] enabled = true`). When the turn
explored a lot (>= `min_explore` reads and searches) and registered nothing, ask once for 1-5
durable facts before the agent stops. Never when `stop_hook_active` (the agent is already
continuing because of a Stop hook) and at most `max_per_session` times. The transcript may lag the
last message (integration.md §1.2), so `last_assistant_message` is checked too.
"""

from __future__ import annotations

from cairn.agents.hooks.context import HookContext
from cairn.agents.hooks.output import HookResult

ASK = (
    "cairn: this turn explored {n} files and searches and registered nothing. If you learned something a "
    "later session would need (a decision and its reason, a gotcha, how a part of the code works), register "
    '1-5 short facts now with `cairn remember "TITLE" --type decision|gotcha|concept --body ... --file PATH`; '
    "if nothing is worth keeping, just stop."
)


def turn_records(records: list[dict]) -> list[dict]:
    """The records since the user's last typed prompt (tool results do not start a turn)."""
    from cairn.agents.hooks.transcript import user_prompts

    for i in range(len(records) - 1, -1, -1):
        if user_prompts([records[i]]):
            return records[i + 1 :]
    return records


def handle(ctx: HookContext) -> HookResult | None:
    if ctx.transcript is not None and ctx.settings.archive.enabled:
        from cairn.agents.hooks.background import spawn_hook

        spawn_hook("_ingest", {"transcript_path": str(ctx.transcript), "cwd": ctx.cwd, "hook_event_name": "_ingest"})
    cfg = ctx.settings.harvest
    if not cfg.enabled or ctx.payload.get("stop_hook_active") is True or ctx.transcript is None:
        return None
    state = ctx.load_state("harvest")
    asked = int(state.get("asked") or 0)
    if asked >= cfg.max_per_session:
        return None
    from cairn.agents.digest import build_digest
    from cairn.agents.hooks.transcript import tail_records

    root = ctx.project.root if ctx.project else None
    d = build_digest(turn_records(tail_records(ctx.transcript, 1024 * 1024)), root)
    last = ctx.text("last_assistant_message")
    if d.registered or "cairn remember" in last or d.explored < cfg.min_explore:
        return None
    ctx.save_state("harvest", {"asked": asked + 1})
    return HookResult(block_reason=ASK.format(n=d.explored))
