"""Files in folders of test inputs are indexed by their text and declaration lines, not parsed."""

from __future__ import annotations

from cairn.codemap import extract

MODULE = 'module "network" {\n  source = "./modules/network"\n  cidr   = var.cidr\n}\n'
GO = 'package cart\n\nimport "strings"\n\nfunc ApplyCoupon(code string) string {\n\treturn strings.TrimSpace(code)\n}\n'


def _stored(tmp_path, path: str, text: str) -> extract.FileRecord:
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text(text)
    return extract.stored_file(str(tmp_path), path, 0, 0)


def test_a_fixture_is_not_parsed_the_same_file_elsewhere_is(tmp_path) -> None:
    code = _stored(tmp_path, "infra/main.tf", MODULE)
    fixture = _stored(tmp_path, "internal/configs/testdata/basic/main.tf", MODULE)
    assert code.rows is not None and fixture.rows is not None
    assert [r[0] for r in code.rows.symbols] == ["network"] and code.rows.imports  # parsed: its module and source
    assert fixture.rows.symbols == [] and fixture.rows.imports == [] and fixture.rows.refs == []
    assert fixture.rows.parse_error is None  # not a failure: a choice
    assert "network" in fixture.body and fixture.lang == "hcl" and fixture.hash == code.hash


def test_program_fixtures_keep_their_declaration_lines(tmp_path) -> None:
    rec = _stored(tmp_path, "src/__fixtures__/cart.go", GO)
    assert rec.rows is not None and rec.rows.imports == [] and rec.rows.refs == []
    assert ("ApplyCoupon", "function") in [r[:2] for r in rec.rows.symbols]  # textdefs.py
    assert "applycoupon" in rec.fts_names


def test_which_folders_hold_fixtures() -> None:
    for path in ("testdata/a.tf", "pkg/x/testdata/b.go", "test/fixtures/c.rb", "src/__snapshots__/d.ts"):
        assert extract.is_fixture(path), path
    for path in ("src/testdata.go", "internal/testing/e.go", "tests/test_cart.py", "mytestdata/f.tf"):
        assert not extract.is_fixture(path), path
