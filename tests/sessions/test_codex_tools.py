"""Codex tool output read in one walk over the buffer equals reading every line in order (docs/benchmarks.md#xray).

`tool_outputs` looks only at lines holding `_call`, tells calls from outputs by the bytes after the
first hit, inlines the usual time parse and notes call names as it passes them. The reference
below splits the file into lines and applies the module's rules to each, in order; both must give
the same outputs (session, time, name, characters), keys and bad-line count on the fixtures, on
hand-made edge cases and on a few hundred randomly damaged rollouts; and rollouts with their copies
spread over several processes give what one process gives.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import orjson
import pytest

from cairn.sessions.codex_tools import call_name, output_chars, tool_outputs
from cairn.sessions.usage import Dataset, load_transcripts, parse_timestamp
from cairn.util.jsonl import parse_line

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
CODEX = sorted((ROOT / "codex" / "sessions").rglob("*.jsonl"))
_OUTPUTS = ("function_call_output", "custom_tool_call_output")
_CALLS = ("function_call", "custom_tool_call", "local_shell_call")


def reference(data: bytes, sid: str, seen: set, usage_lines: set[int] = frozenset()) -> tuple[list, set, int]:
    """(outputs, seen keys, bad lines) by the rules of codex_tools' docstring, every line in order."""
    names: dict[str, str] = {}
    out: list[tuple] = []
    bad = 0
    at = 0
    for raw in data.split(b"\n"):
        start, at = at, at + len(raw) + 1
        is_out, is_call = b'_call_output"' in raw, b'_call"' in raw
        if not (is_out or is_call):
            continue
        try:
            rec = orjson.loads(raw)
        except orjson.JSONDecodeError:  # a lone surrogate or a bad byte becomes U+FFFD (util/jsonl.py)
            rec = parse_line(raw)
            if rec is None:
                bad += is_out and start not in usage_lines
                continue
        payload = rec.get("payload") if isinstance(rec, dict) and rec.get("type") == "response_item" else None
        if not isinstance(payload, dict):
            continue
        cid, kind = payload.get("call_id"), payload.get("type")
        if kind in _CALLS and is_call and isinstance(cid, str):
            names[cid] = call_name(payload)
        elif kind in _OUTPUTS and is_out:
            stamp = rec.get("timestamp")
            if isinstance(cid, str) and isinstance(stamp, str):
                if ("tool", stamp, cid) in seen:
                    continue
                seen.add(("tool", stamp, cid))
            name = names.get(cid, "unknown") if isinstance(cid, str) else "unknown"
            out.append((sid, parse_timestamp(stamp) or 0.0, name, output_chars(payload.get("output"))))
    return out, seen, bad


def walked(data: bytes, sid: str, seen: set, usage_lines: set[int] = frozenset()) -> tuple[list, set, int]:
    ds = Dataset()
    tool_outputs(data, sid, ds, seen, dict.fromkeys(usage_lines, 0))
    return [(r.session_id, r.ts, r.tool, r.chars) for r in ds.tool_results], seen, ds.bad_lines


def _rec(stamp: object, payload: object, kind: str = "response_item", **extra: object) -> bytes:
    return json.dumps({**extra, "timestamp": stamp, "type": kind, "payload": payload}).encode()


def _call(
    cid: object, name: object = "exec_command", kind: str = "function_call", stamp: str = "2026-03-01T10:00:00.000Z"
) -> bytes:
    return orjson.dumps(
        {
            "timestamp": stamp,
            "type": "response_item",
            "payload": {"type": kind, "name": name, "arguments": "{}", "call_id": cid},
        }
    )


def _out(
    cid: object, output: object = "ok", stamp: object = "2026-03-01T10:00:01.000Z", kind: str = "function_call_output"
) -> bytes:
    return orjson.dumps(
        {"timestamp": stamp, "type": "response_item", "payload": {"type": kind, "call_id": cid, "output": output}}
    )


EDGES = [
    _call("c1") + b"\n" + _out("c1"),  # the usual pair, orjson's compact form
    _rec("2026-03-01T10:00:00Z", {"type": "function_call", "name": "a", "call_id": "c1"})
    + b"\n"
    + _rec("2026-03-01T10:00:01Z", {"type": "function_call_output", "call_id": "c1", "output": "x\u00e9"}),  # spaces
    _call("c1", "first") + b"\n" + _call("c1", "second") + b"\n" + _out("c1"),  # the call last written before it
    _out("c1") + b"\n" + _call("c1"),  # the call comes after: unknown
    _call("c1", "") + b"\n" + _out("c1") + b"\n" + _call("c2", None, "local_shell_call") + b"\n" + _out("c2"),
    _call("c1", 7, "custom_tool_call") + b"\n" + _out("c1", kind="custom_tool_call_output"),
    _call(["c1"]) + b"\n" + _out(["c1"]) + b"\n" + _out(5) + b"\n" + _out(None),  # call ids that are no text
    _out("c1", stamp=12)
    + b"\n"
    + _out("c1", stamp=None)
    + b"\n"
    + _out("c1", stamp="2026-03-01T11:00:00+01:00")
    + b"\n"
    + _out("c1", stamp="2026-03-01T10:00:00")
    + b"\n"
    + _out("c1", stamp="2026-03-01Z10:00:00Z")
    + b"\n"
    + _out("c1", stamp="")
    + b"\n"
    + _out("c1", stamp="not a time Z"),
    _out("c1", [{"type": "input_text", "text": "ab"}, {"type": "input_image"}])
    + b"\n"
    + _out("c2", {"content": "abc"})
    + b"\n"
    + _out("c3", {"output": {"x": 1}})
    + b"\n"
    + _out("c4", 42),
    _out("c1") + b"\n" + _out("c1") + b"\n" + _out("c1", stamp="2026-03-01T10:00:02.000Z"),  # a repeat counts once
    b'{"timestamp":"2026-03-01T10:00:00Z","type":"response_item","payload":{"type":"function_call_output"'  # broken
    + b"\n"
    + b'{"type":"response_item","payload":{"type":"function_call", broken'
    + b"\n"  # broken, a call: not bad
    + b'{"x":"a_call","y":"b_call_output"'
    + b"\n"  # broken, first hit no marker, output marker later: bad
    + b'{"x":"a_call" b"_call_output\\"'
    + b"\n",  # broken, no marker at all
    _rec("2026-03-01T10:00:00Z", {"type": "function_call_output", "call_id": "c1", "output": "x"}, note="a_call b")
    + b"\n"
    + _rec("2026-03-01T10:00:01Z", {"type": "function_call", "call_id": "c1", "name": "n"}, note='x_call_output"')
    + b"\n"
    + _out("c1"),  # a first `_call` that is not the marker, in both kinds of line
    b'{"timestamp":"2026-03-01T10:00:00Z","type":"response_item","payload":{"type":"function\\u005fcall_output",'
    b'"call_id":"c1","output":"x","tool_call":1}}'
    + b"\n"  # an escaped output type: not an output line
    + b'{"timestamp":"2026-03-01T10:00:00Z","type":"response_item","payload":{"type":"function\\u005fcall",'
    b'"call_id":"c1","name":"hidden","x_call_output":1}}' + b"\n" + _out("c1"),  # an escaped call type: no call
    b'{"x":"a_call b","tool_call":1,"timestamp":"2026-03-01T10:00:00Z","type":"response_item",'
    b'"payload":{"type":"function\\u005fcall_output","call_id":"c1","output":"x"}}\n'  # first hit no marker
    + b'{"x":"a_call b","tool_call_output":1,"timestamp":"2026-03-01T10:00:00Z","type":"response_item",'
    b'"payload":{"type":"function\\u005fcall","call_id":"c1","name":"hidden"}}\n' + _out("c1"),
    b'["_call_output\\""]\n"_call\\""\n{"type":"event_msg","payload":{"type":"function_call_output"}}\n'
    + b'{"type":"response_item","payload":["function_call_output"]}\n{"type":"response_item"}\n',
    _call("c1") + b"\r\n" + _out("c1") + b"\r\n\n\n" + _out("c\u00e9") + b"\n" + b"\xff" + _out("c1")[1:],  # bad UTF-8
    _call("c1") + b"\n" + _out("c1") + b"\n" + b'{"x":"y_call',  # a hit at the very end, no newline
]


@pytest.mark.parametrize("data", EDGES)
def test_edge_cases_equal_reading_every_line(data):
    assert walked(data, "s", set()) == reference(data, "s", set())


def test_fixtures_and_usage_lines_equal_reading_every_line():
    seen_a: set = set()
    seen_b: set = set()
    total = 0
    for path in CODEX + CODEX:  # the second round: every output already seen
        data = path.read_bytes()
        got = walked(data, path.stem, seen_a)
        assert got == reference(data, path.stem, seen_b)
        total += len(got[0])
    assert total == 227 and seen_a == seen_b
    broken = _out("c1")[:-5] + b"\n" + _out("c2")[:-5] + b"\n"  # the first is a usage line: not counted bad here
    assert walked(broken, "s", set(), {0})[2] == reference(broken, "s", set(), {0})[2] == 1


def _damage(data: bytes, rng: random.Random) -> bytes:
    pieces = [b"_call", b'_call"', b'_call_output"', b"\n", b'"', b"\\", b"}", b"\xc3", b"_call_outp"]
    for _ in range(rng.randint(1, 6)):
        at = rng.randrange(len(data) + 1)
        op = rng.random()
        if op < 0.4:
            data = data[:at] + rng.choice(pieces) + data[at:]
        elif op < 0.7:
            data = data[:at] + data[at + rng.randint(1, 40) :]
        else:
            lines = data.split(b"\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines.insert(i, lines[j])
            data = b"\n".join(lines)
    return data


def test_damaged_rollouts_equal_reading_every_line():
    rng = random.Random(17)
    sources = [b"\n".join(EDGES)] + [p.read_bytes() for p in CODEX[:3]]
    for k in range(300):
        data = _damage(rng.choice(sources), rng)
        assert walked(data, "s", set()) == reference(data, "s", set()), k


def test_copies_across_processes_merge_as_one_process(tmp_path, monkeypatch):
    """Rollouts and their copies spread over three processes: the same entries and tool outputs
    as one process reading them in order (a copy's outputs counted once, across processes too)."""
    import cairn.sessions.scan_pool as pool

    for day in ("01", "02", "03"):
        for src in CODEX:
            dest = tmp_path / "sessions" / "2026" / "02" / day / src.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, dest)  # the same rollouts three times: copies of each other
    other = tmp_path / "sessions" / "2026" / "02" / "04" / "rollout-2026-02-23T09-00-00-other.jsonl"
    other.parent.mkdir(parents=True)
    other.write_bytes(CODEX[0].read_bytes().replace(b'"timestamp":"2026-', b'"timestamp":"2027-'))
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", "1")
    one = load_transcripts([tmp_path])
    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", "3")
    many = load_transcripts([tmp_path])
    assert [(t.session_id, t.timestamp, t.model, t.input, t.output) for t in one.turns] == [
        (t.session_id, t.timestamp, t.model, t.input, t.output) for t in many.turns
    ]
    first = len(walked(CODEX[0].read_bytes(), "s", set())[0])
    assert one.tool_results == many.tool_results and len(one.tool_results) == 227 + first
    assert one.bad_lines == many.bad_lines


def _tree(tmp_path: Path) -> Path:
    """The three agents' fixtures, the Codex rollouts twice (copies), and a rollout with broken lines."""
    root = tmp_path / "t"
    shutil.copytree(ROOT / "claude-code", root / "claude-code")
    shutil.copytree(ROOT / "gemini", root / "gemini")
    for day in ("01", "02"):
        for src in CODEX:
            dest = root / "codex" / "sessions" / "2026" / "02" / day / src.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, dest)
    broken = root / "codex" / "sessions" / "2026" / "02" / "03" / "rollout-2026-02-03T10-00-00-broken.jsonl"
    broken.parent.mkdir(parents=True)
    meta = b'{"timestamp":"2026-02-03T10:00:00Z","type":"session_meta","payload":{"id":"sb","cwd":"/w"}}'
    count = (
        b'{"timestamp":"2026-02-03T10:00:05Z","type":"event_msg","payload":{"type":"token_count","info":'
        b'{"total_token_usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":1,'
        b'"reasoning_output_tokens":0,"total_tokens":11}}}}'
    )
    broken.write_bytes(b"\n".join([meta, *EDGES[9:12], count, b'{"type":"token_count","x":"_call_output"', count]))
    unnamed = root / "codex" / "sessions" / "2026" / "02" / "04" / "a-rollout-named-otherwise.jsonl"
    unnamed.parent.mkdir(parents=True)  # Codex by its first line, not its name
    unnamed.write_bytes(CODEX[0].read_bytes().replace(b'"timestamp":"2026-', b'"timestamp":"2027-'))
    return root


def _report(ds) -> str:
    from cairn.sessions.prices import load_prices
    from cairn.sessions.xray import analyze

    return json.dumps(analyze(ds, load_prices({})), sort_keys=True)


@pytest.mark.parametrize("workers", ["2", "3"])
def test_tool_outputs_read_late_by_another_process_equal_one_process(tmp_path, monkeypatch, workers):
    """On several processes the last one reads every Codex tool output after its part of the usage,
    while the X-ray goes on (Dataset.late): the report, filtered or not, equals one process's."""
    import cairn.sessions.scan_pool as pool
    from cairn.sessions.usage import select

    root = _tree(tmp_path)
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", "1")
    one = load_transcripts([root])
    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", workers)
    late = load_transcripts([root], late_tools=True)
    assert late.late is not None  # the tool outputs are still coming
    sid = "019c8a4d-8f45-7010-8b5d-7fad920aa6f9"
    filtered = select(late, sessions={sid})
    assert _report(select(late)) == _report(select(one))
    assert _report(filtered) == _report(select(one, sessions={sid}))
    assert _report(select(late, days=1, now=parse_timestamp("2026-02-24T00:00:00Z"))) == _report(
        select(one, days=1, now=parse_timestamp("2026-02-24T00:00:00Z"))
    )
    assert late.bad_lines < one.bad_lines  # the tool pass's bad lines come with its outputs
    assert late.complete().bad_lines == one.bad_lines == 3 and late.late is None
    assert sorted(map(repr, late.tool_results)) == sorted(map(repr, one.tool_results))
    in_2027 = parse_timestamp("2027-01-01T00:00:00Z")  # the rollout named otherwise: its outputs are in
    assert sum(r.ts >= in_2027 for r in late.tool_results) == len(walked(CODEX[0].read_bytes(), "s", set())[0]) > 0
    monkeypatch.setattr(pool, "_spill_file", lambda: None)  # no temporary file: the part comes by the pipe
    assert _report(load_transcripts([root])) == _report(one)
    claude = [root / "claude-code"]  # no file named rollout-*: nothing read late
    late_claude = load_transcripts(claude, late_tools=True)
    assert late_claude.late is None and _report(late_claude) == _report(load_transcripts(claude))


@pytest.mark.parametrize("workers", ["1", "2", "3"])
def test_tool_outputs_counted_by_tool_give_the_same_report(tmp_path, monkeypatch, workers):
    """`tool_rows=False` (no filter will pick outputs one by one): the Codex tool outputs are only
    counted by tool, in one process or read late by another, and the report is the same as with one
    row per output; such a dataset cannot be selected by time or session."""
    import cairn.sessions.scan_pool as pool
    from cairn.sessions.usage import select

    root = _tree(tmp_path)
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", "1")
    rows = load_transcripts([root])
    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", workers)
    counted = load_transcripts([root], late_tools=True, tool_rows=False)
    assert _report(select(counted)) == _report(select(rows))
    assert counted.complete().bad_lines == rows.bad_lines == 3
    codex_rows = [r for r in rows.tool_results if r.session_id not in {t.session_id for t in counted.tool_results}]
    assert sum(n for n, _ in counted.tool_totals.values()) == len(codex_rows) > 0
    assert sum(c for _, c in counted.tool_totals.values()) == sum(r.chars for r in codex_rows)
    with pytest.raises(ValueError, match="cannot be selected"):
        select(counted, days=1)
    for many in ("2", "3"):  # the rollouts named otherwise: read after the merge, counted by tool too
        monkeypatch.setenv("CAIRN_XRAY_WORKERS", many)
        named = tmp_path / many
        for k, src in enumerate(CODEX * 2):
            (named / f"session-{k}.jsonl").parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, named / f"session-{k}.jsonl")
        assert _report(load_transcripts([named], tool_rows=False)) == _report(load_transcripts([named]))


@pytest.mark.parametrize("workers", ["2", "3"])
def test_codex_rollouts_named_otherwise_on_several_processes(tmp_path, monkeypatch, workers):
    """No file named rollout-*: the runs say which files are Codex rollouts and the first process
    reads their tool outputs after the merge, in file order (copies across runs counted once)."""
    import cairn.sessions.scan_pool as pool

    for day in ("01", "02", "03"):
        for k, src in enumerate(CODEX):
            dest = tmp_path / day / f"session-{k}.jsonl"
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, dest)  # three copies of each, named otherwise
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", "1")
    one = load_transcripts([tmp_path])
    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", workers)
    many = load_transcripts([tmp_path], late_tools=True)
    assert many.late is None and len(pool._runs(sorted(tmp_path.rglob("*.jsonl")), [1] * 12, int(workers))) > 1
    assert many.tool_results == one.tool_results and len(one.tool_results) == 227
    assert _report(many) == _report(one)


def test_late_tool_outputs_that_fail_are_one_clear_line(tmp_path, monkeypatch):
    import cairn.sessions.codex_usage as codex_usage
    import cairn.sessions.scan_pool as pool
    from cairn.errors import CairnError

    root = _tree(tmp_path)

    def failing(path, ds, seen, rows=None):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", "2")
    monkeypatch.setattr(codex_usage, "scan_codex_tools", failing)  # in the forked process that reads them
    ds = load_transcripts([root], late_tools=True)
    with pytest.raises(CairnError, match="cannot read .*rollout-.*Input/output error"):
        ds.complete()


def test_late_tool_outputs_dropped_unread_leave_no_process(tmp_path, monkeypatch):
    import os

    import cairn.sessions.scan_pool as pool

    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", "2")
    ds = load_transcripts([_tree(tmp_path)], late_tools=True)
    pid = ds.late._pid
    os.kill(pid, 0)  # still there: its tool outputs unread
    del ds  # an error before the report, say
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # stopped and reaped


def test_runs_give_the_late_reader_less_usage():
    from cairn.sessions.scan_pool import _runs

    files = [Path(str(i)) for i in range(12)]
    assert [len(r) for r in _runs(files, [1] * 12, 2)] == [6, 6]
    assert [len(r) for r in _runs(files, [1] * 12, 2, 0.5)] == [8, 4]
    assert [len(r) for r in _runs(files, [1] * 12, 3, 0.5)] == [5, 5, 2]
    assert [len(r) for r in _runs(files, [100] + [1] * 11, 2, 0.5)] == [1, 11]
