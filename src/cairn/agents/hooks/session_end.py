"""SessionEnd: append a short entry to the project's daily journal (detached, trivial sessions skipped).

The entry lists requests, files changed, decisions registered; the journal is
`.cairn/journal/YYYY-MM-DD.md` (CAIRN_HOME/projects/<id>/journal/ without `.cairn/`), after a
deterministic filter that skips empty and trivial sessions.

SessionEnd hooks share a 1.5 s budget, so the hook itself only hands the payload to a detached
`cairn hook SessionEnd --inline` and returns; that run first archives the session's last turns
(main transcript and subagents: Stop may not have run after them), then builds the entry from the
archive's digest of the session (`archive_browse.session_digest`: one source of truth with
`cairn sessions`, and it covers every file of the session). When the archive has nothing (turned
off with `[hooks.archive] enabled = false`, or the ingest failed), the entry comes from the
transcript's own digest instead (agents/digest.py).
"""

from __future__ import annotations

import time

from cairn.agents.hooks.context import HookContext
from cairn.agents.hooks.output import HookResult

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.agents.digest import Digest
    from cairn.project import Project

KIND = "journal"


def handle(ctx: HookContext) -> HookResult | None:
    if ctx.transcript is None or ctx.project is None:
        return None
    journal = ctx.settings.journal.enabled
    archive = ctx.settings.archive.enabled
    if not (journal or archive):
        return None
    if not ctx.inline:
        from cairn.agents.hooks.background import spawn_hook

        spawn_hook("SessionEnd", ctx.payload)
        return None
    if archive:
        try:  # the archive gets the session's last turns too (Stop may not have run after them)
            from cairn.agents.hooks.background import archive_session

            archive_session(ctx.transcript)
        except Exception as exc:  # the journal entry matters more than the archive here
            from cairn.agents.hooks.runner import log_error

            log_error("SessionEnd", f"archive ingest: {exc}")
    if journal:
        write_entry(ctx, from_archive=archive)
    return None


def archive_digest(ctx: HookContext) -> Digest | None:
    """The session's Digest built from the archive (`session_digest`, plus its turns for what the
    digest does not list: MCP registrations, searches, error texts); None when the archive has
    no such session, so the caller falls back to the transcript."""
    from cairn.agents.digest import MAX_ERRORS, REMEMBER_TOOL, Digest, remember_title, shorten
    from cairn.agents.hooks.context import relpath
    from cairn.agents.hooks.transcript import SEARCH_TOOLS
    from cairn.sessions.archive import archive_path, open_archive
    from cairn.sessions.archive_browse import session_detail, session_digest

    if not archive_path().exists() or ctx.transcript is None:
        return None
    sid = ctx.text("session_id") or ctx.transcript.stem
    con = open_archive()
    try:
        data = session_digest(sid, con)
        if not data or not data.get("turns"):
            return None
        _info, turns = session_detail(con, sid)
    finally:
        con.close()
    assert ctx.project is not None and ctx.project.root is not None  # handle() checked
    root = ctx.project.root
    d = Digest()
    d.requests = [p for p in data["prompts"] if not p.startswith("/")]
    d.changed = list(dict.fromkeys(relpath(root, f) or f for f in data["files_changed"]))
    d.read = [p for p in dict.fromkeys(relpath(root, f) or f for f in data["files_read"]) if p not in d.changed]
    d.commands = list(data["commands"])
    d.errors = [shorten(t["text"], 200) for t in turns if t["role"] == "error"][-MAX_ERRORS:]
    for t in turns:
        if t["role"] != "tool" or not t["tool"] or t["agent"]:
            continue
        if t["tool"] in SEARCH_TOOLS or "search" in t["tool"].lower():
            d.explored += 1
        title = (
            remember_title(t["arg"] or "")
            if t["tool"] == "Bash"
            else (t["arg"] if REMEMBER_TOOL.match(t["tool"]) else None)
        )
        if title:
            d.registered.append(shorten(title, 120))
    return d


def write_entry(ctx: HookContext, *, from_archive: bool = True) -> str | None:
    """Append this session's entry (new work since its last entry only); the entry, or None.
    Built from the archive when it knows the session (see the module doc), else the transcript."""
    from cairn.agents.digest import build_digest, is_trivial, journal_entry
    from cairn.agents.hooks.transcript import segment_records

    path, project = ctx.transcript, ctx.project
    assert path is not None and project is not None  # handle() checked both
    size = path.stat().st_size
    state = ctx.load_state("journal")
    if state.get("size") == size:  # SessionEnd again with nothing new (resume, then exit)
        return None
    d = None
    if from_archive:
        try:
            d = archive_digest(ctx)
        except Exception as exc:  # a broken archive must not cost the journal its entry
            from cairn.agents.hooks.runner import log_error

            log_error("SessionEnd", f"archive digest: {exc}")
    if d is None:
        d = build_digest(segment_records(path), project.root)
    ctx.save_state("journal", {"size": size}, durable=True)  # how far the journal went: never write twice
    if is_trivial(d):
        return None
    now = time.localtime()
    entry = journal_entry(d, when=time.strftime("%H:%M", now), session=ctx.session_id, reason=ctx.text("reason"))
    import os

    from cairn.redact import redact
    from cairn.safepath import open_append

    entry = redact(entry)
    folder = ctx.records_dir(KIND)
    assert folder is not None  # the session has a project
    folder.mkdir(parents=True, exist_ok=True)
    day = folder / f"{time.strftime('%Y-%m-%d', now)}.md"
    with os.fdopen(open_append(day), "a", encoding="utf-8") as fh:  # never through a symlink
        if fh.tell() == 0:
            fh.write(f"# Journal {time.strftime('%Y-%m-%d', now)}\n\n")
        fh.write(entry + "\n")
    return entry


def latest_entry(project: Project) -> str | None:
    """The last `##` entry of the newest journal day, for SessionStart."""
    from cairn.agents import records

    for day in records.newest(records.read_dir(project, KIND)):
        try:
            text = day.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        cut = text.rfind("\n## ")
        entry = text[cut + 1 :] if cut >= 0 else ""
        if entry.strip():
            return f"({day.stem}) " + entry.strip()
    return None
