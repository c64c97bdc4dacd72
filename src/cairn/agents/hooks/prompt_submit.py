"""UserPromptSubmit: recall of the project's knowledge, code and past sessions for the prompt.

Inject only what clearly matches: at most a few items within ~700 tokens, each with its reason.

The gate, in order (the cheap checks first, so a trivial prompt never opens the index):
slash commands and prompts without two content words or a named file/symbol inject nothing;
then the index's own term rarity must find two distinctive terms (or a named thing that exists);
a distinctive term is one whose document-frequency weight reaches `min_weight`;
then each hit needs a strong reason (named or defined in the request, or two matched terms) and
a score above the floor. The prompt is stripped of cairn's own injected blocks first, tracker
references (`#123`, `ABC-42`, `.beads` ids) are expanded with the item's title and text, and
the files this session read or edited (transcript tail) and the latest handoff's files seed the
graph walk, so a vague follow-up still lands near the work in progress (with such files, one
distinctive term is enough). Nothing is injected
twice in a session (state under CAIRN_HOME; reset after compaction).
"""

from __future__ import annotations

import re

from cairn.agents.hooks.context import HookContext
from cairn.agents.hooks.output import HookResult
from cairn.search.budget import estimate_tokens
from cairn.search.tokens import query_terms
from cairn.sessions.markers import strip_injected

KIND = "all"  # knowledge and code together
_NAMED = re.compile(r"[A-Za-z_][A-Za-z0-9]*(?:[A-Z_][A-Za-z0-9]*)+|[\w-]+\.[A-Za-z]{1,5}\b|[\w.-]+/[\w./-]+")
_MATCHES = re.compile(r"^matches (.+)$")
STRONG = ("named in the request", "defines ")
MAX_SEEDS = 24


def _content_terms(text: str) -> list[str]:
    return [t for t in query_terms(text) if len(t) >= 3 and not t.isdigit()]


def worth_searching(prompt: str) -> bool:
    """The cheap gate: two content words, or something that looks like a file or symbol name."""
    return len(_content_terms(prompt)) >= 2 or bool(_NAMED.search(prompt))


def strong_reason(why: list[str], distinctive: set[str]) -> bool:
    """A hit the request clearly points at: it names or defines something asked for, or matches
    at least two of the request's distinctive terms."""
    for reason in why:
        if reason.startswith(STRONG):
            return True
        m = _MATCHES.match(reason)
        if m and len(set(m.group(1).split(", ")) & distinctive) >= min(2, len(distinctive)):
            return True
    return False


def item_key(result: dict) -> str:
    return f"node:{result['id']}" if result.get("id") else f"file:{result.get('path')}"


def seed_paths(ctx: HookContext) -> dict[str, float]:
    """Files the session is working on: edited (1.0) and read (0.5) in the transcript tail, and
    the latest handoff's files (0.7)."""
    from cairn.agents.handoff import latest_handoff
    from cairn.agents.hooks.transcript import tail_records, touched_files

    seeds: dict[str, float] = {}
    if ctx.transcript is not None:
        for path, how in touched_files(tail_records(ctx.transcript)).items():
            rel = ctx.relpath(path)
            if rel:
                seeds[rel] = max(seeds.get(rel, 0.0), 1.0 if how == "edited" else 0.5)
    handoff = latest_handoff(ctx.project)
    if handoff is not None:
        for f in handoff.files:
            rel = ctx.relpath(f)
            if rel:
                seeds[rel] = max(seeds.get(rel, 0.0), 0.7)
    return dict(sorted(seeds.items(), key=lambda kv: -kv[1])[:MAX_SEEDS])


def distinctive_terms(ctx: HookContext, query: str, min_weight: float) -> tuple[set[str], bool]:
    """The index's verdict on the request: its terms rare enough in this repository to steer a
    search (weight from document frequency, see search/query.py), and whether it names an
    identifier or file the repository actually has."""
    import sqlite3

    from cairn.search.query import analyze
    from cairn.store.db import connect

    # read-only and without the indexer module (its imports cost ~70 ms): most prompts stop here
    con = connect(ctx.project.index_path(), readonly=True)
    try:
        q = analyze(con, query)
    except sqlite3.Error:  # an index of another format: the next SessionStart rebuilds it
        return set(), False
    finally:
        con.close()
    named = any(t.identifier and t.df > 0 for t in q.terms)
    return {t.text for t in q.main if t.weight >= min_weight}, named


def _past_sessions(ctx: HookContext, query: str, terms: set[str], seen: set[str]) -> list[tuple[str, str]]:
    """(key, text) of the best past-session hit of this project, when it shares two terms."""
    try:
        from cairn.sessions.archive_search import search_sessions
    except ImportError:
        return []
    out = []
    for hit in search_sessions(ctx.project.id, query, limit=2, exclude_session=ctx.text("session_id") or None):
        key = f"session:{hit.get('session_id')}"
        snippet = " ".join(str(hit.get("snippet") or "").replace("«", "").replace("»", "").split())
        if key in seen or len(terms & set(_content_terms(snippet))) < 2:
            continue
        when = str(hit.get("time") or "")[:10]
        out.append((key, f"past session {str(hit.get('session_id'))[:8]} ({when}, {hit.get('role')}): {snippet[:300]}"))
        break
    return out


def handle(ctx: HookContext) -> HookResult | None:
    prompt = strip_injected(ctx.text("prompt")).strip()
    if not prompt or prompt.startswith("/"):
        return None
    from cairn.agents.tracker import expand, find_refs

    if not find_refs(prompt) and not worth_searching(prompt):
        return None  # decided before resolving the project: most prompts stop here
    project = ctx.project
    cfg = ctx.section("recall")
    if project is None or not cfg.get("enabled", True):
        return None
    items = expand(project.root, prompt, list(cfg.get("tracker_files") or []))
    query = " ".join([prompt] + [it["title"] for it in items])
    if not items and not worth_searching(prompt):
        return None
    if not project.index_path().exists():
        return None  # SessionStart builds it; never index inside a prompt
    distinctive, named = distinctive_terms(ctx, query, float(cfg.get("min_weight") or 0.6))
    seeds = seed_paths(ctx)
    needed = max(1, int(cfg.get("min_terms") or 2) - (1 if seeds else 0))  # work in progress narrows it
    if not items and not named and len(distinctive) < needed:
        return None
    return recall(ctx, cfg, query, items, distinctive, seeds)


def recall(ctx: HookContext, cfg: dict, query: str, items: list[dict], distinctive: set[str],
           seeds: dict[str, float]) -> HookResult | None:
    from cairn.search.service import search

    state = ctx.load_state("recall")
    seen = set(state.get("seen") or [])
    budget, max_items = int(cfg.get("budget") or 700), int(cfg.get("max_items") or 3)
    floor = float(cfg.get("score_floor") or 0.0)
    terms = [w for it in items for w in _content_terms(it["text"])][:40]
    answer = search(ctx.project, query, terms=terms or None, limit=max_items * 3, kind=KIND, refresh=False,
                    seed_paths=seeds or None)
    header = "cairn recall (matches for this prompt from the project's memory and code; open only what helps):"
    lines = [header] + [f"- {it['ref']} is \"{it['title']}\"" for it in items]
    used = estimate_tokens("\n".join(lines))
    top = answer.results[0]["score"] if answer.results else 0.0
    picked: list[str] = []
    for result, text in zip(answer.results, answer.texts, strict=False):
        key = item_key(result)
        if key in seen or result["score"] < max(floor, 0.5 * top) or not strong_reason(result.get("why") or [], distinctive):
            continue
        cost = estimate_tokens(text + "\n")
        if used + cost > budget:
            continue
        lines.append(text)
        picked.append(key)
        used += cost
        if len(picked) >= max_items:
            break
    if picked and cfg.get("sessions", True) and len(picked) < max_items:
        for key, text in _past_sessions(ctx, query, set(_content_terms(query)), seen):
            if used + estimate_tokens(text) <= budget:
                lines.append(text)
                picked.append(key)
    if not picked:
        return None
    ctx.save_state("recall", {"seen": sorted(seen | set(picked))})
    return HookResult(context="\n".join(lines))
