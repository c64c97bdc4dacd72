"""The memory part of `cairn doctor`: what in the knowledge graph needs a person's attention.

Returns data only (the lead's `cairn doctor` formats it): notes whose cited code changed,
orphans (every cited file gone and no link in or out, so nothing leads to them any more), links
that resolve to nothing (typed ones and `[[wikilinks]]` written in a note's text), files that
could not be parsed, notes that disagree after a merge (disagree.py), and what was odd about the
repository's decision records (codemap/knowledge/records.py and record_nodes.py: a binary file
under a record's name, front matter that is not YAML, a record that links to itself or to no
record): each record was still found, or skipped, and the rest read; these notes are for a person to tidy, so they do not fail the check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cairn.codemap.knowledge.graph import index_by_id, target_resolver
from cairn.codemap.knowledge.node import Node
from cairn.codemap.knowledge.vault_read import Problem
from cairn.memory.disagree import describe, disagreements
from cairn.memory.staleness import SymbolRange, stale_files

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any


@dataclass
class MemoryReport:
    stale: list[dict[str, Any]] = field(default_factory=list)  # {id, path, files}
    orphaned: list[dict[str, Any]] = field(default_factory=list)  # {id, path, files}
    broken_links: list[dict[str, Any]] = field(default_factory=list)  # {id, path, rel, target}
    malformed: list[Problem] = field(default_factory=list)
    disagree: list[dict[str, Any]] = field(default_factory=list)  # {kind, subject, at, ids, paths}
    records: list[dict[str, str]] = field(default_factory=list)  # {path, note}: decision records read as best we could
    nodes: int = 0

    @property
    def ok(self) -> bool:
        return not (self.stale or self.orphaned or self.broken_links or self.malformed or self.disagree)

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": self.nodes,
            "ok": self.ok,
            "stale": self.stale,
            "orphaned": self.orphaned,
            "broken_links": self.broken_links,
            "malformed": [p.to_dict() for p in self.malformed],
            "disagree": self.disagree,
            "records": self.records,
        }

    def lines(self) -> list[str]:
        """Human-readable findings, one per line."""
        out = [f"stale: {s['path']} ({s['id']}): changed since this note: {', '.join(s['files'])}" for s in self.stale]
        out += [
            f"orphaned: {o['path']} ({o['id']}): cited files gone ({', '.join(o['files'])}), no links"
            for o in self.orphaned
        ]
        out += [f"broken link: {b['path']} ({b['id']}): {b['rel']} -> {b['target']}" for b in self.broken_links]
        out += [f"malformed: {p}" for p in self.malformed]
        out += [describe(d) for d in self.disagree]
        out += [f"record: {r['path']}: {r['note']}" for r in self.records]
        return out


def diagnose(
    nodes: list[Node],
    problems: list[Problem],
    root: Path | None,
    symbol_range: SymbolRange | None = None,
    notes: list[tuple[str, str]] | None = None,
) -> MemoryReport:
    """Check a loaded graph (see knowledge.load_knowledge_with_problems; `notes`: its decision records' notes)."""
    report = MemoryReport(
        malformed=list(problems),
        nodes=len(nodes),
        disagree=disagreements(nodes),
        records=[{"path": p, "note": n} for p, n in dict.fromkeys(notes or [])],
    )
    by_id = index_by_id(nodes)
    resolve_target = target_resolver(nodes)
    linked: set[str] = set()
    for node in nodes:
        for link in node.links:
            if not link.pending and link.target in by_id:
                linked.update((node.id, link.target))
        for target in (node.supersedes, node.superseded_by):
            if target and target in by_id:
                linked.update((node.id, target))
        for target in node.inline_links:
            hit = resolve_target(target)
            if hit is not None:
                linked.update((node.id, hit.id))
    for node in nodes:
        where = {"id": node.id, "path": node.path}
        for link in node.links:
            if link.pending or link.target not in by_id:
                report.broken_links.append({**where, "rel": link.rel, "target": link.target})
        for rel, target in (("supersedes", node.supersedes), ("superseded_by", node.superseded_by)):
            if target and target not in by_id:
                report.broken_links.append({**where, "rel": rel, "target": target})
        for target in node.inline_links:  # [[target]] written in the body
            if resolve_target(target) is None:
                report.broken_links.append({**where, "rel": "in the text", "target": target})
        if node.origin in ("personal", "agent") or root is None or not node.cites:
            continue
        gone = [c.path for c in node.cites if not (Path(root) / c.path).is_file()]
        if len(gone) == len(node.cites) and node.id not in linked:
            report.orphaned.append({**where, "files": gone})
            continue
        if node.is_live:
            changed = stale_files(node, root, symbol_range)
            if changed:
                report.stale.append({**where, "files": changed})
    return report
