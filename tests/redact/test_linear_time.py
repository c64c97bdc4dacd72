"""Every regex on untrusted text is linear: the inputs that made redaction and query analysis quadratic.

Bounds are generous (a shared 2-core machine); the old code took 28 s on the PEM headers and
25-87 s on the 20 KB word, so a regression shows as a timeout, not as a close call.
"""

from __future__ import annotations

import time

from cairn.redact import redact


def _timed(fn, *args) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def test_many_pem_headers_without_end_are_linear():
    text = "-----BEGIN RSA PRIVATE KEY-----\n" * 8000  # 256 KB
    redact("warm up")
    assert _timed(redact, text) < 3.0
    assert "BEGIN RSA" not in redact(text)


def test_adversarial_name_runs_are_linear():
    for text in ("key=" * 50_000, "password " * 25_000, "token: " * 30_000, "a1" * 100_000):
        assert _timed(redact, text) < 5.0, text[:20]


def test_a_long_unbroken_word_does_not_make_query_analysis_quadratic(tmp_path):
    import sqlite3

    from cairn.search.query import analyze

    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT)")
    con.execute("CREATE VIRTUAL TABLE files_fts USING fts5(path, names, body)")
    for word in ("a" * 20_000, "a-" * 10_000, "aB" * 10_000):
        t = time.perf_counter()
        try:
            analyze(con, f"why does {word} fail", [])
        except sqlite3.Error:
            pass  # this minimal index may lack a table the term statistics read; the regex work is done
        assert time.perf_counter() - t < 3.0


def test_query_identifier_tokens_are_unchanged_for_normal_requests():
    from cairn.search.query import _ident_matches

    got = [m.group(0) for m in _ident_matches("where is applyCoupon in src/cart/cupom.ts and apply_coupon")]
    assert got == ["applyCoupon", "src/cart/cupom.ts", "apply_coupon"]
