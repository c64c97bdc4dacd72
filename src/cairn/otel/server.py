"""`cairn otel serve`: a local OTLP/HTTP receiver for `/v1/logs` and `/v1/metrics` (127.0.0.1 only).

Claude Code (or any OTLP exporter) posts protobuf (`application/x-protobuf`) or JSON
(`application/json`) bodies, optionally gzip-compressed. Each export is decoded whole
(otel/decode.py) and its usage rows stored in one transaction (otel/store.py), so a bad export
stores nothing. Answers: 200 with the empty OTLP response; 400 for a body that does not decode;
404 for another path; 405 for another method; 411 without a length; 413 for a body (or its
unzipped form) over the limit; 415 for another content type or encoding. Each error is one
plain-text line, and the server keeps serving.
"""

from __future__ import annotations

import gzip
import sys
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HOST = "127.0.0.1"
DEFAULT_PORT = 4318  # OTLP/HTTP's registered port
MAX_BODY = 8 * 1024 * 1024
PATHS = {"/v1/logs": "logs", "/v1/metrics": "metrics"}
TYPES = {"application/x-protobuf": "application/x-protobuf", "application/protobuf": "application/x-protobuf",
         "application/json": "application/json"}


def _gunzip(body: bytes, limit: int) -> bytes:
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = d.decompress(body, limit + 1)
    if len(out) > limit or d.unconsumed_tail:
        raise OverflowError
    if not d.eof:
        raise ValueError("truncated gzip body")
    return out


class Handler(BaseHTTPRequestHandler):
    server: Receiver
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (the stdlib's name)
        if self.server.verbose:
            sys.stderr.write(f"cairn otel: {format % args}\n")

    def _reply(self, code: int, body: bytes, ctype: str = "text/plain; charset=utf-8") -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if code >= 400:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def _error(self, code: int, message: str) -> None:
        self.server.rejected += 1
        self._reply(code, (message + "\n").encode())

    def do_GET(self) -> None:
        self._error(405, "POST an OTLP export to /v1/logs or /v1/metrics")

    do_PUT = do_DELETE = do_PATCH = do_GET

    def do_POST(self) -> None:
        kind = PATHS.get(self.path.split("?", 1)[0])
        if kind is None:
            self._error(404, f"unknown path {self.path[:80]}: use /v1/logs or /v1/metrics")
            return
        ctype = TYPES.get((self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower())
        if ctype is None:
            self._error(415, "Content-Type must be application/x-protobuf or application/json")
            return
        encoding = (self.headers.get("Content-Encoding") or "identity").strip().lower()
        if encoding not in ("identity", "gzip"):
            self._error(415, f"Content-Encoding {encoding[:40]} is not supported (identity or gzip)")
            return
        try:
            length = int(self.headers.get("Content-Length") or "")
        except ValueError:
            self._error(411, "Content-Length required")
            return
        limit = self.server.max_body
        if length < 0 or length > limit:
            self._error(413, f"body of {length} bytes is over the {limit}-byte limit")
            return
        body = self.rfile.read(length)
        if encoding == "gzip":
            try:
                body = _gunzip(body, limit)
            except OverflowError:
                self._error(413, f"unzipped body is over the {limit}-byte limit")
                return
            except (ValueError, zlib.error, gzip.BadGzipFile):
                self._error(400, "body is not valid gzip")
                return
        from cairn.otel.decode import BadPayload, metric_rows, parse, request_rows, response

        try:
            msg = parse(kind, body, ctype)
            rows = request_rows(msg) if kind == "logs" else metric_rows(msg)
        except BadPayload as exc:
            self._error(400, str(exc))
            return
        self.server.save(kind, rows)
        self._reply(200, response(kind, ctype), ctype)


class Receiver(ThreadingHTTPServer):
    """The receiver; `save` stores an export's rows in the archive (one connection per call)."""

    daemon_threads = True

    def __init__(self, port: int = DEFAULT_PORT, *, archive: Path | None = None, max_body: int = MAX_BODY,
                 verbose: bool = False) -> None:
        super().__init__((HOST, port), Handler)
        self.archive, self.max_body, self.verbose = archive, max_body, verbose
        self.stored = self.rejected = 0
        self._lock = threading.Lock()

    def save(self, kind: str, rows: list) -> None:
        from cairn.otel.store import store
        from cairn.sessions.archive_schema import open_archive

        with self._lock:
            con = open_archive(self.archive)
            try:
                self.stored += store(con, requests=rows if kind == "logs" else (),
                                     metrics=rows if kind == "metrics" else ())
            finally:
                con.close()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}"
