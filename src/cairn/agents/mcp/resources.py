"""The map, module pages and knowledge notes as MCP resources, for clients that attach context.

Why resources as well as tools: a client (Claude Code's @-mentions, an IDE's context picker) can
attach the map or a note to a conversation without the model spending a tool call on it. They
show what the `map` and `read` tools show (views.py: same bounds, same truncation line), go
through the server's guard (redacted; cairn's errors become one clear resource error, never a
traceback), and name things the index knows (a module, a note id), never a file path: the SDK
refuses `..`, absolute paths and NUL bytes in a template's values before these functions run.
Listing the notes costs one bounded query of the index, so only the first MAX_LISTED_NOTES
live notes are listed (decisions, gotchas and bugs first); any note reads by its id.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.types import Resource as ListedResource

from cairn.errors import CairnError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from cairn.agents.mcp.guard import Scope

MAP_URI = "cairn://map"
MODULE_TEMPLATE = "cairn://module/{+name}"
NOTE_TEMPLATE = "cairn://note/{id}"
MAP_BUDGET = 2_000  # tokens: an attached map may say more than the tool's 500-token default
MAX_LISTED_NOTES = 100
MARKDOWN = "text/markdown"


def _missing(exc: CairnError) -> ResourceNotFoundError:
    """A lookup's own message ("no module 'x'; modules: ...") as the resource-not-found error."""
    from cairn.redact import redact

    return ResourceNotFoundError(redact(str(exc)))


def register(server: MCPServer, scope: Scope, guard: Callable[[str, Callable[..., Any]], Callable[..., Any]]) -> None:
    """Add the map resource and the module and note templates to `server`, each wrapped by `guard`."""
    from cairn.agents.mcp.views import map_overview, module_page, render_node

    def project():  # the server's own project; resources take no `root`
        scope.require_root(scope.project)
        return scope.project

    def project_map() -> str:
        from cairn.codemap.indexer import open_fresh

        con = open_fresh(project())
        try:
            return map_overview(con, scope.project, MAP_BUDGET)
        finally:
            con.close()

    def module(name: str) -> str:
        from cairn.codemap.indexer import open_fresh

        con = open_fresh(project())
        try:
            return module_page(con, scope.project, name)
        except CairnError as exc:
            raise _missing(exc) from None
        finally:
            con.close()

    def note(id: str) -> str:
        try:
            return render_node(project(), id)
        except CairnError as exc:
            raise _missing(exc) from None

    def add(uri: str, fn: Callable[..., Any], name: str, title: str, description: str) -> None:
        wrapped = guard(f"resource {name}", fn)
        server.resource(uri, name=name, title=title, description=description, mime_type=MARKDOWN)(wrapped)

    add(MAP_URI, project_map, "map", "Project map", "Overview: languages, modules, central files, key decisions.")
    add(MODULE_TEMPLATE, module, "module", "Module page", "A module's files, key symbols and links (name: from map).")
    add(NOTE_TEMPLATE, note, "note", "Knowledge note", "A decision, gotcha, bug or how-to by id, with its links.")


def note_resources(scope: Scope, limit: int = MAX_LISTED_NOTES) -> list[ListedResource]:
    """The first `limit` live notes of the project's index as resources; none without an index."""
    project = scope.project
    if project.root is None or not project.index_path().exists():
        return []
    from cairn.codemap.index_db import open_index
    from cairn.redact import redact

    con = open_index(project)
    try:
        rows = con.execute(
            "SELECT id, type, title FROM nodes WHERE state = 'active' AND id IS NOT NULL ORDER BY "
            "CASE type WHEN 'decision' THEN 0 WHEN 'gotcha' THEN 1 WHEN 'bug' THEN 2 ELSE 3 END, title, id LIMIT ?",
            (limit,),
        ).fetchall()
    finally:
        con.close()
    return [
        ListedResource(
            uri=f"cairn://note/{quote(str(node_id), safe='')}",
            name=str(node_id),
            title=redact(f"{kind}: {title}"),
            mime_type=MARKDOWN,
        )
        for node_id, kind, title in rows
    ]
