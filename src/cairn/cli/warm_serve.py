"""What a command-line warm server runs for each command line a client sends (agents/hooks/warm.py).

The warm process lives in the agents layer, which never imports the CLI; so the CLI gives it this
runner when it starts one (`cairn hook _serve --cli`): the client's command line, run by the very
same `cli.main` with stdout and stderr captured, exactly as the client would have run it.
"""

from __future__ import annotations

import contextlib
import io
import os


def register() -> None:
    """Hand the warm server this runner, with the search path already imported."""
    from cairn.agents.hooks import warm
    from cairn.cli import search_cmd  # noqa: F401  (warm: the first request pays no import)

    warm.CLI_RUNNER[:] = [run_request]


def run_request(body: bytes) -> tuple[str, str, int] | None:
    """(stdout, stderr, exit code) of a client's command line; None when this server must not
    answer it (other CAIRN_* settings, a command it does not serve, a project with no index yet)."""
    from cairn.agents.hooks.warm import _settings
    from cairn.cli import main as cli

    size, rest = body.split(b"\n", 1)
    if not size.isdigit() or rest[: int(size)] != _settings():
        return None
    argv = [os.fsdecode(a) for a in rest[int(size):].split(b"\0")]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        if argv[0] not in cli.WARM_COMMANDS or not cli.warm_ready(argv):  # (a usage error it prints is dropped)
            return None
        try:
            code = cli.main(argv, warm=False)
        except SystemExit as exc:  # argparse's own exits (the client asked for no help)
            code = exc.code if isinstance(exc.code, int) else 2
    return out.getvalue(), err.getvalue(), code
