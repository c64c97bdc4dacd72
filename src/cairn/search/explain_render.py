"""Render an explanation (search/explain.py) as compact text, packed to a token budget.

Every list says how many rows it has in all; when the budget is short the longest list loses its
tail first (each keeps its first rows), then whole sections go, least useful first, so the
answer is never over the budget and never silently incomplete.
"""

from __future__ import annotations

from cairn.text.budget import estimate_tokens

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

# (title, where the list is: path of keys into the explanation, how one row reads)
_USER = ("used_by",)


def _nb(d: dict[str, Any]) -> str:
    names = ", ".join(d.get("names") or [])
    return f"{d['path']}" + (f"  x{d['count']}" if d.get("count") else "") + (f": {names}" if names else "")


def _defn(d: dict[str, Any]) -> str:
    where = f"{d['path']}:" if d.get("path") else ""
    return f"{where}L{d['line']} {d['signature']}"


def _know(d: dict[str, Any]) -> str:
    state = d["status"] + (f", superseded by {d['superseded_by']}" if d.get("superseded_by") else "")
    stale = f"; STALE, changed since: {', '.join(d['stale'][:3])}" if d.get("stale") else ""
    return f"{d['type']}: {d['title']}  [{d['id']}, {state}{stale}]"


SECTIONS: list[tuple[str, tuple[str, ...], Callable[[dict[str, Any]], str]]] = [
    ("Definitions", ("definitions",), _defn),
    ("Used by, importing it", ("used_by", "imports"), _nb),
    ("Used by, naming it without an import (a guess)", ("used_by", "references"), _nb),
    ("Uses inside its own file", ("used_by", "inside"), _nb),
    ("Uses, imports", ("uses", "imports"), _nb),
    ("Uses, by name without an import (a guess)", ("uses", "references"), _nb),
    ("Uses these definitions", ("uses", "names"), lambda d: f"{d['name']}  x{d['count']}  ({d['path']}:L{d['line']})"),
    ("Knowledge citing it", ("knowledge",), _know),
    ("Links to", ("links", "to"), lambda d: f"{d['title']}  [{d['id']}, {d['status']}]"),
    ("Linked from", ("links", "from"), lambda d: f"{d['title']}  [{d['id']}, {d['status']}]"),
    ("Recent commits", ("history", "commits"), lambda d: f"{d['sha']} {d['date']}  {d['subject'][:100]}".rstrip()),
    (
        "Changes together with",
        ("history", "changes_with"),
        lambda d: f"{d['path']}  (in {d['together']} of its last {d['of']} commits)",
    ),
]
DROP_ORDER = (
    "Uses inside its own file",
    "Recent commits",
    "Uses, by name without an import (a guess)",
    "Used by, naming it without an import (a guess)",
    "Changes together with",
    "Linked from",
    "Links to",
    "Uses these definitions",
    "Uses, imports",
    "Used by, importing it",
    "Definitions",
    "Knowledge citing it",
)


def _get(data: dict[str, Any], keys: tuple[str, ...]) -> list | None:
    cur: Any = data
    for k in keys:
        if not isinstance(cur, dict) or k not in cur:
            return None
        cur = cur[k]
    return cur if isinstance(cur, list) else None


def _total(data: dict[str, Any], keys: tuple[str, ...], shown: int) -> int:
    totals = data.get("totals") or {}
    if keys[0] in totals and len(keys) == 2:
        return int(totals[keys[0]].get(keys[1], shown))
    if len(keys) == 1 and isinstance(totals.get(keys[0]), int):
        return max(int(totals[keys[0]]), shown)
    if keys == ("history", "commits"):
        return int(data.get("history", {}).get("total", shown))
    return shown


def _head(data: dict[str, Any]) -> list[str]:
    t, f = data["target"], data["file"]
    where = ", ".join(
        x
        for x in (
            f.get("lang"),
            f"{f['lines']} lines" if f.get("lines") else "",
            f"module {f['module']}" if f.get("module") else "",
        )
        if x
    )
    if t["kind"] == "node":
        n = data["node"]
        lines = [f"{n['type']}: {n['title']}  [{n['id']}, {n['status']}, {n['origin']}]  {f['path']}"]
        if n.get("superseded_by"):
            lines.append(
                f"superseded by {n['superseded_by']}"
                + (f" (live: {n['live']})" if n.get("live") and n["live"] != n["superseded_by"] else "")
            )
        if n.get("files"):
            lines.append("cites: " + ", ".join(n["files"][:8]))
        if n.get("symbols"):
            lines.append("symbols: " + ", ".join(n["symbols"][:8]))
        if n.get("stale"):
            lines.append("STALE: changed since this note: " + ", ".join(n["stale"][:5]))
    elif t["kind"] == "symbol":
        n_def = int(t.get("defined_in") or len(data.get("definitions") or []))
        lines = [
            f"symbol {t['name']}: defined in {n_def} place{'s' if n_def != 1 else ''} (first: {f['path']}, {where})"
        ]
    else:
        lines = [f"{f['path']}  [{where}]"]
    if data.get("description"):
        lines.append("  " + data["description"])
    if data.get("module_summary"):
        lines.append("module summary: " + " ".join(data["module_summary"].split())[:400])
    c = data.get("centrality")
    if c:
        pos = f"#{c['position']} of {c['of']} code files" if c.get("position") else "not a code file"
        lines.append(
            f"centrality of {f['path']}: PageRank {pos} ({c['pagerank']:.4f})"
            + (", a hub" if c.get("hub") else "")
            + f"; {c['indegree']} files point to it, it points to"
            f" {c['outdegree']}"
        )
    return lines


def render(data: dict[str, Any]) -> str:
    lines = _head(data)
    for title, keys, row in SECTIONS:
        items = _get(data, keys)
        if not items:
            continue
        total = _total(data, keys, len(items))
        lines += ["", f"{title} ({total}):"] + [f"  {row(d)}" for d in items]
        if total > len(items):
            lines.append(f"  ... {total - len(items)} more")
    if data.get("left_out"):
        lines += ["", "(left out for the budget: " + ", ".join(data["left_out"]) + ")"]
    return "\n".join(lines) + "\n"


def pack(data: dict[str, Any], budget: int | None) -> tuple[dict[str, Any], str, int]:
    """(the explanation trimmed to `budget` tokens, its text, the text's tokens). Trims in place."""
    for _, keys, _ in SECTIONS:  # totals first, so a trimmed list still says how long it was
        items = _get(data, keys)
        if items is not None and keys[0] in ("used_by", "uses") and len(keys) == 2:
            data.setdefault("totals", {}).setdefault(keys[0], {}).setdefault(keys[1], len(items))
    text = render(data)
    if budget is None:
        return data, text, estimate_tokens(text)
    lists = [(title, lst) for title, keys, _ in SECTIONS if (lst := _get(data, keys))]
    for keep in (3, 1):
        while estimate_tokens(text) > budget:
            title, longest = max(lists, key=lambda tl: len(tl[1]))
            if len(longest) <= keep:
                break
            longest.pop()
            text = render(data)
    by_title = dict(lists)
    keys_of = {title: ".".join(keys) for title, keys, _ in SECTIONS}
    for title in DROP_ORDER:
        if estimate_tokens(text) <= budget:
            break
        if by_title.get(title):
            by_title[title].clear()
            data.setdefault("left_out", []).append(keys_of[title])
            text = render(data)
    for key in ("module_summary", "description", "centrality"):
        if estimate_tokens(text) > budget and data.get(key):
            data[key] = "" if key != "centrality" else None
            data.setdefault("left_out", []).append(key)
            text = render(data)
    while estimate_tokens(text) > budget and "\n" in text.rstrip("\n"):  # the budget is a cap: last lines go
        text = text.rstrip("\n").rsplit("\n", 1)[0] + "\n"
    return data, text, estimate_tokens(text)
