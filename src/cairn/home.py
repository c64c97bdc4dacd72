"""Where cairn keeps its own data: CAIRN_HOME (default ~/.cairn) and the folders below it.

Derived data (indexes) lives here, never in the user's repository, so a project can be indexed
without being touched. Tests always point CAIRN_HOME at a temp folder.
"""

from __future__ import annotations

import os
from pathlib import Path


def cairn_home() -> Path:
    """The root of cairn's per-user data, honouring CAIRN_HOME."""
    env = os.environ.get("CAIRN_HOME")
    return Path(env).expanduser().resolve() if env else Path.home() / ".cairn"


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (and parents) readable only by the user (0700)."""
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


def logs_dir() -> Path:
    return ensure_private_dir(cairn_home() / "logs")


def personal_vault_dir() -> Path:
    """Personal memory that applies to every project (preferences)."""
    return cairn_home() / "personal"
