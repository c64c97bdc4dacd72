"""Seconds for `cairn otel serve` to take N API-request events from the real OpenTelemetry SDK exporter.

The receiver runs in this process (a thread, 127.0.0.1, a temp archive); the SDK's batch
processor (its queue sized to hold them all) exports N `claude_code.api_request` log records
(512 per export, its default) over
OTLP/HTTP, protobuf then JSON. Printed per encoding: wall seconds from the first emit to the
flush returning, events stored, and events per second.

    python bench/otel_receiver_speed.py [--events 5000]
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
from opentelemetry.sdk.resources import Resource

from cairn.otel.server import Receiver
from cairn.sessions.archive_schema import open_archive


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=5000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="otel-bench-") as tmp:
        for encoding in ("protobuf", "json"):
            db = Path(tmp) / f"{encoding}.db"
            srv = Receiver(0, archive=db)
            t = threading.Thread(target=srv.serve_forever, daemon=True)
            t.start()
            if encoding == "protobuf":
                from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
            else:
                from opentelemetry.exporter.otlp.json.http._log_exporter import OTLPLogExporter
            provider = LoggerProvider(resource=Resource.create({"service.name": "claude-code"}))
            provider.add_log_record_processor(
                BatchLogRecordProcessor(
                    OTLPLogExporter(endpoint=f"{srv.url}/v1/logs", headers={"x-cairn-token": srv.token}),
                    max_queue_size=args.events + 1,
                )
            )
            logger = provider.get_logger("com.anthropic.claude_code.events")
            t0 = time.perf_counter()
            for i in range(args.events):
                logger.emit(
                    body="claude_code.api_request",
                    attributes={
                        "event.name": "api_request",
                        "event.timestamp": f"2026-02-11T10:00:00.{i:06d}Z",
                        "session.id": f"s{i % 50}",
                        "model": "claude-opus-4-6",
                        "input_tokens": 10 + i,
                        "output_tokens": 200,
                        "cache_read_tokens": 30000,
                        "cache_creation_tokens": 1200,
                        "cost_usd": 0.0321,
                        "duration_ms": 4100,
                    },
                )
            provider.force_flush()
            wall = time.perf_counter() - t0
            provider.shutdown()
            srv.shutdown()
            srv.server_close()
            con = open_archive(db)
            n = con.execute("SELECT COUNT(*) FROM otel_requests").fetchone()[0]
            con.close()
            print(f"{encoding}: {args.events} events emitted, {n} stored, {wall:.2f} s, {n / wall:,.0f} events/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
