"""What the warm MCP zygote (warm/zygote.py) imports before it forks: the SDK, the server, the search path.

Every child the zygote forks runs `cairn serve`; what it would import and compile at start and at its
first search is done once here, in the zygote: no database opened, no thread started (a fork copies
one thread only, and a SQLite connection must not cross a fork). The CLI passes `preload` to the
zygote (cli/serve_cmd.py), which never imports the agents layer itself.
"""

from __future__ import annotations

PRELOAD = (
    "cairn.agents.mcp.server",  # the SDK and the tools
    "rich.console",
    "rich.logging",  # what MCPServer() imports to configure its logging
    "anyio._backends._asyncio",
    "anyio.streams.stapled",  # what its run() imports (anyio's event loop)
    "cairn.search.service",
    "cairn.search.engine",
    "cairn.search.render",
    "cairn.search.knowledge",
    "cairn.search.session_signals",
    "cairn.codemap.freshness",
    "cairn.codemap.history",
    "cairn.agents.tracker",
    "cairn.search.phrases",
    "cairn.text.abbreviations",
    "cairn.codemap.indexer",
    "cairn.codemap.graph_update",
    "cairn.codemap.vectors",
    "cairn.codemap.embed",
    "cairn.codemap.maps",
    "cairn.memory",
    "cairn.codemap.file_facts",
)


def preload() -> None:
    """Import what every server start and first search would import, and compile the redactor's
    and the tooling channel's patterns and the index's expected tables: no database, no thread.
    (A module missing here is only imported by the child.)"""
    import importlib

    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    from cairn.redact import redact

    redact("warm up the redactor: password = not-a-real-secret-0000")
    try:  # patterns and tables compiled at first use, the same for every project
        from cairn.codemap.index_db import expected_tables
        from cairn.search.tooling import asked_tools

        asked_tools("warm up the linter")
        expected_tables()
    except Exception:  # only the first search's speed depends on it
        pass
