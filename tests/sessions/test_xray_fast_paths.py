"""The X-ray's fast paths give what the plain computation gives, to the bit (docs/benchmarks.md#xray).

Each shortcut taken for speed is checked against the slow way on the repository's fixtures and on
hand-made edge cases: group sums in C against adding turn by turn, the simulator's skip to the
first compaction against replaying every turn, Codex's usage fast path and its cache of
`turn_context` lines against parsing every line, the forked scan against one process, the
transcript search's resolved paths against `Path.resolve`, the line walk and the null-field check
against splitting every line and the regex they replace.
"""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest

import cairn.sessions.codex_usage as codex_usage
from cairn.errors import CairnError
from cairn.sessions.codex_usage import _raw_usage_slow, context_key_of, raw_usage
from cairn.sessions.prices import load_prices
from cairn.sessions.simulate import DEFAULT_HANDOFF, Prepared, replay
from cairn.sessions.transcript import find_transcripts
from cairn.sessions.usage import lines_to_parse, load_transcripts, parse_timestamp, select
from cairn.sessions.usage_entry import has_null_field
from cairn.sessions.xray import _median, day_of, find_expiries
from cairn.sessions.xray_columns import Acc, Columns, group_sums, main_curve, positions_of, turn_cost

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


@pytest.fixture(scope="module")
def dataset():
    return load_transcripts([ROOT])


def test_group_sums_equal_turn_by_turn_addition(dataset):
    prices = load_prices({})
    turns = dataset.turns
    costs = [turn_cost(t, prices) for t in turns]
    cols = Columns(turns, costs)
    for key in (
        lambda t: t.session_id,
        lambda t: t.model or "-",
        lambda t: t.agent,
        lambda t: day_of(t.ts),
        lambda t: "all",
    ):
        slow: dict[str, Acc] = defaultdict(Acc)
        for t, c in zip(turns, costs, strict=True):
            slow[key(t)].add(t, c)
        fast = group_sums(cols, [key(t) for t in turns])
        assert set(fast) == set(slow)
        for k, acc in slow.items():
            assert fast[k].as_dict() == acc.as_dict() and fast[k].cost_usd == acc.cost_usd
            assert fast[k].unpriced_turns == acc.unpriced_turns


def _assert_priced_columns_equal_turn_cost(turns, prices, costs) -> None:
    direct, totals = Columns.of_prices(turns, prices)
    slow = Columns(turns, costs)
    for name in Columns.__slots__:
        assert getattr(direct, name) == getattr(slow, name), name
    assert totals == [c.total if c else 0.0 for c in costs]


def test_columns_priced_directly_equal_turn_cost(dataset):
    prices = load_prices({"claude-opus-4-6": {"input": 5.0, "output": 25.0}})
    turns = dataset.turns + dataset.turns[:3]
    turns[-1] = replace(turns[-1], model="nope-1")
    costs = [turn_cost(t, prices) for t in turns]
    assert costs[-1] is None  # an unpriced turn is among them
    _assert_priced_columns_equal_turn_cost(turns, prices, costs)


def _shuffled_with_long_prompts(turns):
    """The turns in a random order (every model, session and day split into many runs), plus
    copies past the 200k long-context tier and one unpriced model."""
    import random

    more = [replace(t, cache_read=t.cache_read + 250_000) for t in turns[::3]]
    more += [replace(turns[0], model="nope-1"), replace(turns[1], model=None)]
    out = turns + more
    random.Random(7).shuffle(out)
    return out


def test_columns_priced_in_any_order_equal_turn_cost(dataset):
    prices = load_prices({})
    turns = _shuffled_with_long_prompts(dataset.turns)
    costs = [turn_cost(t, prices) for t in turns]
    assert any(c is None for c in costs) and any(t.context > 200_000 for t in turns)
    _assert_priced_columns_equal_turn_cost(turns, prices, costs)


def test_groups_of_interleaved_keys_equal_turn_by_turn_addition(dataset):
    prices = load_prices({})
    turns = _shuffled_with_long_prompts(dataset.turns)
    costs = [turn_cost(t, prices) for t in turns]
    cols = Columns(turns, costs)
    for key in (lambda t: t.session_id, lambda t: t.model or "-", lambda t: day_of(t.ts)):
        keys = [key(t) for t in turns]
        plain: dict[str, list[int]] = {}
        for i, k in enumerate(keys):
            plain.setdefault(k, []).append(i)
        assert {k: list(v) for k, v in positions_of(keys).items()} == plain
        assert list(positions_of(keys)) == list(plain)  # first-seen order
        slow: dict[str, Acc] = defaultdict(Acc)
        for t, c in zip(turns, costs, strict=True):
            slow[key(t)].add(t, c)
        fast = group_sums(cols, keys)
        for k, acc in slow.items():
            assert fast[k].as_dict() == acc.as_dict() and fast[k].cost_usd == acc.cost_usd
            assert fast[k].unpriced_turns == acc.unpriced_turns


def test_median_equals_statistics_median():
    import random
    import statistics

    rnd = random.Random(3)
    for n in range(1, 40):
        values = [rnd.randrange(0, 500_000) for _ in range(n)]
        assert _median(values) == statistics.median(values)
        assert type(_median(values)) is type(statistics.median(values))


def test_unpriced_turns_are_counted_per_group(dataset):
    prices = load_prices({})
    turns = dataset.turns
    costs = [None if i % 3 == 0 else turn_cost(t, prices) for i, t in enumerate(turns)]  # some unpriced
    cols = Columns(turns, costs)
    slow: dict[str, Acc] = defaultdict(Acc)
    for t, c in zip(turns, costs, strict=True):
        slow[t.session_id].add(t, c)
    fast = group_sums(cols, [t.session_id for t in turns])
    assert {k: (a.unpriced_turns, a.as_dict()) for k, a in fast.items()} == {
        k: (a.unpriced_turns, a.as_dict()) for k, a in slow.items()
    }


@pytest.mark.parametrize("threshold", [1_000, 20_000, 50_000, 100_000, 150_000, 250_000, 10_000_000])
def test_replay_from_the_first_compaction_equals_replaying_every_turn(dataset, threshold):
    prices = load_prices({})
    real = {id(t): turn_cost(t, prices) for t in dataset.turns}
    by_session = defaultdict(list)
    for t in dataset.turns:
        by_session[t.session_id].append(t)
    compacted = 0
    for turns in by_session.values():
        curve = main_curve(turns)
        plain = replay(curve, prices, threshold, DEFAULT_HANDOFF)
        totals = [c.total if c else 0.0 for c in (real[id(t)] for t in curve)]
        fast = replay(curve, prices, threshold, DEFAULT_HANDOFF, Prepared(curve, totals))
        assert (fast.cost, fast.compactions) == (plain.cost, plain.compactions)
        compacted += plain.compactions > 0
    if 50_000 <= threshold <= 150_000:
        assert compacted  # these thresholds do compact some fixture sessions: the skip is exercised


@pytest.mark.parametrize(
    "usage",
    [
        {
            "input_tokens": 10,
            "cached_input_tokens": 4,
            "output_tokens": 3,
            "reasoning_output_tokens": 1,
            "total_tokens": 13,
        },
        {
            "input_tokens": 10,
            "cached_input_tokens": 4,
            "output_tokens": 3,
            "reasoning_output_tokens": 1,
            "total_tokens": 0,
        },
        {
            "input_tokens": 0,
            "cached_input_tokens": 0,
            "output_tokens": 0,
            "reasoning_output_tokens": 0,
            "total_tokens": 0,
        },
        {
            "input_tokens": -5,
            "cached_input_tokens": 4,
            "output_tokens": 3,
            "reasoning_output_tokens": 1,
            "total_tokens": 13,
        },
        {
            "input_tokens": True,
            "cached_input_tokens": 4,
            "output_tokens": 3,
            "reasoning_output_tokens": 1,
            "total_tokens": 9,
        },
        {
            "input_tokens": 10.7,
            "cached_input_tokens": 4,
            "output_tokens": 3,
            "reasoning_output_tokens": 1,
            "total_tokens": 9,
        },
        {"prompt_tokens": 10, "completion_tokens": 2, "cached_tokens": 1},
        {"input_tokens": 10, "output_tokens": 3},
        {
            "input_tokens": None,
            "prompt_tokens": 7,
            "cached_input_tokens": 2,
            "output_tokens": 3,
            "reasoning_output_tokens": 0,
            "total_tokens": 10,
        },
        {},
    ],
)
def test_codex_usage_fast_path_equals_the_alias_rules(usage):
    assert raw_usage(usage) == _raw_usage_slow(usage)


def _context(ts: str, turn: str, model: str = "gpt-5.3-codex", extra: str = "") -> bytes:
    return (
        f'{{"timestamp":"{ts}","type":"turn_context","payload":{{"turn_id":"{turn}","cwd":"/w",'
        f'"model":"{model}"{extra}}}}}'
    ).encode()


def test_turn_context_key_ignores_only_time_and_turn_id():
    a = _context("2026-02-23T11:40:42.351Z", "019c8a4d-0330-71a2")
    b = _context("2026-02-23T11:41:07.002Z", "019c8a4d-9999-aaaa")
    assert context_key_of(a) == context_key_of(b) is not None
    assert context_key_of(_context("2026-02-23T11:40:42.351Z", "x", model="o3")) != context_key_of(a)
    assert context_key_of(_context("2026-02-23T11:40:42.351Z", "x", extra=',"effort":"high"')) != context_key_of(a)
    assert context_key_of(_context('2026-02-23T11:40:42\\"Z', "x")) is None  # an escape: no key
    assert context_key_of(b'{"type":"turn_context","payload":{"model":"m"}}') is None  # no time, no turn id


def _rollout(path: Path, lines: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r, separators=(",", ":")) for r in lines) + "\n", encoding="utf-8")


def _count(n: int, total: int) -> dict:
    u = {
        "input_tokens": total,
        "cached_input_tokens": 0,
        "output_tokens": 0,
        "reasoning_output_tokens": 0,
        "total_tokens": total,
    }
    return {
        "timestamp": f"2026-03-01T10:00:{n:02d}.000Z",
        "type": "event_msg",
        "payload": {"type": "token_count", "info": {"total_token_usage": u, "last_token_usage": None}},
    }


def _ctx(n: int, model: str | None, **more: object) -> dict:
    payload: dict = {"turn_id": f"t{n}", "cwd": "/w", **more}
    if model is not None:
        payload["model"] = model
    return {"timestamp": f"2026-03-01T10:00:{n:02d}.500Z", "type": "turn_context", "payload": payload}


def test_codex_scan_with_the_turn_context_cache_equals_parsing_every_line(tmp_path, monkeypatch):
    rollout = tmp_path / "sessions" / "2026" / "03" / "01" / "rollout-2026-03-01T10-00-00-abc.jsonl"
    _rollout(
        rollout,
        [
            {"timestamp": "2026-03-01T10:00:00.000Z", "type": "session_meta", "payload": {"id": "s1", "cwd": "/w"}},
            _ctx(1, "gpt-5"),
            _count(1, 100),
            _ctx(2, "gpt-5"),
            _count(2, 250),  # same context but time and turn id: from the cache
            _ctx(3, None),
            _count(3, 400),  # a context without a model keeps the last one
            _ctx(4, None),
            _count(4, 450),  # ... also when it comes from the cache
            _ctx(5, "o3"),
            _count(5, 700),
            _ctx(6, "gpt-5"),
            _count(6, 900),  # back to a key seen before
            _ctx(7, None, metadata={"model": "o4-mini"}),
            _count(7, 1000),
        ],
    )
    paths = [ROOT / "codex", rollout]

    def rows(ds):
        return [(t.session_id, t.timestamp, t.model, t.input, t.cache_read, t.output) for t in ds.turns]

    fast = load_transcripts(paths)
    monkeypatch.setattr(codex_usage, "context_key_of", lambda raw: None)
    slow = load_transcripts(paths)
    assert rows(fast) == rows(slow)
    assert fast.bad_lines == slow.bad_lines and fast.session_cwd == slow.session_cwd
    mine = [t.model for t in fast.turns if t.session_id == "s1"]
    assert mine == ["gpt-5", "gpt-5", "gpt-5", "gpt-5", "o3", "gpt-5", "o4-mini"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="scanning in several processes needs fork")
def test_an_error_in_a_forked_scan_is_one_clear_line(monkeypatch):
    import cairn.sessions.scan_pool as pool

    real = pool.scan_file

    def failing(path, ds, out):
        if "claude-code" in str(path) and path.name.startswith("short"):
            raise CairnError(f"cannot read {path.name}: broken")
        return real(path, ds, out)

    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", "2")
    monkeypatch.setattr(pool, "scan_file", failing)
    files = sorted(find_transcripts([ROOT]), key=str)
    runs = pool._runs(files, [f.stat().st_size for f in files], 2, pool.LATE_SHARE)  # as scan_all cuts them
    assert any(f.name.startswith("short") for f in runs[1])  # the failing file is the child's
    with pytest.raises(CairnError, match="cannot read short"):
        load_transcripts([ROOT])


def test_found_transcripts_are_what_rglob_and_resolve_find(tmp_path):
    real = tmp_path / "real" / "proj"
    (real / "chats").mkdir(parents=True)
    (real / ".hidden").mkdir()
    (real / "d.jsonl").mkdir()  # a folder with a transcript's name
    for name in (
        "a.jsonl",
        "b.jsonl",
        "chats/s.json",
        "y.json",
        ".hidden/z.jsonl",
        "w.jsonl.bak",
        "v.JSONL",
        ".jsonl",
        "chats/.json",
        "e.jsonl.",
        "chats/t.json.jsonl",
    ):  # pathlib's suffix rules at the edges
        (real / name).write_text("{}\n")
    (tmp_path / "linked").symlink_to(tmp_path / "real", target_is_directory=True)
    (real / "c.jsonl").symlink_to(real / "a.jsonl")
    (real / "broken.jsonl").symlink_to(tmp_path / "nowhere")
    (real / "loop").symlink_to(real, target_is_directory=True)  # never followed
    roots = [tmp_path / "linked", tmp_path / "real" / "proj" / ".." / "proj", real / "b.jsonl"]
    found = find_transcripts(roots)
    expected = {
        p.resolve()
        for root in roots
        if root.is_dir()
        for p in root.rglob("*.json*")
        if (p.suffix == ".jsonl" or (p.suffix == ".json" and p.parent.name == "chats")) and p.is_file()
    }
    assert found == sorted(expected | {real / "b.jsonl"})
    assert found == [
        real / ".hidden" / "z.jsonl",
        real / "a.jsonl",
        real / "b.jsonl",
        real / "chats" / "s.json",
        real / "chats" / "t.json.jsonl",
    ]


def _old_lines_to_parse(data: bytes) -> tuple[list[tuple[bytes, bool | None]], int]:
    """The line-by-line reading lines_to_parse replaces (split, drop blank lines, test markers);
    a line holding a tool result leaves the usage marker unlooked-for (None), as lines_to_parse does."""
    out, bad = [], 0
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        has_usage = b'"usage":{' in raw
        if not (has_usage or b'"tool_result"' in raw or b'"compact_boundary"' in raw):
            stripped = raw.strip()
            if not (stripped.startswith(b"{") and stripped.endswith(b"}")):
                bad += 1
            continue
        out.append((raw, None if b'"tool_result"' in raw else has_usage))
    return out, bad


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n\n",
        b'{"a":1}\n{"message":{"usage":{"input_tokens":1}}}\n',
        b'{"a":1}\r\n  {"b":2}  \n\t\n[1,2]\nnot json\n{"type":"tool_result"}\r\n{"x":"compact_boundary"}',
        b'{"subtype":"compact_boundary"}\n{broken\n   \n}\n{"usage":{}}',
        b'{"a":"\xff\xfe"}\n\x00\n{"usage":{"x":1}} trailing',
        b'{"type":"tool_result","message":{"usage":{"input_tokens":1}}}\n',
    ],
)
def test_lines_to_parse_equals_splitting_every_line(data):
    assert lines_to_parse(data) == _old_lines_to_parse(data)


def test_lines_to_parse_on_the_fixtures():
    for f in sorted((ROOT / "claude-code").rglob("*.jsonl")):
        data = f.read_bytes()
        assert lines_to_parse(data) == _old_lines_to_parse(data)


_NULL_REGEX = re.compile(
    rb'"(id|cwd|model|speed|costUSD|version|sessionId|requestId|isApiErrorMessage|'
    rb'cache_read_input_tokens|cache_creation_input_tokens)":null'
)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"id":null}',
        b'{"message":{"id":"m","model":null}}',
        b'{"xid":null}',
        b'{"a":"\\"id\\":null"}',
        b'{"id":nullable}',
        b'{"cwd":"x","speed":null,"n":1}',
        b'":null',
        b'{"sessionId": null}',
        b"{}",
        b'{"costUSD":null,"isApiErrorMessage":false}',
        b'{"cache_read_input_tokens":null}',
    ],
)
def test_null_field_check_equals_the_regex(raw):
    assert has_null_field(raw) == bool(_NULL_REGEX.search(raw))


def test_null_field_check_on_the_fixtures():
    for f in sorted(ROOT.rglob("*.jsonl")):
        for raw in f.read_bytes().split(b"\n"):
            assert has_null_field(raw) == bool(_NULL_REGEX.search(raw))


def test_codex_session_record_found_without_scanning_the_whole_file(tmp_path):
    """Lines naming `session_meta` are read in order until one gives the session id; the numbers
    below are those of the reader that searched every line for it (checked before the change)."""

    def count(n: int, total: int, note: str = "") -> str:
        u = {
            "input_tokens": total,
            "cached_input_tokens": 0,
            "output_tokens": 0,
            "reasoning_output_tokens": 0,
            "total_tokens": total,
        }
        return json.dumps(
            {
                "timestamp": f"2026-03-01T10:00:{n:02d}.000Z",
                "type": "event_msg",
                "payload": {
                    "type": "token_count",
                    "info": {"total_token_usage": u, "last_token_usage": None},
                    "note": note,
                },
            }
        )

    def ctx(n: int, model: str) -> str:
        return json.dumps(
            {
                "timestamp": f"2026-03-01T10:00:{n:02d}.500Z",
                "type": "turn_context",
                "payload": {"turn_id": f"t{n}", "model": model},
            }
        )

    def meta(sid: str | None, cwd: str, note: str = "") -> str:
        payload = {"cwd": cwd, "note": note} | ({"id": sid} if sid else {})
        return json.dumps({"timestamp": "2026-03-01T10:00:00.000Z", "type": "session_meta", "payload": payload})

    folder = tmp_path / "sessions" / "2026" / "03" / "01"
    folder.mkdir(parents=True)
    files = {
        "a": [
            '{"type":"session_meta", broken',
            '{"type":"response_item","payload":{"text":"the session_meta"}}',
            meta("sa", "/wa"),
            ctx(1, "gpt-5"),
            count(1, 100),
            '{"x":"session_meta"}',
            count(2, 300, "session_meta"),
        ],
        "b": [meta(None, "/wb0"), ctx(1, "o3"), count(3, 100, "session_meta"), meta("sb", "/wb"), count(4, 200)],
        "c": [
            ctx(1, "o3"),
            count(5, 100),
            '{"type":"event_msg","payload":{"type":"token_count"}, "session_meta" x',
            count(6, 150),
        ],
        "d": [meta("sd", "/wd", note="token_count"), ctx(1, "o3"), count(7, 100)],
    }
    for name, lines in files.items():
        (folder / f"rollout-2026-03-01T10-00-00-{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    ds = load_transcripts([tmp_path])
    got = defaultdict(list)
    for t in ds.turns:
        got[t.session_id].append((t.model, t.input))
    assert dict(got) == {
        "sa": [("gpt-5", 100), ("gpt-5", 200)],
        "sb": [("o3", 100), ("o3", 100)],
        "rollout-2026-03-01T10-00-00-c": [("o3", 100), ("o3", 50)],
        "sd": [("o3", 100)],
    }
    assert ds.session_cwd == {"sa": "/wa", "sb": "/wb", "sd": "/wd"}
    assert ds.bad_lines == 4


def test_a_usage_line_that_also_names_a_tool_result_is_counted(tmp_path):
    """The usage marker of a line holding `"tool_result"` is looked for after parsing: still counted."""
    from tests.sessions.test_xray import assistant, write

    tool_use = [{"type": "tool_use", "id": "toolu_1", "name": "Grep", "input": {"tool_result": "x"}}]
    path = write(
        tmp_path / "proj" / "s.jsonl",
        [
            assistant(0, "m1", "r1", inp=10, out=5, content=tool_use),  # names "tool_result" in its input
            {
                "type": "user",
                "timestamp": "2026-03-01T12:00:01.000Z",
                "sessionId": "s",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "abc"}],
                },
            },
            assistant(2, "m2", "r2", inp=20, out=7),
        ],
    )
    ds = load_transcripts([path])
    assert [(t.message_id, t.input, t.output) for t in ds.turns] == [("m1", 10, 5), ("m2", 20, 7)]
    assert [(r.tool, r.chars) for r in ds.tool_results] == [("Grep", 3)]


def _parse_timestamp_before(value):
    """parse_timestamp as it was: every `Z` of a text ending in one rewritten as +00:00 first."""
    if not isinstance(value, str) or not value:
        return None
    try:
        dt = datetime.fromisoformat(value.replace("Z", "+00:00") if value.endswith("Z") else value)
    except ValueError:
        return None
    return None if dt.tzinfo is None else dt.timestamp()


def test_parse_timestamp_equals_rewriting_z_first():
    """The fast path hands fromisoformat the text as it is unless a `Z` other than the last one is in it
    (fromisoformat takes any character, `Z` too, between date and time): 20,000 mutated times agree."""
    import random

    base = [
        "2026-02-23T11:40:42.096Z",
        "2026-02-23T11:40:42Z",
        "2026-02-23T11:40:42.096+02:00",
        "2026-02-23",
        "2026-02-23Z",
        "Z",
        "",
        "2026-02-23T11Z",
        "2026-02-23T11:40:42.096ZZ",
        "2026-02-23Z11:40:42Z",
        "2026-02-23Z11:40:42",
        "2026-02-23 11:40:42Z",
        "2026-02-23T11:40:42.096z",
        "20260223T114042Z",
    ]
    rng = random.Random(17)
    texts = list(base) + [None, 5, b"2026-02-23T11:40:42Z"]
    for _ in range(20_000):
        chars = list(rng.choice(base))
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(chars) + 1)
            op = rng.random()
            if op < 0.4 and chars:
                chars[min(i, len(chars) - 1)] = rng.choice("0123456789-:TZz.+ ")
            elif op < 0.7:
                chars.insert(i, rng.choice("0123456789-:TZz.+ "))
            elif chars:
                del chars[min(i, len(chars) - 1)]
        texts.append("".join(chars))
    assert [parse_timestamp(t) for t in texts] == [_parse_timestamp_before(t) for t in texts]
    assert sum(parse_timestamp(t) is not None for t in texts) > 500  # many of them are times
    assert parse_timestamp("2026-02-23Z11:40:42Z") is None  # rewritten first, as before: not a time


def test_select_without_filters_keeps_everything(dataset):
    out = select(dataset)
    assert (out.turns, out.tool_results, out.compactions) == (dataset.turns, dataset.tool_results, dataset.compactions)
    assert out.turns is not dataset.turns  # a copy, as the filtering path gives
    everyone = (
        {t.session_id for t in dataset.turns}
        | {r.session_id for r in dataset.tool_results}
        | {c.session_id for c in dataset.compactions}
    )
    filtered = select(dataset, sessions=everyone)
    assert (filtered.turns, filtered.tool_results, filtered.compactions) == (
        out.turns,
        out.tool_results,
        out.compactions,
    )


def test_expiries_skip_streams_without_cache_writes(dataset):
    """A stream with no cache write is skipped: none of its turns could pass the rewrite test."""
    from cairn.sessions.xray import EXPIRY_MIN_CONTEXT, EXPIRY_REWRITE_SHARE

    prices = load_prices({})
    streams: dict[str, list] = defaultdict(list)
    for t in dataset.turns:
        streams[t.file].append(t)
    quiet = [sorted(s, key=lambda t: t.ts) for s in streams.values() if not any(t.cache_write for t in s)]
    assert {s[0].agent for s in quiet} >= {"codex", "gemini"}
    for s in quiet:  # the loop's own test, turn by turn: every pair is passed over
        assert all(
            prev.context < EXPIRY_MIN_CONTEXT or cur.cache_write < EXPIRY_REWRITE_SHARE * prev.context
            for prev, cur in zip(s, s[1:], strict=False)
        )
    writers = {t.file for t in dataset.turns if t.cache_write}
    assert find_expiries(dataset.turns, prices) == find_expiries(
        [t for t in dataset.turns if t.file in writers], prices
    )
