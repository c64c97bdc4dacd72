"""Curated summaries for the map and for modules, written by a person or an agent.

They are content, not derived data, so they live in `<repo>/.cairn/summaries/` when the project
has opted in (committed with the code), else under CAIRN_HOME. Re-indexing never touches them.
"""

from __future__ import annotations

from pathlib import Path

from cairn.project import Project
from cairn.util.atomic import atomic_write_text

MAP_KEY = "_map"


MAX_SLUG_BYTES = 100  # file systems allow 255 bytes a name; atomic writes add a ~40-byte temp suffix


def module_slug(module: str) -> str:
    """A file name for a module: `src/cairn/codemap` -> `src__cairn__codemap`; a deep folder's name
    is cut and ends in a hash of the whole module (`src__a__...-1f2e3d4c5b`), so it always fits."""
    from cairn.safepath import slug

    name = module.replace("/", "__").replace("(", "").replace(")", "")
    if not (name and ".." not in name and all(c.isalnum() or c in "_-." for c in name)):
        name = slug(name, 120, "root")  # an odd directory name never becomes an odd file name
    if len(name.encode("utf-8")) <= MAX_SLUG_BYTES:
        return name
    import hashlib

    head = name.encode("utf-8")[: MAX_SLUG_BYTES - 11].decode("utf-8", "ignore").rstrip("_-.")
    return f"{head}-{hashlib.sha1(module.encode('utf-8', 'surrogatepass')).hexdigest()[:10]}"


def _dir(project: Project) -> Path:
    if project.memory_dir is not None and project.has_memory_dir:
        return project.memory_dir / "summaries"
    return project.data_dir() / "summaries"


def summary_path(project: Project, module: str | None) -> Path:
    """The summary's file; under `.cairn/`, never through a symlink (PathRefused)."""
    name = f"{MAP_KEY if module is None else module_slug(module)}.md"
    if project.memory_dir is not None and project.has_memory_dir:
        from cairn.safepath import memory_path

        return memory_path(project.memory_dir, "summaries", name)
    return _dir(project) / name


def get_summary(project: Project, module: str | None = None) -> str:
    from cairn.errors import CairnError
    from cairn.safepath import is_regular

    try:
        path = summary_path(project, module)
        return path.read_text(encoding="utf-8").strip() if is_regular(path) else ""
    except (OSError, CairnError):
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
