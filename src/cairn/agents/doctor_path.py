"""`cairn doctor`'s PATH check: which `cairn` a shell (or an agent's Bash tool) runs, and is it this one.

Three other packages on the index install a `cairn` command (`cairn`, `cairn-cli`, `cairn-memory`),
and a second copy of cairn (an old venv, a tool install) can come first on PATH. Without starting
the command, its first line names its interpreter; that interpreter's environment either holds our
package (its `cairn/agents` folder, or the `cairn-context` distribution's record) or not.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def _interpreter(command: Path) -> Path | None:
    """The Python a console script runs (its `#!` line), or None for another kind of file."""
    try:
        with command.open("rb") as f:
            first = f.readline(512).decode("utf-8", "replace").strip()
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    if not words:
        return None
    if Path(words[0]).name == "env" and len(words) > 1:  # `#!/usr/bin/env python3`
        found = shutil.which(words[1])
        return Path(found) if found else None
    return Path(words[0])


def _env_has_cairn(python: Path) -> bool:
    """Does the environment of `python` (a venv or an installation prefix) hold this project's cairn?"""
    prefix = python.parent.parent
    for site in list(prefix.glob("lib/python3*/site-packages")) + [prefix / "Lib" / "site-packages"]:
        if (site / "cairn" / "agents").is_dir() or list(site.glob("cairn_context-*.dist-info")):
            return True  # the package itself, or the distribution's record (an editable install too)
    return False


def command_on_path() -> tuple[str, str]:
    """(ok | warn, one line) for doctor's `command` check."""
    found = shutil.which("cairn")
    here = Path(sys.prefix)
    if found is None:
        return ("ok", f"no `cairn` on PATH; this one is {here / 'bin' / 'cairn'}")
    command = Path(found)
    python = _interpreter(command)
    if python is not None and Path(os.path.realpath(python.parent.parent)) == Path(os.path.realpath(here)):
        return ("ok", f"`cairn` on PATH is this install ({command})")
    if python is not None and _env_has_cairn(python):
        return (
            "warn", f"`cairn` on PATH is another copy of cairn ({command}), not this one ({here}): "
            "the agent's shell runs that one; remove one or put the one you want first on PATH",
        )  # fmt: skip
    return (
        "warn", f"`cairn` on PATH ({command}) is another project's command, not cairn: call this "
        f"one as `cairn-context` or {here / 'bin' / 'cairn'}, or uninstall the other (pip uninstall cairn cairn-memory cairn-cli)",
    )  # fmt: skip
