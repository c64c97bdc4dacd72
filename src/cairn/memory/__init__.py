"""The project's knowledge graph: decisions, bugs, gotchas, concepts as markdown files.

API for search and the maps (everything else is internal):

- `load_knowledge(project, *, adrs=True, personal=True, paths=None) -> list[Node]`
  every node visible from a project: its vault `<root>/.cairn/knowledge/` (origin "project"),
  the decision records found in its tree (origin "adr", read-only, path = the record's own
  file), and the personal vault CAIRN_HOME/personal/ (origin "personal"). Never another
  project's nodes. Links are resolved to ids; pass `paths` (the indexer's repo-relative file
  list) to skip a second walk of the tree. `load_knowledge_with_problems` also returns the
  malformed files (file:line).
- `Node`: `.id .type .status .state (active|superseded|done) .is_live .title .body .files
  .symbols .links (Link: rel, target, pending) .supersedes .superseded_by .tags .created
  .updated .path` (repo-relative for repo files, absolute for personal) `.origin`
  ("project" | "adr" | "personal").
- `live_version(nodes, id) -> Node | None`: follow superseded_by A -> B -> C to the live node.
- `find(nodes, ref)`: by id, title or unique id prefix; `target_resolver(nodes)`: a link target
  (id or title) -> Node lookup built once, for many targets.
- `node_summary(node, stale) -> dict`: the JSON shape of a knowledge hit (id, type, status,
  state, title, path, origin, files, symbols, tags, superseded_by, supersedes, updated, stale).
- `ranked(nodes) -> list[Node]`: live team nodes, pinned first then by value (type weight
  decision/gotcha > bug/concept > ..., recency vs the newest note, link degree); what
  memory-md lists, and what the level-0 map can take its "most important decisions" from.
- `stale_files(node, root, symbol_range=None) -> list[str]`: cited files whose cited content
  changed since the note (or that are gone). `symbol_range(path, symbol) -> (start, end) | None`
  lets the code index hash a cited symbol instead of the whole file.

Writing goes through `Vault.remember(facts)` (see vault.py); `cairn remember`, `cairn read`,
`cairn memory-md`, `cairn memory list|doctor` live in cairn.cli.memory_cmd.

The names above are imported on first use (PEP 562), so a module of this package can be imported
by a hook without loading YAML and the vault. The node file format, reading a vault and finding
decision records are in `cairn.codemap.knowledge` (node.py, vault_read.py, records.py,
record_nodes.py, load.py), below both memory and the index run that puts the nodes into the code
graph; memory writes, checks and shows them.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:  # what the lazy names are, for the type checker
    from typing import Any

    from cairn.codemap.knowledge.graph import find, live_version, ranked, target_resolver
    from cairn.codemap.knowledge.load import load_knowledge, load_knowledge_with_problems
    from cairn.codemap.knowledge.node import Link, Node
    from cairn.memory.knowledge import node_summary
    from cairn.memory.staleness import stale_files

# Reading the graph lives below, in codemap/knowledge/ (the index run reads it too); the names stay here.
_API = {
    "find": "cairn.codemap.knowledge.graph",
    "live_version": "cairn.codemap.knowledge.graph",
    "target_resolver": "cairn.codemap.knowledge.graph",
    "ranked": "cairn.codemap.knowledge.graph",
    "load_knowledge": "cairn.codemap.knowledge.load",
    "load_knowledge_with_problems": "cairn.codemap.knowledge.load",
    "node_summary": "cairn.memory.knowledge",
    "Link": "cairn.codemap.knowledge.node",
    "Node": "cairn.codemap.knowledge.node",
    "stale_files": "cairn.memory.staleness",
}
__all__ = [
    "Link",
    "Node",
    "find",
    "live_version",
    "target_resolver",
    "load_knowledge",
    "load_knowledge_with_problems",
    "node_summary",
    "ranked",
    "stale_files",
]


def __getattr__(name: str) -> Any:
    if name not in _API:
        raise AttributeError(f"module 'cairn.memory' has no attribute {name!r}")
    value = getattr(importlib.import_module(_API[name]), name)
    globals()[name] = value
    return value
