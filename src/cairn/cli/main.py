"""`cairn` entry point: builds the argparse tree from the command modules and runs one command.

Each module in COMMAND_MODULES exposes `register(subparsers)` and sets `func` on its parsers.
Command modules import their library code inside the handler, so `cairn --help` and the hook
path stay cheap. Expected failures (CairnError) print one line; nothing prints a traceback.
"""

from __future__ import annotations

import importlib
import os
import sys

from cairn import __version__
from cairn.errors import CairnError

TYPE_CHECKING = False  # not typing.TYPE_CHECKING: importing typing costs the hook path ~5 ms
if TYPE_CHECKING:
    import argparse
    from typing import Any, TextIO

# module -> the top-level commands it registers. Order here is the order in `cairn --help`.
# A command line naming one of them builds the parser of that module alone (see build_parser).
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "cairn.cli.index_cmd": ("index", "init", "summary"),
    "cairn.cli.map_cmd": ("map",),
    "cairn.cli.search_cmd": ("search",),
    "cairn.cli.explain_cmd": ("explain", "path"),
    "cairn.cli.graph_cmd": ("graph",),
    "cairn.cli.workspace_cmd": ("workspace",),
    "cairn.cli.eval_cmd": ("eval",),
    "cairn.cli.xray_cmd": ("xray",),
    "cairn.cli.memory_cmd": ("remember", "read", "memory-md", "memory"),
    "cairn.cli.sessions_cmd": ("sessions",),
    "cairn.cli.team_cmd": ("team",),
    "cairn.cli.otel_cmd": ("otel",),
    "cairn.cli.backup_cmd": ("backup", "restore"),
    "cairn.cli.serve_cmd": ("serve",),
    "cairn.cli.connect_cmd": ("connect",),
    "cairn.cli.hook_cmd": ("hook",),
    "cairn.cli.handoff_cmd": ("handoff",),
    "cairn.cli.install_cmd": ("install",),
    "cairn.cli.doctor_cmd": ("doctor",),
}
MODULE_OF = {name: module for module, names in COMMAND_MODULES.items() for name in names}
WARM_COMMANDS = ("search", "explain", "path")  # read-only index queries the warm server answers (warm/hook_server.py)

DESCRIPTION = """\
cairn leaves the way through a codebase for the next agent session.

Start here:
  cairn index            scan and parse the project you stand in (incremental)
  cairn map              a ~500-token overview an agent can read instead of exploring
  cairn search "QUERY"   the few places that matter for a request, within a token budget
"""


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The `cairn` parser; with `command` (a top-level command name) only that command's module is
    imported and registered: `cairn search ...` does not import the other 17 (~30 ms). Its help and
    its errors are the same; an unknown name gets the whole parser."""
    import argparse  # here, not at the top: the hook fast path in main() never needs it

    from cairn.cli.common import FreeTextParser

    parser = FreeTextParser(prog="cairn", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"cairn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    only = MODULE_OF.get(command or "")
    for name in [only] if only else COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


class RedactedStdout:
    """Standard output held back and passed through `redact` before it reaches the terminal.

    Everything a command prints (search hits, notes, handoffs, file regions, session turns) goes
    through the same redaction as every stored text. Output is released at the end of a command,
    on an explicit flush, or once more than FLUSH_AT characters are waiting, always in pieces that
    end at a line break (so a PEM block or a JSON object printed at once is redacted whole).
    """

    FLUSH_AT = 1 << 20

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner
        self._parts: list[str] = []
        self._size = 0

    def write(self, text: str) -> int:
        self._parts.append(text)
        self._size += len(text)
        if self._size > self.FLUSH_AT:
            self._release(final=False)
        return len(text)

    def _release(self, *, final: bool) -> None:
        from cairn.redact import redact

        text = "".join(self._parts)
        cut = len(text) if final else text.rfind("\n") + 1
        self._parts = [text[cut:]] if cut < len(text) else []
        self._size = len(text) - cut
        if cut:
            self._inner.write(redact(text[:cut]))
            self._inner.flush()

    def flush(self) -> None:  # an explicit flush (progress lines) releases the complete lines
        if self._parts:
            self._release(final=False)

    def close(self) -> None:
        self._release(final=True)

    def __getattr__(self, name: str) -> Any:  # isatty, encoding, fileno...: the real stream's
        return getattr(self._inner, name)


UNREDACTED_COMMANDS = ("hook", "serve")  # their stdout is a protocol (hook JSON, MCP stdio), redacted inside


def main(argv: list[str] | None = None, *, warm: bool = True) -> int:
    """Run one command; `warm`: a command the warm server answers (WARM_COMMANDS: search, explain,
    path) is sent there first (warm/hook_client.py: same code, same output, without a Python
    start-up and cold caches)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"]:  # fast path: hooks run on every prompt and tool call, skip argparse
        if "_serve" in argv and "--cli" in argv:  # a command-line warm server, with the CLI's answer
            from cairn.cli.warm_serve import serve

            return serve(main, warm_ready)
        from cairn.agents.hooks.client import hook_main

        return hook_main(argv[1:])
    if argv[:1] == ["serve"]:  # MCP over stdio: through a warm zygote when one answers (warm/zygote.py)
        if argv[1:] == ["--zygote"]:
            from cairn.cli.serve_cmd import zygote

            return zygote(main, build_parser)
        if warm:
            from cairn.warm.zygote_client import run

            code = run(argv)
            if code is not None:
                return code
    if argv[:2] == ["xray", "statusline"] and "--input" not in argv and not {"-h", "--help"} & set(argv):
        from cairn.warm.hook_client import read_stdin  # read here: a warm server has not this stdin

        env = os.environ  # the folders to read are this client's, not the warm server's
        argv += ["--input", read_stdin().decode("utf-8", "replace"), "--claude-config-dir"]
        argv += [env.get("CLAUDE_CONFIG_DIR", ""), "--home", env.get("HOME", "")]
    if warm and argv[:1] and (argv[0] in WARM_COMMANDS or argv[:2] == ["xray", "statusline"]):
        from cairn.warm.hook_client import CLI_ANSWER_TIMEOUT, STATUSLINE_TIMEOUT, cli_main

        code = cli_main(argv, STATUSLINE_TIMEOUT if argv[0] == "xray" else CLI_ANSWER_TIMEOUT)
        if code is not None:
            return code
    if sys.flags.no_site:  # the status line's lean command (`python -S -c <boot>`, xray_cmd.statusline_command)
        from cairn.warm.hook_client import full_site

        full_site()  # answered inline: the dependencies are in site-packages
    if argv[:1] and argv[0] in UNREDACTED_COMMANDS:
        return _run(argv)
    real_stdout = sys.stdout
    held = RedactedStdout(real_stdout)
    sys.stdout = held
    try:
        return _run(argv)
    finally:
        sys.stdout = real_stdout
        try:
            held.close()
        except BrokenPipeError:
            pass


def warm_ready(argv: list[str]) -> bool:
    """Whether a warm server may answer this command line: a command it serves (WARM_COMMANDS) that
    parses and names a project whose code index exists (a first, cold index runs inline, where its
    progress shows)."""
    if argv[:2] == ["xray", "statusline"]:  # needs no index
        return True
    if not argv or argv[0] not in WARM_COMMANDS:
        return False
    try:
        args = build_parser(argv[0]).parse_args(argv)
        from cairn.cli.common import resolve

        project = resolve(args, need_root=False)
        return project.root is not None and project.index_path().exists()
    except (SystemExit, CairnError, OSError):
        return False


def _run(argv: list[str]) -> int:
    if argv[:2] == ["xray", "statusline"]:  # its own parser, alone: it runs on every agent message
        from cairn.cli.xray_cmd import statusline_parser

        parser = statusline_parser()
        args = parser.parse_args(argv[2:])
    else:
        parser = build_parser(argv[0] if argv else None)
        if argv[:2] == ["xray", "simulate"]:  # its own parser, so `xray simulate --help` is simulate's help
            from cairn.cli.xray_cmd import simulate_parser

            args = simulate_parser().parse_args(argv[2:])
        else:
            args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except CairnError as exc:
        from cairn.errors import printable
        from cairn.redact import redact

        _error(argv, printable(redact(str(exc))), exc.exit_code)
        return exc.exit_code
    except KeyboardInterrupt:
        print("cairn: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: one line for the user, the traceback in the log
        if os.environ.get("CAIRN_DEBUG"):
            raise
        where = _log_exception(argv)
        _error(argv, f"internal error: {type(exc).__name__}: {exc}" + (f" (details in {where})" if where else ""), 2)
        return 2
    finally:
        repairs = sys.modules.get("cairn.store.repair")
        for line in repairs.drain() if repairs else []:  # derived data rebuilt on the way: say so once
            print(f"cairn: {line}", file=sys.stderr)


def _error(argv: list[str], message: str, code: int) -> None:
    """One line on stderr; with --json also a JSON object on stdout, where the program reads."""
    print(
        f"cairn: error: {message}" if not message.startswith("internal error") else f"cairn: {message}", file=sys.stderr
    )
    if "--json" in argv:
        import json

        print(json.dumps({"error": message, "exit_code": code}, ensure_ascii=False))


def _log_exception(argv: list[str]) -> str | None:
    """Append the current traceback to CAIRN_HOME/logs/cli.log (redacted, cairn.logs); never raises."""
    from cairn.logs import log_exception

    path = log_exception("cli.log", f"cairn {' '.join(argv[:1])}")
    return str(path) if path else None


if __name__ == "__main__":
    raise SystemExit(main())
