"""Detached work a hook starts but must not wait for (journal entry, index refresh, archive ingest).

Handing a payload to a detached `cairn hook EVENT --inline` (SessionEnd's journal entry), the
internal `_refresh` event that finishes an index refresh SessionStart could not complete within
its second, and `_ingest`, the session archive's tail ingest after each turn (started by Stop; its
cost grows with what a turn wrote).

A session is its main transcript plus the subagents' files beside it
(`<sessionId>.jsonl` + `<sessionId>/subagents/agent-*.jsonl`, see sessions/transcript.py), so
`archive_session` ingests both: a Task run's findings are often the part worth finding later.
`_ingest` also takes the archive's throttled automatic backup (at most daily) once it added
turns: the hooks are the archive's only writer for most users, and the detached run is the one
place with time to copy it; the hook's own process never does. With `[team] push_on_stop` it
then pushes the new turns to the team database (team/auto.py).

A detached child gets its own session (no terminal signals from the agent), no stdout/stderr,
and the payload on stdin; the hook returns as soon as the payload is written.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from cairn.agents.hooks.context import HookContext
from cairn.agents.hooks.output import HookResult

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import subprocess

    from cairn.sessions.archive import IngestStats


def spawn_hook(event: str, payload: dict) -> subprocess.Popen:
    """Run `cairn hook EVENT --inline` detached, with `payload` on its stdin; the Popen."""
    import subprocess

    proc = subprocess.Popen(
        [sys.executable, "-m", "cairn", "hook", event, "--inline"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
        env=dict(os.environ),
    )
    try:
        assert proc.stdin is not None  # stdin=PIPE
        proc.stdin.write(json.dumps(payload).encode())
        proc.stdin.close()
    except OSError:
        pass
    return proc


def session_files(transcript: Path) -> list[Path]:
    """The main transcript, then its subagents' files (`<transcript minus .jsonl>/subagents/*.jsonl`)."""
    folder = transcript.with_suffix("") / "subagents"
    try:
        agents = sorted(p for p in folder.glob("*.jsonl") if p.is_file())
    except OSError:
        agents = []
    return [transcript, *agents]


def archive_session(transcript: Path, *, backup: bool = False, semantic: bool = False) -> IngestStats | None:
    """Archive what is new in a session's files (main + subagents), each from its own offset;
    with `semantic` (`[index] semantic`), embed the turns without a vector (this detached run is
    where the model may load: no agent waits for it); with `backup`, then take the throttled
    daily backup if turns were added. The IngestStats."""
    from cairn.sessions.archive import IngestStats, ingest_file, open_archive, refresh_history

    total = IngestStats()
    con = open_archive()
    try:
        for path in session_files(transcript):
            stats = ingest_file(path, con)  # a missing or unreadable file is an error entry, not a raise
            total.files += stats.files
            total.files_read += stats.files_read
            total.bytes += stats.bytes
            total.turns += stats.turns
            total.reread += stats.reread
            total.errors += stats.errors
            total.sessions |= stats.sessions
        refresh_history(con, total)  # the request log and co-access of this session's project
        if semantic:
            from cairn.sessions.archive_vectors import refresh

            total.vectors = refresh(con, True)
        if backup and total.turns:
            from cairn.sessions.backup import maybe_auto_backup

            maybe_auto_backup(con)
    finally:
        con.close()
    return total


def handle(ctx: HookContext) -> HookResult | None:
    """`_refresh`: bring the index of the payload's cwd up to date, then its maps.
    `_ingest`: archive what is new in the payload's session (sessions/archive.py), then back up."""
    if ctx.event == "_ingest":
        if ctx.transcript is not None:
            from cairn.config import settings

            semantic = settings(ctx.project.root if ctx.project else None).index.semantic
            stats = archive_session(ctx.transcript, backup=True, semantic=semantic)
            if stats is not None and stats.turns:
                from cairn.team.auto import push_after_turn

                push_after_turn(ctx.project)  # `[team] push_on_stop`: off unless configured
        return None
    project = ctx.project
    if project is None:
        return None
    from cairn.agents.hooks.session_start import refresh_now

    refresh_now(project)
    return None
