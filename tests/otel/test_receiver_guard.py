"""`cairn otel serve` against a hostile caller: the token, the Host check (DNS rebinding), browser
requests, idle and trickling sockets, a flood of connections, and values that decode but are no
usage figure. Real sockets to 127.0.0.1 only; every wait is bounded."""

from __future__ import annotations

import http.client
import json
import socket
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.proto")

from cairn.otel.server import Receiver  # noqa: E402
from cairn.sessions.archive_schema import open_archive  # noqa: E402

TOKEN = "cd" * 32
JS = {"Content-Type": "application/json"}


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[..., Receiver]]:
    servers: list[tuple[Receiver, threading.Thread]] = []

    def run(**kw: object) -> Receiver:
        srv = Receiver(0, archive=tmp_path / "sessions.db", token=TOKEN, **kw)  # type: ignore[arg-type]
        t = threading.Thread(target=srv.serve_forever, args=(0.05,), daemon=True)
        t.start()
        servers.append((srv, t))
        return srv

    yield run
    for srv, t in servers:
        srv.shutdown()
        srv.server_close()
        t.join(5)


def _post(
    srv: Receiver, body: bytes, headers: dict[str, str], path: str = "/v1/logs", method: str = "POST"
) -> tuple[int, str]:
    c = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=10)
    try:
        c.request(method, path, body=body, headers=headers)
        r = c.getresponse()
        return r.status, r.read().decode(errors="replace")
    finally:
        c.close()


def _rows(srv: Receiver, sql: str = "SELECT COUNT(*) FROM otel_requests") -> list[tuple]:
    con = open_archive(srv.archive)
    try:
        return [tuple(r) for r in con.execute(sql).fetchall()]
    finally:
        con.close()


def _event(attrs: list[tuple[str, dict]], time_ns: str = "1770800000000000000") -> bytes:
    """One `claude_code.api_request` log record, as OTLP/JSON."""
    return json.dumps(
        {
            "resourceLogs": [
                {
                    "scopeLogs": [
                        {
                            "logRecords": [
                                {
                                    "timeUnixNano": time_ns,
                                    "body": {"stringValue": "claude_code.api_request"},
                                    "attributes": [
                                        {"key": "session.id", "value": {"stringValue": "s1"}},
                                        {"key": "model", "value": {"stringValue": "claude-opus-4-6"}},
                                    ]
                                    + [{"key": k, "value": v} for k, v in attrs],
                                }
                            ]
                        }
                    ]
                }
            ]
        }
    ).encode()


def _point(value: dict, time_ns: str = "1770800000000000000") -> bytes:
    """One data point of Claude Code's token counter (delta), as OTLP/JSON."""
    return json.dumps(
        {
            "resourceMetrics": [
                {
                    "scopeMetrics": [
                        {
                            "metrics": [
                                {
                                    "name": "claude_code.token.usage",
                                    "sum": {
                                        "aggregationTemporality": 1,
                                        "dataPoints": [
                                            {
                                                **value,
                                                "timeUnixNano": time_ns,
                                                "attributes": [
                                                    {"key": "session.id", "value": {"stringValue": "s1"}},
                                                    {"key": "type", "value": {"stringValue": "input"}},
                                                ],
                                            }
                                        ],
                                    },
                                }
                            ]
                        }
                    ]
                }
            ]
        }
    ).encode()


GOOD = _event([("input_tokens", {"intValue": "12"})])


# --- authentication -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"X-Cairn-Token": "00" * 32},
        {"X-Cairn-Token": TOKEN[:-1]},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": "Bearer " + "00" * 32},
        {"Authorization": TOKEN},
    ],
)
def test_a_request_without_the_token_gets_401_and_stores_nothing(start, headers: dict):
    srv = start()
    status, text = _post(srv, GOOD, {**JS, **headers})
    assert status == 401 and "token" in text and text.count("\n") == 1, (status, text)
    assert _post(srv, b"", headers, method="GET")[0] == 401  # no path or method is told to a stranger
    assert _rows(srv) == [(0,)]
    assert _post(srv, GOOD, {**JS, "X-Cairn-Token": TOKEN}) == (200, "{}")
    assert _post(srv, GOOD, {**JS, "Authorization": f"bearer {TOKEN}"}) == (200, "{}")  # stored once
    assert _rows(srv) == [(1,)]


def test_the_token_is_made_once_0600_and_reused(cairn_home: Path):
    path = cairn_home / "otel" / "token"
    first = Receiver(0)
    first.server_close()
    token = path.read_text().strip()
    assert first.token == token and len(token) == 64 and int(token, 16) >= 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    second = Receiver(0)
    second.server_close()
    assert second.token == token
    path.chmod(0o644)  # loosened by hand: tightened again, same token
    third = Receiver(0)
    third.server_close()
    assert third.token == token and stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text("short\n")  # damaged: replaced by a new one
    fourth = Receiver(0)
    fourth.server_close()
    assert fourth.token != token and path.read_text().strip() == fourth.token


# --- Host header and browsers -------------------------------------------------------------------


def test_only_this_receivers_host_is_served(start):
    srv = start()
    port = srv.server_address[1]
    refused = [
        f"evil.example:{port}",
        "evil.example",
        f"127.0.0.1:{port + 1}",
        "127.0.0.1",
        f"localhost:{port}0",
        f"localhost.evil.example:{port}",
        f"127.0.0.1.nip.io:{port}",
        f"[::1]:{port + 1}",
        f"::1:{port}",
        "",
    ]
    for host in refused:
        status, text = _post(srv, GOOD, {**JS, "X-Cairn-Token": TOKEN, "Host": host})
        assert status == 403 and "Host" in text, (host, status, text)
    assert _rows(srv) == [(0,)]
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:  # no Host header at all
        s.sendall(
            b"POST /v1/logs HTTP/1.1\r\nContent-Type: application/json\r\nX-Cairn-Token: "
            + TOKEN.encode()
            + b"\r\nContent-Length: "
            + str(len(GOOD)).encode()
            + b"\r\n\r\n"
            + GOOD
        )
        assert s.recv(100).startswith(b"HTTP/1.1 403")
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LocalHost:{port}", f"[::1]:{port}"):
        assert _post(srv, GOOD, {**JS, "X-Cairn-Token": TOKEN, "Host": host}) == (200, "{}"), host


@pytest.mark.parametrize(
    "header",
    [
        ("Origin", "http://evil.example"),
        ("Origin", "null"),
        ("Sec-Fetch-Site", "cross-site"),
        ("Sec-Fetch-Mode", "no-cors"),
    ],
)
def test_a_browsers_request_is_refused_even_with_the_token(start, header: tuple[str, str]):
    srv = start()
    status, text = _post(srv, GOOD, {**JS, "X-Cairn-Token": TOKEN, header[0]: header[1]})
    assert status == 403 and "browser" in text
    assert _rows(srv) == [(0,)]


# --- idle, trickling and many sockets -----------------------------------------------------------


def _closed_within(s: socket.socket, seconds: float) -> bool:
    """Whether the server closes `s` within `seconds` (reading whatever it sends first)."""
    s.settimeout(seconds)
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            if not s.recv(4096):
                return True
    except TimeoutError:
        return False
    except ConnectionError:
        return True
    return False


def test_an_idle_connection_is_closed_after_the_timeout(start):
    srv = start(idle_seconds=0.5)
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", srv.server_address[1]), timeout=5) as s:
        assert _closed_within(s, 5.0)
    assert 0.4 <= time.monotonic() - t0 < 4.0
    # and a keep-alive connection left idle after a stored export too
    c = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=5)
    c.request("POST", "/v1/logs", body=GOOD, headers={**JS, "X-Cairn-Token": TOKEN})
    assert c.getresponse().read() == b"{}"
    assert _closed_within(c.sock, 5.0)
    c.close()


def test_a_request_trickled_a_byte_at_a_time_is_cut_at_the_deadline(start):
    srv = start(idle_seconds=0.5, request_seconds=1.0)
    head = (
        b"POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Cairn-Token: %s\r\nContent-Type: application/json\r\n"
        b"X-Pad: " % (srv.server_address[1], TOKEN.encode())
    ) + b"a" * 200
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", srv.server_address[1]), timeout=5) as s:
        cut = False
        for byte in head:  # each byte well within the idle timeout, the whole far past the deadline
            try:
                s.sendall(bytes([byte]))
            except OSError:
                cut = True
                break
            time.sleep(0.05)
            if time.monotonic() - t0 > 6:
                break
        cut = cut or _closed_within(s, 3.0)
    assert cut and time.monotonic() - t0 < 6, time.monotonic() - t0


def test_many_idle_sockets_neither_hold_threads_nor_keep_a_real_request_out(start):
    srv = start(idle_seconds=30, max_connections=8)  # idle timeouts do not come to the rescue here
    threads_before = threading.active_count()
    idle = [socket.create_connection(("127.0.0.1", srv.server_address[1]), timeout=5) for _ in range(40)]
    try:
        time.sleep(0.3)
        assert threading.active_count() <= threads_before + 8
        t0 = time.monotonic()
        assert _post(srv, GOOD, {**JS, "X-Cairn-Token": TOKEN}) == (200, "{}")
        assert time.monotonic() - t0 < 3
        assert _rows(srv) == [(1,)]
    finally:
        for s in idle:
            s.close()


def test_when_every_slot_is_mid_request_a_newcomer_gets_503_at_once(start):
    srv = start(idle_seconds=0.5, request_seconds=1.0, max_connections=4)
    port = srv.server_address[1]
    busy = []
    for _ in range(4):  # each has sent its request line: not idle, just slow
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"POST /v1/logs HTTP/1.1\r\n")
        busy.append(s)
    try:
        time.sleep(0.2)
        t0 = time.monotonic()
        status, text = _post(srv, GOOD, {**JS, "X-Cairn-Token": TOKEN})
        assert status == 503 and "too many connections" in text and time.monotonic() - t0 < 3
        assert all(_closed_within(s, 4.0) for s in busy)  # cut at their deadline
        assert _post(srv, GOOD, {**JS, "X-Cairn-Token": TOKEN}) == (200, "{}")
    finally:
        for s in busy:
            s.close()


# --- values that decode but are no usage figure --------------------------------------------------

BIG_NS = str(2**64 - 1)
REQ = "SELECT session_id, ts, input, cost_usd, duration_ms FROM otel_requests"
MET = "SELECT session_id, value, start_ns, end_ns FROM otel_metrics"


@pytest.mark.parametrize(
    "path, body, sql, stored",
    [
        (
            "/v1/logs",
            _event([("input_tokens", {"doubleValue": "NaN"})]),
            REQ,
            [("s1", "2026-02-11T08:53:20.000Z", 0, None, None)],
        ),
        (
            "/v1/logs",
            _event([("input_tokens", {"doubleValue": "Infinity"})]),
            REQ,
            [("s1", "2026-02-11T08:53:20.000Z", 0, None, None)],
        ),
        (
            "/v1/logs",
            _event([("input_tokens", {"doubleValue": 1e300})]),
            REQ,
            [("s1", "2026-02-11T08:53:20.000Z", 0, None, None)],
        ),
        (
            "/v1/logs",
            _event([("input_tokens", {"stringValue": "-inf"})]),
            REQ,
            [("s1", "2026-02-11T08:53:20.000Z", 0, None, None)],
        ),
        (
            "/v1/logs",
            _event([("input_tokens", {"stringValue": "1e300"})]),
            REQ,
            [("s1", "2026-02-11T08:53:20.000Z", 0, None, None)],
        ),
        (
            "/v1/logs",
            _event([("input_tokens", {"intValue": "9223372036854775807"})]),
            REQ,
            [("s1", "2026-02-11T08:53:20.000Z", 0, None, None)],
        ),
        (
            "/v1/logs",
            _event(
                [
                    ("input_tokens", {"intValue": "7"}),
                    ("cost_usd", {"doubleValue": 1e300}),
                    ("duration_ms", {"doubleValue": -5}),
                ]
            ),
            REQ,
            [("s1", "2026-02-11T08:53:20.000Z", 7, None, None)],
        ),
        ("/v1/logs", _event([("input_tokens", {"intValue": "7"})], time_ns=BIG_NS), REQ, [("s1", None, 7, None, None)]),
        ("/v1/metrics", _point({"asDouble": 40.0}, time_ns=BIG_NS), MET, [("s1", 40.0, 0, 0)]),
        ("/v1/metrics", _point({"asDouble": "Infinity"}), MET, []),
        ("/v1/metrics", _point({"asDouble": 1e300}), MET, []),
        ("/v1/metrics", _point({"asInt": "-5"}), MET, []),
        # a lone surrogate (a cut emoji) as an object key, and in a value cairn stores
        (
            "/v1/logs",
            GOOD.replace(b'"timeUnixNano"', b'"\\ud800": 1, "timeUnixNano"'),
            REQ,
            [("s1", "2026-02-11T08:53:20.000Z", 12, None, None)],
        ),
        (
            "/v1/logs",
            GOOD.replace(b'"s1"', b'"s1\\udc00"'),
            REQ,
            [("s1\ufffd", "2026-02-11T08:53:20.000Z", 12, None, None)],
        ),
    ],
)
def test_values_that_decode_but_do_not_convert_are_skipped_with_an_answer(start, path, body, sql, stored):
    srv = start()
    status, text = _post(srv, body, {**JS, "X-Cairn-Token": TOKEN}, path=path)
    assert (status, text) == (200, "{}")
    assert _rows(srv, sql) == stored
    assert _post(
        srv, _event([("input_tokens", {"intValue": "3"})], "1770800001000000000"), {**JS, "X-Cairn-Token": TOKEN}
    ) == (200, "{}")  # still serving


def test_an_unforeseen_failure_is_answered_in_one_line_and_the_server_keeps_serving(start):
    srv = start()
    save = srv.save
    for exc, code in ((RuntimeError("boom"), 500), (sqlite3.OperationalError("database is locked"), 503)):

        def broken(kind: str, rows: list, exc: Exception = exc) -> None:
            raise exc

        srv.save = broken  # type: ignore[method-assign]
        status, text = _post(srv, GOOD, {**JS, "X-Cairn-Token": TOKEN})
        assert status == code and text.count("\n") == 1 and "Traceback" not in text, (status, text)
    srv.save = save  # type: ignore[method-assign]
    assert _post(srv, GOOD, {**JS, "X-Cairn-Token": TOKEN}) == (200, "{}")


def test_absurd_rows_stored_by_an_older_receiver_do_not_break_the_xray_sums(tmp_path: Path):
    from cairn.otel.store import telemetry_by_session

    con = open_archive(tmp_path / "old.db")
    with con:
        con.executemany(
            "INSERT INTO otel_requests(session_id, ts, input, output) VALUES (?, ?, ?, ?)",
            [("a", "t1", 2**62, 1), ("a", "t2", 2**62, 1), ("a", "t3", 2**62, 1)],
        )
        con.executemany(
            "INSERT INTO otel_metrics(name, session_id, type, value, temporality, start_ns, end_ns)"
            " VALUES (?, ?, ?, ?, 1, ?, 0)",
            [
                ("claude_code.token.usage", "b", "input", float("inf"), 1),
                ("claude_code.token.usage", "b", "output", 5.0, 2),
            ],
        )
    tel = telemetry_by_session(con)
    con.close()
    assert tel["a"]["output"] == 3 and tel["a"]["input"] == 3 * 2**62 and tel["a"]["requests"] == 3
    assert tel["b"]["input"] == 0 and tel["b"]["output"] == 5
