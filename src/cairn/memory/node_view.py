"""One knowledge node as a reader sees it: the text of `cairn read` and of the MCP `read` tool.

Both front ends call `node_view` then `.text()` (or `.to_dict()` for `cairn read --json`), so a
node reads the same wherever an agent or a person opens it: title, id, type, status, origin and
file; what superseded it (and the live version at the end of the chain) or what it supersedes;
cited files, the ones changed since the note, symbols, tags, when it was updated; the body; its
links (with their targets' titles and status, pending ones marked) and the nodes linking to it.
A `[[link]]` written in a body is a link too (rel `mentions`, `"inline": true` in the JSON), both
ways: the graph counts it (memory/graph.degree), so a reader must see it as well.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cairn.codemap.knowledge.graph import find, index_by_id, live_version, supersede_chain, target_resolver
from cairn.codemap.knowledge.node import Node
from cairn.errors import CairnError
from cairn.memory.knowledge import node_stale_files, node_summary

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any


INLINE_REL = "mentions"  # the relation of a `[[link]]` written in a node's text


@dataclass
class NodeView:
    """A node with what the rest of the graph says about it."""

    node: Node
    stale: list[str] = field(default_factory=list)  # cited files changed since the note
    links: list[dict[str, Any]] = field(default_factory=list)  # rel, target, pending, title, status
    linked_from: list[dict[str, Any]] = field(default_factory=list)  # rel, source, title
    chain: list[str] = field(default_factory=list)  # supersede chain, oldest first
    live: Node | None = None  # the live version, when it is another node
    titles: dict[str, str] = field(default_factory=dict)  # id -> title, for the nodes named above

    def to_dict(self) -> dict[str, Any]:
        """The JSON of `cairn read --json`: node_summary plus body, links, chain, live version."""
        node = self.node
        out = node_summary(node, self.stale)
        out.update(
            {
                "body": node.body,
                "links": self.links,
                "linked_from": self.linked_from,
                "created": node.created,
                "commit": node.commit,
                "chain": self.chain,
                "live_version": self.live.id if self.live is not None else None,
            }
        )
        return out

    def _named(self, node_id: str) -> str:
        return f'{node_id} "{self.titles[node_id]}"' if node_id in self.titles else node_id

    def text(self) -> str:
        """The node as markdown-ish text (newline-terminated), the same for the CLI and MCP."""
        node = self.node
        lines = [f"# {node.title}", f"{node.id} · {node.type} · {node.status} · {node.origin} · {node.path}"]
        if node.superseded_by:
            line = f"superseded by {self._named(node.superseded_by)}"
            if self.live is not None and self.live.id != node.superseded_by:
                line += f"; live version: {self._named(self.live.id)}"
            lines.append(line)
        if node.supersedes:
            lines.append(f"supersedes {self._named(node.supersedes)}")
        if node.files:
            lines.append("files: " + ", ".join(node.files))
        lines += [f"(changed since this note: {path})" for path in self.stale]
        if node.symbols:
            lines.append("symbols: " + ", ".join(node.symbols))
        if node.tags:
            lines.append("tags: " + ", ".join(node.tags))
        if node.updated:
            lines.append(f"updated: {node.updated}" + (f" at {node.commit[:10]}" if node.commit else ""))
        if node.body.strip():
            lines += ["", node.body.rstrip()]
        if self.links or self.linked_from:
            lines += ["", "Links:"]
            for lk in self.links:
                if lk["pending"]:
                    lines.append(f"- {lk['rel']}: {lk['target']} (pending: no such node yet)")
                else:
                    lines.append(f"- {lk['rel']}: {lk['title']} ({lk['target']}, {lk['status']})")
            lines += [f"- {bl['rel']} (from): {bl['title']} ({bl['source']})" for bl in self.linked_from]
        return "\n".join(lines) + "\n"


def node_view(project: Any, nodes: list[Node], ref: str, *, hint: str = "see `cairn memory list`") -> NodeView:
    """The node `ref` (id, title or unique id prefix) among `nodes`, seen from `project` (whose
    code decides which cited files are stale); a CairnError ending in `(hint)` when none matches."""
    node = find(nodes, ref)
    if node is None:
        raise CairnError(f"no knowledge node {ref!r} ({hint})")
    by_id = index_by_id(nodes)
    live = live_version(nodes, node.id)
    find_one = target_resolver(nodes)

    def link(rel: str, target: Node | None, name: str, pending: bool, inline: bool) -> dict[str, Any]:
        return {
            "rel": rel,
            "target": target.id if target is not None else name,
            "pending": pending,
            "title": target.title if target is not None else None,
            "status": target.status if target is not None else None,
            "inline": inline,
        }

    links = [link(lk.rel, by_id.get(lk.target), lk.target, lk.pending, False) for lk in node.links]
    for name in node.inline_links:
        hit = find_one(name)
        if hit is None or (hit.id != node.id and all(x["target"] != hit.id for x in links)):
            links.append(link(INLINE_REL, hit, name, hit is None, True))
    linked_from = [
        {"rel": lk.rel, "source": n.id, "title": n.title, "inline": False}
        for n in nodes
        for lk in n.links
        if lk.target == node.id and n.id != node.id
    ]
    typed_from = {x["source"] for x in linked_from}
    for n in nodes:
        if (
            n.id != node.id
            and n.id not in typed_from
            and "[[" in n.body
            and any((hit := find_one(name)) is not None and hit.id == node.id for name in n.inline_links)
        ):
            linked_from.append({"rel": INLINE_REL, "source": n.id, "title": n.title, "inline": True})
    named = {i for i in (node.superseded_by, node.supersedes, live.id if live else None) if i}
    return NodeView(
        node,
        node_stale_files(project, [node]).get(node.id, []),
        links,
        linked_from,
        supersede_chain(nodes, node.id),
        live if live is not None and live.id != node.id else None,
        {i: by_id[i].title for i in named if i in by_id},
    )
