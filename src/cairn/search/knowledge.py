"""Knowledge hits: decisions, bugs, gotchas and concepts ranked beside the code.

Project nodes and decision records live in the index as files with a `nodes` row, so they go
through the same channels as code (text, names, graph walk) and are only separated here, where
the record channel (records.py: the records ranked among themselves) weighs most. A record kept as
a folder of parts is one hit (its best part); a superseded node ranks right under the node that
replaced it and says so; `arrange` builds the default list by evidence. The personal vault
(preferences for every project) is outside any repository; its few notes are scored at query time
with the same term weights. Nodes whose cited code changed since they were written say so (`stale`).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from cairn.search.index_cache import for_index
from cairn.search.intent import asks_question, names_record, wants_change, wants_reason
from cairn.search.query import Query
from cairn.search.ranking import DEFAULT_RANKING, Ranking
from cairn.search.ranking import Knowledge as Weights
from cairn.search.records import evidence, record_scores
from cairn.util.fuse import RRF_K, ranked

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.search.engine import Hit


def is_why_question(text: str) -> bool:
    return wants_reason(text)


def node_file_ids(con: sqlite3.Connection) -> set[int]:
    """The files that are knowledge nodes (memoized per index state: callers only read it)."""
    return for_index(con).value(
        "node_ids", lambda: {r[0] for r in con.execute("SELECT file_id FROM nodes")}, graph_only=True
    )


def live_id(con: sqlite3.Connection, node_id: str | None) -> str | None:
    """Follow superseded_by to the live node id (cycle-safe)."""
    seen: set[str] = set()
    cur = node_id
    while cur and cur not in seen:
        seen.add(cur)
        row = con.execute("SELECT superseded_by FROM nodes WHERE id = ?", (cur,)).fetchone()
        if row is None or not row[0]:
            return cur
        cur = row[0]
    return cur


def node_stale(con: sqlite3.Connection, root: Path | None, path: str, origin: str) -> list[str]:
    """The cited files of the project note at `path` whose cited code changed since it was written."""
    if root is None or origin != "project":
        return []
    try:
        from cairn.codemap.knowledge.node import parse
        from cairn.memory import stale_files
        from cairn.memory.staleness import symbols_from_index

        node = parse((root / path).read_text(encoding="utf-8"), path)
        return stale_files(node, root, symbols_from_index(con, root))
    except Exception:  # a malformed note is reported by `cairn memory doctor`, not here
        return []


def _node_rows(con: sqlite3.Connection) -> dict[int, sqlite3.Row]:
    return for_index(con).value(
        "node_rows",
        lambda: {
            r["file_id"]: r
            for r in con.execute(
                "SELECT n.file_id, n.id, n.type, n.status, n.state, n.title, n.origin, n.superseded_by, n.data, f.path "
                "FROM nodes n CROSS JOIN files f ON f.id = n.file_id"
            )
        },  # nodes first: a few, not every file's path
        graph_only=True,
    )  # rewritten by the full graph build only


def _meta(r: sqlite3.Row, data: dict, live: str | None) -> dict:
    """What a knowledge hit says of its node (its JSON fields)."""
    return {
        "id": r["id"],
        "type": r["type"],
        "status": r["status"],
        "title": r["title"],
        "origin": r["origin"],
        "files": data.get("files", []),
        "symbols": data.get("symbols", []),
        "superseded_by": r["superseded_by"],
        "live": live,
        "stale": [],
    }


def knowledge_scores(
    con: sqlite3.Connection,
    q: Query,
    fused: dict[int, float],
    rows: dict,
    weights: Weights = DEFAULT_RANKING.knowledge,
    k: int = RRF_K,
) -> tuple[dict[int, float], dict[int, list[str]]]:
    """Node file -> score: its place in the fused ranking of every file plus, as one more list of the
    fusion, its place in the record channel (records.py: the records ranked among themselves); and
    node file -> the request's words the record channel found in it."""
    scores: dict[int, float] = {}
    words: dict[int, list[str]] = {}
    if weights.record_channel:
        channel, words = record_scores(con, q, weights)
        for rank, fid in enumerate(ranked({f: s for f, s in channel.items() if f in rows})):
            scores[fid] = weights.record_channel / (k + rank + 1)
    for f, s in fused.items():
        if f in rows:  # a node the record channel did not place (no request word: a paraphrase) by the fused ranking
            scores[f] = scores.get(f, 0.0) + s * (
                weights.record_fused if f in scores else weights.record_fused_unplaced
            )
    return scores, words


def project_knowledge_hits(
    con: sqlite3.Connection,
    q: Query,
    fused: dict[int, float],
    root: Path | None,
    file_terms: dict[int, list[str]],
    name_reasons: dict,
    limit: int,
    weights: Weights = DEFAULT_RANKING.knowledge,
    k: int = RRF_K,
) -> list[Hit]:
    """Knowledge Hits for the request (node files only): a why-question's decision and bug records
    count `why_factor` more; a superseded node ranks right under the live node that replaced it
    (successors_first), or, with no such node, counts `superseded_factor`. A record kept as a folder
    of parts is one hit, its best part (the others are named in its reasons)."""
    from cairn.search.engine import Hit

    rows = _node_rows(con)
    why_q = is_why_question(q.text)
    scored, words = knowledge_scores(con, q, fused, rows, weights, k)
    known = for_index(con).value("node_id_set", lambda: {r["id"] for r in rows.values()}, graph_only=True)
    hits: list[Hit] = []
    parts: dict[str, Hit] = {}  # a record folder -> the hit of its best part
    for fid in ranked(scored):
        r = rows[fid]
        score = scored[fid]
        data = json.loads(r["data"] or "{}")
        record = data.get("record")
        if record and record in parts:
            best = parts[record]
            if best.meta is not None:
                best.meta["parts"].append(r["path"])
            continue
        why = []
        for _kind, name, _ in name_reasons.get(fid, [])[:2]:
            why.append(f"named in the request: {name}")
        matched = words.get(fid) or file_terms.get(fid, [])
        if matched:
            why.append("matches " + ", ".join(sorted(set(matched))[:4]))
        if why_q and r["type"] in ("decision", "bug"):
            score *= weights.why_factor
            why.append(f"a {r['type']} record for a why-question")
        live = None
        if r["state"] == "superseded":
            live = live_id(con, r["superseded_by"])
            if not live or live == r["id"] or live not in known:  # no successor to rank it under: it goes last
                score *= weights.superseded_factor
            why.append(
                f"superseded by {r['superseded_by']}"
                + (f" (live: {live})" if live and live != r["superseded_by"] else "")
                if r["superseded_by"]
                else "superseded"
            )
        if not why:
            why.append("linked to the best matches")
        meta = _meta(r, data, live)
        hit = Hit(fid, r["path"], score, "knowledge", symbols=list(data.get("symbols", [])), why=why, meta=meta)
        if record:
            meta["record"], meta["parts"] = record, []
            parts[record] = hit
        hits.append(hit)
        if len(hits) >= limit * 3:
            break
    for hit in parts.values():
        if hit.meta and hit.meta["parts"]:
            hit.why.append(f"the best-matching part of {hit.meta['record']} ({len(hit.meta['parts']) + 1} parts)")
    hits.sort(key=lambda h: (-h.score, h.path))
    return successors_first(con, hits, rows)


def successors_first(con: sqlite3.Connection, hits: list[Hit], rows: dict) -> list[Hit]:
    """Each superseded hit right under the live record that replaced it: moved below it when the
    successor ranks lower, and the successor brought in when it did not match (the request matched
    what it replaced). Scores follow the order, so a later merge by score keeps it."""
    from cairn.search.engine import Hit

    by_id = {h.meta["id"]: h for h in hits if h.meta}
    by_node = {r["id"]: (fid, r) for fid, r in rows.items()}
    out: list[Hit] = []
    placed: set[int] = set()
    for h in hits:
        if h.file_id in placed:
            continue
        meta = h.meta or {}
        live = (meta.get("live") or meta.get("superseded_by")) if meta.get("superseded_by") else None
        if live and live in by_node and live != meta.get("id"):
            succ = by_id.get(live)
            if succ is None:
                fid, r = by_node[live]
                data = json.loads(r["data"] or "{}")
                succ = by_id[live] = Hit(
                    fid,
                    r["path"],
                    h.score,
                    "knowledge",
                    symbols=list(data.get("symbols", [])),
                    why=[f"replaces {meta.get('id')}, which matches the request"],
                    meta=_meta(r, data, None),
                )
            if succ.file_id not in placed:
                succ.score = max(succ.score, h.score)
                out.append(succ)
                placed.add(succ.file_id)
            h.score = min(h.score, succ.score * 0.999)  # strictly under it: a later sort by score keeps the order
        out.append(h)
        placed.add(h.file_id)
    for i in range(1, len(out)):  # scores never rise down the list
        out[i].score = min(out[i].score, out[i - 1].score)
    return out


def _agent_folder(con: sqlite3.Connection | None) -> Path | None:
    """The agents' memories imported for the project whose index `con` is (agents/native_memory.py)."""
    if con is None:
        return None
    from cairn.home import agent_memory_dir

    row = con.execute("PRAGMA database_list").fetchone()
    return agent_memory_dir(Path(row[2]).parent.name) if row and row[2] else None


def personal_hits(
    q: Query,
    limit: int,
    rrf_k: int = RRF_K,
    r: Weights = DEFAULT_RANKING.knowledge,
    index: sqlite3.Connection | None = None,
) -> list[Hit]:
    """Notes of the personal vault, and the agents' memories the project of `index` imported, that
    match the request (scored in memory, same term weights: both are one person's notes)."""
    from cairn.home import personal_vault_dir

    vault, agents = personal_vault_dir(), _agent_folder(index)
    folders = [(d, o) for d, o in ((vault, "personal"), (agents, "agent")) if d is not None and d.is_dir()]
    if not q.terms or not any(any(d.glob("*.md")) for d, _ in folders):
        return []  # the common case: no personal notes, and no YAML import on the request path
    from cairn.codemap.schema import FTS_TOKENIZER
    from cairn.search.engine import Hit
    from cairn.search.text import weighted_bm25
    from cairn.text.tokens import expand_identifiers

    try:
        from cairn.codemap.knowledge.vault_read import VaultReader

        nodes = [n for d, o in folders for n in VaultReader(d, origin=o, root=None).load(resolve_links=False).nodes]
    except Exception:
        return []
    if not nodes:
        return []
    mem = sqlite3.connect(":memory:")
    mem.execute(f"CREATE VIRTUAL TABLE p USING fts5(path, names, body, tokenize='{FTS_TOKENIZER}')")
    mem.executemany(
        "INSERT INTO p(rowid, path, names, body) VALUES(?,?,?,?)",
        [(i, "", expand_identifiers(n.title), expand_identifiers(n.body)) for i, n in enumerate(nodes)],
    )
    # Weights from the project's code would silence words the code never uses ("tabs", "commit
    # message"): personal notes are about the person, so every request word counts here.
    from cairn.search.query import Term

    terms = [
        Term(
            t.text,
            t.df,
            max(t.weight, r.personal_min_expansion if t.expansion else r.personal_min_weight),
            t.identifier,
            t.expansion,
        )
        for t in q.terms
    ]
    scores, matched = weighted_bm25(mem, "p", r.personal_columns, terms)
    mem.close()
    hits = []
    for rank, i in enumerate(ranked(scores)[:limit], 1):
        n = nodes[i]
        meta = {
            "id": n.id,
            "type": n.type,
            "status": n.status,
            "title": n.title,
            "origin": n.origin,
            "files": list(n.files),
            "symbols": list(n.symbols),
            "superseded_by": n.superseded_by,
            "live": None,
            "stale": [],
        }
        score = 1.0 / (rrf_k + rank) * (r.superseded_factor if n.state == "superseded" else 1.0)
        words = ", ".join(sorted(set(matched.get(i, [])))[:4])
        source = n.extra.get("source") if n.origin == "agent" else None
        why = [
            f"from {n.extra.get('from', 'an agent memory')} ({source}); matches {words}"
            if source
            else f"personal note; matches {words}"
        ]
        hits.append(Hit(-1 - i, str(n.path), score, "knowledge", why=why, meta=meta))
    return hits


def finish(hits: list, root: Path | None, con: sqlite3.Connection) -> None:
    """Staleness for the hits actually returned (reads only their files; symbol-precise through
    the index `con`)."""
    for h in hits:
        if h.kind == "knowledge" and h.meta is not None:
            h.meta["stale"] = node_stale(con, root, h.path, h.meta.get("origin", ""))
            if h.meta["stale"]:
                h.why.append("changed since this note: " + ", ".join(h.meta["stale"][:3]))


def arrange(
    con: sqlite3.Connection, q: Query, code: list[Hit], know: list[Hit], limit: int, ranking: Ranking = DEFAULT_RANKING
) -> list[Hit]:
    """The default (`auto`) list, decided by evidence (records.evidence), not by the request's first word:
    the best record first when it answers the request strongly (it says why; the next record then goes
    at `runner_up_place` unless the request is a code task), second when it is a close match; otherwise
    code first. A why-question's other places
    interleave code and knowledge by score; any other request's, code first."""
    why_q = is_why_question(q.text)
    if not know or not code:
        return (code or know)[:limit]
    best = know[0]
    named = names_record(q.text)
    task = wants_change(q.text) and not named
    r = ranking.knowledge
    ev = evidence(con, q, best.file_id, [h.file_id for h in code], node_file_ids(con), why_q, task, r, ranking.text)
    placed: dict[int, Hit] = {}
    asking = named or asks_question(q.text)
    if ev.place:
        best.why.insert(0, ("first: " if ev.place == 1 else "second: ") + ev.reason)
        placed[ev.place] = best
        runner_up = r.runner_up_place if ev.place == 1 else r.runner_up_after_second * asking
        if runner_up > ev.place and len(know) > 1 and not task:
            placed[runner_up] = know[1]
    elif r.floor_place and asking:  # a question (or a request for a record) the code answers better still shows
        placed[r.floor_place] = best  # its best record; a commit-style request does not
    rest_know = [h for h in know if h not in placed.values()]
    rest = interleave(code, rest_know, limit, r.share) if why_q else code + rest_know
    out: list[Hit] = []
    for h in rest:
        while len(out) + 1 in placed:
            out.append(placed.pop(len(out) + 1))
        out.append(h)
    out += [placed[p] for p in sorted(placed)]
    return out[:limit]


def interleave(code: list, knowledge: list, limit: int, share: float = DEFAULT_RANKING.knowledge.share) -> list:
    """The `all` view: one list by score, with a reserved share of slots for knowledge."""
    reserved = min(len(knowledge), max(1, round(limit * share))) if knowledge else 0
    if limit < 1:
        return []
    merged = sorted(code + knowledge, key=lambda h: (-h.score, h.path))[:limit]
    have = sum(1 for h in merged if h.kind == "knowledge")
    if have < reserved:
        extra = [h for h in knowledge if h not in merged][: reserved - have]
        drop = [h for h in reversed(merged) if h.kind != "knowledge"][: len(extra)]
        merged = [h for h in merged if h not in drop] + extra
        merged.sort(key=lambda h: (-h.score, h.path))
    return merged
