"""In-memory graph operations shared by the vault, the index run, `cairn read`, doctor and search.

Files are edited by people and by several sessions, so the graph is made consistent when it is
read rather than trusted as written: links naming a title are resolved to ids, a `supersedes`
without its `superseded_by` twin (a crash, a hand edit) is completed, chains are followed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from cairn.codemap.knowledge.importance import order
from cairn.codemap.knowledge.node import Node
from cairn.text.words import FUNCTION_WORDS, singular

_WORD = re.compile(r"[a-z0-9]+")


def normalize_title(title: str) -> str:
    """A title as compared for sameness: lowercase words, function words dropped, plurals folded
    (`cairn.text.words`); links name their target by it, and memory/similar.py finds duplicates by it."""
    words = [singular(w) for w in _WORD.findall(title.lower()) if w not in FUNCTION_WORDS]
    return " ".join(words) or title.strip().lower()


def index_by_id(nodes: list[Node]) -> dict[str, Node]:
    out: dict[str, Node] = {}
    for node in nodes:
        out.setdefault(node.id, node)
    return out


def find(nodes: list[Node], ref: str, *, prefix: bool = True) -> Node | None:
    """A node by id, exact title, normalized title, or (with `prefix`) unique id prefix.

    Live nodes and the project's own are preferred when several share a title.
    """
    ref = (ref or "").strip()
    if not ref:
        return None
    by_id = index_by_id(nodes)
    if ref in by_id:
        return by_id[ref]
    for match in (
        lambda n: n.title.strip().lower() == ref.lower(),
        lambda n: normalize_title(n.title) == normalize_title(ref),
    ):
        hits = [n for n in nodes if match(n)]
        if hits:
            return sorted(hits, key=lambda n: (not n.is_live, n.origin != "project", n.id))[0]
    if not prefix:
        return None
    prefixed = [n for n in nodes if n.id.startswith(ref)]
    return prefixed[0] if len(prefixed) == 1 else None


def live_version(nodes: list[Node], node_id: str) -> Node | None:
    """Follow superseded_by from `node_id` to the node that replaced it last (A -> B -> C)."""
    by_id = index_by_id(nodes)
    node = by_id.get(node_id)
    seen: set[str] = set()
    while node is not None and node.superseded_by and node.id not in seen:
        seen.add(node.id)
        nxt = by_id.get(node.superseded_by)
        if nxt is None:
            break
        node = nxt
    return node


def supersede_chain(nodes: list[Node], node_id: str) -> list[str]:
    """Ids from the oldest ancestor through `node_id` to its live version, in order."""
    by_id = index_by_id(nodes)
    start = by_id.get(node_id)
    if start is None:
        return []
    back: list[str] = []
    node, seen = start, {start.id}
    while node.supersedes and node.supersedes in by_id and node.supersedes not in seen:
        node = by_id[node.supersedes]
        seen.add(node.id)
        back.append(node.id)
    chain = list(reversed(back)) + [start.id]
    node = start
    while node.superseded_by and node.superseded_by in by_id and node.superseded_by not in seen:
        node = by_id[node.superseded_by]
        seen.add(node.id)
        chain.append(node.id)
    return chain


def resolve_target(nodes: list[Node], target: str) -> Node | None:
    """The node a link target names (id or title), or None while it does not exist."""
    return find(nodes, target, prefix=False) if target else None  # "Checkout" must not hit checkout-retry-1a2b3c


def target_resolver(nodes: list[Node]) -> Callable[[str], Node | None]:
    """`resolve_target` for many targets over the same nodes: the maps are built once (a vault of
    thousands of notes with a few `[[links]]` each must not compare every title per link)."""
    by_id = index_by_id(nodes)
    by_title: dict[str, Node] = {}
    by_norm: dict[str, Node] = {}
    for n in sorted(nodes, key=lambda n: (not n.is_live, n.origin != "project", n.id)):
        by_title.setdefault(n.title.strip().lower(), n)
        by_norm.setdefault(normalize_title(n.title), n)

    def find_one(target: str) -> Node | None:
        t = (target or "").strip()
        if not t:
            return None
        return by_id.get(t) or by_title.get(t.lower()) or by_norm.get(normalize_title(t))

    return find_one


def resolve(nodes: list[Node]) -> None:
    """Resolve pending/title links to ids and complete one-sided supersede pairs, in place."""
    by_id = index_by_id(nodes)
    for node in nodes:
        for link in node.links:
            if link.target in by_id:
                link.pending = False
                continue
            hit = resolve_target(nodes, link.target)
            if hit is not None:
                link.target, link.pending = hit.id, False
            else:
                link.pending = True
    for node in nodes:
        old = by_id.get(node.supersedes or "")
        if old is not None and not old.superseded_by and old is not node:
            old.superseded_by = node.id
            if old.state == "active":
                old.status = "superseded"


def degree(nodes: list[Node]) -> dict[str, int]:
    """Links in + out per node id (resolved links only, `[[links]]` in the text included)."""
    by_id = index_by_id(nodes)
    out = {n.id: 0 for n in nodes}
    find_one = None
    for node in nodes:
        for link in node.links:
            if not link.pending and link.target in by_id and link.target != node.id:
                out[node.id] += 1
                out[link.target] += 1
        inline = node.inline_links
        if inline:
            find_one = find_one or target_resolver(nodes)
            for name in inline:
                hit = find_one(name)
                if hit is not None and hit.id != node.id and hit.id in out:
                    out[node.id] += 1
                    out[hit.id] += 1
    return out


def ranked(nodes: list[Node]) -> list[Node]:
    """Live team knowledge (not personal, not an agent's memory) in block order: pinned first, then by value
    (importance.py: type, recency, links): what memory-md lists first and the map's key decisions."""
    live = [n for n in nodes if n.is_live and n.origin not in ("personal", "agent")]
    deg = degree(nodes)
    idx = order([(n.id, n.type, n.updated or n.created, "pinned" in n.tags, deg.get(n.id, 0)) for n in live])
    return [live[i] for i in idx]
