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

from cairn.agents.mcp.bounds import (
    MAX_BUDGET,
    MAX_LIMIT,
    MAX_MAP_BUDGET,
    MAX_PROJECTS,
    MAX_READ_CHARS,
    MAX_READ_LINES,
    Truncation,
    cap_text,
    clamp,
    with_note,
)
from cairn.agents.mcp.guard import Scope, known_projects, relative_to_root, safe_path
from cairn.codemap.knowledge.node import TYPES
from cairn.errors import CairnError

if TYPE_CHECKING:
    from cairn.project import Project
    from cairn.workspace.members import Workspace

MAX_SUMMARY_CHARS = 8_000
MAX_FACTS = 20

Int = Annotated[int, Strict()]
Str = Annotated[str, Strict()]
Root = Annotated[str | None, Field(description="Another worktree of this project.")]
Query = Annotated[Str, Field(min_length=1, max_length=2000, description="What you look for, in words.")]
Terms = Annotated[
    list[Str] | None,
    Field(max_length=40, description="Your related words: synonyms, likely identifiers, file names."),
]
Budget = Annotated[Int | None, Field(ge=1, description=f"Answer token budget (max {MAX_BUDGET}).")]
Limit = Annotated[Int, Field(ge=1, description=f"Max results (max {MAX_LIMIT}).")]
TranscriptPath = Annotated[
    Str | None,
    Field(
        max_length=4096,
        description="Your session's .jsonl transcript (Claude Code, Codex, Gemini CLI): files in play steer the ranking.",
    ),
]
NodeType = Literal[TYPES]  # type: ignore[valid-type]


class LinkIn(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    rel: Str = Field("relates-to", description="relation: relates-to, caused-by, fixes, depends-on, ...")
    target: Str = Field(min_length=1, description="id or title of the node linked to")


class FactIn(BaseModel):
    # One fact, the same shape `cairn remember --json` reads (a comment: a docstring would be sent in the schema).
    model_config = ConfigDict(extra="forbid", strict=True)
    title: Str = Field(min_length=1, max_length=300, description="short, specific, searchable")
    type: NodeType = Field("note")  # the schema's enum lists the types
    body: Str = Field("", max_length=20_000, description="the fact itself, markdown: what, why, how to apply")
    files: list[Str] = Field(default_factory=list, max_length=30, description="repo-relative files it is about")
    symbols: list[Str] = Field(default_factory=list, max_length=30)
    links: list[LinkIn] = Field(default_factory=list, max_length=30)
    supersedes: Str | None = Field(None, description="id or title of the node this one replaces")
    tags: list[Str] = Field(default_factory=list, max_length=20)
    personal: bool = Field(False, description="true: a personal preference for every project (personal vault)")


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
        limit, budget = clamp(limit, 10, MAX_LIMIT), clamp(budget, 2000, MAX_BUDGET)
        ws = _workspace(project)
        if ws is not None:  # the user's workspace holds this project: every member answers, labelled
            from cairn.workspace.fanout import search as across

            answer, notes = across(
                ws, query, terms=terms or None, limit=limit, budget=budget, kind=kind, session=session
            )
            if notes and answer.texts:
                answer.texts.append("\n".join(notes))
        else:
            answer = search(project, query, terms=terms or None, limit=limit, budget=budget, kind=kind, session=session)
        if not answer.texts:
            return (
                f"No {kind if kind != 'all' else 'code or knowledge'} matches for {query!r}. "
                "Try other words (pass `terms`), or open the map."
            )
        shown = len(answer.results)
        cut = None
        if shown < answer.found:
            more = f"budget up to {MAX_BUDGET}" if budget < MAX_BUDGET else "narrower words"
            cut = Truncation(shown, answer.found, "results", f"budget {budget} tokens", more)
        elif answer.found >= limit:
            more = f"limit up to {MAX_LIMIT}" if limit < MAX_LIMIT else "narrower words"
            cut = Truncation(shown, None, "results", f"limit {limit}", more)
        return with_note(f"{answer.text}\n({shown} results, ~{answer.tokens} tokens)", cut)

    def context(
        self,
        query: Query,
        terms: Terms = None,
        budget: Budget = 2000,
        limit: Limit = 12,
        root: Root = None,
        transcript_path: TranscriptPath = None,
    ) -> str:
        """Start of any task: the code places and team knowledge (decisions, gotchas, bugs) that matter
        for a request, ranked within a token budget. Use before exploring files or grepping. Not for
        one known file or symbol (explain)."""
        return self._search("all", query, terms, limit, budget, root, transcript_path)

    def search_code(
        self, query: Query, terms: Terms = None, limit: Limit = 10, budget: Budget = None, root: Root = None
    ) -> str:
        """Find code by words or names: files and definitions with line numbers, ranked by names, text
        and imports. Use instead of grep or find plus reading files. Not for why-questions
        (search_knowledge)."""
        return self._search("code", query, terms, limit, budget, root)

    def search_knowledge(
        self, query: Query, terms: Terms = None, limit: Limit = 10, budget: Budget = None, root: Root = None
    ) -> str:
        """Search what the team and earlier sessions learned: decisions, gotchas, bug causes, how-tos.
        Use for "didn't we fix this before?", "why is it built this way?", and before deciding or
        debugging. Not for finding code (search_code)."""
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
        budget: Annotated[Int, Field(ge=1, description=f"Overview token budget (100-{MAX_MAP_BUDGET}).")] = 500,
        root: Root = None,
    ) -> str:
        """Project map: without `module` an overview (languages, modules, central files, entry points,
        key decisions); with `module` its files, key symbols with lines, links. Use first in a new
        session or unfamiliar area, instead of listing directories."""
        from cairn.agents.mcp.views import map_overview, module_page
        from cairn.codemap.indexer import open_fresh

        project = self.scope.project_for(root)
        self.scope.require_root(project)
        con = open_fresh(project)
        try:
            if module:
                return module_page(con, project, module)
            return map_overview(con, project, clamp(budget, 500, MAX_MAP_BUDGET, low=100))
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
        """Replace the summary atop the map or a module's page: what it is for and how its parts fit, in
        a few lines. Use once you understand it. Not for facts (remember)."""
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
        """All cairn knows about one file, symbol or knowledge node: definitions, users and uses, notes
        citing it, centrality, recent commits, files changing with it. Use before changing it. Not
        for finding things (context)."""
        from cairn.search.explain_render import pack
        from cairn.search.service import explain

        project = self.scope.project_for(root)
        self.scope.require_root(project)
        budget = clamp(budget, 1200, MAX_BUDGET)
        ws = _workspace(project)
        if ws is not None:  # the target in any member, with the imports crossing between them
            from cairn.workspace.explain import explain as across

            target = safe_target(project, target)
            _, text, tokens = across(ws, target, budget=budget, refresh=True)
            whole, whole_tokens = text, tokens
            if tokens * 5 >= budget * 4:  # near the budget: was it cut? (a cut answer fills it)
                _, whole, whole_tokens = across(ws, target, budget=MAX_BUDGET * 4, refresh=False)
        else:
            data, whole, whole_tokens = explain(project, safe_target(project, target), budget=None)
            _, text, tokens = pack(data, budget)
        cut = None
        if text != whole:
            more = f"budget up to {MAX_BUDGET}" if budget < MAX_BUDGET else "explain a narrower target"
            cut = Truncation(tokens, whole_tokens, "tokens", f"budget {budget}", more)
        return with_note(f"{text}(~{tokens} tokens)", cut)

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
        """How A depends on B: the shortest import and reference chains from A to B, each hop with the
        names it goes through, or why there is none. Use to judge whether changing B can break A."""
        from cairn.search.service import dependency_path

        project = self.scope.project_for(root)
        self.scope.require_root(project)
        ws = _workspace(project)
        if ws is not None:  # A and B in any members; across two by the imports between them
            from cairn.workspace.explain import path as across

            return across(ws, safe_target(project, a), safe_target(project, b))[1]
        _, text = dependency_path(project, safe_target(project, a), safe_target(project, b))
        return text

    # ------------------------------------------------------------------ knowledge

    def remember(
        self, facts: Annotated[list[FactIn], Field(min_length=1, max_length=MAX_FACTS)], root: Root = None
    ) -> dict:
        """Save what later sessions need: a decision and why, a gotcha, a bug's cause. Use once learned;
        not for progress (handoff_save). Repeats merge; `supersedes` retires an old note; cite
        `files`/`symbols` so it is flagged when that code changes."""
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
        """A knowledge note by `id` (body, status, what replaced it, cited files changed since), or
        numbered lines of a project file by `path`. Use after a search or the map pointed to lines;
        not to list directories (map) or to read whole files."""
        from cairn.agents.mcp.views import read_region, render_node

        if (id is None) == (path is None):
            raise CairnError("give exactly one of `id` (a knowledge node) or `path` (a file region)")
        project = self.scope.project_for(root)
        if id is not None:
            return render_node(project, id)
        assert path is not None  # exactly one of id and path was given
        return read_region(project, path, start_line, end_line)

    # ------------------------------------------------------------------ sessions

    def projects(self) -> dict:
        """The projects cairn knows on this machine and the one this server serves; a worktree of it
        can be passed as `root`. Rarely needed."""
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
        rows.sort(key=lambda r: not r["current"])  # stable: the current project first, then by id
        out: dict = {"current": current.id, "projects": rows[:MAX_PROJECTS]}
        if len(rows) > MAX_PROJECTS:
            cut = Truncation(
                MAX_PROJECTS, len(rows), "projects", f"{MAX_PROJECTS} per answer", "the folders of CAIRN_HOME/projects/"
            )
            out["truncated"] = cut.as_json()
        return out

    def handoff_save(
        self,
        goal: Annotated[Str | None, Field(max_length=2000, description="What the work is for.")] = None,
        where: Annotated[Str | None, Field(max_length=4000, description="Where we are now.")] = None,
        files: Annotated[list[Str] | None, Field(max_length=50)] = None,  # the names say it (tokens: listed)
        decisions: Annotated[list[Str] | None, Field(max_length=50)] = None,
        next: Annotated[list[Str] | None, Field(max_length=50)] = None,
        blockers: Annotated[list[Str] | None, Field(max_length=50)] = None,
        body: Annotated[
            Str | None,
            Field(max_length=20_000, description="Or the whole handoff as markdown (used instead of the fields)."),
        ] = None,
        root: Root = None,
    ) -> str:
        """Save where the work stands for the next session or after compaction: goal, state, files,
        decisions, next steps, blockers. Use before stopping or when context runs low."""
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
        """The newest handoff of this project. Use when resuming work an earlier session left."""
        from cairn.agents.handoff import latest_handoff

        project = self.scope.project_for(root)
        self.scope.require_root(project)
        last = latest_handoff(project)
        if last is None:
            return "No handoff saved yet in this project."
        where = relative_to_root(project, last.path.resolve())
        body, cut = cap_text(last.body, MAX_READ_CHARS, f"read(path={where!r})")
        return with_note(f"(handoff of {last.created}, {where})\n\n{body}", cut)


def _workspace(project: Project) -> Workspace | None:
    """The user's workspace when it holds this project, else None;
    a broken workspace file answers for this project only, as the CLI does."""
    from cairn.workspace.members import workspace_of

    try:
        return workspace_of(project)
    except CairnError:
        return None


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
