"""Writing a vault (the project's `.cairn/knowledge/`, or the personal vault); reading is
codemap/knowledge/vault_read.py's VaultReader, which a Vault is.

Writing is careful, because the folder is shared with people and with other agent sessions:

- every write is atomic (temp file + rename) and happens under an exclusive `flock` on
  `<state>/knowledge.lock`, and each `remember` reloads the vault inside the lock, so two
  processes writing at once both land;
- a file whose `cairn_hash` no longer matches was edited by a person. If cairn's parse/render
  reproduces it exactly, a structured edit loses nothing and is done; otherwise cairn only
  appends (a merge goes under a dated heading) or leaves the file alone, never rewrites it;
- a project vault is written only when `<root>/.cairn/` exists (`cairn init` is the opt-in).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cairn.codemap.knowledge.node import Node, render
from cairn.codemap.knowledge.vault_index import signature
from cairn.codemap.knowledge.vault_read import LOCK_NAME, VaultReader
from cairn.errors import CairnError
from cairn.memory.facts import Fact
from cairn.memory.remember_batch import Batch, Edit, Originals, Result
from cairn.memory.staleness import SymbolRange
from cairn.util.atomic import atomic_write_text, sweep_temps
from cairn.util.filelock import file_lock

LOCK_TIMEOUT_S = 20.0


class Vault(VaultReader):
    """A vault that is also written: `remember` under the knowledge lock, each write atomic."""

    # ------------------------------------------------------------ writing

    def _check_writable(self) -> None:
        if self.opt_in_dir is not None and not self.opt_in_dir.is_dir():
            where = self.root or self.opt_in_dir.parent
            raise CairnError(
                f"{where} has no .cairn/ folder: run `cairn init` there first "
                "(cairn writes into a repository only after it opted in)"
            )

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Exclusive lock for read-modify-write of the vault (other writers wait, up to 20 s)."""
        self._check_writable()
        self._ensure_state_dir()
        busy = f"{self.dir}: another cairn process holds the knowledge lock; try again"
        with file_lock(self._safe(self.state_dir / LOCK_NAME), timeout=LOCK_TIMEOUT_S, busy=busy, mode=0o600):
            sweep_temps(self.dir)  # what a writer killed mid-write left: never read, now gone
            yield

    def remember(
        self,
        facts: list[Fact],
        *,
        symbol_range: SymbolRange | None = None,
        context: list[Node] | None = None,
        cwd: Path | None = None,
    ) -> list[Result]:
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
            originals = Originals(self, loaded.nodes)  # a file is read only if this batch touches it
            batch = Batch(self, loaded.nodes, list(context or []), symbol_range, cwd)
            results = [batch.apply(f) for f in facts]
            edits = batch.finish(originals)
            for edit in edits:
                self._write(edit)
        return results

    def _read(self, node: Node) -> str:
        """A node file's text, as it was when loaded (a file changed since is a CairnError: the
        node in hand would be out of date)."""
        path = self.file_of(node)
        if not self._member_ok(path):
            return ""
        seen = self._sigs.get(node.path or "")
        try:
            if seen is not None and signature(os.lstat(path)) != seen:
                raise CairnError(
                    f"{node.path} changed while cairn was writing it; nothing was overwritten, run the command again"
                )
        except OSError:
            return ""
        try:
            return path.read_text(encoding="utf-8")
        except OSError:
            return ""

    def _write(self, edit: Edit) -> None:
        path = self._safe(self.file_of(edit.node))
        if edit.original is not None:
            try:
                now = path.read_text(encoding="utf-8")
            except OSError:
                now = ""
            if now != edit.original:
                raise CairnError(
                    f"{edit.node.path} changed while cairn was writing it; nothing was "
                    "overwritten, run the command again"
                )
        if edit.append is not None:
            atomic_write_text(path, edit.append)
        else:
            atomic_write_text(path, render(edit.node))
