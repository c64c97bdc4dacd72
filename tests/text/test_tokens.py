"""Code-aware tokenization and hostile FTS input."""

from __future__ import annotations

import sqlite3

import pytest

from cairn.text.tokens import (
    expand_identifiers,
    fts_or_query,
    name_key,
    path_text,
    query_terms,
    split_identifier,
)


@pytest.mark.parametrize(
    "token,parts",
    [
        ("applyCoupon", ["apply", "coupon"]),
        ("ApplyCoupon", ["apply", "coupon"]),
        ("apply_coupon", ["apply", "coupon"]),
        ("apply-coupon", ["apply", "coupon"]),
        ("HTTPServerError", ["http", "server", "error"]),
        ("parseV2", ["parse", "v", "2"]),
        ("src/cart/cupom.ts", ["src", "cart", "cupom", "ts"]),
    ],
)
def test_split_identifier(token, parts):
    assert split_identifier(token) == parts


def test_expand_keeps_whole_and_parts():
    out = expand_identifiers("def applyCoupon(cart_items):")
    assert out.startswith("def applyCoupon(cart_items):")
    assert "applycoupon apply coupon" in out and "cartitems cart items" in out


def test_query_terms_fold_accents_and_drop_stopwords():
    terms = query_terms("Why is the Café coupon applied twice in applyCoupon?")
    assert "cafe" in terms and "coupon" in terms and "applycoupon" in terms and "apply" in terms
    assert "the" not in terms and "why" not in terms and "is" not in terms


def test_name_key_and_path_text():
    assert name_key("apply_coupon") == name_key("applyCoupon") == "applycoupon"
    assert path_text("src/cart/applyCoupon.ts") == "src cart applycoupon apply coupon ts"


@pytest.mark.parametrize(
    "hostile",
    [
        "TICKET-123",
        "a-b",
        '"',
        "*",
        "NEAR",
        "NEAR(a b)",
        "x AND OR NOT y",
        "col:val",
        "^start",
        "{a b}",
        "''",
        'a"b',
        "(((",
        "-",
        "\\",
        "🙂 emoji",
        "",
    ],
)
def test_hostile_input_never_breaks_fts(hostile):
    con = sqlite3.connect(":memory:")
    con.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61 remove_diacritics 2')")
    con.execute("INSERT INTO t VALUES ('ticket 123 near the a b col val start')")
    expr = fts_or_query(query_terms(hostile, keep_stopwords=True))
    if expr:
        con.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,)).fetchall()
