"""What the session so far says about where the next prompt's answer lies.

A lone query knows only its words; a live session also knows which files the agent read or edited
(and how recently), what the person asked before, which paths and tracker items the prompt names,
and, through git history, what changes together with the files in play. This module turns a
`sessions.context.SessionContext` plus the prompt into ranked lists over the index's file ids,
which the engine fuses with its own channels (search/engine.py):

- mentions: files the prompt names by path or `@path` (also a longer path from another checkout,
  matched by its longest indexed suffix), or a tracker item it names ("task 008", "#12", ABC-42)
  that the repository holds as a file: near-certain hits;
- recent: the files touched, edited before read, newest first; named-only files (Grep/Glob/Bash) last;
- seeds: the same files as graph-walk seeds, weighted by recency;
- topic: the earlier prompts' distinctive words, counted less (the topic carries over, but a new
  topic must be able to win);
- cochange: files that change together with the session's files in git history;
- churn: what changes often and lately, a prior for vague prompts;
- seen: files the session read and that have not changed since (the agent already has them);
- asked, coaccess: from the project's past (sessions/history_recall.py, when it has a history
  store): the files earlier requests like this prompt led to (while no file is in play), and the
  files worked on in the same earlier sessions as those in play.
"""

from __future__ import annotations

import os
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from cairn.search.index_cache import for_index
from cairn.search.neighbourhood import counterparts, folder_neighbours, graph_neighbours
from cairn.search.query import Query, Term, analyze
from cairn.search.ranking import DEFAULT_RANKING, Ranking
from cairn.search.ranking import Session as Weights
from cairn.search.text import file_text_channel
from cairn.store.db import like_escape

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.sessions.context import SessionContext
    from cairn.sessions.history_recall import Past

ITEM_BYTES = 1200  # of a tracker item's file: its title and first lines
SEEN_SLACK = 10.0  # seconds: a file written just after the call that read or edited it is still seen
_ASKS_TESTS = re.compile(r"\b(?:unit |integration )?(?:tests?|specs?|testing|tdd|coverage)\b", re.I)
_MENTION = re.compile(  # `src/a.go`, `@./a.go`, `~/x/a.go`, and Windows paths (`D:\repo\src\a.go`)
    r"(?:(?<=\s)|^|(?<=[(\[`'\"]))@?((?:[A-Za-z]:)?(?:~|\.{1,2})?[/\\]?[\w.@+-]+(?:[/\\][\w.@+-]+)*[/\\]?)"
)
ATTACHED = "attached to the prompt with @"  # the reason of an @path mention: the agent has its text
_URL = re.compile(r"\bhttps?://[^\s<>\"'`)\]]{1,2000}")
_BLOB = re.compile(r"/(?:blob|tree|raw|src)/[^/]+/([^?#]+)")
_FILE_SHAPE = re.compile(r"/|\.[A-Za-z][A-Za-z0-9]{0,7}$")
_TRACKER = re.compile(
    r"\b(task|issue|ticket|story|bug|item|step|phase|milestone|adr|rfc|spec|epic|feature|todo|migration|chapter|lesson|exercise)s?[\s#:-]*(\d{1,6})\b"
    r"|(?<![\w&])#(\d{1,6})\b|\b([A-Z][A-Z0-9]{1,9}-\d{1,7})\b",
    re.I,
)


@dataclass
class SessionSignals:
    mentions: dict[int, float] = field(default_factory=dict)
    recent: list[int] = field(default_factory=list)
    seeds: dict[int, float] = field(default_factory=dict)
    topic: dict[int, float] = field(default_factory=dict)
    topic_terms: list[Term] = field(default_factory=list)
    cochange: dict[int, float] = field(default_factory=dict)
    near: dict[int, float] = field(default_factory=dict)  # untouched files beside the ones in play
    counterparts: dict[int, float] = field(default_factory=dict)  # the tests of the files in play (and vice versa)
    churn: dict[int, float] = field(default_factory=dict)
    seen: set[int] = field(default_factory=set)
    touched: dict[int, str] = field(default_factory=dict)  # file id -> how (edited/read/named...)
    paths: dict[int, str] = field(default_factory=dict)  # file id -> path, for explanations
    mention_why: dict[int, str] = field(default_factory=dict)
    asked: dict[int, float] = field(default_factory=dict)  # files earlier requests like this one led to
    asked_why: dict[int, str] = field(default_factory=dict)
    coaccess: dict[int, float] = field(default_factory=dict)  # worked on with the files in play before


def _lookup(con: sqlite3.Connection, paths: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for i in range(0, len(paths), 500):
        part = paths[i : i + 500]
        out.update(
            (p, fid)
            for fid, p in con.execute(f"SELECT id, path FROM files WHERE path IN ({','.join('?' * len(part))})", part)
        )
    return out


def map_paths(con: sqlite3.Connection, root: Path | None, raw: list[str]) -> dict[str, tuple[int, str]]:
    """raw path (absolute, relative, `~/other-checkout/...`) -> (file id, indexed path).

    Under the root: its relative path. Elsewhere (another checkout or worktree of the same
    repository): the longest suffix of two or more segments that the index holds. Memoized per
    index state and root: a session's files are mapped again on every prompt."""
    memo: dict[tuple[str | None, str], tuple[int, str] | None] = for_index(con).value(
        "mapped_paths", dict, file_list_only=True
    )
    base = None if root is None else str(root)
    out: dict[str, tuple[int, str]] = {}
    todo = []
    for r in raw:
        if (base, r) not in memo:
            todo.append(r)
        elif (known := memo[(base, r)]) is not None:
            out[r] = known
    if not todo:
        return out
    if len(memo) + len(todo) > MAX_MAPPED:
        memo.clear()
    for r, found in _map_paths(con, root, todo).items():
        memo[(base, r)] = found
        if found is not None:
            out[r] = found
    return {r: out[r] for r in raw if r in out}


MAX_MAPPED = 100_000  # raw paths whose mapping a warm process keeps per index state


def _map_paths(con: sqlite3.Connection, root: Path | None, raw: list[str]) -> dict[str, tuple[int, str] | None]:
    """map_paths without the memo; None for a raw path the index does not hold."""
    rel: dict[str, list[str]] = {}
    for r in raw:
        p = r.strip().lstrip("@").rstrip("/")
        if not p:
            continue
        cands = []
        if root is not None and os.path.isabs(p):
            try:
                rp = os.path.relpath(os.path.normpath(p), root)
                if not rp.startswith(".."):
                    cands.append(rp.replace(os.sep, "/"))
            except ValueError:
                pass
        parts = [x for x in p.replace("\\", "/").split("/") if x not in ("", ".", "~")]
        cands.append("/".join(parts))
        cands += ["/".join(parts[k:]) for k in range(1, len(parts) - 1)]
        rel[r] = [c for c in cands if c and not c.startswith("..")]
    found = _lookup(con, sorted({c for cs in rel.values() for c in cs}))
    out: dict[str, tuple[int, str] | None] = dict.fromkeys(raw)
    for r, cands in rel.items():
        for c in cands:
            if c in found:
                out[r] = (found[c], c)
                break
    return out


def without_urls(prompt: str) -> tuple[str, list[str]]:
    """The prompt with its URLs taken out (their host, owner and issue-number words match files that
    merely contain links), and the repository paths that source-browser URLs point at
    (`.../blob/main/src/shell/init.go` -> `src/shell/init.go`)."""
    if "://" not in prompt:
        return prompt, []
    paths = [m.group(1) for u in _URL.findall(prompt) if (m := _BLOB.search(u))]
    return _URL.sub(" ", prompt), paths


def prompt_mentions(
    con: sqlite3.Connection, root: Path | None, prompt: str, r: Weights = DEFAULT_RANKING.session
) -> dict[int, tuple[float, str]]:
    """Files the prompt names: by path, by a unique bare file name (or one in the other number), or a
    tracker item the repository holds as a file ("task 008" -> tasks/008-export.md), each with its
    strength (`r.mention_*`). A path given as `@path` is ATTACHED: Claude Code puts that file's text
    into the prompt itself."""
    out: dict[int, tuple[float, str]] = {}
    prompt, url_paths = without_urls(prompt[:20_000])
    found = list(_MENTION.finditer(prompt))
    tokens = [m.group(1).replace("\\", "/") for m in found] + url_paths
    attached = {m.group(1).replace("\\", "/").rstrip(".,;:") for m in found if m.group(0).startswith("@")}
    pathish = [t.rstrip(".,;:") for t in tokens if _FILE_SHAPE.search(t.rstrip(".,;:")) and len(t) < 400]
    with_slash = [t for t in pathish if "/" in t.strip("/")]
    for raw, (fid, path) in map_paths(con, root, with_slash).items():
        out[fid] = (r.mention_path, f"{_named(raw, attached)}: {path}")
    for t in pathish:
        if "/" in t.strip("/") or "." not in t.strip("."):
            continue
        name = t.strip("./")
        for variant, weight in [(name, r.mention_name)] + [(v, r.mention_variant) for v in _number_variants(name)]:
            rows = _files_named(con, variant)
            if not rows:
                continue
            if len(rows) <= 3:
                for fid, _path in rows:
                    out.setdefault(fid, (weight, f"{_named(t, attached)}: {name}"))
            break
    for fid, (w, why) in tracker_files(con, prompt, r).items():
        out.setdefault(fid, (w, why))
    return out


def _named(token: str, attached: set[str]) -> str:
    return ATTACHED if token in attached else "named in the prompt"


def _files_named(con: sqlite3.Connection, name: str) -> list[tuple[int, str]]:
    like = "%/" + like_escape(name)
    return con.execute(
        "SELECT id, path FROM files WHERE path = ? OR path LIKE ? ESCAPE '\\' LIMIT 4", (name, like)
    ).fetchall()


def _number_variants(name: str) -> list[str]:
    """The file name with its stem in the other number, for a name that is no file: people say
    `nodes.go` for node.go, `policy.py` for policies.py."""
    stem, dot, ext = name.rpartition(".")
    if not dot or not stem or "/" in stem:
        return []
    if stem.endswith("ies"):
        alts = [stem[:-3] + "y"]
    elif stem.endswith("es"):
        alts = [stem[:-2], stem[:-1]]
    elif stem.endswith("s"):
        alts = [stem[:-1]]
    else:
        alts = [stem[:-1] + "ies"] if stem.endswith("y") else []
        alts += [stem + "s", stem + "es"]
    return [f"{a}.{ext}" for a in alts if len(a) >= 3]


def tracker_files(
    con: sqlite3.Connection, prompt: str, r: Weights = DEFAULT_RANKING.session
) -> dict[int, tuple[float, str]]:
    """Tracker references resolved to the repository's own files ("task 008" -> .../008-*.md).

    A file whose path lacks the tracker's word ("phase 1" -> whats-new-1.mdx) counts only for a
    number of two digits or more (or written with its zeros, "008"): one digit is in too many names."""
    out: dict[int, tuple[float, str]] = {}
    for m in list(_TRACKER.finditer(prompt[:20_000]))[:5]:
        word, num, hashnum, key = m.group(1), m.group(2), m.group(3), m.group(4)
        ident = (num or hashnum or key or "").lower()
        if not ident:
            continue
        digits = ident.lstrip("0") or "0"
        like = "%" + (digits if not key else ident) + "%"
        pattern = re.compile(
            r"(?:^|[^0-9a-z])" + (re.escape(ident) if key else "0*" + re.escape(digits)) + r"(?:[^0-9]|$)"
        )
        rows = con.execute("SELECT id, path, kind FROM files WHERE lower(path) LIKE ? LIMIT 400", (like,)).fetchall()
        hits = []
        for fid, path, kind in rows:
            base = path.lower().rsplit("/", 1)[-1]
            if not pattern.search(base):
                continue
            keyword = bool(word) and word.lower() in path.lower()
            if keyword or key or (kind != "code" and (len(digits) >= 2 or len(ident) >= 3)):
                hits.append((fid, path, r.mention_item if (keyword or key) else r.mention_item_loose))
        if 0 < len(hits) <= 3:
            for fid, path, w in hits:
                out.setdefault(fid, (w, f"the item the prompt names ({m.group(0).strip()}): {path}"))
    return out


def _item_text(con: sqlite3.Connection, root: Path | None, fid: int) -> str:
    """The opening of a tracker item's file (its title and first lines), read from disk."""
    row = con.execute("SELECT path FROM files WHERE id = ?", (fid,)).fetchone()
    if root is None or row is None:
        return ""
    path = row[0]
    try:
        with open(root / path, "rb") as fh:
            return fh.read(ITEM_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""


def _topic_terms(con: sqlite3.Connection, prompts: list[str], current: Query, ranking: Ranking) -> list[Term]:
    """Distinctive words of the last few earlier prompts (and of tracker items the prompt names),
    at a reduced weight: the last text of the list counts most."""
    r = ranking.session
    have = {t.text for t in current.terms}
    merged: dict[str, Term] = {}
    for age, text in enumerate(reversed(prompts)):
        share = r.topic_share * (r.topic_decay**age)
        for t in _distinctive_of(con, text, ranking):
            if t.text in have:
                continue
            w = round(t.weight * share, 4)
            if t.text not in merged or merged[t.text].weight < w:
                merged[t.text] = Term(t.text, t.df, w, identifier=t.identifier, expansion=True)
    return sorted(merged.values(), key=lambda t: -t.weight)[: r.topic_terms]


MAX_TOPIC_MEMO = 512  # earlier prompts whose distinctive terms a warm process keeps per index state


def _distinctive_of(con: sqlite3.Connection, text: str, ranking: Ranking = DEFAULT_RANKING) -> list[Term]:
    """An earlier prompt's terms of at least `topic_min_weight`, memoized per index state: every
    prompt of a session analyzes the same few earlier ones again (index_cache.py)."""
    memo: dict[tuple, list[Term]] = for_index(con).value("topic_terms", dict)
    least = ranking.session.topic_min_weight
    key = (text, least, ranking.terms)
    found = memo.get(key)
    if found is None:
        if len(memo) >= MAX_TOPIC_MEMO:
            memo.clear()
        found = memo[key] = [
            t for t in analyze(con, without_urls(text[:4000])[0], None, ranking.terms).main if t.weight >= least
        ]
    return found


def build_signals(
    con: sqlite3.Connection,
    root: Path | None,
    prompt: str,
    q: Query,
    session: SessionContext | None = None,
    *,
    use_history: bool = True,
    ranking: Ranking = DEFAULT_RANKING,
    past: Past | None = None,
    named_in: str | None = None,
) -> SessionSignals:
    """All session evidence for one prompt, as file-id maps (see the module doc). `session` is a
    SessionContext or None (then only the prompt's own mentions count); `past` the project's
    history store (None: no history); `named_in` the text whose mentions count (None: the prompt)."""
    from cairn.codemap import history

    r = ranking.session
    sig = SessionSignals()
    for fid, (w, why) in prompt_mentions(con, root, prompt if named_in is None else named_in, r).items():
        sig.mentions[fid] = w
        sig.mention_why[fid] = why
        if why.startswith(ATTACHED):
            sig.seen.add(fid)  # ranked as named, marked seen: the hook does not inject it again
    # the words of a tracker item the prompt names ("task 008" -> its file's title and opening lines)
    items = [_item_text(con, root, fid) for fid, why in sig.mention_why.items() if why.startswith("the item")]
    prompts = [p for p in session.prompts if p.strip() != prompt.strip()] if session is not None else []
    if prompts or any(items):
        sig.topic_terms = _topic_terms(con, prompts[-r.topic_prompts :] + [t for t in items if t], q, ranking)
        if sig.topic_terms:
            sig.topic, _ = file_text_channel(con, sig.topic_terms, with_terms=False, r=ranking.text)
    if session is None or session.empty:
        if past is not None:
            _from_past(con, past, prompt, sig, ranking)
        if use_history and q.distinctive <= 1:
            sig.churn = _ids(con, history.churn(con))
        return sig
    touched = map_paths(con, root, list(session.files))
    scored: dict[int, float] = {}
    how_weight = dict(r.how_weight)
    for raw, (fid, path) in touched.items():
        t = session.files[raw]
        w = (
            how_weight[t.how]
            * r.recent_decay ** max(0, session.steps - t.step)
            * (1 + r.touch_count * min(t.count, 10))
        )
        if w > scored.get(fid, 0.0):
            scored[fid] = w
            sig.touched[fid] = t.how
            sig.paths[fid] = path
        if t.how != "named" and t.time and _unchanged_since(root, path, t.time):
            sig.seen.add(fid)
    order = {fid: session.files[raw].order for raw, (fid, _) in touched.items()}
    sig.recent = sorted(scored, key=lambda f: (-scored[f], -order[f]))
    sig.seeds = {f: scored[f] for f in sig.recent[: r.max_seeds] if sig.touched[f] != "named"}
    if past is not None:
        _from_past(con, past, prompt, sig, ranking)
    in_play = {sig.paths[f]: w for f, w in sig.seeds.items()}
    sig.near = folder_neighbours(con, in_play, set(sig.touched))
    if r.near_graph:
        for fid, w in graph_neighbours(con, sig.seeds, set(sig.touched), r.near_graph).items():
            sig.near[fid] = max(sig.near.get(fid, 0.0), w)
    share = r.counterpart_asked if _ASKS_TESTS.search(prompt) else r.counterpart_share
    sig.counterparts = {
        fid: w * share for fid, w in counterparts(con, in_play, set(sig.touched), r.counterpart_away).items()
    }
    if use_history and sig.seeds:
        co = history.cochange(con, {sig.paths[f]: w for f, w in sig.seeds.items()})
        sig.cochange = {fid: s for fid, s in _ids(con, co).items() if fid not in sig.seeds}
    if past is not None and sig.seeds and ranking.fusion.coaccess:
        together = past.together(in_play, per_seed=r.past_per_seed, half_life=r.past_half_life)
        sig.coaccess = {fid: s for fid, s in _ids(con, together).items() if fid not in sig.seeds}
    if use_history and q.distinctive <= 1:
        sig.churn = _ids(con, history.churn(con))
    return sig


def _from_past(con: sqlite3.Connection, past: Past, prompt: str, sig: SessionSignals, ranking: Ranking) -> None:
    """The files earlier requests like this one led to, looked up only when they weigh: at a
    session's start (`fusion.asked`) or once files are in play (`fusion.asked_in_play`)."""
    f = ranking.fusion
    if f.asked_in_play if sig.seeds else f.asked:
        _asked_before(con, past, prompt, sig, ranking.session)


def _asked_before(con: sqlite3.Connection, past: Past, prompt: str, sig: SessionSignals, r: Weights) -> None:
    """The files earlier requests like `prompt` led to, that the index still holds, with the
    request that lent each most as its reason."""
    found = past.asked(
        without_urls(prompt[:4000])[0],
        min_sim=r.past_min_sim,
        limit=r.past_requests,
        half_life=r.past_half_life,
        power=r.past_power,
        read_share=r.past_read,
    )
    for path, fid in _lookup(con, list(found)).items():
        a = found[path]
        sig.asked[fid] = a.score
        head = a.prompt if len(a.prompt) <= 80 else a.prompt[:77].rstrip() + "..."
        when = f" on {a.ts[:10]}" if a.ts else ""
        sig.asked_why[fid] = f"asked before: '{head}'{when} led to {path}"


def _ids(con: sqlite3.Connection, by_path: dict[str, float]) -> dict[int, float]:
    found = _lookup(con, list(by_path))
    return {fid: by_path[p] for p, fid in found.items()}


def _unchanged_since(root: Path | None, path: str, when: float) -> bool:
    if root is None:
        return False
    try:
        return os.stat(root / path).st_mtime <= when + SEEN_SLACK
    except OSError:
        return False
