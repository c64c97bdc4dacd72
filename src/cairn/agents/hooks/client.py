"""The first Python a hook command starts: ask the warm server, with no `site` and no CLI loaded.

Every prompt pays the hook's process start. `python -m cairn hook ...` spends ~10 ms of it before
any work: `site` (.pth files, ~3 ms), runpy, `cairn.cli.main`, and a console script's `import re`
(~8 ms with enum). So the hook commands cairn installs are `'<python>' -S -c '<boot>' hook EVENT`:
`boot` puts the folder that holds `cairn` in place of sys.path[0] (the working directory, which
must not shadow anything; boot.py) and calls `main`. `hook_main` sends the events the warm server answers
(warm/hook_client.EVENTS) to it, and loads `site` only when it must answer inline or start the
server (hook_client.full_site). If that folder is gone (an uninstall), the import fails with exit 1:
a non-blocking hook error, never Claude Code's blocking 2.

This module is also what the hook server runs with (`hook _serve`, `serve`): the warm package
(cairn/warm/) knows processes and sockets, not hooks, so it is handed the runner's answer here.
"""

import sys


def main() -> int:
    args = sys.argv[1:]
    return hook_main(args[1:] if args[:1] == ["hook"] else args)


def hook_main(args: list[str]) -> int:
    """`cairn hook ...`: through the warm server when it answers, else inline (runner.main)."""
    from cairn.warm import hook_client as warm

    names = [a for a in args if not a.startswith("-")]
    event = names[0] if names else None
    if event == "_serve":
        if "--cli" in args:  # the command-line server starts through `cairn` (cli/main.py), which has its answer
            return 0
        warm.full_site()
        return serve(own_process=True)
    if event not in warm.EVENTS or "--inline" in args or not warm.enabled():
        warm.full_site()
        from cairn.agents.hooks import runner

        return runner.main(args)
    raw = warm.read_stdin()
    answer = warm.ask(event, raw, warm.HOOK_ANSWER_TIMEOUTS.get(event, warm.ANSWER_TIMEOUT))
    if answer is None or isinstance(answer, str):
        if answer == warm.NO_SERVER:
            from cairn.agents.hooks.boot import server_command

            warm.start(server_command())  # for the next prompt; this one is answered inline
        warm.full_site()
        from cairn.agents.hooks import runner

        return runner.main(args, raw=raw)
    out, err, code = answer
    warm.write_answer(out, err)
    return code


def serve(own_process: bool = False, idle: float | None = None) -> int:
    """Be the hook server (warm/hook_server.py), answering with the runner's handlers."""
    from cairn.warm import hook_server

    return hook_server.serve(
        _answer,
        own_process=own_process,
        prepare=_import_handlers,
        idle=hook_server.IDLE_SECONDS if idle is None else idle,
    )


def _import_handlers() -> None:
    """The handlers of the events the server answers (and what they import), before the first request."""
    import importlib

    from cairn.agents.hooks.runner import HANDLERS
    from cairn.warm.hook_client import EVENTS

    for name in EVENTS:
        importlib.import_module(f"cairn.agents.hooks.{HANDLERS[name]}")


def _answer(event: str, stdin: bytes) -> tuple[str, str, int]:
    """The hook server's answer to one hook call: what an inline hook answers (runner.run), timed."""
    from cairn.agents.hooks import runner

    started = runner.time.perf_counter()
    out, err, code, status, project_id = runner.run(event, runner.parse_payload(stdin))
    runner.record_time(f"{event}+warm", started, status, project_id)
    return out, err, code
