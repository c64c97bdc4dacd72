"""The command-line warm server (`cairn hook _serve --cli`, warm/hook_server.py) with the CLI's answer.

The warm package never imports the CLI; so the CLI hands it this answer when it starts one: the
client's command line, run by the very same `cli.main` with stdout and stderr captured, exactly as
the client would have run it.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Callable

Main = Callable[..., int]  # cli.main.main: (argv, warm=...) -> exit code
Ready = Callable[[list[str]], bool]  # cli.main.warm_ready


def serve(main: Main, ready: Ready) -> int:
    """Be a command-line server of this process's CAIRN_* settings, running each command line it
    accepts with `main` (cli/main.py passes itself in: no import back)."""
    from cairn.warm import hook_server
    from cairn.warm.hook_client import CLI

    def answer(name: str, body: bytes) -> tuple[str, str, int] | None:
        return run_request(body, main, ready) if name == CLI else None

    return hook_server.serve(answer, cli=True, own_process=True, prepare=_import_search)


def _import_search() -> None:
    from cairn.cli import search_cmd  # noqa: F401  (warm: the first request pays no import)
    from cairn.sessions import statusline  # noqa: F401  (`cairn xray statusline`, on every agent message)


def run_request(body: bytes, main: Main, ready: Ready) -> tuple[str, str, int] | None:
    """(stdout, stderr, exit code) of a client's command line; None when this server must not
    answer it (other CAIRN_* settings, a command it does not serve, a project with no index yet)."""
    from cairn.warm.hook_client import settings

    size, rest = body.split(b"\n", 1)
    if not size.isdigit() or rest[: int(size)] != settings():
        return None
    argv = [os.fsdecode(a) for a in rest[int(size) :].split(b"\0")]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        if not ready(argv):  # (a usage error it prints is dropped)
            return None
        try:
            code = main(argv, warm=False)
        except SystemExit as exc:  # argparse's own exits (the client asked for no help)
            code = exc.code if isinstance(exc.code, int) else 2
    return out.getvalue(), err.getvalue(), code
