"""Every regex on untrusted text is linear: the inputs that made redaction and query analysis quadratic.

Bounds are generous (a shared 2-core machine); the old code took 28 s on the PEM headers and
25-87 s on the 20 KB word, so a regression shows as a timeout, not as a close call. The timed
tests are `perf` tests (`pytest -m perf`); the default run checks the same inputs' results.
"""

from __future__ import annotations

import time

import pytest

from cairn.redact import redact

ADVERSARIAL = ("key=" * 50_000, "password " * 25_000, "token: " * 30_000, "a1" * 100_000)
_TOKEN = "x1y2z3w4v5u6t7s8r9q0p1o2"
# records.py and the webhook layout: every line a label, a command and its output, a CSV header, a table row
NAMED_ELSEWHERE = (
    "password:\n" * 25_000,
    ("$ echo $TOKEN\n" + _TOKEN + "\n") * 5_000,
    "token " * 40_000 + "\nabc123def\n",
    "user,password\n" * 20_000,
    "user,password\n" + "alice,b1c2d3e4\n" * 20_000,
    ("| token | " + _TOKEN + " |\n") * 5_000,
    "https://x.com/hooks/" + "a1-" * 80_000,
    "https://x.com/hooks/a1b2c3 " * 10_000,
)
LONG_WORDS = ("a" * 20_000, "a-" * 10_000, "aB" * 10_000)


def _timed(fn, *args) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


PEM_HEADERS = "-----BEGIN RSA PRIVATE KEY-----\n" * 8000  # 256 KB


def _analyze(word: str) -> None:
    import sqlite3

    from cairn.search.query import analyze

    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT)")
    con.execute("CREATE VIRTUAL TABLE files_fts USING fts5(path, names, body)")
    try:
        analyze(con, f"why does {word} fail", [])
    except sqlite3.Error:
        pass  # this minimal index may lack a table the term statistics read; the regex work is done


def test_many_pem_headers_without_end_are_redacted():
    assert "BEGIN RSA" not in redact(PEM_HEADERS)


def test_adversarial_inputs_are_handled():
    for text in ADVERSARIAL + NAMED_ELSEWHERE:
        assert isinstance(redact(text), str)
    for word in LONG_WORDS:
        _analyze(word)


@pytest.mark.perf
def test_many_pem_headers_without_end_are_linear():
    redact("warm up")
    assert _timed(redact, PEM_HEADERS) < 3.0


@pytest.mark.perf
def test_adversarial_name_runs_are_linear():
    for text in ADVERSARIAL:
        assert _timed(redact, text) < 5.0, text[:20]


@pytest.mark.perf
def test_names_on_another_line_or_field_are_linear():
    for text in NAMED_ELSEWHERE:
        small, large = _timed(redact, text[: len(text) // 4]), _timed(redact, text)
        assert large < 5.0 and large < 8 * small + 0.5, (text[:20], small, large)


@pytest.mark.perf
def test_a_long_unbroken_word_does_not_make_query_analysis_quadratic():
    for word in LONG_WORDS:
        assert _timed(_analyze, word) < 3.0


def test_query_identifier_tokens_are_unchanged_for_normal_requests():
    from cairn.search.query import _ident_matches

    got = [m.group(0) for m in _ident_matches("where is applyCoupon in src/cart/cupom.ts and apply_coupon")]
    assert got == ["applyCoupon", "src/cart/cupom.ts", "apply_coupon"]
