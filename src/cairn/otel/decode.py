"""Decode an OTLP/HTTP export (logs or metrics, protobuf or JSON) into the usage rows cairn stores.

Decoding uses the official `opentelemetry-proto` messages: protobuf bodies with `FromString`,
JSON bodies with protobuf's `json_format` after turning OTLP/JSON's hex trace and span ids into
the base64 protobuf's JSON mapping expects (the one place OTLP/JSON departs from it). Kept:
- from logs, each `api_request` event (Claude Code's `claude_code.api_request`): session id,
  model, input / output / cache read / cache creation tokens, cost, duration, time;
- from metrics, each data point of a token or cost counter (`claude_code.token.usage`,
  `claude_code.cost.usage`): name, session, model, token type, value, temporality, window.
Anything else in an export is accepted and ignored. A body that does not decode is a
`BadPayload` (the receiver answers 400 and stores nothing).
"""

from __future__ import annotations

import base64
import json
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


def _int(v: object) -> int:
    if isinstance(v, bool):
        return 0
    if isinstance(v, int | float):
        return max(int(v), 0)
    if isinstance(v, str):
        try:
            return max(int(float(v)), 0)
        except ValueError:
            return 0
    return 0


def _float(v: object) -> float | None:
    if isinstance(v, bool) or v is None:
        return None
    try:
        return float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _str(v: object) -> str | None:
    return v if isinstance(v, str) and v else None


def _iso(ns: int) -> str | None:
    if not ns:
        return None
    return datetime.fromtimestamp(ns / 1e9, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _hex_ids_to_base64(node: object, depth: int = 0) -> object:
    if depth > MAX_DEPTH:
        raise BadPayload("JSON nested too deep")
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k in _HEX_IDS and isinstance(v, str) and v:
                try:
                    v = base64.b64encode(bytes.fromhex(v)).decode()
                except ValueError:
                    raise BadPayload(f"{k} is not hex") from None
            out[k] = _hex_ids_to_base64(v, depth + 1)
        return out
    if isinstance(node, list):
        return [_hex_ids_to_base64(v, depth + 1) for v in node]
    return node


def parse(kind: str, body: bytes, content_type: str) -> ExportLogsServiceRequest | ExportMetricsServiceRequest:
    """The export message of `kind` ('logs' or 'metrics') from a protobuf or JSON body."""
    msg = ExportLogsServiceRequest() if kind == "logs" else ExportMetricsServiceRequest()
    try:
        if content_type == "application/json":
            data = json.loads(body.decode("utf-8"))
            if not isinstance(data, dict):
                raise BadPayload("the JSON body is not an object")
            json_format.ParseDict(_hex_ids_to_base64(data), msg, ignore_unknown_fields=True)
        else:
            msg.ParseFromString(body)
    except BadPayload:
        raise
    except (DecodeError, json_format.ParseError, ValueError, UnicodeDecodeError, RecursionError) as exc:
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
                rows.append(RequestRow(
                    session_id=_str(a.get("session.id")), model=_str(a.get("model")), ts=ts,
                    input=_int(a.get("input_tokens")), output=_int(a.get("output_tokens")),
                    cache_read=_int(a.get("cache_read_tokens")), cache_write=_int(a.get("cache_creation_tokens")),
                    cost_usd=_float(a.get("cost_usd")), duration_ms=_float(a.get("duration_ms")), service=service))
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
                    value = dp.as_double if dp.WhichOneof("value") == "as_double" else float(dp.as_int)
                    rows.append(MetricRow(
                        name=m.name, session_id=_str(a.get("session.id")), model=_str(a.get("model")),
                        type=_str(a.get("type")), value=value, temporality=int(m.sum.aggregation_temporality),
                        start_ns=int(dp.start_time_unix_nano), end_ns=int(dp.time_unix_nano), service=service))
    return rows
