"""SessionStart: give the agent the project before it starts exploring.

startup / resume / fork: refresh the index (inline for about a second; past that the refresh is
left to a detached `_refresh` run and the current index is used), then inject the level-0 map
and the active project's leaf: its most important live decisions and gotchas, open tasks, and
the latest journal entry. compact / clear: inject the newest handoff and the session record
written before compaction instead, and reset the session's recall dedupe and meter.

One hard cap on everything injected (`session_start.budget`, ~2,000 estimated tokens), trimmed
from the bottom of the lowest-priority section first. Only this project's data is read: its own
index, vault, records and journal.

It also readies the warm processes, detached so the hook does not wait for them: the prompt hook's
server when none runs (warm.ensure_started), and at startup the MCP zygote when none runs and an
agent has run `cairn serve` on this machine in the last two weeks (`warm_mcp`).
"""

from __future__ import annotations

from cairn.agents.hooks.context import HookContext
from cairn.agents.hooks.output import HookResult
from cairn.config import SessionStartSettings
from cairn.text.budget import estimate_tokens

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import sqlite3

    from cairn.project import Project

REFRESH_THREAD = "cairn-refresh"  # the runner exits without waiting for a thread of this name
HEADER = "cairn: project memory for {name} (auto-injected; `cairn search`, `cairn map MODULE`, `cairn handoff last`)."


class Section:
    """A titled block of lines; lower `priority` numbers are kept longest."""

    __slots__ = ("priority", "title", "lines")

    def __init__(self, priority: int, title: str, lines: list[str]) -> None:
        self.priority, self.title, self.lines = priority, title, [ln for ln in lines if ln is not None]

    def text(self) -> str:
        return f"## {self.title}\n" + "\n".join(self.lines)


def assemble(header: str, sections: list[Section], budget: int) -> str:
    """Header + sections in order, trimmed to `budget` tokens by priority (see module doc)."""
    live = [s for s in sections if s.lines]

    def render() -> str:
        return "\n\n".join([header] + [s.text() for s in live if s.lines])

    text = render()
    while estimate_tokens(text) > budget and live:
        victim = max((s for s in live if s.lines), key=lambda s: s.priority, default=None)
        if victim is None:
            break
        victim.lines.pop()
        if not victim.lines:
            live.remove(victim)
        text = render()
    return text if live else ""


def refresh_now(project: Project) -> None:
    """Incremental index refresh (which also rewrites the maps in `.cairn/` when the graph changed)."""
    from cairn.codemap.indexer import index_project

    index_project(project)


def refresh_bounded(ctx: HookContext, seconds: float) -> str:
    """Refresh the index for up to `seconds`: 'fresh', 'background' (not done in time: a detached
    `_refresh` run finishes it) or 'building' (no index yet: built in the background, never inline).

    The refresh runs in a thread of this process (no second interpreter to start: a no-change
    refresh is one stat walk) with a single parser process, so when it overruns, the runner can
    exit without waiting for it (os._exit; its open transaction rolls back, the index lock is
    released by the kernel) and the detached run takes over."""
    import threading

    from cairn.agents.hooks.background import spawn_hook

    project = ctx.project
    assert project is not None  # handle() returned early without one
    payload = {"cwd": str(project.root), "hook_event_name": "_refresh"}
    if not project.index_path().exists():
        spawn_hook("_refresh", payload)
        return "building"
    from cairn.codemap.indexer import index_project

    errors: list[BaseException] = []

    def work() -> None:
        try:
            index_project(project, workers=1)
        except Exception as exc:  # logged below; the current index is still usable
            errors.append(exc)

    thread = threading.Thread(target=work, name=REFRESH_THREAD, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        spawn_hook("_refresh", payload)
        return "background"
    if errors:
        from cairn.agents.hooks.runner import log_error

        log_error("SessionStart", f"index refresh: {type(errors[0]).__name__}: {errors[0]}", with_traceback=False)
    return "fresh"


def startup_sections(ctx: HookContext, cfg: SessionStartSettings) -> list[Section]:
    from cairn.agents.hooks.session_end import latest_entry

    project = ctx.project
    assert project is not None  # handle() returned early without one
    state = refresh_bounded(ctx, cfg.refresh_seconds)
    sections: list[Section] = []
    con = None
    if state != "building":
        from cairn.codemap.index_db import open_index

        con = open_index(project)
    try:
        from cairn.agents.leaf import project_leaf

        leaf = (
            project_leaf(con, decisions=cfg.decisions, tasks=cfg.tasks)
            if con is not None
            else {"decisions": [], "tasks": []}
        )
        sections.append(Section(1, "Key decisions and gotchas", leaf["decisions"]))
        sections.append(Section(2, "Open tasks", leaf["tasks"]))
        if con is not None:
            sections.append(Section(3, "Map", _map_lines(con, project, cfg.map_budget)))
        else:
            sections.append(
                Section(
                    3,
                    "Map",
                    [
                        "The code index is being built in the background (first session "
                        "here); `cairn map` and `cairn search` work once it is done."
                    ],
                )
            )
        entry = latest_entry(project)
        if entry:
            sections.append(Section(4, "Latest journal entry", entry.splitlines()))
    finally:
        if con is not None:
            con.close()
    return sections


def _map_lines(con: sqlite3.Connection, project: Project, budget: int) -> list[str]:
    from cairn.codemap.maps import render_level0
    from cairn.errors import CairnError

    try:
        text = render_level0(con, project, budget=budget)
    except CairnError:
        return []
    lines = text.rstrip().splitlines()
    if lines and lines[0].startswith("# "):
        lines = lines[1:]
    lines = _without_section(lines, "## Key decisions and gotchas")  # listed once, above the map
    # the map's own headings sit one level under this section's
    return ["#" + ln if ln.startswith("## ") else ln for ln in lines if ln.strip()]


def _without_section(lines: list[str], heading: str) -> list[str]:
    """`lines` without the `## ` section whose heading starts with `heading` (up to the next one)."""
    out, skipping = [], False
    for line in lines:
        if line.startswith("## "):
            skipping = line.startswith(heading)
        if not skipping:
            out.append(line)
    return out


def _session_started(ctx: HookContext) -> float | None:
    """Epoch seconds of the transcript's first timestamped record (None when unknown)."""
    if ctx.transcript is None:
        return None
    from cairn.sessions.context import iso_epoch
    from cairn.util.jsonl import parse_line

    try:
        with open(ctx.transcript, "rb") as fh:
            for _ in range(50):
                line = fh.readline(1 << 20)
                if not line:
                    break
                rec = parse_line(line)  # None for a broken line (nested too deep among them)
                when = iso_epoch(rec.get("timestamp")) if rec is not None else 0.0
                if when:
                    return when
    except OSError:
        return None
    return None


def restore_sections(ctx: HookContext) -> list[Section]:
    """After compact/clear: the newest handoff, then the pre-compaction session record."""
    from cairn.agents.handoff import latest_handoff
    from cairn.agents.hooks.pre_compact import latest_record

    project = ctx.project
    assert project is not None  # handle() returned early without one
    sections: list[Section] = []
    session_id = ctx.text("session_id") or None
    handoff = latest_handoff(project, session=session_id or "", since=_session_started(ctx))
    if handoff is not None:
        sections.append(Section(1, f"Latest handoff ({handoff.created})", handoff.body.strip().splitlines()))
    found = latest_record(project, session_id)
    if found is not None:
        _path, meta, body = found
        lines = [ln for ln in body.strip().splitlines() if not ln.startswith("# ")]
        sections.append(Section(2, f"What this session did before compaction ({meta.get('created', '')})", lines))
    return sections


def warm_mcp() -> None:
    """Start the MCP zygote (warm/zygote.py) detached if none answers, so the session's
    `cairn serve` starts warm when the agent launches it after this hook; a probe of a live one
    counts as activity (it stays for the next session). Under a millisecond when one answers;
    never raises."""
    try:
        from cairn.warm.zygote_client import alive, start, supported, used

        if supported() and used() and not alive():  # only where an agent runs `cairn serve`
            start()
    except Exception:
        pass


def handle(ctx: HookContext) -> HookResult | None:
    project = ctx.project
    if project is None:
        return None
    cfg = ctx.settings.session_start
    source = ctx.text("source") or "startup"
    if ctx.settings.recall.enabled:  # the prompt hook's warm server, ready before the first prompt
        from cairn.agents.hooks.boot import ensure_started

        ensure_started()
    if source in ("compact", "clear"):
        ctx.clear_state("recall", "meter", "harvest")
        sections = restore_sections(ctx)
        header = HEADER.format(name=project.name) + f" Restored after {source}."
    else:
        if source == "startup":
            warm_mcp()
        sections = startup_sections(ctx, cfg)
        header = HEADER.format(name=project.name)
    text = assemble(header, sections, cfg.budget)
    return HookResult(context=text) if text else None
