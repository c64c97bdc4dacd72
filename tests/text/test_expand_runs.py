"""`expand_identifiers` cuts identifier runs with bytes.translate + split: the same text as the regex walk.

The FTS text of every indexed file is `expand_identifiers(text)`; a different byte would change the
BM25 statistics of an index built before. The reference below is the regex implementation it
replaced (docs/benchmarks.md#cold-index), run beside it on every fixture
file, on texts built to hit the edges (runs led by digits, non-ASCII letters inside words, lone
surrogates, counts past the cap of 20, underscores alone), and on random texts.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest

from cairn.text import tokens
from cairn.text.tokens import _expansion, expand_identifiers

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
_IDENT_RUN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def reference(text: str) -> str:
    counts = Counter(_IDENT_RUN.findall(text))
    extra = []
    for tok, n in counts.items():
        exp = _expansion(tok)
        if exp:
            extra.append(" ".join([exp] * min(n, 20)))
    return text + "\n" + " ".join(extra) if extra else text


EDGES = [
    "",
    "x",
    "_",
    "__",
    "9",
    "9abc",
    "9abc_def 1abc_def abc_def",
    "12ab34cd",
    "9_abc _abc",
    "_9abc",
    "getHTTPResponse2xx applyCoupon apply_coupon APPLY_COUPON",
    "caféBar naïve_thing straße_Name",
    "a\ud800b applyCoupon\udfff_x",
    "x_y " * 25 + "9x_y " * 3,
    "HTTPServer\nXMLHttpRequest\tget_url",
    "tab\tsep_arated\x00null_byte\x7fdel_char",
    "emoji😀_snake 😀camelCase",
    "ÀB_cd Ω_omegaX",
    "1 2 3 4_5 6a_7b 8C_d",
    "sk-ant-api03_abcDEF 0x1F_ff deadBEEF_cafe",
]


def _fixture_texts() -> list[str]:
    out = []
    for p in sorted(FIXTURES.rglob("*")):
        if p.is_file() and p.stat().st_size < 2_000_000:
            out.append(p.read_bytes().decode("utf-8", "replace"))
    return out


@pytest.mark.parametrize("text", EDGES)
def test_edges_as_the_regex_walk(text: str) -> None:
    assert expand_identifiers(text) == reference(text)


def test_every_fixture_file_as_the_regex_walk() -> None:
    texts = _fixture_texts()
    assert len(texts) > 50
    for text in texts + ["\n".join(texts)]:
        assert expand_identifiers(text) == reference(text)


def test_random_texts_as_the_regex_walk() -> None:
    rng = random.Random(7)
    alphabet = "aZ_9 x_Y2\nQé😀.-/" + "abcXYZ_019"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
        assert expand_identifiers(text) == reference(text), repr(text)


def test_a_full_memo_changes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past its cap the memo stops growing; runs not in it are expanded again, to the same text."""
    monkeypatch.setattr(tokens, "_RUN_EXPANSIONS", {})
    monkeypatch.setattr(tokens, "len", lambda _d: 500_000, raising=False)
    text = "applyCoupon 9apply_coupon x_y x_y"
    assert expand_identifiers(text) == reference(text)
    assert tokens._RUN_EXPANSIONS == {}
