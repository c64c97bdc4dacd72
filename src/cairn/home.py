"""Where cairn keeps its own data: CAIRN_HOME (default ~/.cairn) and the folders below it.

Derived data (indexes) lives here, never in the user's repository, so a project can be indexed
without being touched. Tests always point CAIRN_HOME at a temp folder.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

_RESOLVED: dict[tuple[str, str, str], Path] = {}  # (CAIRN_HOME, HOME, cwd if it is relative) -> resolved


def cairn_home() -> Path:
    """The root of cairn's per-user data, honouring CAIRN_HOME (resolved once per value: a warm
    process asks on every prompt, and resolving costs a system call per path segment)."""
    env = os.environ.get("CAIRN_HOME")
    if not env:
        return Path.home() / ".cairn"
    key = (env, os.environ.get("HOME", ""), "" if os.path.isabs(env) else os.getcwd())
    found = _RESOLVED.get(key)
    if found is None:
        found = Path(env).expanduser().resolve()
        if len(_RESOLVED) < 64:
            _RESOLVED[key] = found
    return found


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (and parents) readable only by the user (0700); nothing is written when it
    already is such a folder."""
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700:
            return path
    except OSError:
        pass
    path.mkdir(parents=True, exist_ok=True)
    try:
        path.chmod(0o700)
    except OSError:
        pass
    return path


def projects_dir() -> Path:
    return cairn_home() / "projects"


def project_data_dir(project_id: str) -> Path:
    """Per-project derived data (the SQLite index, fallback summaries)."""
    return ensure_private_dir(projects_dir() / project_id)


def agent_memory_dir(project_id: str) -> Path:
    """The agents' own memories of one project, imported as read-only notes (agents/native_memory.py):
    beside the project's index, never in its repository (one person's notes)."""
    return projects_dir() / project_id / "agent-memory"


def logs_dir() -> Path:
    return ensure_private_dir(cairn_home() / "logs")


def personal_vault_dir() -> Path:
    """Personal memory that applies to every project (preferences)."""
    return cairn_home() / "personal"
