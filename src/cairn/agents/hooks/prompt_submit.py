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

Past sessions of the same project (the session archive) come along with code hits, and also on
their own: a question about something the code never mentions ("what did we decide about the
webhook retries") finds no distinctive term in the index, yet the conversation that settled it
is archived. A word absent from the code counts toward the gate for the archive only; one or
two past sessions then pass when their snippet holds two of the prompt's distinctive or
code-absent words. Only this project's sessions are searched (never `_global`), the archive
holds redacted text, one hit per session, within the same token budget.

Outcome feedback (issue 37): the files injected are counted per session (hook state `injected`,
which sessions/history_store.py reads when the session is archived, beside the files the agent
then opened or edited); a file injected in several earlier sessions and opened in none is left
out, unless the request names it.
"""

from __future__ import annotations

import re

from cairn.agents.hooks.context import HookContext
from cairn.agents.hooks.output import HookResult
from cairn.agents.tracker import content_terms
from cairn.config import RecallSettings
from cairn.sessions.markers import strip_injected
from cairn.text.budget import estimate_tokens
from cairn.text.tokens import CODE_NAME

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.sessions.context import SessionContext

KIND = "all"  # knowledge and code together
# CODE_NAME retries from each start of a word (the square of its length): names are looked for in
# the prompt's head only, in words of at most MAX_NAME characters (a prompt that long with under two
# content words is noise).
MAX_NAME, NAME_HEAD = 256, 4000
MAX_PROMPT = 20_000  # characters of a prompt recall reads (a pasted megabyte log: its head)
_MATCHES = re.compile(r"^matches (.+)$")
STRONG = (
    "named in the request",
    "named in the prompt",
    "the item the prompt names",
    "defines ",
    "configures what the request names",
)  # search/tooling.py: the tool's own file by convention
MAX_SEEDS = 24
SESSION_TERMS = 2  # distinctive or code-absent words a past-session hit must share with the prompt
SESSIONS_WITH_CODE, SESSIONS_ALONE = 1, 2  # past-session hits beside code hits / on their own


# What a person says to carry on ("continue where you left off", "keep going", "pick it up from
# there"): not a request to search for; the SessionStart restore and the transcript carry the work.
_CARRY_ON = frozenset(
    """continue continuing resume proceed carry keep going ahead pick left off stopped
where were last time next step steps finish finishing rest remaining""".split()
)


def worth_searching(prompt: str) -> bool:
    """The cheap gate: two content words beyond carrying on, or something that looks like a file
    or symbol name."""
    return len([t for t in content_terms(prompt) if t not in _CARRY_ON]) >= 2 or any(
        CODE_NAME.search(word) for word in prompt[:NAME_HEAD].split() if len(word) <= MAX_NAME
    )


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
    """The latest handoff's files (0.7): where the previous session or segment left the work.
    (The files this session read or edited come from its transcript: see `session_of`.)"""
    from cairn.agents.handoff import latest_handoff

    seeds: dict[str, float] = {}
    assert ctx.project is not None  # handle() returned early without one
    handoff = latest_handoff(ctx.project)
    if handoff is not None:
        for f in handoff.files:
            rel = ctx.relpath(f)
            if rel:
                seeds[rel] = max(seeds.get(rel, 0.0), 0.7)
    return dict(sorted(seeds.items(), key=lambda kv: -kv[1])[:MAX_SEEDS])


def session_of(ctx: HookContext) -> SessionContext:
    """The session so far (files in play, earlier prompts), read incrementally from the transcript by
    the same reader `cairn search --transcript` and MCP `context` use."""
    from cairn.search.service import session_context

    return session_context(ctx.project, str(ctx.transcript) if ctx.transcript else None, ctx.text("session_id"))


def distinctive_terms(ctx: HookContext, query: str, min_weight: float) -> tuple[set[str], bool, set[str]]:
    """The index's verdict on the request: its terms rare enough in this repository to steer a
    search (weight from document frequency, see search/query.py), whether it names an
    identifier or file the repository actually has (or a tool whose configuration it has:
    search/tooling.py), and its content words the code never
    mentions (no weight for a code search, but what a past session may have discussed)."""
    import sqlite3

    from cairn.search.index_cache import keeping, lend
    from cairn.search.query import analyze
    from cairn.store.db import connect

    # read-only and without the indexer module (its imports cost ~70 ms): most prompts stop here;
    # a warm server has the connection the search will use open already (index_cache.lend)
    project = ctx.project
    assert project is not None  # handle() returned early without one
    path = project.index_path()
    if keeping():
        from cairn.codemap.index_db import is_marked
        from cairn.codemap.indexer import open_fresh

        con, held = lend(str(path), lambda: open_fresh(project, False), reuse=not is_marked(path))
    else:
        con, held = connect(path, readonly=True), False
    try:
        q = analyze(con, query)
        from cairn.search.tooling import tooling_files

        tools = bool(tooling_files(con, query)[0])  # a tool the request names, whose file the repository has
    except sqlite3.Error as exc:  # another format or damaged: the next SessionStart rebuilds it
        from cairn.store.repair import is_damage

        if is_damage(exc):
            from cairn.codemap.index_db import mark_damaged

            mark_damaged(path, str(exc))
        return set(), False, set()
    finally:
        if not held:
            con.close()
    named = tools or any(t.identifier and t.df > 0 for t in q.terms)
    absent = {t.text for t in q.terms if t.df == 0 and not t.expansion and len(t.text) >= 3 and not t.text.isdigit()}
    return {t.text for t in q.main if t.weight >= min_weight}, named, absent


def _folded(words: set[str] | list[str]) -> set[str]:
    """Words with plurals folded ("retries" = "retry"), as the archive's own terms are."""
    from cairn.text.words import singular

    return {singular(w) for w in words}


def _past_sessions(
    ctx: HookContext, query: str, terms: set[str], seen: set[str], limit: int = SESSIONS_WITH_CODE
) -> list[tuple[str, str]]:
    """(key, text) of up to `limit` past sessions of this project whose best hit shares
    SESSION_TERMS of `terms`; never this session, one hit per session, never `_global`."""
    from cairn.project import GLOBAL_ID

    if ctx.project is None or ctx.project.id == GLOBAL_ID:
        return []
    try:
        from cairn.sessions.archive_search import search_sessions
    except ImportError:
        return []
    try:
        from cairn.config import settings

        semantic = settings(ctx.project.root).index.semantic  # in an inline hook the channel skips itself
        hits = search_sessions(
            ctx.project.id, query, limit=limit + 2, exclude_session=ctx.text("session_id") or None, semantic=semantic
        )
    except Exception as exc:  # a damaged archive must not cost the prompt its code hits
        from cairn.agents.hooks.runner import log_error

        log_error("UserPromptSubmit", f"session archive: {type(exc).__name__}: {exc}", with_traceback=False)
        return []
    wanted = _folded(terms)
    out = []
    for hit in hits:
        key = f"session:{hit.get('session_id')}"
        snippet = " ".join(str(hit.get("snippet") or "").replace("«", "").replace("»", "").split())
        if key in seen or len(wanted & _folded(content_terms(snippet))) < SESSION_TERMS:
            continue
        when = str(hit.get("time") or "")[:10]
        out.append((key, f"past session {str(hit.get('session_id'))[:8]} ({when}, {hit.get('role')}): {snippet[:300]}"))
        seen = seen | {key}
        if len(out) >= limit:
            break
    return out


def handle(ctx: HookContext) -> HookResult | None:
    prompt = strip_injected(ctx.text("prompt")).strip()[:MAX_PROMPT]
    if not prompt or prompt.startswith("/"):
        return None
    from cairn.agents.tracker import find_refs, request_with_items

    if not find_refs(prompt) and not worth_searching(prompt):
        return None  # decided before resolving the project: most prompts stop here
    project = ctx.project
    cfg = ctx.settings.recall
    if project is None or project.root is None or not cfg.enabled:
        return None
    query, item_terms, items = request_with_items(project.root, prompt, cfg.tracker_files)
    if not items and not worth_searching(prompt):
        return None
    if not project.index_path().exists():
        return None  # SessionStart builds it; never index inside a prompt
    distinctive, named, absent = distinctive_terms(ctx, query, cfg.min_weight)
    seeds = seed_paths(ctx)
    session = session_of(ctx)
    in_play = bool(seeds) or any(t.how != "named" for t in session.files.values())
    needed = max(1, cfg.min_terms - (1 if in_play else 0))  # work in progress narrows it
    if items or named or len(distinctive) >= needed:
        return recall(ctx, cfg, query, items, distinctive, seeds, absent=absent, session=session, terms=item_terms)
    if cfg.sessions and len(distinctive | absent) >= SESSION_TERMS:
        # nothing in the code to point at, but the words may be in a past conversation
        return recall(ctx, cfg, query, [], distinctive, seeds, absent=absent, code=False)
    return None


def recall(
    ctx: HookContext,
    cfg: RecallSettings,
    query: str,
    items: list[dict],
    distinctive: set[str],
    seeds: dict[str, float],
    *,
    absent: set[str] | None = None,
    code: bool = True,
    session: SessionContext | None = None,
    terms: list[str] | None = None,
) -> HookResult | None:
    """Inject the code/knowledge hits that pass the gate (unless `code` is False), then past
    sessions: one beside code hits, up to two on their own (see the module doc)."""
    state = ctx.load_state("recall")
    seen = set(state.get("seen") or [])
    budget, max_items = cfg.budget, cfg.max_items
    header = "cairn recall (matches for this prompt from the project's memory and code; open only what helps):"
    lines = [header] + [f'- {it["ref"]} is "{it["title"]}"' for it in items]
    used = estimate_tokens("\n".join(lines))
    picked: list[str] = []
    if code:
        used = _code_hits(ctx, cfg, query, terms or [], distinctive, seeds, seen, lines, picked, used, session)
    if cfg.sessions and len(picked) < max_items:
        if picked:  # beside code hits, as before: any two of the prompt's content words
            hits = _past_sessions(ctx, query, set(content_terms(query)), seen, SESSIONS_WITH_CODE)
        else:  # on their own: two of its distinctive or code-absent words
            hits = _past_sessions(ctx, query, distinctive | (absent or set()), seen, SESSIONS_ALONE)
        for key, text in hits[: max_items - len(picked)]:
            cost = estimate_tokens(text + "\n")
            if used + cost <= budget:
                lines.append(text)
                picked.append(key)
                used += cost
    if not picked:
        return None
    ctx.save_state("recall", {"seen": sorted(seen | set(picked))})
    _count_injected(ctx, picked)
    return HookResult(context="\n".join(lines))


def _count_injected(ctx: HookContext, picked: list[str]) -> None:
    """Add the files injected now to this session's count (outcome feedback: see the module doc)."""
    from cairn.sessions.history_store import INJECTED_STATE

    files = [k.removeprefix("file:") for k in picked if k.startswith("file:")]
    if not files:
        return
    paths = ctx.load_state(INJECTED_STATE).get("paths")
    paths = dict(paths) if isinstance(paths, dict) else {}
    for f in files:
        paths[f] = int(paths.get(f, 0) or 0) + 1
    ctx.save_state(INJECTED_STATE, {"paths": paths})


def _ignored_before(ctx: HookContext, results: list[dict]) -> set[str]:
    """Paths among `results` injected in earlier sessions again and again and never opened there."""
    from cairn.sessions.history_recall import open_past

    assert ctx.project is not None  # handle() returned early without one
    past = open_past(ctx.project.id, exclude=ctx.text("session_id") or None)
    if past is None:
        return set()
    try:
        return past.ignored([str(r["path"]) for r in results if r.get("path")])
    except Exception:  # noqa: BLE001 - a damaged history store must not cost the prompt its recall
        return set()
    finally:
        past.close()


def _named(why: list[str]) -> bool:
    """The request names the file (by path, by name, or the tracker item it is): feedback never hides it."""
    return any(
        w.startswith(
            ("named in the request", "named in the prompt", "the item the prompt names", "attached to the prompt")
        )
        for w in why
    )


def _code_hits(
    ctx: HookContext,
    cfg: RecallSettings,
    query: str,
    terms: list[str],
    distinctive: set[str],
    seeds: dict[str, float],
    seen: set[str],
    lines: list[str],
    picked: list[str],
    used: int,
    session: SessionContext | None = None,
) -> int:
    """Append the knowledge and code hits that pass (strong reason, score floor, budget) to
    `lines` and their keys to `picked`; the tokens used after them. A file the session already
    read and that has not changed since is never injected: the agent has it."""
    from cairn.search.service import search

    budget, max_items = cfg.budget, cfg.max_items
    floor = cfg.score_floor
    assert ctx.project is not None  # handle() returned early without one
    answer = search(
        ctx.project,
        query,
        terms=terms or None,
        limit=max_items * 3,
        kind=KIND,
        refresh=False,
        seed_paths=seeds or None,
        session=session,
    )
    from cairn.safepath import AGENT_INSTRUCTION_FILES

    top = answer.results[0]["score"] if answer.results else 0.0
    ignored = _ignored_before(ctx, answer.results)
    slots = 0  # strong hits taken, injected now or earlier: a repeated prompt gets no weaker fill-ins
    for result, text in zip(answer.results, answer.texts, strict=False):
        if slots >= max_items:
            break
        key = item_key(result)
        name = str(result.get("path") or "").rsplit("/", 1)[-1].lower()
        if (
            name in AGENT_INSTRUCTION_FILES
            or result["score"] < max(floor, 0.5 * top)
            or not strong_reason(result.get("why") or [], distinctive)
        ):
            continue  # CLAUDE.md and kin are loaded by the agent itself
        slots += 1
        if key in seen or result.get("seen"):
            continue
        if result.get("path") in ignored and not _named(result.get("why") or []):
            continue  # injected again and again in earlier sessions, never opened (outcome feedback)
        cost = estimate_tokens(text + "\n")
        if used + cost > budget:
            continue
        lines.append(text)
        picked.append(key)
        used += cost
    return used
