"""PostToolUse: the context meter (register facts and save a handoff before the window fills).

Reads the real context size from the transcript tail and,
once per session (again after a compaction), tells the agent to register what it learned and
save a handoff before the window fills, so compaction loses nothing that matters.
"""

from __future__ import annotations

import os

from cairn.agents.hooks.context import HookContext
from cairn.agents.hooks.output import HookResult
from cairn.agents.hooks.transcript import context_tokens

WINDOW_ENV = "CLAUDE_CODE_AUTO_COMPACT_WINDOW"
WINDOW_MIN, WINDOW_MAX = 100_000, 1_000_000


def compaction_window(configured: int) -> int:
    """Claude Code's own window when the user set it (plain integer, clamped as Claude Code does)."""
    raw = os.environ.get(WINDOW_ENV, "").strip()
    if raw.isdigit():
        return min(max(int(raw), WINDOW_MIN), WINDOW_MAX)
    return configured


def meter_message(tokens: int, window: int, session: str = "") -> str:
    tag = f" --session {session}" if session and session.replace("-", "").isalnum() else ""
    return (
        f"cairn: this session's context is about {tokens // 1000}k tokens, {100 * tokens // window}% of the "
        f"{window // 1000}k compaction window. Before it compacts, register the durable things you learned "
        '(decisions, gotchas, how the code works) with `cairn remember "TITLE" --type decision|gotcha|concept '
        "--body ... --file PATH`, then save a handoff: `cairn handoff save --goal ... --where ... --file PATH "
        f"--next ...{tag}`. This session's newest handoff is restored automatically after compaction."
    )


def handle(ctx: HookContext) -> HookResult | None:
    cfg = ctx.settings.meter
    path = ctx.transcript
    if not cfg.enabled or path is None:
        return None
    state = ctx.load_state("meter")
    if state.get("warned"):
        return None
    tokens = context_tokens(path)
    window = compaction_window(cfg.window)
    if tokens is None or tokens < cfg.share * window:
        return None
    ctx.save_state("meter", {"warned": True, "tokens": tokens, "window": window})
    return HookResult(context=meter_message(tokens, window, ctx.text("session_id")))
