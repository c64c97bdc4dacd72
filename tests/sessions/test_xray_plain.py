"""`analyze` and `simulate` give, byte for byte, what the plain turn-by-turn computation gives.

The X-ray computes from columns (sessions.xray_columns: group sums in C over slices, sessions from
their positions, the simulator on prepared curves with prices inlined, cost columns of zeros made
once, day and model groups from the pricing pass). Here the whole report is computed the plain
way, one turn at a time (the analysis as it was before those shortcuts: `Acc.add` per turn,
`turn_cost`, `main_curve` per session, every compaction replayed turn by turn with
`ModelPrice.cost_total`), and the two JSON texts are compared, on the fixtures and on hand-made
edge cases: turns shuffled (every session, day and project split into many runs, curves out of
time order), prompts past the 200k tier, unpriced models and models without a name, a model
literally named "(no model)", sessions of subagent turns only, zero-token turns, zero rates.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from cairn.sessions.prices import load_prices
from cairn.sessions.simulate import DEFAULT_HANDOFF, DEFAULT_THRESHOLDS, METHOD, simulate
from cairn.sessions.usage import Compaction, Dataset, ToolResult, Turn, load_transcripts
from cairn.sessions.xray import (
    CHARS_PER_TOKEN,
    KIND_LABEL,
    KINDS,
    _median,
    _rows,
    _share,
    _size_report,
    day_of,
    find_expiries,
    findings,
    iso,
    project_of,
)
from cairn.sessions.xray_columns import Acc, fsum, main_curve, turn_cost

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def _plain_replay(curve: list[Turn], prices, threshold: int, handoff: int) -> tuple[float, int]:
    """Every turn replayed and priced by `cost_total` (the simulator's method, no shortcut)."""

    def price(model, inp=0, out=0, w5=0, w1=0, cr=0):
        p = prices.lookup(model)
        return 0.0 if p is None else p.cost_total(inp, out, w5, w1, cr)

    cost, comps = 0.0, 0
    if not curve:
        return cost, comps
    start = curve[0].context
    one_hour = any(t.write_1h for t in curve)
    sim = 0
    for i, t in enumerate(curve):
        if i == 0:
            sim = t.context
        else:
            step = t.context - curve[i - 1].context
            sim = sim + step if step >= 0 else min(sim, t.context)
        inp = min(t.input, sim)
        cw = min(t.cache_write, sim - inp)
        w1 = round(t.write_1h * cw / t.cache_write) if t.cache_write else 0
        cost += price(t.model, inp, t.output, cw - w1, w1, sim - inp - cw)
        if start + handoff < threshold and sim > threshold and i < len(curve) - 1:
            fresh = start + handoff
            cost += price(t.model, out=handoff, cr=sim) + price(
                t.model, w1=fresh if one_hour else 0, w5=0 if one_hour else fresh
            )
            comps += 1
            sim = fresh
    return cost, comps


def _plain_simulate(ds: Dataset, prices, thresholds: list[int], handoff: int) -> dict:
    real = {id(t): (c.total if (c := turn_cost(t, prices)) else 0.0) for t in ds.turns}
    total = 0.0
    for t in ds.turns:
        total += real[id(t)]
    by_session: dict[str, list[Turn]] = defaultdict(list)
    for t in ds.turns:
        by_session[t.session_id].append(t)
    curves = [main_curve(turns) for turns in by_session.values()]
    real_main = 0.0
    for curve in curves:
        for t in curve:
            real_main += real[id(t)]
    rows = []
    for th in thresholds:
        cost, comps, touched = 0.0, 0, 0
        for curve in curves:
            c, n = _plain_replay(curve, prices, th, handoff)
            cost += c
            comps += n
            touched += n > 0
        saving = real_main - cost
        rows.append(
            {
                "threshold": th,
                "compactions": comps,
                "sessions_compacted": touched,
                "cost_usd": round(total - saving, 6),
                "saving_usd": round(saving, 6) + 0.0,
                "saving_share": (round(saving / total, 4) if total else 0.0) + 0.0,
            }
        )
    best = max(rows, key=lambda r: r["saving_usd"], default=None)
    return {
        "method": METHOD.replace("H output", f"H={handoff} output"),
        "handoff_tokens": handoff,
        "sessions": len(curves),
        "baseline": {
            "cost_usd": round(total, 6),
            "real_compactions": sum(1 for c in ds.compactions if not c.is_subagent),
        },
        "thresholds": rows,
        "best": best["threshold"] if best and best["saving_usd"] > 0 else None,
    }


def _plain_groups(turns: list[Turn], costs: list, key) -> dict[str, Acc]:
    out: dict[str, Acc] = defaultdict(Acc)
    for t, c in zip(turns, costs, strict=True):
        out[key(t)].add(t, c)
    return out


def _plain_analyze(ds: Dataset, prices, filters: dict | None = None) -> dict:
    """The X-ray report, one turn at a time."""
    turns_all = ds.turns
    costs = [turn_cost(t, prices) for t in turns_all]
    total = Acc()
    for t, c in zip(turns_all, costs, strict=True):
        total.add(t, c)
    grand = total.cost_usd
    by_session: dict[str, list[int]] = defaultdict(list)
    for i, t in enumerate(turns_all):
        by_session[t.session_id].append(i)
    expiries = find_expiries(turns_all, prices)
    sessions, curve_points = [], {}
    for sid, idx in by_session.items():
        turns = [turns_all[i] for i in idx]
        acc = Acc()
        for i in idx:
            acc.add(turns_all[i], costs[i])
        curve = main_curve(turns)
        pid, pname = project_of(ds.session_cwd.get(sid))
        comps = [c for c in ds.compactions if c.session_id == sid and not c.is_subagent]
        mine = [e for e in expiries if e.session_id == sid]
        sessions.append(
            {
                "session_id": sid,
                "agent": turns[0].agent,
                "project": pname,
                "project_id": pid,
                "project_dir": ds.session_dir.get(sid, ""),
                "models": sorted({t.model for t in turns if t.model}),
                **acc.as_dict(),
                "cost_share": _share(acc.cost_usd, grand),
                "first_activity": iso(min(t.ts for t in turns)),
                "last_activity": iso(max(t.ts for t in turns)),
                "start_context": curve[0].context,
                "peak_context": max(t.context for t in curve),
                "main_turns": len(curve),
                "subagent_turns": sum(1 for t in turns if t.is_subagent),
                "compactions": len(comps),
                "cache_expiries": len(mine),
                "unpriced_turns": acc.unpriced_turns,
            }
        )
        curve_points[sid] = {
            "points": [[round(t.ts, 3), t.context] for t in curve],
            "compactions": [[round(c.ts, 3), c.pre_tokens] for c in comps],
            "expiries": [[round(e.ts, 3), e.rewritten] for e in mine if not e.is_subagent],
        }
    sessions.sort(key=lambda s: (-s["cost_usd"], s["session_id"]))
    project = {s["session_id"]: s["project"] for s in sessions}
    by_day = _rows(_plain_groups(turns_all, costs, lambda t: day_of(t.ts)), "day", grand)
    by_day.sort(key=lambda r: r["day"])
    unpriced: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    comp_runs = Acc()
    for t, c in zip(turns_all, costs, strict=True):
        if c is None and t.total > 0:
            unpriced[t.model or "(no model)"][0] += 1
            unpriced[t.model or "(no model)"][1] += t.total
        if t.is_subagent and Path(t.file).name.startswith("agent-acompact"):
            comp_runs.add(t, c)
    main_comps = [c for c in ds.compactions if not c.is_subagent]
    pre = [c.pre_tokens for c in main_comps if c.pre_tokens]
    calls = Counter(r.tool for r in ds.tool_results)
    chars: Counter[str] = Counter()
    for r in ds.tool_results:
        chars[r.tool] += r.chars
    whole = sum(chars.values())
    tool_rows = sorted(
        (
            {
                "tool": n,
                "calls": calls[n],
                "chars": chars[n],
                "est_tokens": int(chars[n] / CHARS_PER_TOKEN),
                "share": _share(chars[n], whole),
            }
            for n in calls
        ),
        key=lambda r: (-r["chars"], r["tool"]),
    )
    report = {
        "sessions": sessions,
        "totals": {**total.as_dict(), "sessions": len(sessions), "projects": len(set(project.values()))},
        "by_kind": [
            {
                "kind": k,
                "label": KIND_LABEL[k],
                "tokens": {
                    "cache_read": total.cache_read,
                    "cache_write": total.cache_write,
                    "input": total.input,
                    "output": total.output,
                }[k],
                "cost_usd": round(total.cost[k], 6),
                "cost_share": _share(total.cost[k], grand),
            }
            for k in KINDS
        ],
        "by_project": _rows(_plain_groups(turns_all, costs, lambda t: project[t.session_id]), "project", grand),
        "by_model": _rows(_plain_groups(turns_all, costs, lambda t: t.model or "(no model)"), "model", grand),
        "by_agent": _rows(_plain_groups(turns_all, costs, lambda t: t.agent), "agent", grand),
        "by_day": by_day,
        "start_context_median": int(_median([s["start_context"] for s in sessions])) if sessions else 0,
        "tools": {
            "method": "text size of each tool's output: Claude Code's tool_result, matched to its tool_use by "
            "id; Gemini CLI's functionResponse output and error; Codex CLI's function_call_output and "
            "custom_tool_call_output, matched to its call by call_id; "
            f"tokens ~ chars/{CHARS_PER_TOKEN:g}",
            "rows": tool_rows,
            "est_tokens": int(whole / CHARS_PER_TOKEN),
        },
        "cache_expiries": {
            "count": len(expiries),
            "sessions": len({e.session_id for e in expiries}),
            "extra_cost_usd": round(sum(e.extra_cost for e in expiries), 6),
            "events": [
                {
                    "session_id": e.session_id,
                    "at": iso(e.ts),
                    "gap_minutes": round(e.gap_s / 60, 1),
                    "ttl_minutes": e.ttl_s // 60,
                    "rewritten_tokens": e.rewritten,
                    "extra_cost_usd": round(e.extra_cost, 6),
                }
                for e in expiries
            ],
        },
        "session_size": _size_report(sessions, grand),
        "compactions": {
            "count": len(main_comps),
            "sessions": len({c.session_id for c in main_comps}),
            "auto": sum(c.trigger == "auto" for c in main_comps),
            "manual": sum(c.trigger == "manual" for c in main_comps),
            "median_pre_tokens": int(_median(pre)) if pre else None,
            "compaction_runs_cost_usd": round(comp_runs.cost_usd, 6),
        },
        "unpriced_models": [{"model": m, "turns": n, "tokens": tok} for m, (n, tok) in sorted(unpriced.items())],
        "prices": prices.describe(),
        "included": {
            "files": ds.files,
            "roots": ds.roots,
            "filters": filters or {},
            "skipped_lines": ds.bad_lines,
            "first_activity": min((s["first_activity"] for s in sessions), default=None),
            "last_activity": max((s["last_activity"] for s in sessions), default=None),
        },
        "curves": curve_points,
        "simulation": _plain_simulate(ds, prices, DEFAULT_THRESHOLDS, DEFAULT_HANDOFF),
    }
    report["findings"] = findings(report)
    return report


def _same(ds: Dataset, prices) -> None:
    from cairn.sessions.xray import analyze

    fast = analyze(ds, prices, curves=True)
    plain = _plain_analyze(ds, prices)
    assert list(fast) == list(plain)
    for key in plain:  # one key at a time, so a failure names the part
        assert json.dumps(fast[key]) == json.dumps(plain[key]), key
    without = analyze(ds, prices, curves=False)
    assert without.pop("curves") == {}
    fast.pop("curves")
    assert json.dumps(without) == json.dumps(fast)


def _copy(t: Turn, **changes) -> Turn:
    return Turn(**{f: getattr(t, f) for f in Turn.__slots__} | changes)


@pytest.fixture(scope="module")
def fixtures() -> Dataset:
    return load_transcripts([ROOT])


def _dataset(turns: list[Turn], like: Dataset) -> Dataset:
    return Dataset(
        turns=turns,
        tool_results=list(like.tool_results),
        compactions=list(like.compactions),
        session_cwd=like.session_cwd,
        session_dir=like.session_dir,
        files=like.files,
        bad_lines=like.bad_lines,
        roots=like.roots,
    )


def test_analyze_equals_the_plain_computation_on_the_fixtures(fixtures):
    _same(fixtures, load_prices({}))


def test_analyze_equals_the_plain_computation_on_shuffled_turns_and_edge_cases(fixtures):
    turns = list(fixtures.turns)
    more = [_copy(t, cache_read=t.cache_read + 250_000) for t in turns[::3]]  # past the long-context tier
    more += [
        _copy(turns[0], model="nope-1"),
        _copy(turns[1], model=None),
        _copy(turns[2], model="(no model)"),
        _copy(turns[3], model="nope-1", input=0, output=0, cache_write=0, write_5m=0, write_1h=0, cache_read=0),
    ]  # unpriced, without a name, named "(no model)", zero tokens
    more += [_copy(t, session_id="only-subagents", is_subagent=True, sidechain=True) for t in turns[5:12]]
    more += [_copy(t, session_id="backwards", ts=1e9 - i * 3600.0) for i, t in enumerate(turns[20:40])]
    out = turns + more
    for seed in (7, 11):
        random.Random(seed).shuffle(out)
        ds = _dataset(out, fixtures)
        ds.tool_results.append(ToolResult("backwards", 1e9, "Bash", 12))
        ds.compactions.append(Compaction("backwards", 1e9 - 1800, "manual", 90_000, False))
        _same(ds, load_prices({}))


def test_analyze_equals_the_plain_computation_with_overridden_prices(fixtures):
    prices = load_prices(
        {
            "gpt-5.3-codex": {"input": 0.0, "output": 0.0, "cache_read": 0.0},  # every rate zero
            "claude-opus-4-6": {"input": 7.0, "output": 30.0, "input_above_200k": 9.0, "output_above_200k": 40.0},
        }
    )  # a tier added
    turns = list(fixtures.turns) + [_copy(t, cache_read=t.cache_read + 300_000) for t in fixtures.turns[::4]]
    random.Random(3).shuffle(turns)
    _same(_dataset(turns, fixtures), prices)


def test_one_codex_tree_session_each_file_in_order(tmp_path, fixtures):
    """The Codex tree's shape: every session one run of positions, in time order, no cache writes."""
    codex = load_transcripts([ROOT / "codex"])
    assert codex.turns and not any(t.cache_write for t in codex.turns)
    _same(codex, load_prices({}))


def test_simulate_on_prepared_curves_equals_the_plain_replay(fixtures):
    prices = load_prices({})
    turns = list(fixtures.turns) + [_copy(t, cache_read=t.cache_read + 220_000) for t in fixtures.turns[::5]]
    random.Random(5).shuffle(turns)
    ds = _dataset(turns, fixtures)
    for thresholds in ([20_000, 50_000, 100_000], [1_000, 150_000, 250_000, 10_000_000]):
        for handoff in (500, DEFAULT_HANDOFF, 60_000):
            assert json.dumps(simulate(ds, prices, thresholds, handoff)) == json.dumps(
                _plain_simulate(ds, prices, thresholds, handoff)
            )


def _values(n: int, seed: int) -> list[float]:
    rnd = random.Random(seed)
    return [rnd.random() * 10 ** rnd.randint(-8, 8) for _ in range(n)]


@pytest.mark.parametrize("values", [[], [0.1], [0.1, 0.2, 0.3], [1e16, 1.0, -1e16], [0.1] * 1000, _values(5000, 1)])
def test_fsum_adds_left_to_right(values):
    for start in (0.0, 0.5):
        plain = start
        for v in values:
            plain += v
        assert fsum(values, start) == plain


def _shuffled(fixtures: Dataset, seed: int) -> Dataset:
    turns = list(fixtures.turns) + [_copy(t, cache_read=t.cache_read + 220_000) for t in fixtures.turns[::5]]
    turns += [_copy(t, session_id="only-subagents", is_subagent=True) for t in fixtures.turns[5:12]]
    random.Random(seed).shuffle(turns)
    return _dataset(turns, fixtures)


@pytest.mark.parametrize("threshold", [1_000, 20_000, 50_000, 100_000, 150_000, 250_000, 10_000_000])
def test_the_curves_analyze_prepares_replay_to_the_plain_floats(fixtures, monkeypatch, threshold):
    """Unrounded: each session's curve as analyze builds it (positions, contexts, real costs) and
    its replay, against main_curve and every turn priced by cost_total."""
    import cairn.sessions.simulate as sim_module
    from cairn.sessions.simulate import replay
    from cairn.sessions.xray import analyze

    prices = load_prices({})
    ds = _shuffled(fixtures, 13)
    seen = {}
    real_simulate = sim_module.simulate

    def capture(*args, **kwargs):
        seen.update(kwargs)
        return real_simulate(*args, **kwargs)

    monkeypatch.setattr(sim_module, "simulate", capture)
    analyze(ds, prices, curves=False)
    by_session: dict[str, list[Turn]] = defaultdict(list)
    for t in ds.turns:
        by_session[t.session_id].append(t)
    assert len(seen["prepared"]) == len(by_session)
    total = 0.0
    for t in ds.turns:
        total += c.total if (c := turn_cost(t, prices)) else 0.0
    assert seen["total"] == total
    compacted = 0
    for prep, turns in zip(seen["prepared"], by_session.values(), strict=True):
        curve = main_curve(turns)
        assert [id(t) for t in prep.turns] == [id(t) for t in curve]
        assert prep.contexts == [t.context for t in curve] and prep.peak == max(t.context for t in curve)
        assert prep.reals == [(c.total if (c := turn_cost(t, prices)) else 0.0) for t in curve]
        assert prep.one_hour == any(t.write_1h for t in curve)
        plain = _plain_replay(curve, prices, threshold, DEFAULT_HANDOFF)
        fast = replay(curve, prices, threshold, DEFAULT_HANDOFF, prep)
        assert (fast.cost, fast.compactions) == plain  # the same float, not only once rounded
        every = replay(curve, prices, threshold, DEFAULT_HANDOFF)
        assert (every.cost, every.compactions) == plain
        compacted += plain[1] > 0
    if 20_000 <= threshold <= 250_000:
        assert compacted  # the replay past a compaction is exercised


@pytest.mark.parametrize("rate", [1.75, 0.0, -0.0, float("inf")])
def test_a_column_of_zeros_is_priced_as_each_request_would_be(rate):
    """`parts_columns` makes a zero column once (Codex and Gemini turns write no cache): the float
    each request gives, even for the rates a config may hold (zero, negative zero, infinity)."""
    from cairn.sessions.prices import ModelPrice

    rates = dict.fromkeys(("input", "output", "cache_write_5m", "cache_write_1h", "cache_read"), rate)
    p = ModelPrice("m", rates)
    for columns in ([[0] * 3] * 5, [[0, 0, 0], [5, 0, 7], [0] * 3, [0] * 3, [9, 0, 0]], [[]] * 5):
        fast = p.parts_columns(*columns)
        plain = [p.parts(*request) for request in zip(*columns, strict=True)]
        assert repr(fast) == repr(tuple(list(c) for c in zip(*plain, strict=True)) if plain else ([], [], [], []))
    assert p.flat_rates() == (rate,) * 5 and ModelPrice("t", rates, rates).flat_rates() is None


def test_day_numbers_by_session_equal_turn_by_turn():
    """A session within one day gets that day at every position; one across midnight, before 1970
    or past 2**53 seconds is computed turn by turn."""
    from cairn.sessions.xray import _day_numbers, _one_day

    ts = [
        86_399.5,
        86_399.0,
        86_400.0,
        1_700_000_000.25,
        1_700_000_001.0,
        -0.5,
        -86_400.0,
        1e17,
        2.0**53,
        5.0,
        1_700_000_002.0,
    ]
    positions = [range(0, 2), range(1, 3), [3, 4, 10], [5, 6], [7, 8], [9]]
    days = [_one_day(min(ts[i] for i in p), max(ts[i] for i in p)) for p in positions]
    assert days == [0, None, 19675, None, None, 0]
    out = _day_numbers(days, positions, ts)
    for p in positions:
        for i in p:
            assert out[i] == int(ts[i] // 86400)
    rnd = random.Random(4)
    for _ in range(2000):
        a = rnd.uniform(0, 4e9)
        b = a + rnd.uniform(0, 200_000)
        day = _one_day(a, b)
        assert day is None or all(int(x // 86400) == day for x in (a, b, (a + b) / 2, rnd.uniform(a, b)))
