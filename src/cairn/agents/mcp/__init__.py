"""cairn's MCP server: `server.build_server()` (tools in tools.py, path safety in guard.py).

Nothing is imported here so that `import cairn.agents.mcp.guard` stays free of the mcp SDK.
"""
