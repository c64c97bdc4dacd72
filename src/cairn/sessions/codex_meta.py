"""What a Codex CLI rollout says about its session: a record's cwd, git branch and id, the id in a file name.

Kept apart from codex_turns.py (the archive's turn extraction, with its hashing and JSON imports)
so that the token X-ray, which needs only these, starts without importing the archive's readers
(7 ms on the 2-core machine of docs/benchmarks.md#xray).
"""

from __future__ import annotations

import re
from pathlib import Path

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def text(value: object) -> str | None:
    """`value` if it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def record_meta(record: dict) -> tuple[str | None, str | None, str | None]:
    """(cwd, git branch, session id) a rollout record carries, if any."""
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return None, None, None
    kind = record.get("type")
    if kind == "session_meta":
        git = payload.get("git")
        branch = text(git.get("branch")) if isinstance(git, dict) else None
        return text(payload.get("cwd")), branch, text(payload.get("id"))
    if kind == "turn_context":
        return text(payload.get("cwd")), None, None
    return None, None, None


def id_from_name(path: Path) -> str:
    """The session id a transcript's file name gives: its last UUID, else its stem."""
    found = UUID.findall(path.stem)
    return found[-1] if found else path.stem


def typed_prompt(payload: dict) -> str | None:
    """What the person typed, from an `event_msg` payload: `user_message`'s `message`, or (Codex
    CLI 0.171) an `item_completed` whose item is a `UserMessage`, its `text` parts joined."""
    ptype = payload.get("type")
    if ptype == "user_message":
        message = payload.get("message")
        return message if isinstance(message, str) else None
    if ptype != "item_completed":
        return None
    item = payload.get("item")
    if not isinstance(item, dict) or item.get("type") != "UserMessage" or not isinstance(item.get("content"), list):
        return None
    parts = [
        p["text"]
        for p in item["content"]
        if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
    ]
    return "\n".join(parts) if parts else None
