"""The X-ray's transcript-vs-telemetry headline says the true relation in both directions: agreement
only when every session is within the tolerance, else how much less or more the transcript counts."""

from __future__ import annotations

from cairn.sessions.xray_telemetry import finding, reconcile

KEYS = {
    "input": "input_tokens",
    "output": "output_tokens",
    "cache_read": "cache_read_tokens",
    "cache_write": "cache_creation_tokens",
    "cost_usd": "cost_usd",
}


def _session(sid: str, **counts: float) -> dict:
    base = {"input": 1000, "output": 500, "cache_read": 10_000, "cache_write": 2000, "cost_usd": 1.0}
    return {"session_id": sid, **{KEYS[k]: v for k, v in {**base, **counts}.items()}}


def _telemetry(**counts: float) -> dict:
    base = {"input": 1000, "output": 500, "cache_read": 10_000, "cache_write": 2000, "cost_usd": 1.0}
    return {**base, **counts, "requests": 3, "source": "api_request events"}


def test_a_transcript_that_counts_more_is_not_called_agreement():
    # the case: the table shows the transcript 162% above telemetry
    section = reconcile({"sessions": [_session("a", cache_read=26_200)]}, {"a": _telemetry()})
    assert section["sessions"][0]["cache_read"]["gap"] == 1.62
    assert section["summary"]["cache_read"] == {
        "sessions_undercounted": 0,
        "undercount": 0.0,
        "sessions_overcounted": 1,
        "overcount": 1.62,
    }
    line = finding(section)
    assert line == (
        "OpenTelemetry covers 1 session(s); against it the transcript counts cache read "
        "162% more than telemetry in 1 session(s)."
    )
    assert "agree" not in line


def test_over_and_under_counts_are_each_told_with_their_sessions():
    report = {"sessions": [_session("a", input=620), _session("b", input=1500, cost_usd=2.0), _session("c")]}
    tel = {"a": _telemetry(), "b": _telemetry(), "c": _telemetry(input=1005, cost_usd=1.004)}
    section = reconcile(report, tel)
    assert section["summary"]["input"] == {
        "sessions_undercounted": 1,
        "undercount": 0.38,
        "sessions_overcounted": 1,
        "overcount": 0.5,
    }
    assert finding(section) == (
        "OpenTelemetry covers 3 session(s); against it the transcript undercounts input by 38% in 1 session(s); "
        "counts input 50% more than telemetry in 1 session(s); counts cost 100% more than telemetry in 1 session(s)."
    )


def test_agreement_only_within_the_tolerance_both_ways():
    report = {"sessions": [_session("a", input=1009), _session("b", output=496)]}
    section = reconcile(report, {"a": _telemetry(), "b": _telemetry()})
    assert finding(section) == "OpenTelemetry covers 2 session(s); the transcripts agree with it within 1%."
    section = reconcile({"sessions": [_session("a", input=1011)]}, {"a": _telemetry()})
    assert "counts input 1.1% more than telemetry in 1 session(s)" in finding(section)


def test_a_count_telemetry_has_none_of_is_no_percentage():
    section = reconcile({"sessions": [_session("a")]}, {"a": _telemetry(cache_write=0)})
    assert section["sessions"][0]["cache_write"]["gap"] is None  # no ratio, not "+100%"
    assert finding(section) == (
        "OpenTelemetry covers 1 session(s); against it the transcript counts cache write "
        "where telemetry has none in 1 session(s)."
    )
