"""Curated summaries for the map and for modules, written by a person or an agent.

They are content, not derived data, so they live in `<repo>/.cairn/summaries/` when the project
has opted in (committed with the code), else under CAIRN_HOME. Re-indexing never touches them.
"""

from __future__ import annotations

from pathlib import Path

from cairn.project import Project
from cairn.util.atomic import atomic_write_text

MAP_KEY = "_map"


def module_slug(module: str) -> str:
    """A file name for a module: `src/cairn/codemap` -> `src__cairn__codemap`."""
    return module.replace("/", "__").replace("(", "").replace(")", "") or "root"


def _dir(project: Project) -> Path:
    if project.has_memory_dir:
        return project.memory_dir / "summaries"
    return project.data_dir() / "summaries"


def summary_path(project: Project, module: str | None) -> Path:
    return _dir(project) / f"{MAP_KEY if module is None else module_slug(module)}.md"


def get_summary(project: Project, module: str | None = None) -> str:
    try:
        return summary_path(project, module).read_text(encoding="utf-8").strip()
    except OSError:
        return ""


def set_summary(project: Project, module: str | None, text: str) -> Path:
    """Store (or, with empty text, remove) a summary; secrets are redacted before anything is written."""
    from cairn.redact import redact

    path = summary_path(project, module)
    if text.strip():
        atomic_write_text(path, redact(text.strip()) + "\n")
    elif path.exists():
        path.unlink()
    return path
