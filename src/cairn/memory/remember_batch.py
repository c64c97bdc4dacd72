"""One `remember` call: each fact created, merged or superseded in memory, then written together.

The vault (vault.py) loads the nodes and holds the lock; a batch decides, with the duplicate rule
(similar.py) and the supersede chain (graph.py), what every fact does, then lists the files to
write. A file edited by hand that cairn cannot reproduce exactly is only appended to.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from pathlib import Path

from cairn.codemap.knowledge.graph import find, live_version, resolve
from cairn.codemap.knowledge.node import (
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
from cairn.errors import CairnError
from cairn.memory.facts import Fact, repo_relative
from cairn.memory.similar import duplicate_of
from cairn.memory.staleness import SymbolRange, head_commit, make_cites

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

    from cairn.memory.staleness import Cite
    from cairn.memory.vault import Vault


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
class Edit:
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


class Batch:
    """One remember call: decisions made in memory, then written together under the lock."""

    def __init__(
        self, vault: Vault, nodes: list[Node], context: list[Node], symbol_range: SymbolRange | None, cwd: Path | None
    ) -> None:
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
        notes = [
            f"cited file not found: {f}"
            for f in files
            if self.vault.root is not None and not (self.vault.root / f).exists()
        ]
        if fact.supersedes:
            return self._supersede(fact, files, notes)
        dup = duplicate_of(fact.type, fact.title, fact.body, self.nodes, files)
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
        node = Node(
            id=node_id,
            type=fact.type,
            title=fact.title,
            status=fact.status,
            body=fact.body,
            files=files,
            symbols=list(fact.symbols),
            links=[Link(lk.rel, lk.target) for lk in fact.links],
            supersedes=supersedes,
            commit=self.commit,
            created=self.now,
            updated=self.now,
            tags=list(fact.tags),
            cites=self._cites(files, fact.symbols),
            origin=self.vault.origin,
        )
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
            extra = [
                f"Files: {', '.join(new_files)}" if new_files else "",
                f"Symbols: {', '.join(new_syms)}" if new_syms else "",
                f"Tags: {', '.join(new_tags)}" if new_tags else "",
                f"Links: {', '.join(f'{lk.rel} [[{lk.target}]]' for lk in new_links)}" if new_links else "",
            ]
            if not (new_body or any(extra)):  # only the cites changed: nothing to say in prose
                return Result(
                    "merged",
                    node.id,
                    node.path or "",
                    node.title,
                    notes=notes + ["edited by hand: left as it is (cites not refreshed)"],
                )
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
                notes = notes + [
                    f"{live.path} is edited by hand, left as it is; it reads as superseded through {node.id}"
                ]
            else:
                live.status, live.superseded_by, live.updated = "superseded", node.id, self.now
                self.touched.setdefault(live.id, "mark")
        else:
            notes = notes + [f"{live.id} is read-only ({live.origin}); it reads as superseded through {node.id}"]
        return Result("superseded", node.id, node.path or "", node.title, superseded=live.id, notes=notes)

    def _text(self, node: Node) -> str:
        return self.vault._read(node)

    def finish(self, originals: Originals) -> list[Edit]:
        """Resolve links across the batch and list every file to write."""
        before = {n.id: [(lk.target, lk.pending) for lk in n.links] for n in self.nodes}
        resolve(self.nodes + self.context)
        edits: list[Edit] = []
        for node in self.nodes:
            if node.id in self.appends:
                orig = originals.get(node.id)
                text = orig or ""
                for block in self.appends[node.id]:
                    text = append_section(text, block)
                edits.append(Edit(node, orig, append=text))
                continue
            kind = self.touched.get(node.id)
            if kind is None:
                # Untouched: rewrite only cairn's own files whose links just resolved.
                if [(lk.target, lk.pending) for lk in node.links] == before.get(node.id):
                    continue
                orig = originals.get(node.id)
                if orig is None or not is_unchanged_since_written(orig):
                    continue
            edits.append(Edit(node, None if kind == "new" else originals.get(node.id)))
        return edits


class Originals:
    """File texts of loaded nodes, read on first use (a remember touches a few of thousands)."""

    def __init__(self, vault: Vault, nodes: list[Node]) -> None:
        self.vault = vault
        self.by_id = {n.id: n for n in nodes}
        self.texts: dict[str, str] = {}

    def get(self, node_id: str) -> str | None:
        node = self.by_id.get(node_id)
        if node is None:
            return None
        if node_id not in self.texts:
            self.texts[node_id] = self.vault._read(node)
        return self.texts[node_id]
