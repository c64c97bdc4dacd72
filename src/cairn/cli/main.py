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

# Order here is the order in `cairn --help`.
COMMAND_MODULES = [
    "cairn.cli.index_cmd",
    "cairn.cli.map_cmd",
    "cairn.cli.search_cmd",
    "cairn.cli.explain_cmd",
    "cairn.cli.graph_cmd",
    "cairn.cli.eval_cmd",
    "cairn.cli.xray_cmd",
    "cairn.cli.memory_cmd",
    "cairn.cli.sessions_cmd",
    "cairn.cli.team_cmd",
    "cairn.cli.otel_cmd",
    "cairn.cli.backup_cmd",
    "cairn.cli.serve_cmd",
    "cairn.cli.connect_cmd",
    "cairn.cli.hook_cmd",
    "cairn.cli.handoff_cmd",
    "cairn.cli.install_cmd",
    "cairn.cli.doctor_cmd",
]

DESCRIPTION = """\
cairn leaves the way through a codebase for the next agent session.

Start here:
  cairn index            scan and parse the project you stand in (incremental)
  cairn map              a ~500-token overview an agent can read instead of exploring
  cairn search "QUERY"   the few places that matter for a request, within a token budget
"""


# Commands whose own module is all the parser needs (no other command module imported): a
# subcommand's parsing, help and errors do not depend on its siblings, whose imports and
# parsers cost ~20 ms a run (the X-ray reads 100 MB in about a second: docs/benchmarks.md 16).
ALONE = {"xray": "cairn.cli.xray_cmd"}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole command tree; with `only` (a module of COMMAND_MODULES), just that module's commands."""
    import argparse  # here, not at the top: the hook fast path in main() never needs it

    from cairn.cli.common import FreeTextParser

    parser = FreeTextParser(
        prog="cairn", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"cairn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
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


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"]:  # fast path: hooks run on every prompt and tool call, skip argparse
        from cairn.agents.hooks.warm import hook_main

        return hook_main(argv[1:])
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


def _run(argv: list[str]) -> int:
    parser = build_parser(ALONE.get(argv[0]) if argv else None)
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
        from cairn.redact import redact
        from cairn.store.repair import printable

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
    print(f"cairn: error: {message}" if not message.startswith("internal error") else f"cairn: {message}",
          file=sys.stderr)
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
