"""Handoffs: what the next session (or this one after compaction) needs to pick the work up.

A handoff is written by the agent (or a person) while the context is still whole: goal, where
we are, files in play, decisions made, next steps, blockers; or a free markdown body. It is
stored as a record (see records.py) in `.cairn/handoffs/` (CAIRN_HOME/projects/<id>/handoffs/
without `.cairn/`), redacted, and the newest one is what SessionStart restores after `compact`
or `clear`, and what personalizes recall (its files seed the graph walk).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from cairn.agents import records
from cairn.errors import CairnError

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

    from cairn.project import Project

KIND = "handoffs"
SECTIONS = (
    ("goal", "Goal"),
    ("where", "Where we are"),
    ("files", "Files in play"),
    ("decisions", "Decisions made"),
    ("next", "Next steps"),
    ("blockers", "Blockers"),
)
_BACKTICKED = re.compile(r"`([^`\s]+\.[A-Za-z0-9]{1,8})`")


@dataclass
class Handoff:
    path: Path
    created: str
    title: str
    body: str
    files: list[str] = field(default_factory=list)
    session: str | None = None

    def as_json(self) -> dict:
        return {
            "path": str(self.path),
            "created": self.created,
            "title": self.title,
            "files": self.files,
            "session": self.session,
            "body": self.body,
        }


def _as_list(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    items = [value] if isinstance(value, str) else list(value)
    return [s.strip() for s in items if s and s.strip()]


def render_body(fields: dict[str, str | list[str] | None]) -> str:
    """Markdown of a structured handoff: one section per non-empty field, in a fixed order."""
    goal = " ".join(_as_list(fields.get("goal")))
    out = [f"# Handoff: {goal}" if goal else "# Handoff", ""]
    for key, heading in SECTIONS:
        items = _as_list(fields.get(key))
        if not items:
            continue
        out.append(f"## {heading}")
        if key in ("goal", "where") and len(items) == 1:
            out.append(items[0])
        else:
            out.extend(f"- `{i}`" if key == "files" else f"- {i}" for i in items)
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def files_of(body: str) -> list[str]:
    """Files a free-form body names: bullets under "Files in play", else backticked paths."""
    m = re.search(r"^#+\s*files in play\s*$(.*?)(?=^#|\Z)", body, re.I | re.M | re.S)
    found: list[str] = []
    if m:
        for line in m.group(1).splitlines():
            item = line.strip().lstrip("-*").strip().strip("`").split()
            if item:
                found.append(item[0].strip("`"))
    else:
        found = _BACKTICKED.findall(body)
    return list(dict.fromkeys(found))


def save_handoff(
    project: Project,
    *,
    fields: dict[str, str | list[str] | None] | None = None,
    body: str | None = None,
    session: str | None = None,
    now: float | None = None,
) -> Handoff:
    """Write a handoff from structured `fields` or a markdown `body` (redacted) and return it."""
    from cairn.redact import redact

    if project is None or project.root is None:
        raise CairnError("not inside a project: pass --root DIR or cd into the project")
    if body is not None and body.strip():
        text = body.strip() + "\n"
    elif fields and any(_as_list(v) for v in fields.values()):
        text = render_body(fields)
    else:
        raise CairnError("empty handoff: give --goal/--where/--next... or pipe markdown on stdin")
    text = redact(text)
    files = _as_list(fields.get("files")) if fields and fields.get("files") else files_of(text)
    files = [redact(f) for f in files]
    title = _title(text)
    folder = records.records_dir(project, KIND)
    path = records.new_path(folder, title, now)
    meta: dict[str, Any] = {"created": records.utc_stamp(now), "title": title, "files": files}
    if session:
        meta["session"] = session
    path = records.write(path, meta, text)
    return Handoff(path, meta["created"], title, text, files, session)


def _title(body: str) -> str:
    for line in body.splitlines():
        s = line.strip().lstrip("#").strip()
        if s:
            return s[:120]
    return "handoff"


def load_handoff(path: Path) -> Handoff | None:
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    meta, body = records.parse(text)
    listed = meta.get("files")
    files = listed if isinstance(listed, list) else files_of(body)
    return Handoff(
        Path(path),
        str(meta.get("created") or ""),
        str(meta.get("title") or _title(body)),
        body,
        [str(f) for f in files],
        meta.get("session") if isinstance(meta.get("session"), str) else None,
    )


def latest_handoff(project: Project, *, session: str | None = None, since: float | None = None) -> Handoff | None:
    """The newest handoff of the project, or None.

    With `session` (restoring a session after compaction): that session's newest handoff, else the
    newest one saved without a session id since the session started (`since`, epoch seconds, when
    known); never another session's handoff, nor an older one a teammate committed.
    """
    if project is None or project.root is None:
        return None
    from cairn.sessions.context import iso_epoch

    fallback = None
    for path in records.newest(records.read_dir(project, KIND)):
        found = load_handoff(path)
        if found is None:
            continue
        if session is None:
            return found
        if found.session == session:
            return found
        if fallback is None and found.session is None and (not since or iso_epoch(found.created) >= since - 1):
            fallback = found
    return fallback
