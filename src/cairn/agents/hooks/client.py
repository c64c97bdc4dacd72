"""The first Python a hook command starts: ask the warm server, with no `site` and no CLI loaded.

Every prompt pays the hook's process start. `python -m cairn hook ...` spends ~10 ms of it before
any work: `site` (.pth files, ~3 ms), runpy, `cairn.cli.main`, and a console script's `import re`
(~8 ms with enum). So the hook commands cairn installs are `'<python>' -S -c '<boot>' hook EVENT`:
`boot` puts the folder that holds `cairn` in place of sys.path[0] (the working directory, which
must not shadow anything) and calls `main`, which hands over to warm.hook_main; that loads `site`
only when it must answer inline or start the server (warm._full_site). If that folder is gone (an
uninstall), the import fails with exit 1: a non-blocking hook error, never Claude Code's blocking 2.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def boot(root: str = ROOT) -> str:
    """The `-c` program that starts this client from `root` (the folder holding `cairn`)."""
    literal = '"' + root.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'  # double quotes: reads well inside '...'
    return f"import sys; sys.path[0] = {literal}; from cairn.agents.hooks.client import main; sys.exit(main())"


def main() -> int:
    from cairn.agents.hooks.warm import hook_main

    args = sys.argv[1:]
    return hook_main(args[1:] if args[:1] == ["hook"] else args)
