"""The token estimate against real counts of a Claude tokenizer (recorded by bench/token_estimate.py)."""

from __future__ import annotations

import json
from pathlib import Path

from cairn.text.budget import estimate_tokens, fit_lines

SAMPLES = json.loads((Path(__file__).resolve().parents[1] / "fixtures" / "tokens" / "samples.json").read_text())


def test_estimate_is_close_and_on_the_high_side_of_the_real_count():
    total_real = total_est = 0
    for s in SAMPLES["samples"]:
        est = estimate_tokens(s["text"])
        assert 0.95 * s["tokens"] <= est <= 1.4 * s["tokens"], (s["name"], est, s["tokens"])
        total_real += s["tokens"]
        total_est += est
    assert total_real < total_est < 1.3 * total_real


def test_empty_and_fit_lines():
    assert estimate_tokens("") == 0 and estimate_tokens("x") >= 1
    lines = ["def f(x):", "    return x + 1", "print(f(2))"]
    assert fit_lines(lines, 1000) == lines
    kept = fit_lines(lines, estimate_tokens("def f(x):\n") + 1)
    assert kept == ["def f(x):"]
