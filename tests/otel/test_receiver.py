"""`cairn otel serve` driven by the real OpenTelemetry Python SDK exporters (protobuf and JSON over HTTP),
plus malformed and oversized payloads: clear 4xx, nothing stored, the server keeps serving."""

from __future__ import annotations

import gzip
import http.client
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.http")
pytest.importorskip("opentelemetry.exporter.otlp.json.http")

from opentelemetry.sdk._logs import LoggerProvider  # noqa: E402
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor  # noqa: E402
from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import AggregationTemporality, PeriodicExportingMetricReader  # noqa: E402
from opentelemetry.sdk.resources import Resource  # noqa: E402

from cairn.otel.server import Receiver  # noqa: E402
from cairn.otel.store import telemetry_by_session  # noqa: E402
from cairn.sessions.archive_schema import open_archive  # noqa: E402

SESSION = "4d5611e5-241a-462a-8d15-5122611a9569"  # a session of the Claude Code fixtures
TOKEN = "ab" * 32
RESOURCE = Resource.create({"service.name": "claude-code", "service.version": "2.1.39"})


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[Receiver]:
    srv = Receiver(0, archive=tmp_path / "sessions.db", max_body=64 * 1024, token=TOKEN)
    t = threading.Thread(target=srv.serve_forever, args=(0.05,), daemon=True)
    t.start()
    yield srv
    srv.shutdown()
    srv.server_close()
    t.join(5)


def _rows(srv: Receiver, table: str) -> int:
    con = open_archive(srv.archive)
    try:
        return con.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    finally:
        con.close()


def _api_request(logger, n: int, *, session: str = SESSION) -> None:
    """What Claude Code emits per API request (event `claude_code.api_request`)."""
    logger.emit(
        body="claude_code.api_request",
        event_name="claude_code.api_request",
        attributes={
            "event.name": "api_request",
            "event.timestamp": f"2026-02-11T10:0{n}:00.000Z",
            "session.id": session,
            "model": "claude-opus-4-6",
            "input_tokens": 10 + n,
            "output_tokens": 200,
            "cache_read_tokens": 30000,
            "cache_creation_tokens": 1200,
            "cost_usd": 0.0321,
            "duration_ms": 4100,
        },
    )
    logger.emit(body="claude_code.user_prompt", attributes={"event.name": "user_prompt", "session.id": session})


def _log_exporter(encoding: str, url: str):
    if encoding == "protobuf":
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    else:
        from opentelemetry.exporter.otlp.json.http._log_exporter import OTLPLogExporter
    return OTLPLogExporter(endpoint=f"{url}/v1/logs", headers={"x-cairn-token": TOKEN})


def _metric_exporter(encoding: str, url: str):
    if encoding == "protobuf":
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    else:
        from opentelemetry.exporter.otlp.json.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.sdk.metrics import Counter

    return OTLPMetricExporter(
        endpoint=f"{url}/v1/metrics",
        headers={"x-cairn-token": TOKEN},
        preferred_temporality={Counter: AggregationTemporality.DELTA},
    )


@pytest.mark.parametrize("encoding", ["protobuf", "json"])
def test_sdk_logs_exporter_stores_each_api_request(receiver: Receiver, encoding: str):
    provider = LoggerProvider(resource=RESOURCE)
    provider.add_log_record_processor(SimpleLogRecordProcessor(_log_exporter(encoding, receiver.url)))
    logger = provider.get_logger("com.anthropic.claude_code.events")
    for n in range(3):
        _api_request(logger, n)
    provider.shutdown()
    con = open_archive(receiver.archive)
    rows = con.execute(
        "SELECT session_id, model, ts, input, output, cache_read, cache_write, cost_usd,"
        " duration_ms, service FROM otel_requests ORDER BY ts"
    ).fetchall()
    tel = telemetry_by_session(con)
    con.close()
    assert [tuple(r) for r in rows] == [
        (
            SESSION,
            "claude-opus-4-6",
            f"2026-02-11T10:0{n}:00.000Z",
            10 + n,
            200,
            30000,
            1200,
            0.0321,
            4100.0,
            "claude-code",
        )
        for n in range(3)
    ]
    assert tel[SESSION] == {
        "input": 33,
        "output": 600,
        "cache_read": 90000,
        "cache_write": 3600,
        "cost_usd": 0.0963,
        "requests": 3,
        "source": "api_request events",
        "first_activity": "2026-02-11T10:00:00.000Z",
        "last_activity": "2026-02-11T10:02:00.000Z",
        "models": ["claude-opus-4-6"],
    }
    assert receiver.rejected == 0


@pytest.mark.parametrize("encoding", ["protobuf", "json"])
def test_sdk_metrics_exporter_stores_token_and_cost_counters(receiver: Receiver, encoding: str):
    reader = PeriodicExportingMetricReader(_metric_exporter(encoding, receiver.url), export_interval_millis=60_000)
    provider = MeterProvider(resource=RESOURCE, metric_readers=[reader])
    meter = provider.get_meter("com.anthropic.claude_code")
    tokens = meter.create_counter("claude_code.token.usage", unit="tokens")
    cost = meter.create_counter("claude_code.cost.usage", unit="USD")
    for typ, n in (("input", 40), ("output", 900), ("cacheRead", 120000), ("cacheCreation", 5000)):
        tokens.add(n, {"session.id": "s-metrics", "model": "claude-sonnet-4-5", "type": typ})
    cost.add(0.25, {"session.id": "s-metrics", "model": "claude-sonnet-4-5"})
    provider.shutdown()  # flushes one export
    con = open_archive(receiver.archive)
    tel = telemetry_by_session(con)
    con.close()
    span = {k: tel["s-metrics"].pop(k) for k in ("first_activity", "last_activity")}
    assert span["first_activity"] and span["first_activity"] <= span["last_activity"]  # the export's time
    assert tel["s-metrics"] == {
        "input": 40,
        "output": 900,
        "cache_read": 120000,
        "cache_write": 5000,
        "cost_usd": 0.25,
        "requests": None,
        "source": "delta counters",
        "models": ["claude-sonnet-4-5"],
    }


def test_the_headers_install_writes_make_the_sdk_exporter_send_the_token_serve_checks(
    run_cli, tmp_path: Path, monkeypatch
):
    """`cairn install claude --otel` and `cairn otel serve` agree on the token, and an OTLP exporter
    configured by the env that install writes (as Claude Code is) gets through."""
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    r = run_cli("install", "claude", "--otel", env={"HOME": str(home), "CLAUDE_CONFIG_DIR": ""})
    assert r.returncode == 0, r.stderr
    env = json.loads((home / ".claude" / "settings.json").read_text())["env"]
    srv = Receiver(0, archive=tmp_path / "sessions.db")  # the token from CAIRN_HOME, as `cairn otel serve` has it
    t = threading.Thread(target=srv.serve_forever, args=(0.05,), daemon=True)
    t.start()
    try:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter

        for without in (True, False):
            if without:
                monkeypatch.delenv("OTEL_EXPORTER_OTLP_HEADERS", raising=False)
            else:
                monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", env["OTEL_EXPORTER_OTLP_HEADERS"])
            provider = LoggerProvider(resource=RESOURCE)
            provider.add_log_record_processor(SimpleLogRecordProcessor(OTLPLogExporter(endpoint=f"{srv.url}/v1/logs")))
            _api_request(provider.get_logger("com.anthropic.claude_code.events"), 1)
            provider.shutdown()
            assert _rows(srv, "otel_requests") == (0 if without else 1)
    finally:
        srv.shutdown()
        srv.server_close()
        t.join(5)


def _post(srv: Receiver, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
    c = http.client.HTTPConnection("127.0.0.1", srv.server_address[1], timeout=10)
    try:
        c.request("POST", path, body=body, headers={"X-Cairn-Token": TOKEN, **headers})
        r = c.getresponse()
        return r.status, r.read().decode(errors="replace")
    finally:
        c.close()


PB = {"Content-Type": "application/x-protobuf"}
JS = {"Content-Type": "application/json"}


@pytest.mark.parametrize(
    "path, body, headers, code, says",
    [
        ("/v1/logs", b"\xff\xff\xff\x00garbage", PB, 400, "not an OTLP logs export"),
        ("/v1/logs", b"{not json", JS, 400, "not an OTLP logs export"),
        ("/v1/logs", b"[1, 2]", JS, 400, "not an object"),
        ("/v1/metrics", json.dumps({"resourceMetrics": "nope"}).encode(), JS, 400, "not an OTLP metrics export"),
        (
            "/v1/logs",
            json.dumps({"resourceLogs": [{"scopeLogs": [{"logRecords": [{"traceId": "zz"}]}]}]}).encode(),
            JS,
            400,
            "traceId is not hex",
        ),
        ("/v1/logs", b"[" * 5000 + b"]" * 5000, JS, 400, ""),
        ("/v1/logs", b"x" * (64 * 1024 + 1), PB, 413, "over the 65536-byte limit"),
        ("/v1/logs", gzip.compress(b"\x00" * (256 * 1024)), {**PB, "Content-Encoding": "gzip"}, 413, "unzipped"),
        ("/v1/logs", b"\x1f\x8b not gzip", {**PB, "Content-Encoding": "gzip"}, 400, "gzip"),
        ("/v1/logs", b"{}", {"Content-Type": "text/plain"}, 415, "Content-Type"),
        ("/v1/logs", b"{}", {**JS, "Content-Encoding": "br"}, 415, "Content-Encoding"),
        ("/v1/traces", b"{}", JS, 404, "unknown path"),
    ],
)
def test_bad_payloads_get_a_clear_4xx_store_nothing_and_the_server_keeps_serving(
    receiver: Receiver, path: str, body: bytes, headers: dict, code: int, says: str
):
    status, text = _post(receiver, path, body, headers)
    assert status == code and says in text and "\n" == text[-1] and text.count("\n") == 1, (status, text)
    assert _rows(receiver, "otel_requests") == _rows(receiver, "otel_metrics") == 0
    # still serving: a valid (empty) export right after is accepted
    status, text = _post(receiver, "/v1/logs", b"{}", JS)
    assert (status, text) == (200, "{}")


def test_a_resent_export_is_stored_once_and_gzip_is_accepted(receiver: Receiver):
    rec = {
        "resourceLogs": [
            {
                "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "claude-code"}}]},
                "scopeLogs": [
                    {
                        "logRecords": [
                            {
                                "timeUnixNano": "1770800000000000000",
                                "body": {"stringValue": "claude_code.api_request"},
                                "traceId": "5b8efff798038103d269b633813fc60c",
                                "attributes": [
                                    {"key": "session.id", "value": {"stringValue": "s1"}},
                                    {"key": "input_tokens", "value": {"stringValue": "12"}},
                                    {"key": "output_tokens", "value": {"intValue": "7"}},
                                    {"key": "model", "value": {"stringValue": "claude-haiku-4-5"}},
                                ],
                            }
                        ]
                    }
                ],
            }
        ]
    }
    body = gzip.compress(json.dumps(rec).encode())
    for _ in range(2):
        assert _post(receiver, "/v1/logs", body, {**JS, "Content-Encoding": "gzip"})[0] == 200
    assert _rows(receiver, "otel_requests") == 1


def test_only_loopback():
    srv = Receiver(0)
    try:
        assert srv.server_address[0] == "127.0.0.1"
    finally:
        srv.server_close()


def test_xray_says_how_far_each_transcript_is_from_telemetry(run_cli, tmp_path: Path):
    from cairn.otel.decode import RequestRow
    from cairn.otel.store import store
    from cairn.sessions.prices import load_prices
    from cairn.sessions.usage import load_transcripts
    from cairn.sessions.xray import analyze

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"
    report = analyze(load_transcripts([fixtures]), load_prices({}))
    s = next(x for x in report["sessions"] if x["session_id"] == SESSION)
    # telemetry that saw more input than the transcript (requests missing from the JSONL)
    extra = round(s["input_tokens"] * 0.6)
    con = open_archive()
    store(
        con,
        requests=[
            RequestRow(
                SESSION,
                "claude-opus-4-6",
                "2026-02-11T10:00:00.000Z",
                s["input_tokens"],
                s["output_tokens"],
                s["cache_read_tokens"],
                s["cache_creation_tokens"],
                s["cost_usd"],
                1000.0,
                "claude-code",
            ),
            RequestRow(
                SESSION, "claude-opus-4-6", "2026-02-11T10:05:00.000Z", extra, 0, 0, 0, 0.0, 900.0, "claude-code"
            ),
        ],
    )
    con.close()
    r = run_cli("xray", str(fixtures), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    tel = out["telemetry"]
    assert tel["covered"] == 1
    row = tel["sessions"][0]
    assert row["session_id"] == SESSION and row["requests"] == 2
    assert row["input"]["gap"] == pytest.approx(s["input_tokens"] / (s["input_tokens"] + extra) - 1, abs=1e-4)
    assert row["output"]["gap"] == 0.0
    assert tel["summary"]["input"]["sessions_undercounted"] == 1
    pct = round(extra / (s["input_tokens"] + extra) * 100)
    assert f"the transcript undercounts input by {pct}% in 1 session(s)" in out["findings"][-1]
    text = run_cli("xray", str(fixtures))
    assert "Transcript vs OpenTelemetry" in text.stdout and f"-{pct}%" in text.stdout


def test_xray_headline_says_when_the_transcript_counts_more_than_telemetry(run_cli):
    from cairn.otel.decode import RequestRow
    from cairn.otel.store import store
    from cairn.sessions.prices import load_prices
    from cairn.sessions.usage import load_transcripts
    from cairn.sessions.xray import analyze

    fixtures = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"
    s = next(
        x for x in analyze(load_transcripts([fixtures]), load_prices({}))["sessions"] if x["session_id"] == SESSION
    )
    seen = round(s["cache_read_tokens"] / 2.62)  # telemetry saw less: the transcript is 162% above it
    con = open_archive()
    store(
        con,
        requests=[
            RequestRow(
                SESSION,
                "claude-opus-4-6",
                "2026-02-11T10:00:00.000Z",
                s["input_tokens"],
                s["output_tokens"],
                seen,
                s["cache_creation_tokens"],
                s["cost_usd"],
                1000.0,
                "claude-code",
            )
        ],
    )
    con.close()
    out = json.loads(run_cli("xray", str(fixtures), "--json").stdout)
    assert out["telemetry"]["summary"]["cache_read"]["sessions_overcounted"] == 1
    headline = out["findings"][-1]
    assert "counts cache read 162% more than telemetry in 1 session(s)" in headline and "agree" not in headline
    text = run_cli("xray", str(fixtures)).stdout
    assert "+162%" in text and "162% more than telemetry" in text and "agree with it" not in text


def test_cli_serves_until_interrupted_and_reports(tmp_path: Path):
    import os
    import re
    import signal
    import subprocess
    import sys

    env = {**os.environ, "CAIRN_HOME": str(tmp_path / "home")}

    def ctrl_c_as_in_a_terminal() -> None:  # a test run in the background inherits SIGINT ignored
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(
        [sys.executable, "-m", "cairn", "otel", "serve", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_as_in_a_terminal,
    )
    try:
        line = proc.stdout.readline()
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)", line).group(1))
        token = (tmp_path / "home" / "otel" / "token").read_text().strip()  # made by the first serve
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("POST", "/v1/logs", body=b"garbage", headers={**PB, "X-Cairn-Token": token})
        assert c.getresponse().status == 400
        c.close()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and "Traceback" not in err, err
    assert "0 rows stored, 1 requests rejected" in out
    # an exporter's keep-alive connection left open after a stored export does not hold Ctrl-C up
    proc = subprocess.Popen(
        [sys.executable, "-m", "cairn", "otel", "serve", "--port", "0"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=ctrl_c_as_in_a_terminal,
    )
    try:
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)", proc.stdout.readline()).group(1))
        idle = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        idle.request(
            "POST",
            "/v1/logs",
            body=b'{"resourceLogs":[]}',
            headers={"Content-Type": "application/json", "X-Cairn-Token": token},
        )
        reply = idle.getresponse()
        reply.read()
        assert reply.status == 200 and reply.getheader("Connection") != "close"  # the connection stays open
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
        idle.close()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and "0 rows stored, 0 requests rejected" in out, err
    bad = subprocess.run(
        [sys.executable, "-m", "cairn", "otel", "serve", "--port", "70000"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode != 0 and bad.stderr.count("\n") == 1 and "--port" in bad.stderr
