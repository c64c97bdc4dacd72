"""Detached work a hook starts but must not wait for (journal entry, index refresh, archive ingest).

Handing a payload to a detached `cairn hook EVENT --inline` (SessionEnd's journal entry), the
internal `_refresh` event that finishes an index refresh SessionStart could not complete within
its second, and `_ingest`, the session archive's tail ingest after each turn (started by Stop; its
cost grows with what a turn wrote).

A detached child gets its own session (no terminal signals from the agent), no stdout/stderr,
and the payload on stdin; the hook returns as soon as the payload is written.
"""

from __future__ import annotations

import json
import os
import sys

from cairn.agents.hooks.context import HookContext
from cairn.agents.hooks.output import HookResult


def spawn_hook(event: str, payload: dict):
    """Run `cairn hook EVENT --inline` detached, with `payload` on its stdin; the Popen."""
    import subprocess

    proc = subprocess.Popen([sys.executable, "-m", "cairn", "hook", event, "--inline"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                            close_fds=True, env=dict(os.environ))
    try:
        proc.stdin.write(json.dumps(payload).encode())
        proc.stdin.close()
    except OSError:
        pass
    return proc


def handle(ctx: HookContext) -> HookResult | None:
    """`_refresh`: bring the index of the payload's cwd up to date, then its maps.
    `_ingest`: archive what is new in the payload's transcript (sessions/archive.py)."""
    if ctx.event == "_ingest":
        if ctx.transcript is not None:
            from cairn.sessions.archive import ingest_file

            ingest_file(ctx.transcript)
        return None
    project = ctx.project
    if project is None:
        return None
    from cairn.agents.hooks.session_start import refresh_now

    refresh_now(project)
    return None
