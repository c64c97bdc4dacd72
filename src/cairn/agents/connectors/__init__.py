"""`cairn connect AGENT`: register cairn's MCP server, usage block and hooks with other agents.

agents.py is the table (which file, which format, automatic or printed), edit.py the pure text
edits, plan.py what connecting would change (file by file, written or printed), apply.py the
backup/undo engine and its journal of what was changed, per agent and per project (so an undo
in one project never touches another's files).
"""
