"""`cairn otel serve`: receive Claude Code's OpenTelemetry export locally and keep its usage (see otel/)."""

from __future__ import annotations

import argparse

DESCRIPTION = """\
A local OTLP/HTTP receiver (127.0.0.1 only; protobuf or JSON; /v1/logs and /v1/metrics) that
stores what Claude Code reports per API request (model, input / output / cache tokens, cost,
duration, session) in the session archive. `cairn xray` then shows, per session, how far the
transcript is from it. Point Claude Code at it with `cairn install claude --otel`.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("otel", help="receive Claude Code's OpenTelemetry usage locally (`cairn otel serve`)",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
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
    from cairn.otel.server import Receiver

    try:
        srv = Receiver(args.port, max_body=args.max_bytes, verbose=args.verbose)
    except OSError as exc:
        raise CairnError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror or exc}") from None
    print(f"cairn otel: receiving OTLP/HTTP on {srv.url} (/v1/logs, /v1/metrics); Ctrl-C stops", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()
    print(f"cairn otel: stopped; {srv.stored} rows stored, {srv.rejected} requests rejected")
    return 0
