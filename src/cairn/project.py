"""Project identity: which project a working directory belongs to, and where its data lives.

Resolution order for a cwd: the git repository (identified by its git *common* dir, so every
worktree of one repository is the same project while each worktree indexes its own files), else
the nearest directory holding `.cairn/`, else the nearest directory indexed with `cairn index
--root DIR` (its index in CAIRN_HOME marks it, as `.cairn/` would: a folder without git that the
user indexed is a project, and its sessions are archived under it), else the longest prefix in the
user's routes table (`[[routes]] slug=..., prefixes=[...]` in ~/.cairn/config.toml), else the
`_global` project.
`--root DIR` makes DIR the root: a git worktree top-level keeps its git identity, anything else is
identified by its absolute path. Two folders with the same name elsewhere are two projects.

Stdlib only and no subprocess: this runs on every hook call.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from cairn.errors import CairnError
from cairn.home import cairn_home, project_data_dir, projects_dir

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

try:  # CPython's built-in SHA-1: `hashlib` also loads OpenSSL, ~4 ms on every hook
    from _sha1 import sha1
except ImportError:  # another interpreter
    from hashlib import sha1

GLOBAL_ID = "_global"


class Project:
    """A project: `id` (stable, filesystem-safe "<slug>-<hash of identity>", a route slug, or
    _global), `name`, `kind` (git | cairn | route | root | global), `identity` (what makes two
    directories the same project) and `root` (the tree to index, a worktree root; None for _global).

    A plain immutable class rather than a dataclass: every hook resolves a project, and the
    dataclasses machinery costs more start-up than the class itself.
    """

    __slots__ = ("id", "name", "kind", "identity", "root")
    id: str
    name: str
    kind: str
    identity: str
    root: Path | None

    def __init__(self, id: str, name: str, kind: str, identity: str, root: Path | None):  # noqa: A002
        for key, value in (("id", id), ("name", name), ("kind", kind), ("identity", identity), ("root", root)):
            object.__setattr__(self, key, value)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Project is immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Project) and (self.id, self.identity, self.root) == (
            other.id,
            other.identity,
            other.root,
        )

    def __hash__(self) -> int:
        return hash((self.id, self.identity, self.root))

    def __repr__(self) -> str:
        return f"Project(id={self.id!r}, kind={self.kind!r}, root={str(self.root)!r})"

    @property
    def is_global(self) -> bool:
        return self.kind == "global"

    @property
    def memory_dir(self) -> Path | None:
        """`<root>/.cairn`: the project's committed memory (exists only after `cairn init`)."""
        return None if self.root is None else self.root / ".cairn"

    @property
    def has_memory_dir(self) -> bool:
        d = self.memory_dir
        return d is not None and d.is_dir() and not _is_cairn_home(d)

    def data_dir(self) -> Path:
        """Per-project derived data under CAIRN_HOME (created on demand)."""
        return project_data_dir(self.id)

    def index_path(self) -> Path:
        """The SQLite index of this worktree (one per worktree root, all in the project's folder)."""
        if self.root is None:
            raise CairnError("the _global project has no code to index; pass --root DIR or cd into a project")
        return self.data_dir() / index_name(self.root)


def index_name(root: Path) -> str:
    """The file name of a worktree's index in its project's folder."""
    return f"index-{sha1(str(root).encode()).hexdigest()[:10]}.db"


def _slug(text: str) -> str:
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.").lower()
    return s[:40] or "project"


def _make_id(name: str, identity: str) -> str:
    return f"{_slug(name)}-{sha1(identity.encode()).hexdigest()[:10]}"


def _is_cairn_home(path: Path) -> bool:
    try:
        return path.resolve() == cairn_home().resolve()
    except OSError:
        return False


def _git_dirs(top: Path) -> Path | None:
    """The git common dir for a worktree top `top` (holding `.git`), read without running git."""
    dotgit = top / ".git"
    if dotgit.is_dir():
        return dotgit.resolve()
    if dotgit.is_file():
        try:
            text = dotgit.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return None
        if not text.startswith("gitdir:"):
            return None
        gitdir = Path(text[len("gitdir:") :].strip())
        if not gitdir.is_absolute():
            gitdir = top / gitdir
        gitdir = gitdir.resolve()
        common = gitdir / "commondir"
        if common.is_file():
            try:
                rel = common.read_text(encoding="utf-8").strip()
            except OSError:
                return gitdir
            cd = Path(rel)
            return (cd if cd.is_absolute() else gitdir / cd).resolve()
        return gitdir
    return None


def _project_from_git(top: Path, common: Path) -> Project:
    # The name of a repository is its main worktree folder (parent of a `.git` common dir).
    name = common.parent.name if common.name == ".git" else common.name.removesuffix(".git")
    return Project(id=_make_id(name, f"git:{common}"), name=name, kind="git", identity=f"git:{common}", root=top)


def _routes() -> list[tuple[str, Path]]:
    from cairn.config import user_config

    out: list[tuple[str, Path]] = []
    routes = user_config().get("routes", []) or []
    if not isinstance(routes, list):
        raise CairnError("config.toml: `routes` must be a list of [[routes]] tables")
    for route in routes:
        if not isinstance(route, dict) or not route.get("slug"):
            continue
        prefixes = route.get("prefixes", []) or []
        if not isinstance(prefixes, list):
            raise CairnError(f"config.toml: route {route['slug']!r}: `prefixes` must be a list of folders")
        for prefix in prefixes:
            path = Path(os.path.expanduser(str(prefix))).resolve()
            if len(path.parts) < 2:  # "/" would route the whole machine into one project
                raise CairnError(f"config.toml: route {route['slug']!r}: prefix {prefix!r} is the filesystem root")
            out.append((str(route["slug"]), path))
    return out


def global_project() -> Project:
    return Project(id=GLOBAL_ID, name=GLOBAL_ID, kind="global", identity=GLOBAL_ID, root=None)


def project_for_root(root: str | os.PathLike) -> Project:
    """The project for an explicit `--root DIR`."""
    path = Path(os.path.expanduser(root))  # never raises: `~nosuchuser` stays as written
    if "\x00" in str(path):
        raise CairnError(f"--root {root!r}: not a path (NUL byte)")
    if not path.exists():
        raise CairnError(f"--root {root}: no such directory")
    if not path.is_dir():
        raise CairnError(f"--root {root}: not a directory")
    path = path.resolve()
    common = _git_dirs(path)
    if common is not None:
        return _project_from_git(path, common)
    return _path_project(path)


def _path_project(path: Path) -> Project:
    """The project a folder is when identified by its own path (`--root` of a folder outside git)."""
    return Project(
        id=_make_id(path.name, f"path:{path}"), name=path.name, kind="root", identity=f"path:{path}", root=path
    )


def _indexed_root(chain: list[Path]) -> Project | None:
    """The nearest folder of `chain` (a folder, then its parents) that `cairn index --root` indexed
    outside git: its index file exists under CAIRN_HOME. Only stat calls: nothing is created. The
    home folder and the filesystem root count only as the folder itself, never as a parent."""
    base = projects_dir()
    if not chain or not base.is_dir():
        return None
    home = Path.home()
    for d in chain:
        if d != chain[0] and (d == home or d == Path(d.anchor)):
            continue
        p = _path_project(d)
        if (base / p.id / index_name(d)).is_file():
            return p
    return None


def resolve_project(cwd: str | os.PathLike | None = None, root: str | os.PathLike | None = None) -> Project:
    """The project a working directory belongs to (see the module docstring for the order)."""
    if root is not None:
        return project_for_root(root)
    try:  # os.path.expanduser never raises: `~nosuchuser` stays as written (and does not exist)
        here = Path(os.path.expanduser(cwd if cwd is not None else os.getcwd())).resolve()
    except (OSError, ValueError, RuntimeError) as exc:  # NUL byte, symlink loop
        raise CairnError(f"cannot resolve working directory: {exc}") from None
    if not here.exists():
        raise CairnError(f"{here}: no such directory")
    if here.is_file():
        here = here.parent
    chain = [here, *here.parents]
    for d in chain:
        if (d / ".git").exists():
            common = _git_dirs(d)
            if common is not None:
                return _project_from_git(d, common)
    for d in chain:
        marker = d / ".cairn"
        if marker.is_dir() and not _is_cairn_home(marker):
            return Project(id=_make_id(d.name, f"path:{d}"), name=d.name, kind="cairn", identity=f"path:{d}", root=d)
    indexed = _indexed_root(chain)
    if indexed is not None:
        return indexed
    best: tuple[int, str, Path] | None = None
    for slug, prefix in _routes():
        if here == prefix or prefix in here.parents:
            depth = len(prefix.parts)
            if best is None or depth > best[0]:
                best = (depth, slug, prefix)
    if best is not None:
        _, slug, prefix = best
        return Project(id=_slug(slug), name=slug, kind="route", identity=f"route:{slug}", root=prefix)
    return global_project()


@functools.lru_cache(maxsize=512)
def project_for_recorded_cwd(cwd: str) -> tuple[str, str]:
    """(project id, project name) for a transcript's cwd, also when that folder is gone.

    An existing folder resolves exactly as `cairn` does anywhere (project.resolve_project). For
    a folder that no longer exists, the same rules as far as they can still be applied: the
    nearest existing ancestor, if it lies inside a git repository, a `.cairn/` project or a folder
    indexed with `--root`, other than the home folder (the folder was inside that project); else a route prefix from config.toml;
    else the folder's own path identity (the id `cairn` gives a folder identified by its path,
    e.g. after `cairn init` there). A deleted git worktree thus gets its own path-based id: its
    repository can no longer be read from disk.
    """
    path = Path(os.path.normpath(os.path.expanduser(cwd)))
    name = path.name or "root"
    path_identity = (_make_id(name, f"path:{path}"), name)
    if not path.is_absolute():  # never resolve a transcript's folder against our own cwd
        return path_identity
    try:
        if path.is_dir():
            p = resolve_project(path)
            return p.id, p.name
    except (CairnError, OSError):
        pass
    home = Path.home()
    for anc in path.parents:
        if anc in (home, Path(anc.anchor)) or not anc.is_dir():
            continue
        try:
            p = resolve_project(anc)
        except (CairnError, OSError):
            break
        if p.kind in ("git", "cairn", "root") and p.root not in (home, Path(anc.anchor)):
            return p.id, p.name
        break
    try:
        best = max(
            ((len(pre.parts), slug) for slug, pre in _routes() if path == pre or pre in path.parents), default=None
        )
    except CairnError:
        best = None
    if best is not None:
        return _slug(best[1]), best[1]
    return path_identity
