"""`cairn explain TARGET`: everything the index knows about one file, symbol or knowledge node.

What it is (its description, the module's curated summary, definitions with signatures), who
uses it and what it uses (imports and references by name kept apart,
ranked by how often the names are used), the knowledge that cites it (stale or not), how
central it is (PageRank position, hub), and from the stored git history its recent commits and
the files that change with it. Read from the index only (plus the file's own head and the
symbol's lines, and one bounded `git log` for commit subjects); packed to a token budget the
way search is: long lists lose their tail first, every section keeps its first rows.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import defaultdict
from pathlib import Path

from cairn.search.targets import Target, symbol_rows

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

    from cairn.project import Project

DEFAULT_BUDGET = 1200
LIST_CAP = 15  # rows per list before the budget trims further
COMMITS = 5
HEAD_BYTES = 8192
BODY_LINES = 400  # lines of a symbol read to see what it uses
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COMMENT = re.compile(r"^\s*(?:#!?|//+|-{2,}|;+|/\*+|\*+/?|%)\s?")
_MODULEDOC = re.compile(r'@moduledoc\s+(?:~[sS])?"""\n?(.*?)(?:"""|$)', re.S)  # Elixir's module description
_HASH_IS_DIRECTIVE = frozenset({"c", "cpp", "objc", "csharp"})  # `#import`, `#if`: no comment there


def _read_head(root: Path, rel: str, limit: int = HEAD_BYTES) -> str:
    """The start of an indexed file, read only when it is a regular file inside the project."""
    from cairn.errors import CairnError
    from cairn.safepath import confine, regular_file

    try:
        real = regular_file(confine(rel, [root], relative_to=root))
        with open(real, "rb") as fh:
            return fh.read(limit).decode("utf-8", "replace")
    except (OSError, CairnError):
        return ""


# What a licence header says (MIT, Apache, BSD, GPL, MPL, SPDX), and a description about licences does not.
_LICENCE = re.compile(
    r"copyright|spdx-license|permission is hereby granted|all rights reserved|licen[cs]ed (?:to|under)"
    r"|public licen[cs]e|redistribution and use|\(c\)\s*\d{4}",
    re.I,
)
_BLOCK_ENDS = {"/*": "*/", "{-": "-}", "(*": "*)", "<!--": "-->"}


def _comment(line: str, lang: str | None) -> bool:
    """Whether `line` is a comment line in `lang`."""
    if lang in _HASH_IS_DIRECTIVE and line.lstrip().startswith("#"):
        return False
    return _COMMENT.match(line) is not None


def _comment_end(lines: list[str], i: int, lang: str | None) -> int:
    """The line after the comment that starts at line i (i itself when it is not a comment)."""
    head = lines[i].lstrip() if i < len(lines) else ""
    opener = next((o for o in _BLOCK_ENDS if head.startswith(o)), None)
    if opener:
        closer = _BLOCK_ENDS[opener]
        j = i
        while j < len(lines) and closer not in (lines[j].lstrip()[len(opener) :] if j == i else lines[j]):
            j += 1
        return min(j + 1, len(lines))
    j = i
    while j < len(lines) and lines[j].strip() and _comment(lines[j], lang) and not lines[j].lstrip().startswith("/*"):
        j += 1
    return j


_DOC_OPENERS = ("-- |", "/**", "///", "//!", "(**")  # a documentation comment, not a plain one


def _after_licence(lines: list[str], i: int, lang: str | None) -> int:
    """The first line after the licence comments at the top of a file (each a comment naming a
    copyright or licence: the whole MIT or Apache text, not only its lines that say so). In a
    documentation comment (a Haddock module header: Module, Copyright, License fields, then the
    text) the paragraph after the last one naming a licence is where the description starts."""
    while True:
        j = i
        while j < len(lines) and not lines[j].strip():
            j += 1
        end = _comment_end(lines, j, lang)
        if end == j or not _LICENCE.search("\n".join(lines[j:end])):
            return i
        if lines[j].lstrip().startswith(_DOC_OPENERS):
            paragraphs: list[list[int]] = [[]]
            for k in range(j, end):
                if _COMMENT.sub("", lines[k], count=1).strip(" |*"):
                    paragraphs[-1].append(k)
                elif paragraphs[-1]:
                    paragraphs.append([])
            paragraphs = [p for p in paragraphs if p]
            last = max(n for n, p in enumerate(paragraphs) if _LICENCE.search("\n".join(lines[k] for k in p)))
            if last + 1 < len(paragraphs):
                return paragraphs[last + 1][0]
        i = end


def describe(text: str, lang: str | None) -> str:
    """A file's own description: a Python docstring, the leading comment, or a document's first
    paragraph; its first paragraph, at most ~300 characters. A licence header is not one."""
    lines = text.replace("\r\n", "\n").split("\n")
    i = 0
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith(("#!", "{-#")) or "coding" in lines[i][:30]):
        i += 1  # a shebang, an encoding line, a Haskell pragma
    i = _after_licence(lines, i, lang)
    while i < len(lines) and not lines[i].strip():
        i += 1
    out: list[str] = []
    rest = "\n".join(lines[i:]).lstrip()
    if lang == "python" or rest[:3] in ('"""', "'''"):
        m = re.match(r'(?:[rRuU]?)("""|\'\'\')(.*?)(\1|$)', rest, re.S)
        if m:
            out = m.group(2).strip().split("\n\n")[0].split("\n")
    if not out and lang == "elixir":
        m = _MODULEDOC.search(text)
        if m:
            out = m.group(1).strip().split("\n\n")[0].split("\n")
    if not out and lang == "markdown":
        paras = [p for p in rest.split("\n\n") if p.strip() and not p.lstrip().startswith(("#", "---", "```", "<"))]
        out = paras[0].split("\n") if paras else []
    if not out:
        for line in lines[i:]:
            if not line.strip():
                if out:
                    break
                continue
            if not _comment(line, lang):
                break
            stripped = _COMMENT.sub("", line, count=1).strip()
            if lang == "haskell" and stripped.startswith(("|", "^")):  # Haddock's `-- |`
                stripped = stripped[1:].strip()
            for closer in _BLOCK_ENDS.values():
                stripped = stripped.removesuffix(closer).rstrip()
            if stripped.startswith("@"):  # a tag (`---@class LazyUtilCore`, `@module`): not prose
                continue
            if stripped:
                out.append(stripped)
            elif out:  # an empty comment line ends the first paragraph
                break
    desc = " ".join(s.strip() for s in out if s.strip())
    return desc if len(desc) <= 300 else desc[:297].rsplit(" ", 1)[0] + " ..."


# ------------------------------------------------------------------ graph neighbours


def defined_names(con: sqlite3.Connection, fid: int) -> set[str]:
    from cairn.codemap.model import short_name

    return {
        short_name(r[0])
        for r in con.execute("SELECT name FROM symbols WHERE file_id = ? AND kind != 'heading'", (fid,))
        if len(short_name(r[0])) > 1
    }


def uses_of(con: sqlite3.Connection, user: int, names: set[str]) -> dict[str, int]:
    """How often file `user` names each of `names`."""
    if not names:
        return {}
    return {n: c for n, c in con.execute("SELECT name, count FROM refs WHERE file_id = ?", (user,)) if n in names}


def _neighbour(path: str, uses: dict[str, int]) -> dict[str, Any]:
    """One row of a users/uses list: the file, how often the names occur, the most used names."""
    return {
        "path": path,
        "count": sum(uses.values()),
        "names": [n for n, _ in sorted(uses.items(), key=lambda kv: (-kv[1], kv[0]))[:4]],
    }


def file_neighbours(con: sqlite3.Connection, fid: int) -> tuple[dict[str, list], dict[str, list]]:
    """({imports, references}: who uses the file, the same: what it uses),
    each ranked by how often the names of the used file occur in the user, then by rank."""
    info = {
        r[0]: (r[1], r[2])
        for r in con.execute(
            "SELECT f.id, f.path, f.rank FROM files f WHERE f.id IN "
            "(SELECT src FROM edges WHERE dst = ? UNION SELECT dst FROM edges WHERE src = ?)",
            (fid, fid),
        )
    }
    mine = defined_names(con, fid)
    used_by: dict[str, list] = {"imports": [], "references": []}
    uses: dict[str, list] = {"imports": [], "references": []}
    # an import wins over a reference edge between the same two files (a Go package import and its names)
    edges_in = dict(
        con.execute(
            "SELECT src, MIN(kind) FROM edges WHERE dst = ? AND kind IN ('import', 'ref') GROUP BY src", (fid,)
        ).fetchall()
    )
    for src, kind in edges_in.items():
        # a name the user defines itself most likely means its own (String, ToProto, Hash...)
        used = uses_of(con, src, mine - defined_names(con, src))
        used_by["references" if kind == "ref" else "imports"].append(_neighbour(info[src][0], used))
    own = dict(con.execute("SELECT name, count FROM refs WHERE file_id = ?", (fid,)).fetchall())
    edges_out = dict(
        con.execute(
            "SELECT dst, MIN(kind) FROM edges WHERE src = ? AND kind IN ('import', 'ref') GROUP BY dst", (fid,)
        ).fetchall()
    )
    for dst, kind in edges_out.items():
        path = info[dst][0]
        theirs = defined_names(con, dst) - mine
        uses["references" if kind == "ref" else "imports"].append(
            _neighbour(path, {n: c for n, c in own.items() if n in theirs})
        )
    rank = dict(info.values())
    for lst in (*used_by.values(), *uses.values()):
        lst.sort(key=lambda d: (-d["count"], -rank.get(d["path"], 0.0), d["path"]))
    return used_by, uses


def symbol_users(con: sqlite3.Connection, name: str, defining: list[int]) -> dict[str, list]:
    """Files that name the symbol: those that import a file defining it apart from those that
    only share the name (a guess), most uses first; uses inside the defining files apart too."""
    from cairn.codemap.model import short_name

    short = short_name(name)
    importers = {
        r[0]
        for r in con.execute(
            f"SELECT src FROM edges WHERE kind = 'import' AND dst IN ({','.join('?' * len(defining))})", defining
        )
    }
    out: dict[str, list] = {"imports": [], "references": [], "inside": []}
    for fid, path, count, _rank in con.execute(
        "SELECT r.file_id, f.path, r.count, f.rank FROM refs r JOIN files f ON f.id = r.file_id WHERE r.name = ? "
        "ORDER BY r.count DESC, f.rank DESC, f.path LIMIT 500",
        (short,),
    ):
        group = "inside" if fid in defining else "imports" if fid in importers else "references"
        out[group].append({"path": path, "count": count})
    return out


def symbol_uses(con: sqlite3.Connection, root: Path, row: sqlite3.Row) -> list[dict[str, Any]]:
    """Definitions the symbol's own lines name: in its file or in a file its file depends on."""
    start, end = int(row["line"] or 1), int(row["end_line"] or row["line"] or 1)
    text = _read_head(root, row["path"], 1 << 20)
    body = "\n".join(text.split("\n")[start - 1 : min(end, start + BODY_LINES)])
    counts: dict[str, int] = defaultdict(int)
    for m in _IDENT.finditer(body):
        counts[m.group(0)] += 1
    counts.pop(row["name"].rsplit(".", 1)[-1], None)
    near = [row["file_id"]] + [
        r[0]
        for r in con.execute("SELECT dst FROM edges WHERE src = ? AND kind IN ('import', 'ref')", (row["file_id"],))
    ]
    found: dict[str, dict[str, Any]] = {}
    marks = ",".join("?" * len(near))
    for name, path, line, kind in con.execute(
        f"SELECT s.name, f.path, s.line, s.kind FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.file_id IN "
        f"({marks}) AND s.top_level = 1 AND s.kind != 'heading' ORDER BY f.id = ? DESC, f.rank DESC",
        (*near, near[0]),
    ):
        if name in counts and name not in found and len(name) > 1:
            found[name] = {"name": name, "kind": kind, "path": path, "line": line, "count": counts[name]}
    return sorted(found.values(), key=lambda d: (-d["count"], d["name"]))


# ------------------------------------------------------------------ knowledge, centrality, history


def knowledge_about(
    con: sqlite3.Connection, root: Path | None, file_ids: list[int], symbol: str | None = None
) -> list[dict[str, Any]]:
    """Knowledge nodes that cite one of the files (or name the symbol), live first, stale marked."""
    from cairn.search.knowledge import node_stale

    marks = ",".join("?" * len(file_ids))
    rows = {
        r[0]: r
        for r in con.execute(
            "SELECT n.file_id, n.id, n.type, n.status, n.state, n.title, n.origin, f.path, n.superseded_by "
            f"FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.file_id IN (SELECT src FROM edges WHERE kind = 'cites' "
            f"AND dst IN ({marks}))",
            file_ids,
        )
    }
    if symbol:
        for r in con.execute(
            "SELECT n.file_id, n.id, n.type, n.status, n.state, n.title, n.origin, f.path, "
            "n.superseded_by, n.data FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.data LIKE ?",
            (f"%{symbol}%",),
        ):
            if symbol in (json.loads(r[9] or "{}").get("symbols") or []):
                rows.setdefault(r[0], r[:9])
    out = []
    for r in rows.values():
        out.append(
            {
                "id": r[1],
                "type": r[2],
                "status": r[3],
                "state": r[4],
                "title": r[5],
                "path": r[7],
                "superseded_by": r[8],
                "stale": node_stale(con, root, r[7], r[6]) if r[4] == "active" else [],
            }
        )
    out.sort(key=lambda d: (d["state"] != "active", d["type"] not in ("decision", "gotcha", "bug"), d["title"]))
    return out


def centrality(con: sqlite3.Connection, fid: int) -> dict[str, Any]:
    r = con.execute("SELECT rank, is_hub, indegree, outdegree, kind FROM files WHERE id = ?", (fid,)).fetchone()
    n_code = con.execute("SELECT COUNT(*) FROM files WHERE kind = 'code'").fetchone()[0]
    pos = con.execute("SELECT COUNT(*) + 1 FROM files WHERE kind = 'code' AND rank > ?", (r[0],)).fetchone()[0]
    return {
        "pagerank": round(r[0] or 0.0, 6),
        "position": pos if r[4] == "code" else None,
        "of": n_code,
        "hub": bool(r[1]),
        "indegree": r[2],
        "outdegree": r[3],
    }


def history(con: sqlite3.Connection, root: Path | None, path: str) -> dict[str, Any]:
    """The path's newest commits (with subjects when git answers) and the files changing with it."""
    from cairn.codemap.history import cochange, subjects, together

    rows = con.execute(
        "SELECT c.sha, c.time FROM commit_files cf JOIN commits c ON c.id = cf.commit_id "
        "WHERE cf.path = ? ORDER BY c.id DESC LIMIT ?",
        (path, COMMITS),
    ).fetchall()
    if not rows:
        return {"commits": [], "total": 0, "changes_with": []}
    total = con.execute("SELECT COUNT(*) FROM commit_files WHERE path = ?", (path,)).fetchone()[0]
    subj = subjects(root, [r[0] for r in rows]) if root is not None else {}
    import datetime as dt

    commits = [
        {
            "sha": sha[:10],
            "date": dt.datetime.fromtimestamp(t or 0, dt.UTC).strftime("%Y-%m-%d"),
            "subject": subj.get(sha, ""),
        }
        for sha, t in rows
    ]
    present = {r[0] for r in con.execute("SELECT path FROM files")}
    scored = sorted(((p, s) for p, s in cochange(con, {path: 1.0}).items() if p in present), key=lambda kv: -kv[1])
    found: list[tuple[int, float, str, int]] = []
    for other, score in scored[: LIST_CAP * 2]:
        n, m = together(con, path, other)
        if n >= 2:
            found.append((n, score, other, m))
    found.sort(key=lambda t: (-t[0], -t[1], t[2]))
    changes = [{"path": p, "together": n, "of": m, "score": round(s, 4)} for n, s, p, m in found[:LIST_CAP]]
    return {"commits": commits, "total": total, "changes_with": changes}


# ------------------------------------------------------------------ assemble


def explain(con: sqlite3.Connection, project: Project, target: Target) -> dict[str, Any]:
    """The whole explanation of a resolved target, lists capped at LIST_CAP (see `pack`)."""
    from cairn.codemap.maps import key_symbols
    from cairn.codemap.summaries import get_summary

    root = project.root
    con.row_factory = sqlite3.Row
    out: dict[str, Any] = {"target": {"kind": target.kind, "name": target.name}}
    fid = target.file_ids[0]
    frow = con.execute("SELECT path, lang, kind, lines, module, role FROM files WHERE id = ?", (fid,)).fetchone()
    out["file"] = {
        "path": frow["path"],
        "lang": frow["lang"],
        "kind": frow["kind"],
        "lines": frow["lines"],
        "module": frow["module"],
    }
    if target.kind == "file":
        out["description"] = describe(_read_head(root, frow["path"]), frow["lang"]) if root else ""
        out["module_summary"] = get_summary(project, frow["module"]) if frow["module"] else ""
        out["definitions"] = [
            {
                "name": s["name"],
                "kind": s["kind"],
                "line": s["line"],
                "signature": (s["signature"] or s["name"]).split("\n")[0][:160],
            }
            for s in key_symbols(con, fid, 40)
        ]
        n_defs = con.execute(
            "SELECT COUNT(*) FROM symbols WHERE file_id = ? AND top_level = 1 AND kind != 'heading'", (fid,)
        ).fetchone()[0]
        used_by, uses = file_neighbours(con, fid)
        out["used_by"] = {k: v[:LIST_CAP] for k, v in used_by.items()}
        out["uses"] = {k: v[:LIST_CAP] for k, v in uses.items()}
        out["totals"] = {
            "used_by": {k: len(v) for k, v in used_by.items()},
            "uses": {k: len(v) for k, v in uses.items()},
            "definitions": n_defs,
        }
        out["knowledge"] = knowledge_about(con, root, [fid])[:LIST_CAP]
    elif target.kind == "symbol":
        rows = symbol_rows(con, target.name)
        rows = [r for r in rows if r["file_id"] in target.file_ids] or rows
        out["definitions"] = [
            {
                "name": r["name"],
                "kind": r["kind"],
                "path": r["path"],
                "line": r["line"],
                "end_line": r["end_line"],
                "parent": r["parent"],
                "signature": (r["signature"] or r["name"]).split("\n")[0][:160],
            }
            for r in rows
        ]
        out["target"]["defined_in"] = len(rows)
        users = symbol_users(con, target.name, target.file_ids)
        out["used_by"] = {k: v[:LIST_CAP] for k, v in users.items()}
        out["totals"] = {"used_by": {k: len(v) for k, v in users.items()}}
        out["uses"] = {"names": symbol_uses(con, root, rows[0])[:LIST_CAP] if root else []}
        out["knowledge"] = knowledge_about(con, root, target.file_ids, target.name)[:LIST_CAP]
    else:
        node = con.execute(
            "SELECT n.id, n.type, n.status, n.state, n.title, n.origin, n.superseded_by, n.data "
            "FROM nodes n WHERE n.file_id = ?",
            (fid,),
        ).fetchone()
        from cairn.search.knowledge import live_id, node_stale

        data = json.loads(node["data"] or "{}")
        out["node"] = {
            "id": node["id"],
            "type": node["type"],
            "status": node["status"],
            "state": node["state"],
            "title": node["title"],
            "origin": node["origin"],
            "superseded_by": node["superseded_by"],
            "live": live_id(con, node["superseded_by"]) if node["superseded_by"] else None,
            "files": data.get("files", []),
            "symbols": data.get("symbols", []),
            "stale": node_stale(con, root, frow["path"], node["origin"]) if node["state"] == "active" else [],
        }
        out["description"] = _node_gist(root, frow["path"]) if root else ""
        out["links"] = {"to": _node_links(con, "src", fid), "from": _node_links(con, "dst", fid)}
    out["centrality"] = centrality(con, fid)
    out["history"] = history(con, root, frow["path"])
    return out


def _node_links(con: sqlite3.Connection, side: str, fid: int) -> list[dict[str, Any]]:
    other = "dst" if side == "src" else "src"
    return [
        {"id": r[0], "title": r[1], "status": r[2]}
        for r in con.execute(
            f"SELECT n.id, n.title, n.status FROM edges e JOIN nodes n ON n.file_id = e.{other} "
            f"WHERE e.{side} = ? AND e.kind = 'link' ORDER BY n.title LIMIT ?",
            (fid, LIST_CAP),
        )
    ]


def _node_gist(root: Path, rel: str) -> str:
    """A note's first body paragraph (the title and front matter left out)."""
    from cairn.text.frontmatter import split_front_matter

    _, rest = split_front_matter(_read_head(root, rel))
    paras = [p.strip() for p in (rest or "").split("\n\n") if p.strip() and not p.lstrip().startswith("#")]
    gist = " ".join(paras[0].split()) if paras else ""
    return gist if len(gist) <= 400 else gist[:397].rsplit(" ", 1)[0] + " ..."
