"""Decode an OTLP/HTTP export (logs or metrics, protobuf or JSON) into the usage rows cairn stores.

Decoding uses the official `opentelemetry-proto` messages: protobuf bodies with `FromString`,
JSON bodies with protobuf's `json_format` after turning OTLP/JSON's hex trace and span ids into
the base64 protobuf's JSON mapping expects (the one place OTLP/JSON departs from it). Kept:
- from logs, each `api_request` event (Claude Code's `claude_code.api_request`): session id,
  model, input / output / cache read / cache creation tokens, cost, duration, time;
- from metrics, each data point of a token or cost counter (`claude_code.token.usage`,
  `claude_code.cost.usage`): name, session, model, token type, value, temporality, window.
Anything else in an export is accepted and ignored. A body that does not decode is a
`BadPayload` (the receiver answers 400 and stores nothing). A value that decodes but is no usage
figure (NaN, Infinity, 1e300, a negative count, a time past 2^63 ns) is skipped, not stored: a
token count becomes 0, a cost or duration unknown, a counter point is dropped, a time unknown;
a lone surrogate in a JSON string becomes U+FFFD.
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass
from datetime import UTC, datetime

from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)

REQUEST_EVENTS = frozenset({"api_request", "claude_code.api_request"})
USAGE_METRICS = frozenset({"claude_code.token.usage", "claude_code.cost.usage"})
_HEX_IDS = frozenset({"traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id"})
MAX_DEPTH = 64  # JSON nesting accepted before parsing (protobuf's own limit is about 100)
# Bounds of a plausible figure; past them a value is skipped (an exporter's bug or an attack, not usage)
MAX_TOKENS = 10**9  # tokens of one request, or of one counter point
MAX_COST_USD = 10**6
MAX_DURATION_MS = 10**10
MAX_NS = 2**63 - 1  # the largest SQLite INTEGER (year 2262)


class BadPayload(ValueError):
    """The body is not a valid OTLP export of the kind its path and content type say."""


@dataclass(frozen=True)
class RequestRow:
    session_id: str | None
    model: str | None
    ts: str | None
    input: int
    output: int
    cache_read: int
    cache_write: int
    cost_usd: float | None
    duration_ms: float | None
    service: str | None


@dataclass(frozen=True)
class MetricRow:
    name: str
    session_id: str | None
    model: str | None
    type: str | None
    value: float
    temporality: int
    start_ns: int
    end_ns: int
    service: str | None


def _any(v: object) -> object:
    kind = v.WhichOneof("value")  # type: ignore[attr-defined]
    if kind is None:
        return None
    val = getattr(v, kind)
    if kind in ("string_value", "bool_value", "int_value", "double_value"):
        return val
    if kind == "bytes_value":
        return bytes(val).hex()
    return json_format.MessageToDict(val)


def _attrs(kvs: object) -> dict[str, object]:
    return {kv.key: _any(kv.value) for kv in kvs}  # type: ignore[attr-defined]


def _number(v: object, top: float) -> float | None:
    """`v` as a finite number in [0, top], else None: an exporter's NaN, Infinity, 1e300 or a
    negative count is not a usage figure (and would not fit a SQLite column or sum)."""
    if isinstance(v, bool) or v is None:
        return None
    try:
        f = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        return None
    return f if math.isfinite(f) and 0 <= f <= top else None


def _int(v: object) -> int:
    f = _number(v, MAX_TOKENS)
    return 0 if f is None else int(f)


def _str(v: object) -> str | None:
    return v if isinstance(v, str) and v else None


def _ns(ns: int) -> int:
    """A nanosecond time, or 0 (unknown) when outside what a SQLite INTEGER holds (2^64-1 is not a time)."""
    return ns if 0 < ns <= MAX_NS else 0


def _iso(ns: int) -> str | None:
    if not _ns(ns):
        return None
    return datetime.fromtimestamp(ns / 1e9, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _safe(s: str) -> str:
    """`s` with any lone surrogate (a cut emoji, "\\ud800" in JSON) as U+FFFD: neither protobuf nor
    SQLite accepts one."""
    if s.isascii():
        return s
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _prepare(node: object, depth: int = 0) -> object:
    """OTLP/JSON made fit for `json_format`: hex ids as base64, lone surrogates replaced, depth bounded."""
    if depth > MAX_DEPTH:
        raise BadPayload("JSON nested too deep")
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            k = _safe(k)
            if k in _HEX_IDS and isinstance(v, str) and v:
                try:
                    v = base64.b64encode(bytes.fromhex(v)).decode()
                except ValueError:
                    raise BadPayload(f"{k} is not hex") from None
            out[k] = _prepare(v, depth + 1)
        return out
    if isinstance(node, list):
        return [_prepare(v, depth + 1) for v in node]
    if isinstance(node, str):
        return _safe(node)
    return node


def parse(kind: str, body: bytes, content_type: str) -> ExportLogsServiceRequest | ExportMetricsServiceRequest:
    """The export message of `kind` ('logs' or 'metrics') from a protobuf or JSON body."""
    msg = ExportLogsServiceRequest() if kind == "logs" else ExportMetricsServiceRequest()
    try:
        if content_type == "application/json":
            data = json.loads(body.decode("utf-8"))
            if not isinstance(data, dict):
                raise BadPayload("the JSON body is not an object")
            json_format.ParseDict(_prepare(data), msg, ignore_unknown_fields=True)
        else:
            msg.ParseFromString(body)
    except BadPayload:
        raise
    except (DecodeError, json_format.ParseError, ValueError, UnicodeError, RecursionError, SystemError) as exc:
        raise BadPayload(f"not an OTLP {kind} export ({type(exc).__name__}: {str(exc)[:160]})") from None
    return msg


def response(kind: str, content_type: str) -> bytes:
    """The empty success response OTLP/HTTP expects, in the request's encoding."""
    if content_type == "application/json":
        return b"{}"
    msg = ExportLogsServiceResponse() if kind == "logs" else ExportMetricsServiceResponse()
    return msg.SerializeToString()


def request_rows(req: ExportLogsServiceRequest) -> list[RequestRow]:
    """One row per API-request event of a logs export."""
    rows: list[RequestRow] = []
    for rl in req.resource_logs:
        service = _str(_attrs(rl.resource.attributes).get("service.name"))
        for sl in rl.scope_logs:
            for rec in sl.log_records:
                a = _attrs(rec.attributes)
                body = _any(rec.body) if rec.HasField("body") else None
                name = a.get("event.name") or rec.event_name or body
                if name not in REQUEST_EVENTS:
                    continue
                ts = _str(a.get("event.timestamp")) or _iso(rec.time_unix_nano or rec.observed_time_unix_nano)
                rows.append(
                    RequestRow(
                        session_id=_str(a.get("session.id")),
                        model=_str(a.get("model")),
                        ts=ts,
                        input=_int(a.get("input_tokens")),
                        output=_int(a.get("output_tokens")),
                        cache_read=_int(a.get("cache_read_tokens")),
                        cache_write=_int(a.get("cache_creation_tokens")),
                        cost_usd=_number(a.get("cost_usd"), MAX_COST_USD),
                        duration_ms=_number(a.get("duration_ms"), MAX_DURATION_MS),
                        service=service,
                    )
                )
    return rows


def metric_rows(req: ExportMetricsServiceRequest) -> list[MetricRow]:
    """One row per data point of the token and cost counters of a metrics export."""
    rows: list[MetricRow] = []
    for rm in req.resource_metrics:
        service = _str(_attrs(rm.resource.attributes).get("service.name"))
        for sm in rm.scope_metrics:
            for m in sm.metrics:
                if m.name not in USAGE_METRICS or m.WhichOneof("data") != "sum":
                    continue
                for dp in m.sum.data_points:
                    a = _attrs(dp.attributes)
                    raw = dp.as_double if dp.WhichOneof("value") == "as_double" else dp.as_int
                    value = _number(raw, MAX_COST_USD if m.name == "claude_code.cost.usage" else MAX_TOKENS)
                    if value is None:
                        continue  # NaN, Infinity, negative or absurd: not a usage figure
                    rows.append(
                        MetricRow(
                            name=m.name,
                            session_id=_str(a.get("session.id")),
                            model=_str(a.get("model")),
                            type=_str(a.get("type")),
                            value=value,
                            temporality=int(m.sum.aggregation_temporality),
                            start_ns=_ns(dp.start_time_unix_nano),
                            end_ns=_ns(dp.time_unix_nano),
                            service=service,
                        )
                    )
    return rows
