"""SessionEnd: append a short entry to the project's daily journal (detached, trivial sessions skipped).

The entry lists requests, files changed, decisions registered; the journal is
`.cairn/journal/YYYY-MM-DD.md` (CAIRN_HOME/projects/<id>/journal/ without `.cairn/`), after a
deterministic filter that skips empty and trivial sessions.

SessionEnd hooks share a 1.5 s budget, so the hook itself only hands the payload to a detached
`cairn hook SessionEnd --inline` and returns; that run reads the transcript and writes.
"""

from __future__ import annotations

import time

from cairn.agents.hooks.context import HookContext
from cairn.agents.hooks.output import HookResult

KIND = "journal"


def handle(ctx: HookContext) -> HookResult | None:
    if ctx.transcript is None or not ctx.section("journal").get("enabled", True) or ctx.project is None:
        return None
    if not ctx.inline:
        from cairn.agents.hooks.background import spawn_hook

        spawn_hook("SessionEnd", ctx.payload)
        return None
    try:  # the archive gets the session's last turns too (Stop may not have run after them)
        from cairn.sessions.archive import ingest_file

        ingest_file(ctx.transcript)
    except Exception as exc:  # the journal entry matters more than the archive here
        from cairn.agents.hooks.runner import log_error

        log_error("SessionEnd", f"archive ingest: {exc}")
    write_entry(ctx)
    return None


def write_entry(ctx: HookContext) -> str | None:
    """Append this session's entry (new work since its last entry only); the entry, or None."""
    from cairn.agents.digest import build_digest, is_trivial, journal_entry
    from cairn.agents.hooks.transcript import segment_records

    path = ctx.transcript
    size = path.stat().st_size
    state = ctx.load_state("journal")
    if state.get("size") == size:  # SessionEnd again with nothing new (resume, then exit)
        return None
    d = build_digest(segment_records(path), ctx.project.root)
    ctx.save_state("journal", {"size": size})
    if is_trivial(d):
        return None
    now = time.localtime()
    entry = journal_entry(d, when=time.strftime("%H:%M", now), session=ctx.session_id,
                          reason=ctx.text("reason"))
    folder = ctx.records_dir(KIND)
    folder.mkdir(parents=True, exist_ok=True)
    day = folder / f"{time.strftime('%Y-%m-%d', now)}.md"
    with open(day, "a", encoding="utf-8") as fh:
        if fh.tell() == 0:
            fh.write(f"# Journal {time.strftime('%Y-%m-%d', now)}\n\n")
        fh.write(entry + "\n")
    return entry


def latest_entry(project) -> str | None:
    """The last `##` entry of the newest journal day, for SessionStart."""
    from cairn.agents import records

    for day in records.newest(records.records_dir(project, KIND)):
        try:
            text = day.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        cut = text.rfind("\n## ")
        entry = text[cut + 1:] if cut >= 0 else ""
        if entry.strip():
            return f"({day.stem}) " + entry.strip()
    return None
