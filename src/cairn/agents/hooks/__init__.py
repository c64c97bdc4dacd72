"""Claude Code hooks: one module per event, dispatched by `runner` (`cairn hook EVENT`).

Everything here runs inside the agent's loop, on every prompt or tool call, so modules import
only the standard library and cairn's light modules at the top; anything heavier is imported
inside the function that needs it, on the paths that need it.
"""
