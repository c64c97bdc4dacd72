"""HookContext: the stdin payload read defensively, plus the project, settings, state and records.

Typed accessors that tolerate garbage, the project of the session's cwd, its settings, and
where per-session state and records live.

Records a person may want to keep (handoffs, session records, the daily journal) go into the
repository only when it opted in with `.cairn/`; otherwise into CAIRN_HOME/projects/<id>/.
Per-session state (what recall already injected, whether the meter already warned) is never in
the repository.
"""

from __future__ import annotations

import json
import os
import re
from functools import cached_property
from pathlib import Path

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

    from cairn.config import HookSettings
    from cairn.project import Project

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str, default: str = "unknown") -> str:
    """A file-name-safe form of an id taken from untrusted input."""
    out = _SAFE.sub("-", text or "").strip(".-")[:80]
    return out or default


class HookContext:
    """One hook call: the payload plus lazily resolved project, settings and folders."""

    def __init__(self, event: str, payload: dict[str, object], *, inline: bool = False) -> None:
        self.event = event
        self.payload = payload if isinstance(payload, dict) else {}
        self.inline = inline  # run deferred work now instead of detaching (tests, background runs)

    # ------------------------------------------------------------ payload fields
    def text(self, key: str) -> str:
        val = self.payload.get(key)
        return val if isinstance(val, str) else ""

    def mapping(self, key: str) -> dict[str, object]:
        val = self.payload.get(key)
        return val if isinstance(val, dict) else {}

    @property
    def session_id(self) -> str:
        return safe_name(self.text("session_id"))

    @property
    def cwd(self) -> str:
        return self.text("cwd") or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()

    @property
    def transcript(self) -> Path | None:
        """The session transcript, if the payload names an existing file."""
        raw = self.text("transcript_path")
        if not raw:
            return None
        try:
            path = Path(raw).expanduser()
            return path if path.is_file() else None
        except (OSError, ValueError, RuntimeError):  # NUL bytes, unknown ~user...
            return None

    # ------------------------------------------------------------ project
    @cached_property
    def project(self) -> Project | None:
        """The Project of the session's cwd, or None when it has no tree (global) or cannot resolve."""
        from cairn.errors import CairnError
        from cairn.project import resolve_project

        try:
            project = resolve_project(self.cwd)
        except (CairnError, OSError, ValueError):
            return None
        return project if project.root is not None else None

    @cached_property
    def settings(self) -> HookSettings:
        """The `[hooks.*]` settings of the session's project (typed, defaults in cairn.config)."""
        from cairn.config import settings

        return settings(self.project.root if self.project else None).hooks

    # ------------------------------------------------------------ folders
    def records_dir(self, kind: str) -> Path | None:
        """`.cairn/<kind>/` when the project opted in, else CAIRN_HOME/projects/<id>/<kind>/."""
        from cairn.agents.records import records_dir

        return records_dir(self.project, kind) if self.project else None

    def state_path(self, name: str) -> Path:
        """Per-session state file `name`, under CAIRN_HOME only (a session outside any project
        keeps its state with the `_global` project)."""
        from cairn.home import project_data_dir

        base = self.project.data_dir() if self.project else project_data_dir("_global")
        return base / "hook-state" / f"{self.session_id}.{name}.json"

    def load_state(self, name: str) -> dict[str, Any]:
        path = self.state_path(name)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def save_state(self, name: str, data: dict[str, Any], *, durable: bool = False) -> None:
        """Atomic (a crash never leaves half a file), but not fsynced unless `durable`: this state
        only spares the agent a repeat (a recall already given, a warning already shown), and an
        fsync costs every prompt 3-5 ms. A power cut at worst repeats one."""
        from cairn.util.atomic import atomic_write_text

        atomic_write_text(self.state_path(name), json.dumps(data, sort_keys=True), mode=0o600, durable=durable)

    def clear_state(self, *names: str) -> None:
        for name in names:
            self.state_path(name).unlink(missing_ok=True)

    def relpath(self, path: str) -> str | None:
        """`path` relative to the project root (posix), or None when it lies outside it."""
        if not path or not self.project or self.project.root is None:
            return None
        return relpath(self.project.root, path)


def relpath(root: Path, path: str) -> str | None:
    """`path` (absolute, or relative to `root`) as a repo-relative posix path, None outside root.
    Symlinked spellings of the root (/tmp vs /private/tmp) are tried too."""
    p = Path(path)
    if not p.is_absolute():
        p = root / p
    for cand in (os.path.normpath(p), os.path.realpath(p)):
        try:
            rel = os.path.relpath(cand, root)
        except ValueError:
            continue
        if rel != "." and not rel.startswith(".."):
            return rel.replace(os.sep, "/")
    return None
