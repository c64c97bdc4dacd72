"""`cairn serve`: the MCP server, over stdio (default) or streamable HTTP on 127.0.0.1 with a token.

The mcp SDK costs most of a second to import, so it is imported only inside the handler: every
other command (and `cairn --help`) stays fast, and `serve` pays it once per agent session. Over
stdio, even that is paid once per zygote, not per session: cli/main.py first hands the command to a
warm zygote (warm/zygote.py, `cairn serve --zygote`), whose forked child runs this very
handler on the client's stdin/stdout; with none listening, this handler serves inline and starts one.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="run the MCP server (tools: context, search, map, read, remember, handoffs...)",
        description="Serve cairn's tools to an MCP client. stdio by default (what agents launch); --http "
        "serves streamable HTTP at http://127.0.0.1:PORT/mcp and requires `Authorization: Bearer TOKEN` "
        "(TOKEN from $CAIRN_MCP_TOKEN, else generated once into CAIRN_HOME/mcp-token, mode 0600). "
        "The project is --root, else $CAIRN_PROJECT_DIR, else $CLAUDE_PROJECT_DIR, else the current directory.",
    )
    p.add_argument("--root", metavar="DIR", help="the project to serve (default: see above)")
    p.add_argument("--http", action="store_true", help="serve streamable HTTP instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="bind address for --http (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port for --http (default 8765)")
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a non-loopback --host (the token then crosses the network: use TLS in front)",
    )
    p.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    from cairn.errors import CairnError

    if args.http:
        from cairn.agents.mcp.http import check_bind, load_or_create_token

        check_bind(args.host, args.allow_remote)  # before the slow import: a refusal is instant
        if not 0 < args.port < 65536:
            raise CairnError(f"--port {args.port}: use 1-65535")
        token, source = load_or_create_token()
    from cairn.agents.mcp.server import build_server

    server = build_server(args.root, warm=True)
    if not args.http:
        from cairn.warm.zygote_client import mark_used, start_if_wanted

        mark_used()  # an MCP client uses cairn here: SessionStart may warm a zygote from now on
        start_if_wanted()  # no warm zygote answered this start: one for the next (after our imports)
        server.run()
        return 0
    from cairn.agents.mcp.http import run_http

    print(
        f"cairn: starting MCP at http://{args.host}:{args.port}/mcp (bearer token from {source})",
        file=sys.stderr,
        flush=True,
    )
    try:
        run_http(server, args.host, args.port, token, allow_remote=args.allow_remote)
    except KeyboardInterrupt:
        pass
    return 0


def zygote(main: Callable[..., int], build_parser: Callable[[str | None], object]) -> int:
    """`cairn serve --zygote` (hidden; zygote_client starts it): the warm process whose children
    run this very command, `cairn serve ...`, through the CLI's own `main` (cli/main.py passes it
    and its parser's builder in)."""
    from cairn.agents.mcp.zygote_preload import preload
    from cairn.warm.zygote import serve

    build_parser("serve")  # argparse and this module: imported once, here, not per child

    def run(argv: list[str]) -> int:
        return main(argv, warm=False)

    return serve(run, preload)
