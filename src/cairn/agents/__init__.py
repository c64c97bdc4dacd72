"""Front ends that bring cairn into coding agents: MCP server, connectors, hooks, handoffs."""
