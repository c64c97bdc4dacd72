"""The cairn MCP server: one MCPServer (mcp SDK 2.x) exposing the tools of tools.py and the resources of resources.py.

Why this shape: the SDK turns each tool's signature into its input schema and runs sync tools in
worker threads, so two clients (or two calls) never block each other. Every tool goes through
`_guarded`, which redacts every answer (a file region or a note can quote a key), turns cairn's
expected failures into MCP tool errors with the plain message and
any other exception into a one-line "internal error" (traceback in CAIRN_HOME/logs/mcp.log):
a bad call never takes the server down and never leaks a stack to the agent. Both the log and the
error text go through `redact`: an exception message can quote a token from a file or an argument,
and a log kept on disk for months must not hold it in clear. `instructions`
teach the agent the routine cairn exists for: map first, search before exploring, register
what you learned. Resources go through the same guard; the tool list is listed with compact
schemas (cost.py: it is loaded into every session).
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import MCPServerError, ResourceError, ToolError
from mcp.types import Resource, Tool, ToolAnnotations

from cairn import __version__
from cairn.agents.mcp.guard import Scope
from cairn.agents.mcp.routine import SERVER_INSTRUCTIONS
from cairn.agents.mcp.tools import CairnTools
from cairn.errors import CairnError

INSTRUCTIONS = SERVER_INSTRUCTIONS

# The spec reads destructive and idempotent hints only when read_only is false: not sent for reads.
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
# adds or merges notes, saves a new handoff: nothing is lost, and a second call adds again
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
# replaces the summary it names (the old text is gone): destructive, and the same call twice is once
REPLACES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)

# name -> (annotations, title)
TOOL_TABLE: dict[str, tuple[ToolAnnotations, str]] = {
    "context": (READ_ONLY, "Task context"),
    "search_code": (READ_ONLY, "Search code"),
    "search_knowledge": (READ_ONLY, "Search project knowledge"),
    "map": (READ_ONLY, "Project map"),
    "explain": (READ_ONLY, "Explain a file, symbol or note"),
    "path": (READ_ONLY, "Dependency path"),
    "read": (READ_ONLY, "Read a note or file lines"),
    "remember": (WRITES, "Remember facts"),
    "write_summary": (REPLACES, "Write a map summary"),
    "handoff_save": (WRITES, "Save a handoff"),
    "handoff_last": (READ_ONLY, "Latest handoff"),
    "projects": (READ_ONLY, "Known projects"),
}
PREWARM_DELAY_S = 1.0
CALLED = threading.Event()  # a tool call began: the warm-up has nothing left to do

log = logging.getLogger("cairn.mcp")


def _log_internal(name: str) -> str | None:
    """Append the current traceback, secrets masked, to CAIRN_HOME/logs/mcp.log; never raises."""
    from cairn.logs import log_exception

    path = log_exception("mcp.log", f"tool {name}")
    return str(path) if path else None


def _guarded(name: str, fn: Callable[..., Any], fail: type[MCPServerError] = ToolError) -> Callable[..., Any]:
    """`fn` with cairn's errors as MCP errors of class `fail` (ToolError, ResourceError), same signature."""

    @functools.wraps(fn)
    def tool(*args: Any, **kwargs: Any) -> Any:
        CALLED.set()
        from cairn.redact import redact, redact_obj

        try:
            return redact_obj(fn(*args, **kwargs))  # nothing leaves the server unredacted
        except CairnError as exc:
            raise fail(redact(str(exc))) from None
        except MCPServerError:
            raise
        except Exception as exc:
            where = _log_internal(name)
            raise fail(
                redact(f"internal error in {name}: {type(exc).__name__}: {exc}")
                + (f" (details in {where})" if where else "")
            ) from None

    return tool


def _resource_guard(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    return _guarded(name, fn, ResourceError)


class CairnServer(MCPServer):
    """MCPServer listing compact tool schemas and the project's notes among its resources."""

    def __init__(self, scope: Scope, **settings: Any) -> None:
        super().__init__(**settings)
        self.scope = scope

    async def list_tools(self) -> list[Tool]:
        from cairn.agents.mcp.cost import compact_schema

        tools = await super().list_tools()
        return [t.model_copy(update={"input_schema": compact_schema(t.input_schema)}) for t in tools]

    async def list_resources(self) -> list[Resource]:
        import anyio

        from cairn.agents.mcp.resources import note_resources

        listed = await super().list_resources()
        try:
            return listed + await anyio.to_thread.run_sync(note_resources, self.scope)
        except Exception:  # a broken index must not break the listing: the map and templates remain
            _log_internal("list_resources")
            return listed


def prewarm(scope: Scope) -> None:
    """Import the search and map code, refresh an existing index and search it once, in a background thread.

    An agent usually thinks for seconds between connecting and its first call; this spends that
    time so the first `map` or `context` does not pay ~0.3 s of imports and a stat walk. It waits
    PREWARM_DELAY_S first: run at once, it competed with the handshake for the GIL and made the
    first answer of an immediate call slower (measured: 1.06 -> 1.36 s median under load). A
    project never indexed is left alone (a cold index is the first call's job, not start-up's).
    A call that came first did that work itself: the warm-up then only holds the index open (an
    immediate burst of calls measured p50 24 -> 39 ms with the warm-up search running beside it).
    """
    import time

    def work() -> None:
        time.sleep(PREWARM_DELAY_S)
        try:
            from cairn.search import index_cache

            index_cache.keep_open()  # a long-lived process: one idle connection per index
            if CALLED.is_set():
                return
            import cairn.codemap.maps  # noqa: F401
            import cairn.memory  # noqa: F401
            import cairn.search.service  # noqa: F401
            from cairn.codemap.indexer import index_project

            project = scope.project
            if project.root is not None and project.index_path().exists():
                index_project(project)
                _first_search(project)
        except Exception:  # a failed warm-up only means the first call does the work
            _log_internal("prewarm")

    threading.Thread(target=work, name="cairn-prewarm", daemon=True).start()


def _first_search(project: Any) -> None:
    """One throwaway search and redaction: what a first call would pay beyond the imports (the
    per-index facts search/index_cache.py keeps, the redactor's compiled patterns, SQLite's pages;
    measured at 20k files: a first `search_code` 3 s after start 213-234 ms, a later one 58-71 ms)."""
    from cairn.codemap.index_db import open_index
    from cairn.redact import redact
    from cairn.search.index_cache import Pinned
    from cairn.search.paths import prepare
    from cairn.search.service import search
    from cairn.text.tokens import split_identifier, stem_of

    con = open_index(project)
    try:  # the words of the most central file's name: found by every channel, the path one included
        row = con.execute("SELECT path FROM files ORDER BY rank DESC, id LIMIT 1").fetchone()
        words = " ".join(split_identifier(stem_of(row[0]))) if row else ""
        search(project, f"{words} warm up the search path", refresh=False, limit=1)
        with Pinned(con):  # a long-lived process: the path channel's own lists, built now rather than by a call
            prepare(con)
    finally:
        con.close()
    redact("warm up the redactor: password = not-a-real-secret-0000")


def build_server(project_dir: str | None = None, *, warm: bool = False) -> MCPServer:
    """A ready MCPServer for the project of `project_dir` (default: env vars, then cwd).

    `warm` starts `prewarm` (what `cairn serve` does; tests keep it off: no stray threads).
    """
    scope = Scope(project_dir)
    if warm:
        prewarm(scope)
    tools = CairnTools(scope)
    server = CairnServer(
        scope,
        name="cairn",
        title="cairn project memory",
        instructions=INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",
    )
    for name, (hints, title) in TOOL_TABLE.items():
        fn = getattr(tools, name)
        server.add_tool(
            _guarded(name, fn),
            name=name,
            title=title,
            description=_description(fn),
            annotations=hints,
            structured_output=False,
        )
    from cairn.agents.mcp.resources import register

    register(server, scope, _resource_guard)
    return server


def _description(fn: Callable[..., Any]) -> str:
    return " ".join((fn.__doc__ or "").split())
