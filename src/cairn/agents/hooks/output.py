"""The output contract of each hook event, in one place (Claude Code docs, `hooks` page: exit
codes, JSON output, decision control).

A handler returns a `HookResult`; `render` turns it into (stdout, stderr, exit code) that is
valid for that event and nothing else: context goes out as
`{"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": ...}}` only on events that
accept it, wrapped in cairn's markers (so the archive and recall recognise cairn's own text) and
redacted; a PreToolUse deny is exit 2 with the reason on stderr; a Stop "keep going" is
`{"decision": "block", "reason": ...}`. Anything a handler asks for that the event does not
support is dropped rather than printed.
"""

from __future__ import annotations

import json

from cairn.sessions.markers import wrap_injected

# Events whose hookSpecificOutput accepts additionalContext (CC docs "JSON output").
CONTEXT_EVENTS = frozenset(
    {
        "SessionStart",
        "Setup",
        "SubagentStart",
        "UserPromptSubmit",
        "UserPromptExpansion",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "PostToolBatch",
        "Stop",
        "SubagentStop",
    }
)
# Events where a top-level {"decision": "block", "reason": ...} is understood.
BLOCK_EVENTS = frozenset(
    {"UserPromptSubmit", "PostToolUse", "PostToolUseFailure", "PostToolBatch", "Stop", "SubagentStop", "PreCompact"}
)
MAX_CHARS = 10_000  # Claude Code saves longer hook output to a file and shows a preview
DENY_EXIT = 2


class HookResult:
    """What a handler wants to say (a plain class: `dataclasses` costs the hook path ~5 ms)."""

    __slots__ = ("context", "block_reason", "deny_reason")

    def __init__(self, context: str = "", block_reason: str = "", deny_reason: str = "") -> None:
        self.context = context  # injected as additionalContext (marked and redacted on the way out)
        self.block_reason = block_reason  # Stop/SubagentStop: keep the agent going with this instruction
        self.deny_reason = deny_reason  # PreToolUse: refuse this tool call (exit 2, reason on stderr)


NOTHING = HookResult()


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _clean(text: str) -> str:
    from cairn.redact import redact

    return redact(text.strip())


def render(event: str, result: HookResult | None) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) for `result` on `event`; empty output when there is nothing."""
    if result is None:
        return "", "", 0
    if result.deny_reason and event == "PreToolUse":
        return "", _clip(_clean(result.deny_reason), MAX_CHARS) + "\n", DENY_EXIT
    out: dict = {}
    if result.block_reason and event in BLOCK_EVENTS:
        out["decision"] = "block"
        out["reason"] = _clip(_clean(result.block_reason), MAX_CHARS)
    if result.context.strip() and event in CONTEXT_EVENTS:
        marked = wrap_injected(_clip(_clean(result.context), MAX_CHARS - 64))
        out["hookSpecificOutput"] = {"hookEventName": event, "additionalContext": marked}
    if not out:
        return "", "", 0
    return json.dumps(out, ensure_ascii=False) + "\n", "", 0
