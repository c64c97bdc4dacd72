"""The routine cairn teaches an agent, written once: the MCP server's `instructions` and the
usage block `cairn connect` writes into AGENTS.md, GEMINI.md, ... both come from here, so the
server and the instruction files never disagree. Stdlib only (no mcp import).
"""

from __future__ import annotations

ROUTINE = """\
1. New session or unfamiliar area: `map` (the overview; `map` with a module for detail), and
   `handoff_last` when resuming work.
2. Before exploring files or grepping: `context` with the task in words (add `terms`: your own
   synonyms and likely identifiers), then `read` only the line ranges it points to. Before
   changing a file or symbol: `explain` it (its users, notes about it, what changes with it);
   `path` A B shows how A depends on B.
3. Before deciding or debugging: `search_knowledge` - it may already be decided or known.
4. Learned something durable (a decision and why, a gotcha, a bug's cause, how a part works)?
   `remember` it, citing files/symbols. Before stopping or when context runs low: `handoff_save`.
"""

SERVER_INSTRUCTIONS = f"""\
cairn is this project's memory: a map of the code, a ranked search over code and the team's
knowledge (decisions, gotchas, bugs, how-tos), and handoffs between sessions.

Routine:
{ROUTINE}
Paths are relative to the project root; nothing outside the project is readable.
"""

USAGE_BLOCK = f"""\
## cairn: project memory (MCP server `cairn`)

This project is indexed by cairn. Use its tools instead of exploring blind:
{ROUTINE}"""
