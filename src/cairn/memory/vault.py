"""A vault: a folder of node files (the project's `.cairn/knowledge/`, or the personal vault).

Reading is forgiving (a malformed file is a Problem with file:line, the rest still loads; files
people add or edit by hand are simply read). Writing is careful, because the folder is shared
with people and with other agent sessions:

- every write is atomic (temp file + rename) and happens under an exclusive `flock` on
  `<state>/knowledge.lock`, and each `remember` reloads the vault inside the lock, so two
  processes writing at once both land;
- a file whose `cairn_hash` no longer matches was edited by a person. If cairn's parse/render
  reproduces it exactly, a structured edit loses nothing and is done; otherwise cairn only
  appends (a merge goes under a dated heading) or leaves the file alone, never rewrites it;
- a project vault is written only when `<root>/.cairn/` exists (`cairn init` is the opt-in).

The state folder (`.cairn/.state/`, or `personal/.state/`) ignores itself in git.
"""

from __future__ import annotations

import datetime as _dt
import errno
import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cairn.errors import CairnError
from cairn.memory.facts import Fact, repo_relative
from cairn.memory.graph import find, live_version, resolve
from cairn.memory.node import (
    LINKS_HEADING,
    Link,
    Node,
    ParseError,
    is_unchanged_since_written,
    make_id,
    normalize_body,
    now_iso,
    parse,
    render,
)
from cairn.memory.similar import duplicate_of
from cairn.memory.staleness import SymbolRange, head_commit, make_cites
from cairn.util.atomic import atomic_write_text

if TYPE_CHECKING:
    from cairn.memory.staleness import Cite

LOCK_NAME = "knowledge.lock"
LOCK_TIMEOUT_S = 20.0


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
class Result:
    """What `remember` did with one fact."""

    action: str  # created | merged | superseded
    id: str
    path: str
    title: str = ""
    superseded: str | None = None  # the id this fact replaced
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"action": self.action, "id": self.id, "path": self.path, "title": self.title}
        if self.superseded:
            d["superseded"] = self.superseded
        if self.notes:
            d["notes"] = list(self.notes)
        return d


@dataclass
class LoadResult:
    nodes: list[Node]
    problems: list[Problem]


@dataclass
class _Edit:
    """A file to write at the end of a remember batch."""

    node: Node
    original: str | None  # file text as loaded (None for a new file)
    append: str | None = None  # text-only append for a hand-edited file cairn cannot re-render


def strip_hash(text: str) -> str:
    return "\n".join(ln for ln in text.split("\n") if not ln.startswith("cairn_hash:"))


def is_canonical(text: str, path: str) -> bool:
    """Whether cairn's parse + render reproduce a file exactly (a rewrite would lose nothing)."""
    try:
        return strip_hash(render(parse(text, path))) == strip_hash(text.replace("\r\n", "\n"))
    except ParseError:
        return False


class Vault:
    """A folder of knowledge nodes of one origin ("project" or "personal")."""

    def __init__(self, directory: Path, *, origin: str = "project", root: Path | None = None,
                 state_dir: Path | None = None, opt_in_dir: Path | None = None) -> None:
        self.dir = Path(directory)
        self.origin = origin
        self.root = Path(root) if root is not None else None
        self.state_dir = Path(state_dir) if state_dir is not None else self.dir / ".state"
        self.opt_in_dir = Path(opt_in_dir) if opt_in_dir is not None else None

    @classmethod
    def for_project(cls, project: Any) -> Vault:
        """The project vault `<root>/.cairn/knowledge/` (node paths are repo-relative)."""
        if project.root is None:
            raise CairnError("no project here: pass --root DIR or cd into a project")
        memory = Path(project.root) / ".cairn"
        return cls(memory / "knowledge", origin="project", root=Path(project.root),
                   state_dir=memory / ".state", opt_in_dir=memory)

    @classmethod
    def personal(cls) -> Vault:
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
        return [f for f in self._candidates() if self._member_ok(f)]

    def _candidates(self) -> list[Path]:
        if not self.dir.is_dir():
            return []
        out = []
        for f in self.dir.rglob("*.md"):
            if not any(part.startswith(".") for part in f.relative_to(self.dir).parts):
                out.append(f)
        return sorted(out)

    def _member_ok(self, path: Path) -> bool:
        from cairn.safepath import memory_member_ok

        return memory_member_ok(self.trusted_base, path)

    def load(self, *, resolve_links: bool = True) -> LoadResult:
        """All nodes of the vault; unreadable files become Problems, never exceptions."""
        nodes: list[Node] = []
        problems: list[Problem] = []
        first_path: dict[str, str] = {}
        for f in self._candidates():
            if not self._member_ok(f):
                disp = str(f)
                problems.append(Problem(disp, 1, "a symlink leaving .cairn/ (or not a regular file): not read"))
                continue
            disp = self.display_path(f)
            try:
                text = f.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                problems.append(Problem(disp, 1, "not UTF-8 text"))
                continue
            except OSError as exc:
                problems.append(Problem(disp, 1, f"cannot read: {exc.strerror or exc}"))
                continue
            try:
                node = parse(text, disp, origin=self.origin)
            except ParseError as exc:
                problems.append(Problem(exc.path, exc.line, exc.message))
                continue
            if node.id in first_path:
                problems.append(Problem(disp, 2, f"duplicate id {node.id!r} (also {first_path[node.id]}); ignored"))
                continue
            first_path[node.id] = disp
            nodes.append(node)
        if resolve_links:
            resolve(nodes)
        return LoadResult(nodes, problems)

    def find(self, ref: str) -> Node | None:
        """A node by id or title."""
        return find(self.load().nodes, ref)

    # ------------------------------------------------------------ writing

    def _check_writable(self) -> None:
        if self.opt_in_dir is not None and not self.opt_in_dir.is_dir():
            where = self.root or self.opt_in_dir.parent
            raise CairnError(f"{where} has no .cairn/ folder: run `cairn init` there first "
                             "(cairn writes into a repository only after it opted in)")

    def _ensure_state_dir(self) -> None:
        self._safe(self.state_dir / LOCK_NAME)
        self.state_dir.mkdir(parents=True, exist_ok=True)
        ignore = self._safe(self.state_dir / ".gitignore")
        if not ignore.exists():
            atomic_write_text(ignore, "*\n")

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Exclusive lock for read-modify-write of the vault (other writers wait, up to 20 s)."""
        self._check_writable()
        self._ensure_state_dir()
        from cairn.safepath import open_append

        with os.fdopen(open_append(self._safe(self.state_dir / LOCK_NAME), 0o600), "a") as fh:
            deadline = time.monotonic() + LOCK_TIMEOUT_S
            while True:
                try:
                    fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES) or time.monotonic() > deadline:
                        raise CairnError(f"{self.dir}: another cairn process holds the knowledge lock; "
                                         "try again") from None
                    time.sleep(0.02)
            try:
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def remember(self, facts: list[Fact], *, symbol_range: SymbolRange | None = None,
                 context: list[Node] | None = None, cwd: Path | None = None) -> list[Result]:
        """Create, merge or supersede nodes for `facts`; returns one Result per fact.

        `context` holds read-only nodes of other origins (imported ADRs, the other vault) that a
        fact may link to or supersede; they are never written.
        """
        if not facts:
            return []
        self._check_writable()
        if self.origin == "personal":
            from cairn.home import ensure_private_dir

            ensure_private_dir(self.dir)
        with self.lock():
            self._safe(self.dir)
            self.dir.mkdir(parents=True, exist_ok=True)
            loaded = self.load(resolve_links=False)
            originals = {n.id: self._read(n) for n in loaded.nodes}
            batch = _Batch(self, loaded.nodes, list(context or []), symbol_range, cwd)
            results = [batch.apply(f) for f in facts]
            edits = batch.finish(originals)
            for edit in edits:
                self._write(edit)
        return results

    def _read(self, node: Node) -> str:
        path = self.file_of(node)
        if not self._member_ok(path):
            return ""
        try:
            return path.read_text(encoding="utf-8")
        except OSError:
            return ""

    def _write(self, edit: _Edit) -> None:
        path = self._safe(self.file_of(edit.node))
        if edit.original is not None:
            try:
                now = path.read_text(encoding="utf-8")
            except OSError:
                now = ""
            if now != edit.original:
                raise CairnError(f"{edit.node.path} changed while cairn was writing it; nothing was "
                                 "overwritten, run the command again")
        if edit.append is not None:
            atomic_write_text(path, edit.append)
        else:
            atomic_write_text(path, render(edit.node))


def _today() -> str:
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d")


def append_section(text: str, block: str) -> str:
    """Insert `block` at the end of a file's body: before its `## Links` section if it has one."""
    lines = text.rstrip("\n").split("\n")
    idx = max((i for i, ln in enumerate(lines) if ln.strip() == LINKS_HEADING), default=-1)
    if idx > 0:
        head = "\n".join(lines[:idx]).rstrip("\n")
        return f"{head}\n\n{block}\n\n" + "\n".join(lines[idx:]) + "\n"
    return "\n".join(lines).rstrip("\n") + f"\n\n{block}\n"


class _Batch:
    """One remember call: decisions made in memory, then written together under the lock."""

    def __init__(self, vault: Vault, nodes: list[Node], context: list[Node],
                 symbol_range: SymbolRange | None, cwd: Path | None) -> None:
        self.vault = vault
        self.nodes = nodes
        self.context = context
        self.symbol_range = symbol_range
        self.cwd = cwd
        self.commit = head_commit(vault.root)
        self.now = now_iso()
        self.touched: dict[str, str] = {}  # id -> "new" | "update" | "mark"
        self.appends: dict[str, list[str]] = {}  # id -> text blocks for hand-edited files

    def _files(self, fact: Fact) -> list[str]:
        if self.vault.root is None:
            return list(fact.files)
        return [repo_relative(f, self.vault.root, self.cwd) for f in fact.files]

    def _cites(self, files: list[str], symbols: list[str]) -> list[Cite]:
        return make_cites(self.vault.root, files, symbols, self.symbol_range, self.commit)

    def apply(self, fact: Fact) -> Result:
        files = self._files(fact)
        notes = [f"cited file not found: {f}" for f in files
                 if self.vault.root is not None and not (self.vault.root / f).exists()]
        if fact.supersedes:
            return self._supersede(fact, files, notes)
        dup = duplicate_of(fact.type, fact.title, fact.body, self.nodes)
        if dup is not None:
            return self._merge(dup, fact, files, notes)
        node = self._create(fact, files)
        return Result("created", node.id, node.path or "", node.title, notes=notes)

    def _create(self, fact: Fact, files: list[str], supersedes: str | None = None) -> Node:
        base = make_id(fact.type, fact.title, fact.body)
        taken = {n.id for n in self.nodes} | {n.id for n in self.context}
        node_id, i = base, 2
        while node_id in taken or (self.vault.dir / f"{node_id}.md").exists():
            node_id, i = f"{base}-{i}", i + 1
        node = Node(id=node_id, type=fact.type, title=fact.title, status=fact.status, body=fact.body,
                    files=files, symbols=list(fact.symbols),
                    links=[Link(lk.rel, lk.target) for lk in fact.links], supersedes=supersedes,
                    commit=self.commit, created=self.now, updated=self.now, tags=list(fact.tags),
                    cites=self._cites(files, fact.symbols), origin=self.vault.origin)
        node.path = self.vault.display_path(self.vault.dir / f"{node_id}.md")
        self.nodes.append(node)
        self.touched[node.id] = "new"
        return node

    def _merge(self, node: Node, fact: Fact, files: list[str], notes: list[str]) -> Result:
        body = normalize_body(fact.body)
        new_body = bool(body) and body not in node.body
        new_files = [f for f in files if f not in node.files]
        new_syms = [s for s in fact.symbols if s not in node.symbols]
        new_tags = [t for t in fact.tags if t not in node.tags]
        have = {(lk.rel, lk.target) for lk in node.links}
        new_links = [lk for lk in fact.links if (lk.rel, lk.target) not in have]
        fresh = {c.path: c for c in self._cites(files, fact.symbols)}
        old = {c.path: c for c in node.cites}
        recited = [p for p, c in fresh.items() if old.get(p) != c]
        if not (new_body or new_files or new_syms or new_tags or new_links or recited):
            return Result("merged", node.id, node.path or "", node.title, notes=notes + ["already known"])
        block = f"### Update {_today()}\n\n{body}" if new_body else ""
        if node.hand_edited and not is_canonical(self._text(node), node.path or ""):
            extra = [f"Files: {', '.join(new_files)}" if new_files else "",
                     f"Symbols: {', '.join(new_syms)}" if new_syms else "",
                     f"Tags: {', '.join(new_tags)}" if new_tags else "",
                     f"Links: {', '.join(f'{lk.rel} [[{lk.target}]]' for lk in new_links)}" if new_links else ""]
            if not (new_body or any(extra)):  # only the cites changed: nothing to say in prose
                return Result("merged", node.id, node.path or "", node.title,
                              notes=notes + ["edited by hand: left as it is (cites not refreshed)"])
            text = "\n\n".join(x for x in [block or f"### Update {_today()}", *extra] if x)
            self.appends.setdefault(node.id, []).append(text)
            self.touched.setdefault(node.id, "update")
            notes = notes + ["edited by hand: appended under a dated heading, frontmatter left as it is"]
            return Result("merged", node.id, node.path or "", node.title, notes=notes)
        if new_body:
            node.body = f"{node.body}\n\n{block}" if node.body else body
        node.files += new_files
        node.symbols += new_syms
        node.tags += new_tags
        node.links += [Link(lk.rel, lk.target) for lk in new_links]
        node.cites = [c for c in node.cites if c.path not in fresh] + list(fresh.values())
        node.updated, node.commit = self.now, self.commit or node.commit
        self.touched[node.id] = "update"
        return Result("merged", node.id, node.path or "", node.title, notes=notes)

    def _supersede(self, fact: Fact, files: list[str], notes: list[str]) -> Result:
        everything = self.nodes + self.context
        target = find(everything, fact.supersedes or "")
        if target is None:
            raise CairnError(f"supersedes {fact.supersedes!r}: no node with that id or title")
        live = live_version(everything, target.id) or target
        if live.id != target.id:
            notes = notes + [f"{target.id} was already superseded; replacing its live version {live.id}"]
        node = self._create(fact, files, supersedes=live.id)
        if live in self.nodes:
            if live.hand_edited and not is_canonical(self._text(live), live.path or ""):
                notes = notes + [f"{live.path} is edited by hand, left as it is; it reads as "
                                 f"superseded through {node.id}"]
            else:
                live.status, live.superseded_by, live.updated = "superseded", node.id, self.now
                self.touched.setdefault(live.id, "mark")
        else:
            notes = notes + [f"{live.id} is read-only ({live.origin}); it reads as superseded through {node.id}"]
        return Result("superseded", node.id, node.path or "", node.title, superseded=live.id, notes=notes)

    def _text(self, node: Node) -> str:
        return self.vault._read(node)

    def finish(self, originals: dict[str, str]) -> list[_Edit]:
        """Resolve links across the batch and list every file to write."""
        before = {n.id: [(lk.target, lk.pending) for lk in n.links] for n in self.nodes}
        resolve(self.nodes + self.context)
        edits: list[_Edit] = []
        for node in self.nodes:
            orig = originals.get(node.id)
            if node.id in self.appends:
                text = orig or ""
                for block in self.appends[node.id]:
                    text = append_section(text, block)
                edits.append(_Edit(node, orig, append=text))
                continue
            kind = self.touched.get(node.id)
            if kind is None:
                # Untouched: rewrite only cairn's own files whose links just resolved.
                links_now = [(lk.target, lk.pending) for lk in node.links]
                if orig is None or not is_unchanged_since_written(orig) or links_now == before.get(node.id):
                    continue
            edits.append(_Edit(node, None if kind == "new" else orig))
        return edits

