"""The MCP tools: thin adapters from an agent's call to cairn's library, each bounded and guarded.

Why a class: every tool needs the server's Scope (its project, the worktrees it may switch to),
and one object per server keeps two servers in one process (tests) independent. The tool
signatures are the input schemas: pydantic turns the annotations below into JSON Schema, and
`Strict` types mean a string where an integer belongs is rejected instead of guessed at. Sizes
an agent asks for (budgets, limits, line ranges) are clamped here, so a careless or hostile
call costs at most a bounded amount of work and context. Library imports stay inside the tools:
`cairn serve` must answer its first request fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, Strict

from cairn.agents.mcp.guard import Scope, known_projects, relative_to_root, safe_path
from cairn.codemap.knowledge.node import TYPES
from cairn.errors import CairnError

if TYPE_CHECKING:
    from cairn.project import Project

MAX_BUDGET = 12_000  # tokens: more than any agent should pull through one call
MAX_LIMIT = 50
MAX_READ_LINES = 400
MAX_READ_CHARS = 40_000
MAX_LINE_CHARS = 2_000  # minified files: one line can be megabytes
REDACT_CONTEXT_LINES = 120  # lines above a region read along for redaction (a private key block fits)
MAX_COUNT_BYTES = 16 << 20  # past this, a read stops instead of counting the file's lines
MAX_SUMMARY_CHARS = 8_000
MAX_FACTS = 20

Int = Annotated[int, Strict()]
Str = Annotated[str, Strict()]
Root = Annotated[
    str | None,
    Field(
        description="Another worktree of this same project to work in "
        "(default: the project the server was started for)."
    ),
]
Query = Annotated[Str, Field(min_length=1, max_length=2000, description="What you are looking for, in words.")]
Terms = Annotated[
    list[Str] | None,
    Field(
        max_length=40,
        description="Your own related words: synonyms, likely identifiers, file names. They widen the search.",
    ),
]
Budget = Annotated[Int | None, Field(ge=1, description=f"Token budget for the answer (clamped to {MAX_BUDGET}).")]
Limit = Annotated[Int, Field(ge=1, description=f"Maximum number of results (clamped to {MAX_LIMIT}).")]
TranscriptPath = Annotated[
    Str | None,
    Field(
        max_length=4096,
        description=(
            "Your session's transcript (a Claude Code .jsonl under ~/.claude/projects, a Codex CLI rollout under "
            "~/.codex/sessions, a Gemini CLI chat .jsonl under ~/.gemini/tmp, or a .jsonl inside the project): files "
            "already read or edited and earlier prompts then steer the ranking."
        ),
    ),
]
NodeType = Literal[TYPES]  # type: ignore[valid-type]


class LinkIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    rel: Str = Field("relates-to", description="relation: relates-to, caused-by, fixes, depends-on, ...")
    target: Str = Field(min_length=1, description="id or title of the node linked to")


class FactIn(BaseModel):
    """One fact, the same shape `cairn remember --json` reads."""

    model_config = ConfigDict(extra="forbid", strict=True)
    title: Str = Field(min_length=1, max_length=300, description="short, specific, searchable")
    type: NodeType = Field("note", description="decision, bug, gotcha, concept, howto, preference, task or note")
    body: Str = Field("", max_length=20_000, description="the fact itself, markdown: what, why, how to apply")
    files: list[Str] = Field(default_factory=list, max_length=30, description="repo-relative files it is about")
    symbols: list[Str] = Field(default_factory=list, max_length=30, description="symbols it is about")
    links: list[LinkIn] = Field(default_factory=list, max_length=30)
    supersedes: Str | None = Field(None, description="id or title of the node this one replaces")
    tags: list[Str] = Field(default_factory=list, max_length=20)
    personal: bool = Field(False, description="true: a personal preference for every project (personal vault)")


def _clamp(value: int | None, default: int, high: int) -> int:
    return default if value is None else max(1, min(int(value), high))


class CairnTools:
    """The tool functions of one server (see server.py for names and annotations)."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope

    # ------------------------------------------------------------------ search

    def _search(
        self,
        kind: str,
        query: str,
        terms: list[str] | None,
        limit: int,
        budget: int | None,
        root: str | None,
        transcript_path: str | None = None,
    ) -> str:
        from cairn.search.service import search, session_context

        project = self.scope.project_for(root)
        self.scope.require_root(project)
        session = session_context(project, transcript_file(project, transcript_path)) if transcript_path else None
        from cairn.agents.tracker import with_tracker_items

        query, item_terms = with_tracker_items(project, query)
        terms = (terms or []) + item_terms
        answer = search(
            project,
            query,
            terms=terms or None,
            limit=_clamp(limit, 10, MAX_LIMIT),
            budget=_clamp(budget, 2000, MAX_BUDGET),
            kind=kind,
            session=session,
        )
        if not answer.texts:
            return (
                f"No {kind if kind != 'all' else 'code or knowledge'} matches for {query!r}. "
                "Try other words (pass `terms`), or open the map."
            )
        return f"{answer.text}\n({len(answer.results)} results, ~{answer.tokens} tokens)"

    def context(
        self,
        query: Query,
        terms: Terms = None,
        budget: Budget = 2000,
        limit: Limit = 12,
        root: Root = None,
        transcript_path: TranscriptPath = None,
    ) -> str:
        """Start here for any task: the places in the code and the project knowledge (decisions, gotchas,
        bugs) that matter for a request, ranked and packed into a token budget. Read these before
        exploring files yourself; pass `terms` with your own related words to widen the net, and
        `transcript_path` (your session's .jsonl) so the files already in play steer the ranking."""
        return self._search("all", query, terms, limit, budget, root, transcript_path)

    def search_code(
        self, query: Query, terms: Terms = None, limit: Limit = 10, budget: Budget = None, root: Root = None
    ) -> str:
        """Search the project's code: files and definitions ranked by name, text and the import graph,
        each with line numbers to open. Cheaper and more precise than grep plus reading files."""
        return self._search("code", query, terms, limit, budget, root)

    def search_knowledge(
        self, query: Query, terms: Terms = None, limit: Limit = 10, budget: Budget = None, root: Root = None
    ) -> str:
        """Search what the team and earlier sessions learned: decisions, gotchas, bugs, concepts,
        how-tos. Check here before re-deciding something or debugging a known problem."""
        return self._search("knowledge", query, terms, limit, budget, root)

    # ------------------------------------------------------------------ maps

    def map(
        self,
        module: Annotated[
            Str | None,
            Field(
                max_length=500,
                description="A module name from the level-0 map (e.g. src/app/api); omit for the overview.",
            ),
        ] = None,
        budget: Annotated[Int, Field(ge=1, description="Token budget of the overview (100-4000).")] = 500,
        root: Root = None,
    ) -> str:
        """The project map: without `module`, a ~500-token overview (languages, modules, central files,
        entry points); with `module`, that module's files, key symbols with line numbers and its
        links. Open it first in a new session instead of listing directories."""
        from cairn.codemap.indexer import open_fresh
        from cairn.codemap.maps import find_module, render_level0, render_level1

        project = self.scope.project_for(root)
        self.scope.require_root(project)
        con = open_fresh(project)
        try:
            if module:
                return render_level1(con, project, find_module(con, module))
            return render_level0(con, project, budget=max(100, min(budget, 4000)))
        finally:
            con.close()

    def write_summary(
        self,
        text: Annotated[
            Str, Field(max_length=MAX_SUMMARY_CHARS, description="The curated summary, markdown; empty removes it.")
        ],
        module: Annotated[
            Str | None, Field(max_length=500, description="The module it describes; omit for the project overview.")
        ] = None,
        root: Root = None,
    ) -> str:
        """Write the curated summary shown at the top of the map (or of one module's page): what the
        project or module is for and how its parts fit, in a few lines. Re-indexing keeps it."""
        from cairn.codemap.indexer import open_fresh
        from cairn.codemap.maps import find_module
        from cairn.codemap.summaries import set_summary

        project = self.scope.project_for(root)
        self.scope.require_root(project)
        name = None
        if module:
            con = open_fresh(project)
            try:
                name = find_module(con, module)
            finally:
                con.close()
        path = set_summary(project, name, text)
        what = f"module {name}" if name else "the project map"
        return f"{'removed' if not text.strip() else 'saved'} summary of {what} ({relative_to_root(project, path)})"

    def explain(
        self,
        target: Annotated[
            Str,
            Field(
                min_length=1,
                max_length=1000,
                description=(
                    "A file path relative to the project root (or a unique file name), a symbol name (or "
                    "FILE:SYMBOL), or a knowledge node id."
                ),
            ),
        ],
        budget: Budget = 1200,
        root: Root = None,
    ) -> str:
        """Everything cairn knows about one file, symbol or knowledge node: its description and
        definitions with signatures, who uses it and what it uses (imports and references by name
        apart, most uses first), the notes citing it (stale or not), its PageRank position, and its
        recent commits and the files that change with it. Use it before changing something."""
        from cairn.search.service import explain

        project = self.scope.project_for(root)
        self.scope.require_root(project)
        _, text, tokens = explain(project, safe_target(project, target), budget=_clamp(budget, 1200, MAX_BUDGET))
        return f"{text}(~{tokens} tokens)"

    def path(
        self,
        a: Annotated[
            Str,
            Field(
                min_length=1,
                max_length=1000,
                description="Where the path starts: a file path, a symbol name or a knowledge node id.",
            ),
        ],
        b: Annotated[Str, Field(min_length=1, max_length=1000, description="Where it ends (same forms).")],
        root: Root = None,
    ) -> str:
        """How A depends on B: the shortest chains of imports and references from A to B, each hop
        with its direction and the names it goes through; or why there is none (B depends on A
        instead, they only share neighbours, or they are in different components)."""
        from cairn.search.service import dependency_path

        project = self.scope.project_for(root)
        self.scope.require_root(project)
        _, text = dependency_path(project, safe_target(project, a), safe_target(project, b))
        return text

    # ------------------------------------------------------------------ knowledge

    def remember(
        self, facts: Annotated[list[FactIn], Field(min_length=1, max_length=MAX_FACTS)], root: Root = None
    ) -> dict:
        """Register what you learned so the next session does not rediscover it: decisions (and why),
        gotchas, bugs and their causes, concepts, how-tos. A fact that repeats a live node merges
        into it; `supersedes` retires an outdated one; `links` connect related nodes. Cite
        `files`/`symbols` so the note is flagged when that code changes."""
        from cairn.memory.facts import fact_from_dict
        from cairn.memory.knowledge import remember_facts

        project = self.scope.project_for(root)
        root_dir = self.scope.require_root(project)
        parsed = []
        for i, item in enumerate(facts):
            data = item.model_dump(exclude_none=True)
            data["links"] = [dict(link) for link in data.get("links", [])]
            data["files"] = [self._cited(project, f) for f in data.get("files", [])]
            parsed.append(fact_from_dict(data, f"fact {i + 1}" if len(facts) > 1 else "fact"))
        results = remember_facts(project, parsed, cwd=root_dir)
        return {"results": [r.to_dict() for r in results]}

    @staticmethod
    def _cited(project: Project, path: str) -> str:
        """A cited file must lie in the project (it is hashed for staleness); stored repo-relative."""
        real = safe_path(project, path, must_exist=False)
        if project.root is None or not real.is_relative_to(Path(project.root).resolve()):
            from cairn.errors import PathRefused

            raise PathRefused(path, "a cited file must be inside the project")
        return relative_to_root(project, real)

    def read(
        self,
        id: Annotated[
            Str | None, Field(max_length=300, description="A knowledge node id or title (from search results).")
        ] = None,
        path: Annotated[
            Str | None, Field(max_length=1000, description="A file path relative to the project root.")
        ] = None,
        start_line: Annotated[Int, Field(ge=1, description="First line (1-based).")] = 1,
        end_line: Annotated[
            Int | None, Field(ge=1, description=f"Last line (at most {MAX_READ_LINES} lines per call).")
        ] = None,
        root: Root = None,
    ) -> str:
        """Read one knowledge node by `id` (body, status, what superseded it, cited files that changed
        since), or a region of a project file by `path` and line range, numbered. Read the lines a
        search pointed to instead of whole files."""
        if (id is None) == (path is None):
            raise CairnError("give exactly one of `id` (a knowledge node) or `path` (a file region)")
        project = self.scope.project_for(root)
        if id is not None:
            return _render_node(project, id)
        assert path is not None  # exactly one of id and path was given
        return _read_region(project, path, start_line, end_line)

    # ------------------------------------------------------------------ sessions

    def projects(self) -> dict:
        """The projects cairn knows on this machine (id, name, worktree roots, indexed or not) and
        which one this server serves. Other worktrees of the current project can be passed as `root`."""
        current = self.scope.project
        rows = known_projects()
        for row in rows:
            row["current"] = row["id"] == current.id
        if current.root is not None and not any(r["current"] for r in rows):
            rows.insert(
                0,
                {
                    "id": current.id,
                    "name": current.name,
                    "roots": [str(current.root)],
                    "indexed": False,
                    "current": True,
                },
            )
        return {"current": current.id, "projects": rows}

    def handoff_save(
        self,
        goal: Annotated[Str | None, Field(max_length=2000, description="What the work is for.")] = None,
        where: Annotated[Str | None, Field(max_length=4000, description="Where we are now.")] = None,
        files: Annotated[list[Str] | None, Field(max_length=50, description="Files in play.")] = None,
        decisions: Annotated[list[Str] | None, Field(max_length=50, description="Decisions made.")] = None,
        next: Annotated[list[Str] | None, Field(max_length=50, description="Next steps.")] = None,
        blockers: Annotated[list[Str] | None, Field(max_length=50, description="Blockers.")] = None,
        body: Annotated[
            Str | None,
            Field(max_length=20_000, description="Or the whole handoff as markdown (used instead of the fields)."),
        ] = None,
        root: Root = None,
    ) -> str:
        """Save a handoff for the next session (or for after compaction): goal, where we are, files in
        play, decisions made, next steps, blockers. Do it before the context fills up or when you stop."""
        from cairn.agents.handoff import save_handoff

        project = self.scope.project_for(root)
        self.scope.require_root(project)
        files = [self._cited(project, f) for f in files] if files else files  # names inside the project only
        fields = {
            "goal": goal,
            "where": where,
            "files": files,
            "decisions": decisions,
            "next": next,
            "blockers": blockers,
        }
        saved = save_handoff(project, fields=fields, body=body)
        return f"saved handoff {saved.title!r} ({relative_to_root(project, saved.path.resolve())})"

    def handoff_last(self, root: Root = None) -> str:
        """The newest handoff of this project: read it first when resuming work that an earlier
        session (or someone else) left."""
        from cairn.agents.handoff import latest_handoff

        project = self.scope.project_for(root)
        self.scope.require_root(project)
        last = latest_handoff(project)
        if last is None:
            return "No handoff saved yet in this project."
        return f"(handoff of {last.created}, {relative_to_root(project, last.path.resolve())})\n\n{last.body}"


def safe_target(project: Project, raw: str) -> str:
    """A target an agent names, with the path safety of `read` when it looks like a path: `..`,
    NUL bytes, `.git/` and places outside the project are refused before the index is asked."""
    from cairn.errors import PathRefused

    text = raw.strip()
    if "\x00" in text:
        raise PathRefused(repr(text), "a NUL byte in a path")
    head = text
    if ":" in text and not text.startswith("/") and not (len(text) > 1 and text[1] == ":"):
        head = text.rsplit(":", 1)[0] or text  # FILE:SYMBOL
    if "/" in head or "\\" in head or head.startswith((".", "~")):
        safe_path(project, head, must_exist=False)
    return text


def transcript_file(project: Project, raw: str) -> str:
    """A transcript an agent may hand over: a regular .jsonl file inside the project or under an
    agent's own session folder (~/.claude, ~/.codex, ~/.gemini, $CLAUDE_CONFIG_DIR, $CODEX_HOME); never
    anything else."""
    import os

    path = Path(os.path.expanduser(raw))
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):
        raise CairnError(f"transcript_path {raw!r}: no such file") from None
    home = Path.home()
    allowed = [project.root, home / ".claude", home / ".codex", home / ".gemini"]
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME"):
        if os.environ.get(var):
            allowed.append(Path(os.environ[var]).expanduser())
    inside = any(a is not None and real.is_relative_to(Path(a).resolve()) for a in allowed)
    if real.suffix != ".jsonl" or not real.is_file() or not inside:
        raise CairnError(
            f"transcript_path {raw!r}: not a session transcript (.jsonl inside the project or an "
            "agent's session folder)"
        )
    return str(real)


def _indexed_paths(project: Project) -> list[str] | None:
    """The index's file list, so finding decision records skips a second walk of a big tree
    (5k files: 140 ms -> 5 ms). None without an index: load_knowledge then walks itself."""
    if project.root is None or not project.index_path().exists():
        return None
    from cairn.codemap.indexer import open_index

    con = open_index(project)
    try:
        return [row[0] for row in con.execute("SELECT path FROM files")]
    finally:
        con.close()


def _render_node(project: Project, ref: str) -> str:
    from cairn.memory import load_knowledge
    from cairn.memory.node_view import node_view

    nodes = load_knowledge(project, paths=_indexed_paths(project))
    return node_view(project, nodes, ref, hint="search_knowledge lists ids").text()


def _read_region(project: Project, path: str, start: int, end: int | None) -> str:
    """Numbered lines start..end of a text file, bounded in lines, characters and bytes read."""
    real = safe_path(project, path)
    if not real.is_file():
        raise CairnError(f"{path}: not a file")
    with open(real, "rb") as fh:
        if b"\x00" in fh.read(8192):
            raise CairnError(f"{path}: binary file, not shown")
        fh.seek(0)
        last = min(end if end is not None else start + MAX_READ_LINES - 1, start + MAX_READ_LINES - 1)
        if last < start:
            raise CairnError("end_line is before start_line")
        before: list[str] = []  # lines just above the region: a key block may start there
        lines: list[str] = []
        used = 0
        total: int | None = 0
        for total, raw in enumerate(fh, 1):
            if total < start:
                if total >= start - REDACT_CONTEXT_LINES:
                    before.append(raw.decode("utf-8", errors="replace").rstrip("\r\n")[: MAX_LINE_CHARS * 4])
                continue
            if total > last or used >= MAX_READ_CHARS:
                if fh.tell() > MAX_COUNT_BYTES:  # a huge file: stop here, do not count every line
                    total = None
                    break
                continue
            lines.append(raw.decode("utf-8", errors="replace").rstrip("\r\n"))
            used += min(len(lines[-1]), MAX_LINE_CHARS) + 9
    out: list[str] = []
    if lines:  # redacted as a whole (blocks span lines), line breaks kept so the numbers stay true
        from cairn.redact import redact

        shown = redact("\n".join(before + lines), keep_lines=True).split("\n")[len(before) :]
        for i, line in enumerate(shown):
            if len(line) > MAX_LINE_CHARS:
                line = line[:MAX_LINE_CHARS] + f" ... [{len(line) - MAX_LINE_CHARS} more characters]"
            out.append(f"{start + i:>6}| {line}")
    name = relative_to_root(project, real)
    if total == 0:
        return f"{name}: empty file\n"
    if not out:
        raise CairnError(f"{path} has {total} lines; start_line {start} is past the end")
    shown_last = start + len(out) - 1
    if total is None:
        more, of = f"; continue with start_line={shown_last + 1}", "?"
    else:
        more = (
            f"; {total - shown_last} more lines, continue with start_line={shown_last + 1}"
            if shown_last < total
            else ""
        )
        of = str(total)
    return f"{name} L{start}-{shown_last} of {of}{more}\n" + "\n".join(out) + "\n"
