"""The program a hook command starts with, `python -S -c <boot>`, and so the hook server too.

The installed hook commands run `'<python>' -S -c '<boot>' hook EVENT` (client.py says why); the hook
server starts the same way (`server_command`), so that it runs the very code its clients run. Kept
apart from client.py, which imports the runner: SessionStart starts the server from here, with no
import circle back to its own runner.
"""

from cairn.warm.hook_client import ROOT

__all__ = ["ROOT", "boot", "ensure_started", "server_command"]  # ROOT: the folder holding `cairn`


def boot(root: str = ROOT) -> str:
    """The `-c` program that starts this client from `root` (the folder holding `cairn`)."""
    literal = (
        '"' + root.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    )  # double quotes: reads well inside '...'
    return f"import sys; sys.path[0] = {literal}; from cairn.agents.hooks.client import main; sys.exit(main())"


def server_command() -> list[str]:
    """How the hook server starts (after this Python): through this client's own boot, so that it
    runs the very code the client runs."""
    return ["-c", boot(), "hook", "_serve"]


def ensure_started() -> None:
    """Start the prompt hook's server unless one is running (SessionStart: a session's first prompt,
    after a reboot or the server's idle exit, is answered warm too)."""
    from cairn.warm.hook_client import ensure_started as start_if_none

    start_if_none(server_command())
