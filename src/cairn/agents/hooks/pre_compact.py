"""PreCompact: write an objective session record of the segment about to be compacted.

Requests, files changed and read, commands, errors; from the transcript, no model call; written to
`.cairn/sessions/` (git-ignored by `cairn init`) or CAIRN_HOME/projects/<id>/sessions/. Its front
matter lists the files it touched; SessionStart(compact) injects it beside the latest handoff.
"""

from __future__ import annotations

from cairn.agents.hooks.context import HookContext
from cairn.agents.hooks.output import HookResult

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from pathlib import Path

    from cairn.project import Project

KIND = "sessions"


def handle(ctx: HookContext) -> HookResult | None:
    from cairn.agents import records
    from cairn.agents.digest import build_digest, render_record
    from cairn.agents.hooks.transcript import segment_records

    path = ctx.transcript
    project = ctx.project
    if path is None or project is None or not ctx.settings.session_record.enabled:
        return None
    d = build_digest(segment_records(path), project.root)
    if not (d.requests or d.changed or d.commands):
        return None
    trigger = ctx.text("trigger") or "manual"
    stamp = records.utc_stamp()
    body = render_record(d, title=f"Session record before {trigger} compaction ({stamp})")
    meta = {"session": ctx.text("session_id"), "trigger": trigger, "created": stamp, "files": d.files}
    folder = records.records_dir(project, KIND)
    records.write(records.new_path(folder, f"{ctx.session_id[:8]}-{trigger}"), meta, body)
    return None


def latest_record(project: Project, session_id: str | None = None) -> tuple[Path, dict, str] | None:
    """(path, meta, body) of the newest session record, preferring one of `session_id`."""
    from cairn.agents import records

    found = None
    for path in records.newest(records.read_dir(project, KIND)):
        try:
            meta, body = records.parse(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        if session_id and meta.get("session") == session_id:
            return path, meta, body
        if found is None:
            found = (path, meta, body)
        if not session_id:
            break
    return found
