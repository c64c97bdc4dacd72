"""`cairn otel serve`: receive Claude Code's OpenTelemetry export locally and keep its usage (see otel/)."""

from __future__ import annotations

import argparse

DESCRIPTION = """\
A local OTLP/HTTP receiver (127.0.0.1 only; protobuf or JSON; /v1/logs and /v1/metrics) that
stores what Claude Code reports per API request (model, input / output / cache tokens, cost,
duration, session) in the session archive. `cairn xray` then shows, per session, how far the
transcript is from it. Point Claude Code at it with `cairn install claude --otel`.

Only this user's agent is served: each request must carry the receiver's token (made on first
serve in CAIRN_HOME/otel/token, 0600; `cairn install claude --otel` gives it to Claude Code), name
127.0.0.1, localhost or [::1] with the port in its Host header (a web page's DNS rebinding gets
403) and not come from a browser. At most 32 connections at once; an idle one is closed after 10 s.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "otel",
        help="receive Claude Code's OpenTelemetry usage locally (`cairn otel serve`)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s = p.add_subparsers(dest="otel_cmd", metavar="SUBCOMMAND")
    s.required = True
    serve = s.add_parser("serve", help="run the OTLP/HTTP receiver on 127.0.0.1 (Ctrl-C stops it)")
    serve.add_argument("--port", type=int, default=4318, help="port on 127.0.0.1 (default 4318, OTLP/HTTP's)")
    serve.add_argument("--max-bytes", type=int, default=8 * 1024 * 1024, help="largest body accepted (default 8 MiB)")
    serve.add_argument("--verbose", action="store_true", help="log each request to stderr")
    serve.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    from cairn.errors import CairnError

    if not 0 <= args.port <= 65535:
        raise CairnError("--port must be between 0 and 65535")
    if args.max_bytes < 1024:
        raise CairnError("--max-bytes must be at least 1024")
    from cairn.otel.auth import load_token, token_path
    from cairn.otel.server import Receiver

    try:
        token = load_token()
    except OSError as exc:
        raise CairnError(f"cannot make the receiver's token {token_path()}: {exc.strerror or exc}") from None
    try:
        srv = Receiver(args.port, max_body=args.max_bytes, verbose=args.verbose, token=token)
    except OSError as exc:
        raise CairnError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}") from None
    print(f"cairn otel: receiving OTLP/HTTP on {srv.url} (/v1/logs, /v1/metrics); Ctrl-C stops", flush=True)
    print(
        f"cairn otel: requests need the token in {token_path()} (`cairn install claude --otel` sets it up)", flush=True
    )
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()
    print(f"cairn otel: stopped; {srv.stored} rows stored, {srv.rejected} requests rejected")
    return 0
