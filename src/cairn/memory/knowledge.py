"""What memory's commands do with the knowledge graph: a node's JSON shape, its stale cited files,
writing facts and refreshing the index after.

Reading the graph (the project vault, its decision records, the personal vault) is
codemap/knowledge/load.py; stale files are found through the code index (refreshed first).
"""

from __future__ import annotations

import os
from pathlib import Path

from cairn.codemap.knowledge.load import load_knowledge
from cairn.codemap.knowledge.node import Node
from cairn.memory.vault import Vault

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

    from cairn.memory.staleness import SymbolRange


def node_summary(node: Node, stale: list[str] | None = None) -> dict[str, Any]:
    """The JSON shape of a knowledge hit (issue 4): what an agent needs to judge and open it."""
    return {
        "id": node.id,
        "type": node.type,
        "status": node.status,
        "state": node.state,
        "title": node.title,
        "path": node.path,
        "origin": node.origin,
        "files": list(node.files),
        "symbols": list(node.symbols),
        "tags": list(node.tags),
        "superseded_by": node.superseded_by,
        "supersedes": node.supersedes,
        "updated": node.updated,
        "stale": list(stale or []),
    }


def index_symbol_range(project: Any) -> SymbolRange | None:
    """A `symbol_range(path, symbol) -> (start, end) | None` backed by the code index (refreshed
    first, so the lines hashed for staleness are the lines on disk); None without an index."""
    if project.root is None:
        return None
    try:
        from cairn.codemap.indexer import index_project, open_index

        index_project(project)
        con = open_index(project)
    except Exception:  # no index, no symbol hashing: whole files are hashed instead
        return None

    from cairn.memory.staleness import symbols_from_index

    return symbols_from_index(con, Path(project.root))


def node_stale_files(project: Any, nodes: list[Node]) -> dict[str, list[str]]:
    """node id -> its stale cited files, for the live project notes among `nodes` that cite files;
    symbol-precise through the code index (refreshed once) when any of them cites a symbol."""
    from cairn.memory.staleness import stale_files

    if project.root is None:
        return {}
    cited = [n for n in nodes if n.cites and n.origin == "project"]
    rng = symbol_range_for(project, cited)
    return {n.id: stale for n in cited if (stale := stale_files(n, project.root, rng))}


def symbol_range_for(project: Any, nodes: list[Node]) -> SymbolRange | None:
    """The index-backed symbol_range when any of `nodes` cites a symbol (else None: no refresh)."""
    if project.root is None or not any(c.symbols for n in nodes for c in n.cites):
        return None
    return index_symbol_range(project)


def _inside(project: Any, path: str, cwd: Path | None) -> str:
    """A cited file as a repo-relative path. It is read and hashed for staleness, so it must be a
    regular file inside the project (symlinks resolved; no FIFO, no `.git/`); else PathRefused."""
    import os

    from cairn.errors import CairnError, PathRefused
    from cairn.safepath import confine, is_regular

    if project.root is None:
        raise CairnError(f"{path}: cited files need a project (pass --root)")
    root = Path(project.root).resolve()
    raw = Path(os.path.expanduser(path))
    bases = [None] if raw.is_absolute() else [root] + ([Path(cwd)] if cwd else [])
    first: PathRefused | None = None
    found = []
    for base in bases:
        try:
            found.append(confine(raw, [root], relative_to=base, what="a cited file"))
        except PathRefused as exc:
            first = first or exc
    for real in sorted(found, key=lambda r: not r.exists()):  # an existing file first
        if real.exists() and not is_regular(real):
            raise PathRefused(path, "a cited file must be a regular file (not a FIFO, device or directory)")
        return real.relative_to(root).as_posix()
    raise first or PathRefused(path, f"a cited file must be inside the project ({root})")


def remember_facts(project: Any, facts: list, cwd: Path | None = None) -> list:
    """Write facts where they belong: team facts in the project vault (merge, link, supersede, with
    the project's decision records as link targets), personal ones in the personal vault."""
    from cairn.memory.vault import Vault

    shared = [f for f in facts if not f.personal]
    personal = [f for f in facts if f.personal]
    for f in shared:
        f.files = [_inside(project, p, cwd) for p in f.files]
    results = []
    if shared:
        context = (
            [n for n in load_knowledge(project) if n.origin != "project"]
            if any(f.supersedes or f.links for f in shared)
            else []
        )
        symbol_range = index_symbol_range(project) if any(f.symbols for f in shared) else None
        results += Vault.for_project(project).remember(shared, context=context, cwd=cwd, symbol_range=symbol_range)
    if personal:
        results += Vault.personal().remember(personal, cwd=cwd)
    if shared and project.has_memory_dir:
        refresh_index(project, detach=_vault_size(project) > DETACH_REFRESH_NOTES)
    return results


DETACH_REFRESH_NOTES = 1_000  # a vault this big refreshes the index in one detached, lower-priority run


def refresh_index(project: Any, *, detach: bool = False) -> None:
    """Bring the new notes into the index, the graph and the maps in `.cairn/`: right away for a
    usual vault; in one detached `cairn index` at lower CPU priority when another process is
    indexing this worktree or when `detach` (a large vault, where the refresh costs seconds):
    eight writers at once would otherwise each wait for, or compete with, every graph rebuild.
    Searches refresh the index themselves, so nothing is missed meanwhile."""
    try:
        from cairn.codemap.indexer import IndexBusy, claim_pending, index_project

        if not detach:
            try:
                index_project(project, wait=False)
                return
            except IndexBusy:
                pass
        if not claim_pending(project):  # a detached run will start scanning after this note was written
            return
        import subprocess
        import sys

        subprocess.Popen(
            [sys.executable, "-m", "cairn", "index", "--quiet", "--root", str(project.root)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
            preexec_fn=_lower_priority,
        )
    except Exception:  # the notes are written; the next refresh indexes them
        pass


def _lower_priority() -> None:
    try:
        os.nice(10)  # the writers holding the knowledge lock come first
    except OSError:
        pass


def _vault_size(project: Any) -> int:
    try:
        with os.scandir(Vault.for_project(project).dir) as it:
            return sum(1 for e in it if e.name.endswith(".md"))
    except OSError:
        return 0
