"""Seeded fuzzing, CI-sized: hook stdin, transcript lines, notes and configs break no contract.

3,600 cases: the counts are chosen so the four runs take ~20 s of CPU together, ~40 s of wall
time on a 2-core machine loaded by other work (a hook run costs ~20 ms, a config run ~40 ms with
its `memory list`, a note or a transcript line a few ms, plus ~3 s per kind to build and index
the project); bench/fuzz.py runs the same cases at audit size (5,000 per kind). Every failure names its replay
recipe: kind, seed, index (`case(kind, seed, index)` in fuzzgen.py gives the input back).
The seed is fixed so a failure replays; FUZZ_SEED=<n> runs another slice of the space.
"""

from __future__ import annotations

import os

import pytest
from harness import run_all

SEED = int(os.environ.get("FUZZ_SEED", "14"))
COUNTS = {"hook": 400, "transcript": 2000, "note": 1000, "config": 200}


def _report(kind: str, failures: list[tuple[int, str]]) -> str:
    lines = [f"{len(failures)} {kind} cases broke the contract (tests/fuzz/harness.py says what that is):"]
    lines += [
        f"  replay: kind={kind} seed={SEED} index={i} "
        f"(.venv/bin/python bench/fuzz.py --kinds {kind} --count {i + 1} --seed {SEED}): {why}"
        for i, why in failures[:10]
    ]
    return "\n".join(lines)


@pytest.mark.parametrize("kind", list(COUNTS))
def test_fuzzed_inputs_break_no_contract(kind, tmp_path):
    (outcome,) = run_all(tmp_path, {kind: COUNTS[kind]}, SEED)
    assert outcome.cases == COUNTS[kind]
    assert not outcome.failures, _report(kind, outcome.failures)
