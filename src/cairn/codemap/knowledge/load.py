"""Everything the project knows, as one graph: the project vault, its decision records, the
personal vault and the agents' memories it imported (read-only). Never another project's vault: isolation holds because a project's vault is a
folder inside that project's own tree. The index run reads the project's part (no personal vault)
for its knowledge rows (codemap/knowledge_index.py); memory's commands and search read all of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cairn.codemap.knowledge.graph import resolve
from cairn.codemap.knowledge.node import Node
from cairn.codemap.knowledge.vault_read import Problem, VaultReader

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any


@dataclass
class Knowledge:
    nodes: list[Node]
    problems: list[Problem]
    notes: list[tuple[str, str]] = field(default_factory=list)  # decision records found odd: (path, note)


def load_knowledge_with_problems(
    project: Any,
    *,
    adrs: bool = True,
    personal: bool = True,
    paths: Iterable[str] | None = None,
    heads: dict[str, int] | None = None,
) -> Knowledge:
    """Nodes of every origin plus the files that could not be read (for doctor and the CLI).

    `paths` (repo-relative) lets the indexer hand over the file list it already has, so decision
    records are found without a second walk of the tree, and `heads` (record headings per file) which
    of them to open (records.candidates).
    """
    nodes: list[Node] = []
    problems: list[Problem] = []
    notes: list[tuple[str, str]] = []
    vault = VaultReader.for_project(project) if project.root is not None else None
    if vault is not None:
        res = vault.load(resolve_links=False)
        nodes += res.nodes
        problems += res.problems
    if adrs and project.root is not None:
        from cairn.codemap.knowledge.record_nodes import import_records
        from cairn.config import load_config

        try:
            cfg = load_config(Path(project.root))
        except Exception:  # a broken config must not hide the knowledge; doctor reports config
            cfg = {}
        known = {n.id for n in nodes}
        nodes += [n for n in import_records(Path(project.root), paths, cfg, heads, notes) if n.id not in known]
    if personal:
        res = VaultReader.personal().load(resolve_links=False)
        known = {n.id for n in nodes}
        nodes += [n for n in res.nodes if n.id not in known]
        problems += res.problems
        nodes += _agent_memories(project, {n.id for n in nodes})
    resolve(nodes)
    return Knowledge(nodes, problems, notes)


def _agent_memories(project: Any, known: set[str]) -> list[Node]:
    """The agents' own memories this project imported (agents/native_memory.py): read-only notes."""
    from cairn.home import agent_memory_dir

    folder = agent_memory_dir(project.id) if getattr(project, "id", None) else None
    if folder is None or not folder.is_dir():
        return []
    res = VaultReader(folder, origin="agent", root=None, state_dir=folder / ".state").load(resolve_links=False)
    for n in res.nodes:
        n.read_only = True
    return [n for n in res.nodes if n.id not in known]


def load_knowledge(
    project: Any,
    *,
    adrs: bool = True,
    personal: bool = True,
    paths: Iterable[str] | None = None,
    heads: dict[str, int] | None = None,
) -> list[Node]:
    """All knowledge nodes visible from `project` (project vault + decision records + personal)."""
    return load_knowledge_with_problems(project, adrs=adrs, personal=personal, paths=paths, heads=heads).nodes
