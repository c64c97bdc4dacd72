"""Reading a vault: a folder of node files (the project's `.cairn/knowledge/`, or the personal vault).

Reading is forgiving: a malformed file is a Problem with file:line, the rest still loads; files
people add or edit by hand are simply read; unchanged files come from the vault index
(vault_index.py). The index run reads the project vault through here (load.py); writing is
memory/vault.py's `Vault`, a VaultReader that also writes, under a lock.

The state folder (`.cairn/.state/`, or `personal/.state/`) ignores itself in git.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cairn.codemap.knowledge.graph import find, resolve
from cairn.codemap.knowledge.node import Node, ParseError, parse
from cairn.codemap.knowledge.vault_index import Entry, Signature, VaultIndex, list_notes, load_entries
from cairn.errors import CairnError
from cairn.util.atomic import atomic_write_text

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any, Self

LOCK_NAME = "knowledge.lock"  # in the state folder: its path is checked before the folder is made


@dataclass
class Problem:
    """A file the vault could not read, located for a person to fix."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "message": self.message}


@dataclass
class LoadResult:
    nodes: list[Node]
    problems: list[Problem]


class VaultReader:
    """A folder of knowledge nodes of one origin ("project" or "personal"), read."""

    def __init__(
        self,
        directory: Path,
        *,
        origin: str = "project",
        root: Path | None = None,
        state_dir: Path | None = None,
        opt_in_dir: Path | None = None,
    ) -> None:
        self.dir = Path(directory)
        self.origin = origin
        self.root = Path(root) if root is not None else None
        self.state_dir = Path(state_dir) if state_dir is not None else self.dir / ".state"
        self.opt_in_dir = Path(opt_in_dir) if opt_in_dir is not None else None
        self._sigs: dict[str, Signature] = {}  # node path -> file signature at the last load

    @classmethod
    def for_project(cls, project: Any) -> Self:
        """The project vault `<root>/.cairn/knowledge/` (node paths are repo-relative)."""
        if project.root is None:
            raise CairnError("no project here: pass --root DIR or cd into a project")
        memory = Path(project.root) / ".cairn"
        return cls(
            memory / "knowledge",
            origin="project",
            root=Path(project.root),
            state_dir=memory / ".state",
            opt_in_dir=memory,
        )

    @classmethod
    def personal(cls) -> Self:
        """The personal vault CAIRN_HOME/personal/ (preferences for every project)."""
        from cairn.home import personal_vault_dir

        d = personal_vault_dir()
        return cls(d, origin="personal", root=None, state_dir=d / ".state")

    # ------------------------------------------------------------ reading

    def display_path(self, path: Path) -> str:
        """Repo-relative for project files, absolute for personal ones."""
        if self.root is not None:
            try:
                return path.resolve().relative_to(self.root.resolve()).as_posix()
            except ValueError:
                pass
        return str(path)

    def file_of(self, node: Node) -> Path:
        p = Path(node.path or "")
        return p if p.is_absolute() or self.root is None else self.root / p

    @property
    def trusted_base(self) -> Path:
        """The folder no read may leave and no write may pass a symlink in (`.cairn/`, or the vault)."""
        return self.opt_in_dir if self.opt_in_dir is not None else self.dir

    def _safe(self, path: Path) -> Path:
        """`path` for a write: no symlink from the trusted base's parent down (PathRefused)."""
        from cairn.safepath import no_links_below

        no_links_below(self.trusted_base.parent, path)
        return path

    def files(self) -> list[Path]:
        """The vault's node files; a symlink whose target leaves `.cairn/` (or is no regular file) is skipped."""
        return [e.path for e in list_notes(self.dir) if self._entry_ok(e)]

    def _member_ok(self, path: Path) -> bool:
        from cairn.safepath import memory_member_ok

        return memory_member_ok(self.trusted_base, path)

    def _dir_ok(self) -> bool:
        """The vault folder itself stays inside `.cairn/` (it could be a symlink): checked once a load."""
        from cairn.safepath import inside

        try:
            base = self.trusted_base.resolve()
            return inside(base, self.trusted_base.parent.resolve()) and inside(self.dir.resolve(), base)
        except (OSError, RuntimeError):
            return False

    def _entry_ok(self, entry: Entry, dir_ok: bool | None = None) -> bool:
        """A regular file in a real folder under a vault folder that is inside `.cairn/` is a member;
        only a symlink (or anything odd) pays for resolving its path."""
        if entry.sig is not None and (self._dir_ok() if dir_ok is None else dir_ok):
            return True
        return self._member_ok(entry.path)

    def _display(self, entry: Entry, prefix: str | None) -> str:
        return f"{prefix}/{entry.rel}" if prefix is not None else self.display_path(entry.path)

    def _parse_entry(self, entry: Entry, shown: str) -> tuple[Node | None, dict | None, bool]:
        """(node, problem, whether the outcome depends on the file alone and may be indexed)."""
        try:
            text = entry.path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            return None, {"path": shown, "line": 1, "message": "not UTF-8 text"}, True
        except OSError as exc:
            return None, {"path": shown, "line": 1, "message": f"cannot read: {exc.strerror or exc}"}, False
        try:
            return parse(text, shown, origin=self.origin), None, True
        except ParseError as exc:
            return None, {"path": exc.path, "line": exc.line, "message": exc.message}, True

    def load(self, *, resolve_links: bool = True) -> LoadResult:
        """All nodes of the vault; unreadable files become Problems, never exceptions. Unchanged
        files come from the vault index (vault_index.py), so a load parses only what changed."""
        nodes: list[Node] = []
        problems: list[Problem] = []
        first_path: dict[str, str] = {}
        entries = list_notes(self.dir)
        dir_ok = self._dir_ok()
        rel_dir = self.display_path(self.dir) if self.root is not None and dir_ok else None
        members = []
        for entry in entries:
            if self._entry_ok(entry, dir_ok):
                members.append(entry)
            else:
                problems.append(
                    Problem(str(entry.path), 1, "a symlink leaving .cairn/ (or not a regular file): not read")
                )
        index = VaultIndex(self.state_dir if self._state_ready() else None)
        try:
            for entry, node, problem in load_entries(
                members,
                index,
                lambda e: self._parse_entry(e, self._display(e, rel_dir)),
                lambda e: self._display(e, rel_dir),
                self.origin,
            ):
                if node is None:
                    problem = problem or {"path": entry.rel, "line": 1, "message": "unreadable"}
                    problems.append(Problem(str(problem["path"]), int(problem["line"]), str(problem["message"])))
                    continue
                if node.id in first_path:
                    problems.append(
                        Problem(node.path or "", 2, f"duplicate id {node.id!r} (also {first_path[node.id]}); ignored")
                    )
                    continue
                first_path[node.id] = node.path or ""
                nodes.append(node)
                if entry.sig is not None:
                    self._sigs[node.path or ""] = entry.sig
        finally:
            index.close()
        if resolve_links:
            resolve(nodes)
        return LoadResult(nodes, problems)

    def _state_ready(self) -> bool:
        """Whether the state folder (where the vault index lives) exists or may be made now."""
        if self.state_dir.is_dir():
            return True
        if not self.dir.is_dir() or (self.opt_in_dir is not None and not self.opt_in_dir.is_dir()):
            return False
        try:
            self._ensure_state_dir()
            return True
        except (OSError, CairnError):
            return False

    def find(self, ref: str) -> Node | None:
        """A node by id or title."""
        return find(self.load().nodes, ref)

    def _ensure_state_dir(self) -> None:
        self._safe(self.state_dir / LOCK_NAME)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        ignore = self._safe(self.state_dir / ".gitignore")
        if not ignore.exists():
            atomic_write_text(ignore, "*\n")
