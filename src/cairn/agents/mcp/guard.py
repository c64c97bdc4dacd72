"""Path and project safety for the MCP tools: nothing outside the project and the personal vault.

An MCP client is a model acting on text it read somewhere; a prompt injection can make it ask
for `../../.ssh/id_rsa` or a symlink that leaves the tree. Every path a tool touches goes through
`safe_path`, which refuses `..` parts, NUL bytes and `.git/` internals at any depth (credentials
live in `.git/config`, a nested clone's too), then resolves symlinks and checks that the real
target still lies inside an allowed root (the rules themselves live in cairn.safepath). A tool call may name another `root`, but only a worktree of the server's own
project (same `Project.identity`), so one server never becomes a reader for every repository.

Stdlib only: imported by every tool call.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path, PurePath

from cairn.errors import CairnError
from cairn.home import cairn_home, personal_vault_dir
from cairn.project import Project, resolve_project

PROJECT_ENV_VARS = ("CAIRN_PROJECT_DIR", "CLAUDE_PROJECT_DIR")
REGISTRY_NAME = "roots.json"


def explicit_project_dir(environ: dict[str, str] | None = None) -> str | None:
    """CAIRN_PROJECT_DIR, else CLAUDE_PROJECT_DIR (Claude Code sets it for stdio servers)."""
    env = os.environ if environ is None else environ
    for name in PROJECT_ENV_VARS:
        value = (env.get(name) or "").strip()
        if value:
            return value
    return None


def server_project(project_dir: str | None = None) -> Project:
    """The project a server serves: `project_dir`, else the env vars, else the working directory.

    A directory named explicitly is a project even without git or `.cairn/` (its own root); the
    bare working directory is not, so a server started in $HOME does not make $HOME readable.
    """
    explicit = project_dir or explicit_project_dir()
    if explicit is None:
        return resolve_project(os.getcwd())
    project = resolve_project(explicit)
    return resolve_project(root=explicit) if project.is_global else project


def allowed_bases(project: Project) -> list[Path]:
    """The real (symlink-free) directories a tool may read: the worktree and the personal vault."""
    bases = []
    if project.root is not None:
        bases.append(Path(project.root).resolve())
    bases.append(personal_vault_dir().resolve())
    return bases


def safe_path(project: Project, path: str, *, must_exist: bool = True) -> Path:
    """The real path for `path` (relative to the project root, or absolute inside an allowed base).

    Raises CairnError (PathRefused) for anything that could leave the project: `..` parts, NUL
    bytes, `.git/` internals at any depth, absolute paths elsewhere, symlinks whose target is
    outside, a `.cairn/` file whose real path leaves `.cairn/`; see cairn.safepath.
    """
    from cairn.errors import PathRefused
    from cairn.safepath import confine, inside, memory_member_ok

    if not isinstance(path, str) or not path.strip():
        raise CairnError("path must be a non-empty string")
    if "\x00" in path:
        raise PathRefused(repr(path), "a NUL byte in a path")
    raw = PurePath(path.strip())
    if ".." in raw.parts:
        raise PathRefused(path, "'..' is not allowed; give a path inside the project")
    if project.root is None and not raw.is_absolute():
        raise CairnError("no project: the server was not started inside one (set CAIRN_PROJECT_DIR)")
    real = confine(raw, allowed_bases(project), relative_to=Path(project.root) if project.root else None, what="a path")
    if must_exist and not real.exists():
        raise CairnError(f"{path}: no such file in the project")
    if project.root is not None:
        root = Path(project.root)
        lexical = raw if raw.is_absolute() else root / raw
        memory = root / ".cairn"
        if (
            inside(Path(os.path.normpath(lexical)), memory)
            and real.exists()
            and not memory_member_ok(memory, Path(os.path.normpath(lexical)))
        ):
            raise PathRefused(path, "a symlink inside .cairn/ is never followed out of it")
    return real


def relative_to_root(project: Project, real: Path) -> str:
    """A display path: repo-relative inside the worktree, absolute for the personal vault."""
    if project.root is not None:
        try:
            return real.relative_to(Path(project.root).resolve()).as_posix()
        except ValueError:
            pass
    return str(real)


class Scope:
    """The server's project, fixed at start-up, and the worktrees a tool call may switch to."""

    def __init__(self, project_dir: str | None = None) -> None:
        self.project = server_project(project_dir)
        remember_root(self.project)

    def project_for(self, root: str | None) -> Project:
        """The project a call works on: the server's own, or another worktree of the same project."""
        if root is None or not str(root).strip():
            return self.project
        if "\x00" in root:
            raise CairnError("root contains a NUL byte")
        try:
            other = resolve_project(root=root)
        except CairnError as exc:
            raise CairnError(f"root {root}: {exc}") from None
        if self.project.is_global or other.identity != self.project.identity:
            raise CairnError(
                f"root {root} is not a worktree of this server's project ({self.project.name}); "
                "start a cairn server in that project instead"
            )
        remember_root(other)
        return other

    def require_root(self, project: Project) -> Path:
        if project.root is None:
            raise CairnError("no project: start `cairn serve` inside a project or set CAIRN_PROJECT_DIR")
        return Path(project.root)


# ------------------------------------------------------------------ registry of known projects


def _registry_path(project_id: str) -> Path:
    return cairn_home() / "projects" / project_id / REGISTRY_NAME


def remember_root(project: Project) -> None:
    """Record (id, name, roots) under CAIRN_HOME so `projects` can name what it lists. Never raises."""
    if project.root is None:
        return
    path = _registry_path(project.id)
    root = str(project.root)
    try:
        data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    except (OSError, ValueError):
        data = {}
    roots = [r for r in data.get("roots", []) if isinstance(r, str)] if isinstance(data, dict) else []
    if root in roots and data.get("name") == project.name:
        return
    from cairn.home import ensure_private_dir
    from cairn.util.atomic import atomic_write_text

    try:
        ensure_private_dir(path.parent)
        record = {
            "id": project.id,
            "name": project.name,
            "kind": project.kind,
            "roots": sorted({*roots, root}),
            "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        atomic_write_text(path, json.dumps(record, indent=1) + "\n", mode=0o600)
    except OSError:
        pass


def known_projects() -> list[dict]:
    """Every project with a folder under CAIRN_HOME/projects/, with name and roots when recorded."""
    base = cairn_home() / "projects"
    out: list[dict] = []
    if not base.is_dir():
        return out
    for d in sorted(p for p in base.iterdir() if p.is_dir()):
        entry: dict = {"id": d.name, "name": None, "roots": [], "indexed": any(d.glob("index-*.db"))}
        try:
            data = json.loads((d / REGISTRY_NAME).read_text(encoding="utf-8"))
            if isinstance(data, dict):
                entry["name"] = data.get("name")
                entry["roots"] = [r for r in data.get("roots", []) if isinstance(r, str)]
        except (OSError, ValueError):
            pass
        if entry["name"] is None:
            entry["name"] = d.name.rsplit("-", 1)[0] if "-" in d.name else d.name
        out.append(entry)
    return out
