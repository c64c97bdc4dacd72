"""`cairn explain` and `cairn path` across the workspace: a target in any member, and the imports between members.

A target is looked up in the project the command runs in first, then in the other members in
order (or in one named member: `chi:mux.go`, `cc-backend:main`). Its explanation is the single
project's (search/service.explain), labelled, followed by the cross-repository edges that start
or end at it (edges.py). A path from a file of one member to a file of another is the project's
own shortest chain to a file that imports the other member, the import that crosses, then the
other project's chain to the goal (search/service.dependency_path on each side).
"""

from __future__ import annotations

from cairn.errors import CairnError
from cairn.search.service import dependency_path
from cairn.search.service import explain as explain_one
from cairn.text.budget import estimate_tokens
from cairn.workspace.edges import Edge, cross_edges, touching
from cairn.workspace.members import Member, Workspace

TYPE_CHECKING = False  # not typing's: importing typing costs every command ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

SHOWN = 8  # cross-repository edges listed per direction (the total is said)


def split(ws: Workspace, target: str) -> tuple[Member | None, str]:
    """(the member a `name:rest` target names, rest), or (None, target) when it names none."""
    name, sep, rest = target.partition(":")
    member = ws.named(name) if sep and rest else None
    return (member, rest) if member is not None else (None, target)


def _candidates(ws: Workspace, member: Member | None) -> list[Member]:
    if member is not None:
        if member.state != "ok":
            raise CairnError(
                f"workspace member {member.name} cannot answer ({member.state}): see `cairn workspace list`"
            )
        return [member]
    rest = [m for m in ws.answering if m is not ws.home]
    return ([ws.home] if ws.home is not None and ws.home.state == "ok" else []) + rest


def locate(ws: Workspace, target: str, fn: Any) -> tuple[Member, Any]:
    """(the member where `fn(member, rest)` first answers, its answer): the home project first."""
    member, rest = split(ws, target)
    first: CairnError | None = None
    for m in _candidates(ws, member):
        try:
            return m, fn(m, rest)
        except CairnError as exc:
            first = first or exc
    raise first or CairnError(f"{target}: not found in any workspace member")


def _edge_line(e: Edge, into: bool) -> str:
    where = f"{e.src}:{e.src_path}:{e.line}" if into else f"{e.dst}:{e.dst_path}"
    return f"  {where}  ({e.kind} {e.via})"


def _section(edges: list[Edge], member: str, paths: list[str]) -> tuple[dict, str]:
    outs: list[Edge] = []
    ins: list[Edge] = []
    for p in paths:
        o, i = touching(edges, member, p)
        outs += o
        ins += i
    data: dict[str, Any] = {
        "used_by": [e.as_json() for e in ins[:SHOWN]],
        "uses": [e.as_json() for e in outs[:SHOWN]],
        "totals": {"used_by": len(ins), "uses": len(outs)},
    }
    lines = []
    for title, lst, into in (("used by other projects", ins, True), ("uses other projects", outs, False)):
        if lst:
            more = f" ({len(lst)}, first {SHOWN})" if len(lst) > SHOWN else f" ({len(lst)})"
            lines.append(f"{title}{more}:")
            lines += [_edge_line(e, into) for e in lst[:SHOWN]]
    return data, ("\n".join(["", "## across the workspace", *lines]) + "\n") if lines else ""


def explain(ws: Workspace, target: str, *, budget: int, refresh: bool) -> tuple[dict, str, int]:
    """(explanation, text, tokens) of a target found in the workspace, with its cross-repository edges."""
    rest = split(ws, target)[1]
    if budget < 1:
        raise CairnError("budget must be a positive number of tokens")

    def one(m: Member, text: str) -> tuple[dict, str, int]:
        assert m.project is not None
        return explain_one(m.project, text, budget=budget, refresh=refresh and m is ws.home)

    found, (data, text, _) = locate(ws, target, one)
    paths = [data["file"]["path"]] if data.get("file") and data["target"]["kind"] == "file" else []
    paths += [d["path"] for d in data.get("definitions", []) if isinstance(d, dict) and d.get("path")]
    extra, more = _section(cross_edges(ws), found.name, list(dict.fromkeys(paths)))
    if more and estimate_tokens(text + more) > budget:  # the project's own answer first: trim it to make room
        assert found.project is not None
        room = max(100, budget - estimate_tokens(more))
        data, text, _ = explain_one(found.project, rest, budget=room, refresh=False)
    head = f"[{found.name}]\n"
    data = {**data, "project": found.name, "workspace": extra}
    out = head + text + more
    return data, out, estimate_tokens(out)


def _leg(m: Member, a: str, b: str) -> dict | None:
    """The shortest chain inside one member from `a` to `b` (file paths); None when there is none."""
    assert m.project is not None
    if a == b:
        return {"paths": [[{"path": a}]], "direction": "forward"}
    try:
        res, _ = dependency_path(m.project, a, b, refresh=False)
    except CairnError:
        return None
    return res if res.get("direction") == "forward" and res.get("paths") else None


def _best_bridge(ws: Workspace, ma: Member, a: str, mb: Member, b: str) -> tuple[list[str], Edge] | None:
    """The shortest chain a -> (an import into mb) -> b as labelled hops, with the crossing edge."""
    best: tuple[int, list[str], Edge] | None = None
    tried: set[tuple[str, str]] = set()
    for e in cross_edges(ws):
        if e.src != ma.name or e.dst != mb.name or (e.src_path, e.dst_path) in tried or len(tried) >= 40:
            continue
        tried.add((e.src_path, e.dst_path))
        first, second = _leg(ma, a, e.src_path), _leg(mb, e.dst_path, b)
        if first is None or second is None:
            continue
        left = [f"{ma.name}:{s['path']}" for s in first["paths"][0]]
        right = [f"{mb.name}:{s['path']}" for s in second["paths"][0]]
        hops = [*left, f"  ={e.kind} {e.via}=> {right[0]}", *right[1:]]
        if best is None or len(hops) < best[0]:
            best = (len(hops), hops, e)
    return (best[1], best[2]) if best else None


def path(ws: Workspace, a: str, b: str) -> tuple[dict, str]:
    """(answer, text) of `cairn path A B` in a workspace: within one member as for a project, across two by their imports."""

    def resolve(m: Member, text: str) -> str:
        assert m.project is not None
        res, _ = dependency_path(m.project, text, text, refresh=False)
        return str(res["from"]["files"][0])

    ma, pa = locate(ws, a, resolve)
    mb, pb = locate(ws, b, resolve)
    if ma is mb:
        assert ma.project is not None
        within, text = dependency_path(ma.project, split(ws, a)[1], split(ws, b)[1], refresh=ma is ws.home)
        return {**within, "project": ma.name}, f"[{ma.name}]\n{text}"
    res: dict = {"from": f"{ma.name}:{pa}", "to": f"{mb.name}:{pb}", "direction": None, "paths": [], "reason": ""}
    for direction, (m1, p1, m2, p2) in (("forward", (ma, pa, mb, pb)), ("reverse", (mb, pb, ma, pa))):
        found = _best_bridge(ws, m1, p1, m2, p2)
        if found is not None:
            hops, edge = found
            res.update(direction=direction, paths=[hops], crossing=edge.as_json())
            if direction == "reverse":
                res["reason"] = f"{res['from']} does not depend on {res['to']}; {res['to']} depends on {res['from']}"
            break
    else:
        kinds = {(e.src, e.dst) for e in cross_edges(ws)}
        links = "imports" if (ma.name, mb.name) in kinds or (mb.name, ma.name) in kinds else "no import"
        res["reason"] = (
            f"no dependency path between {res['from']} and {res['to']} through the imports from {ma.name} "
            f"to {mb.name} ({links} between the two projects)"
        )
    lines = [res["reason"]] if res["reason"] else []
    for hops in res["paths"]:
        n = len(hops) - 1
        lines.append(f"shortest path from {hops[0]} across the workspace: {n} step{'s' if n != 1 else ''}")
        lines += [hops[0], *[h if h.startswith("  =") else f"   --> {h}" for h in hops[1:]]]
    return res, "\n".join(lines) + "\n"
