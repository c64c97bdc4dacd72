"""A parser process hands the writer table rows, not the parse's objects: the single writer only writes."""

from __future__ import annotations

import pickle

from cairn.codemap import extract

SOURCE = (
    "from os.path import join, split\n"
    "\n"
    "class CouponBook:\n"
    "    def applyCoupon(self, code):\n"
    "        return join(code, split(code)[0])\n"
)


def test_a_batch_comes_back_as_rows(tmp_path) -> None:
    (tmp_path / "cart.py").write_text(SOURCE)
    (rec,) = extract.extract_many([(str(tmp_path), "cart.py", len(SOURCE), 0)])
    rows = rec.rows
    assert rows is not None and rows.parse_error is None
    assert rec.parsed is None and rec.chunks == []  # what the rows replace does not travel
    assert ("CouponBook", "class", 3, 5, "class CouponBook", None, 1, "couponbook") in rows.symbols
    assert [r[:2] + r[6:] for r in rows.symbols if r[0] == "applyCoupon"] == [
        ("applyCoupon", "method", 0, "applycoupon")
    ]
    assert rows.imports == [("os.path", "module", 1, '["join", "split"]')]
    assert dict(rows.refs)["join"] == 1
    assert rows.chunks == [("def", "CouponBook", 3, 5, "class CouponBook")]
    assert b"cairn.codemap.model" not in pickle.dumps([rec])  # plain tuples: a third of the pickling


def test_a_file_the_parser_crashed_on_keeps_its_reason(tmp_path) -> None:
    (tmp_path / "cart.py").write_text(SOURCE)
    rec = extract.stored_file(str(tmp_path), "cart.py", len(SOURCE), 0, parse_error="parser crashed its process")
    assert rec.rows is not None and rec.rows.parse_error == "parser crashed its process"
    assert "CouponBook" in [r[0] for r in rec.rows.symbols]  # declaration lines still name things
