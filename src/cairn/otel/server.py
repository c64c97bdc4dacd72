"""`cairn otel serve`: a local OTLP/HTTP receiver for `/v1/logs` and `/v1/metrics` (127.0.0.1 only).

Claude Code (or any OTLP exporter) posts protobuf (`application/x-protobuf`) or JSON
(`application/json`) bodies, optionally gzip-compressed. Each export is decoded whole
(otel/decode.py) and its usage rows stored in one transaction (otel/store.py), so a bad export
stores nothing. Before anything else a request must name this receiver in its Host header, not
come from a browser, and carry the token (otel/auth.py). Answers: 200 with the empty OTLP
response; 400 for a body that does not decode; 401 without the token; 403 for another Host or a
browser's request; 404 for another path; 405 for another method; 411 without a length; 413 for a
body (or its unzipped form) over the limit; 415 for another content type or encoding; 503 when
all connection slots are taken or the archive cannot be written (exporters retry on 503); 500 for
anything unforeseen. Each error is one plain-text line, and the server keeps serving.

Slow or idle clients cannot hold it: at most `max_connections` connections are served at once
(one thread each); a connection silent for `idle_seconds` is closed, and so is one whose request
(line, headers and body) has not all arrived within `idle_seconds + request_seconds`, however it
trickles. When every slot is taken, a new connection takes the slot of the one that has waited
longest for a request line, so idle sockets never keep an exporter out; only when all are
mid-request does it get 503.
"""

from __future__ import annotations

import gzip
import io
import socket
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HOST = "127.0.0.1"
DEFAULT_PORT = 4318  # OTLP/HTTP's registered port
MAX_BODY = 8 * 1024 * 1024
MAX_CONNECTIONS = 32
MAX_REJECTERS = 8  # connections told 503 at once (each drained for REJECT_SECONDS); beyond, closed
REJECT_SECONDS = 1.0
IDLE_SECONDS = 10.0
REQUEST_SECONDS = 60.0
PATHS = {"/v1/logs": "logs", "/v1/metrics": "metrics"}
TYPES = {
    "application/x-protobuf": "application/x-protobuf",
    "application/protobuf": "application/x-protobuf",
    "application/json": "application/json",
}


def _gunzip(body: bytes, limit: int) -> bytes:
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    out = d.decompress(body, limit + 1)
    if len(out) > limit or d.unconsumed_tail:
        raise OverflowError
    if not d.eof:
        raise ValueError("truncated gzip body")
    return out


class _DeadlineReader(io.RawIOBase):
    """A connection's reads, each waiting at most `idle` seconds and all of a request's together
    at most until `deadline` (a per-read timeout alone lets a client trickle a byte at a time).
    `waiting_since` is set while it waits for a request's first line: such a connection may be
    closed to make room for another when all slots are taken."""

    def __init__(self, sock: socket.socket, idle: float) -> None:
        self.sock, self.idle, self.deadline = sock, idle, time.monotonic()
        self.fresh = True  # no request line read yet
        self.waiting_since: float | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buf: memoryview) -> int:  # type: ignore[override]
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request took too long to arrive")
        self.sock.settimeout(min(self.idle, left))
        if self.fresh:
            self.waiting_since = time.monotonic()
        try:
            return self.sock.recv_into(buf)
        finally:
            self.waiting_since = None

    def evict(self) -> None:
        """End the wait (the handler sees the connection closed)."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class Handler(BaseHTTPRequestHandler):
    server: Receiver
    protocol_version = "HTTP/1.1"

    def setup(self) -> None:
        super().setup()
        self.rfile.close()  # the plain socket file: replaced by one that keeps the deadline
        self._reader = _DeadlineReader(self.connection, self.server.idle_seconds)
        self.rfile = io.BufferedReader(self._reader, 65536)
        self.server.readers.add(self._reader)

    def finish(self) -> None:
        self.server.readers.discard(self._reader)
        super().finish()

    def handle_one_request(self) -> None:
        # the idle wait for the request line counts too: a silent connection ends after idle_seconds
        self._reader.deadline = time.monotonic() + self.server.idle_seconds + self.server.request_seconds
        self._reader.fresh = True
        super().handle_one_request()

    def parse_request(self) -> bool:
        self._reader.fresh = False  # the request line is in: no longer an idle connection
        return super().parse_request()

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

    def _admitted(self) -> bool:
        """This receiver's Host, not a browser, the token: else answer 403 or 401 (nothing read)."""
        from cairn.otel.auth import authorized, from_browser, host_allowed

        if not host_allowed(self.headers.get("Host"), self.server.server_address[1]):
            self._error(403, "the Host header must name this receiver (127.0.0.1, localhost or [::1] and its port)")
        elif from_browser(self.headers):
            self._error(403, "requests from a web browser are refused")
        elif not authorized(self.headers, self.server.token):
            self._error(
                401,
                "missing or wrong token: `cairn install claude --otel` gives Claude Code the one in "
                "CAIRN_HOME/otel/token",
            )
        else:
            return True
        return False

    def do_GET(self) -> None:
        if self._admitted():
            self._error(405, "POST an OTLP export to /v1/logs or /v1/metrics")

    do_PUT = do_DELETE = do_PATCH = do_GET

    def do_POST(self) -> None:
        if not self._admitted():
            return
        try:
            self._post()
        except TimeoutError:
            raise  # the stdlib closes the connection
        except Exception as exc:  # never a traceback and a dropped connection: one line, and keep serving
            import sqlite3

            if isinstance(exc, sqlite3.Error):
                self._error(503, f"cannot store the export now ({str(exc)[:120]}); send it again")
            else:
                self._error(500, f"export not stored: {type(exc).__name__}: {str(exc)[:120]}")

    def _post(self) -> None:
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
        if len(body) < length:
            self.close_connection = True  # the client hung up mid-body: nobody to answer
            return
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
    """The receiver; `save` stores an export's rows in the archive (one connection per call).
    `token` defaults to the one in CAIRN_HOME/otel/token (made on first serve)."""

    daemon_threads = True
    request_queue_size = 64  # the listen backlog: a burst of connects is queued, not SYN-dropped for 1 s

    def __init__(
        self,
        port: int = DEFAULT_PORT,
        *,
        archive: Path | None = None,
        max_body: int = MAX_BODY,
        verbose: bool = False,
        token: str | None = None,
        max_connections: int = MAX_CONNECTIONS,
        idle_seconds: float = IDLE_SECONDS,
        request_seconds: float = REQUEST_SECONDS,
    ) -> None:
        if token is None:
            from cairn.otel.auth import load_token

            token = load_token()
        if not token:
            raise ValueError("the receiver needs a token")
        super().__init__((HOST, port), Handler)
        self.archive, self.max_body, self.verbose, self.token = archive, max_body, verbose, token
        self.idle_seconds, self.request_seconds = idle_seconds, request_seconds
        self.stored = self.rejected = 0
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(max_connections)
        self._rejecters = threading.BoundedSemaphore(MAX_REJECTERS)
        self.readers: set[_DeadlineReader] = set()

    def _make_room(self) -> bool:
        """A free slot, if need be by closing the connection idle the longest (a keep-alive an
        exporter left, or a socket opened to hold a thread); False when every one is mid-request."""
        if self._slots.acquire(blocking=False):
            return True
        idle = [(r.waiting_since, id(r), r) for r in list(self.readers) if r.waiting_since is not None]
        if not idle:
            return False
        min(idle)[2].evict()
        return self._slots.acquire(timeout=1.0)

    def process_request(self, request: socket.socket, client_address: object) -> None:  # type: ignore[override]
        """A thread for the connection while a slot is free (or can be freed); else 503 at once and close."""
        if not self._make_room():
            self.rejected += 1
            if self._rejecters.acquire(blocking=False):  # a few rejections at a time, each its own thread
                threading.Thread(target=self._reject, args=(request,), daemon=True).start()
            else:
                self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def _reject(self, request: socket.socket) -> None:
        """503, then read what the client still sends (at most REJECT_SECONDS) before closing: a
        socket closed with unread data sends a reset, and the client saw that instead of the 503."""
        try:
            request.settimeout(1.0)
            request.sendall(
                b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
                b"Retry-After: 1\r\nConnection: close\r\nContent-Length: 38\r\n\r\n"
                b"too many connections: try again later\n"
            )
            request.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + REJECT_SECONDS
            while time.monotonic() < deadline and request.recv(65536):
                pass
        except OSError:
            pass
        finally:
            request.close()
            self._rejecters.release()

    def process_request_thread(self, request: socket.socket, client_address: object) -> None:  # type: ignore[override]
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: object, client_address: object) -> None:
        """A connection that broke (reset, closed mid-answer): one line when verbose, never a traceback."""
        if self.verbose:
            exc = sys.exc_info()[1]
            sys.stderr.write(f"cairn otel: connection dropped: {type(exc).__name__}: {str(exc)[:120]}\n")

    def save(self, kind: str, rows: list) -> None:
        from cairn.otel.store import store
        from cairn.sessions.archive_schema import open_archive

        with self._lock:
            con = open_archive(self.archive)
            try:
                self.stored += store(
                    con, requests=rows if kind == "logs" else (), metrics=rows if kind == "metrics" else ()
                )
            finally:
                con.close()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}"
