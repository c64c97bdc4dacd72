"""The parser pool runs ahead of a slow batch: results are taken in order, but a batch of big files at
the head must not leave the other workers idle (workers.IN_FLIGHT), and what waits stays bounded in
bytes of source (workers.IN_FLIGHT_BYTES)."""

from __future__ import annotations

import time

import pytest

from cairn.codemap import extract, workers


def timed_batch(batch: list) -> list:
    """A stand-in for extract.extract_many (module level: the pool pickles it by name): the batch of
    `slow` sleeps 1.5 s, the others 0.05 s; returns (its first path, when it ended)."""
    time.sleep(1.5 if batch[0][1] == "slow" else 0.05)
    return [(batch[0][1], time.monotonic())]


def _ended_before_the_head(monkeypatch: pytest.MonkeyPatch, size: int) -> int:
    monkeypatch.setattr(extract, "extract_many", timed_batch)
    batches = [[("/nowhere", "slow" if i == 0 else f"f{i}", size, 0)] for i in range(12)]
    out = [rec for recs in workers._run_batches(batches, 2, None, retried=False) for rec in recs]
    assert [p for p, _ in out] == ["slow"] + [f"f{i}" for i in range(1, 12)]  # in order all the same
    head_end = out[0][1]
    return sum(1 for _, end in out[1:] if end < head_end)


def test_the_other_workers_run_ahead_of_a_slow_head_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    # two ahead per worker (before): 4 batches could be done while the head ran; now all 11
    assert _ended_before_the_head(monkeypatch, 10) >= 8


def test_what_waits_is_bounded_in_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(workers, "IN_FLIGHT_BYTES", 25)  # batches of 10 bytes: three wait behind the head
    assert _ended_before_the_head(monkeypatch, 10) <= 3
