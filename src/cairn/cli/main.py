"""`cairn` entry point: builds the argparse tree from the command modules and runs one command.

Each module in COMMAND_MODULES exposes `register(subparsers)` and sets `func` on its parsers.
Command modules import their library code inside the handler, so `cairn --help` and the hook
path stay cheap. Expected failures (CairnError) print one line; nothing prints a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from cairn import __version__
from cairn.errors import CairnError

# Order here is the order in `cairn --help`.
COMMAND_MODULES = [
    "cairn.cli.index_cmd",
    "cairn.cli.map_cmd",
    "cairn.cli.search_cmd",
    "cairn.cli.eval_cmd",
    "cairn.cli.xray_cmd",
]

DESCRIPTION = """\
cairn leaves the way through a codebase for the next agent session.

Start here:
  cairn index            scan and parse the project you stand in (incremental)
  cairn map              a ~500-token overview an agent can read instead of exploring
  cairn search "QUERY"   the few places that matter for a request, within a token budget
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cairn", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"cairn {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except CairnError as exc:
        print(f"cairn: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("cairn: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
