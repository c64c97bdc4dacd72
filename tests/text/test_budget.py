"""The token estimate against real counts of a Claude tokenizer (recorded by bench/token_estimate.py)."""

from __future__ import annotations

import json
from pathlib import Path

from cairn.text.budget import estimate_tokens, line_cost, take_within

SAMPLES = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "tokens" / "samples.json").read_text())


def test_estimate_is_close_and_on_the_high_side_of_the_real_count():
    total_real = total_est = 0
    for s in SAMPLES["samples"]:
        est = estimate_tokens(s["text"])
        assert 0.95 * s["tokens"] <= est <= 1.4 * s["tokens"], (s["name"], est, s["tokens"])
        total_real += s["tokens"]
        total_est += est
    assert total_real < total_est < 1.3 * total_real


def test_empty_and_take_within():
    assert estimate_tokens("") == 0 and estimate_tokens("x") >= 1
    lines = ["def f(x):", "    return x + 1", "print(f(2))"]
    assert take_within(lines, line_cost, 1000) == (lines, sum(map(line_cost, lines)))
    assert take_within(lines, line_cost, None)[0] == lines
    first = line_cost("def f(x):")
    assert take_within(lines, line_cost, first + 1) == (["def f(x):"], first)


def test_take_within_stops_at_the_first_misfit_or_skips_it():
    """Ranked answers stop (a worse item never replaces a better one); `skip` fills what is left,
    after the tokens already `used`; items past the stop are never costed."""
    costs = {"a": 3, "big": 10, "b": 2, "c": 4}
    seen: list[str] = []

    def cost(item: str) -> int:
        seen.append(item)
        return costs[item]

    assert take_within(iter(costs), cost, 9) == (["a"], 3)
    assert seen == ["a", "big"]
    assert take_within(costs, costs.__getitem__, 9, skip=True) == (["a", "b", "c"], 9)
    assert take_within(costs, costs.__getitem__, 9, used=5, skip=True) == (["a"], 8)
    assert take_within(costs, costs.__getitem__, 0) == ([], 0)
