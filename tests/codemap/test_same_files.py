"""Identical small files in one index run are analysed once; what their paths decide stays their own."""

from __future__ import annotations

from cairn.codemap import extract

NOTES = "# Release notes\n\n## 1.2.0\n\n- Fixed applyCoupon rounding\n- Added CouponBook.export\n"
CODE = "def applyCoupon(code):\n    return code.strip()\n"


def _spy(monkeypatch) -> list[str]:
    seen: list[str] = []
    real = extract._analyse

    def spy(rec, data, parse_error):
        seen.append(rec.path)
        return real(rec, data, parse_error)

    monkeypatch.setattr(extract, "_analyse", spy)
    return seen


def test_a_copy_takes_the_first_ones_rows_and_keeps_its_own_path(tmp_path, monkeypatch) -> None:
    for path, text in (("docs/notes.md", NOTES), ("CHANGELOG.md", NOTES), ("a/cart.py", CODE), ("b/cart.py", CODE)):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    seen = _spy(monkeypatch)
    paths = ["docs/notes.md", "CHANGELOG.md", "a/cart.py", "b/cart.py"]
    recs = list(extract.stored_files([(str(tmp_path), p, 0, 0) for p in paths]))
    assert seen == ["docs/notes.md", "a/cart.py"]  # each copy after the first is not analysed again
    monkeypatch.undo()
    alone = [extract.stored_file(str(tmp_path), p, 0, 0) for p in paths]
    for rec, one in zip(recs, alone, strict=True):  # the same record as a file analysed on its own
        assert (rec.path, rec.hash, rec.lang, rec.kind, rec.lines, rec.role) == (
            one.path,
            one.hash,
            one.lang,
            one.kind,
            one.lines,
            one.role,
        )
        assert (rec.body, rec.fts_names, rec.fts_path, rec.fts_packed, rec.rows) == (
            one.body,
            one.fts_names,
            one.fts_path,
            one.fts_packed,
            one.rows,
        )
    assert recs[1].role == "log" and recs[0].role != "log"  # the role is the path's: a changelog is a log
    assert recs[2].fts_path != recs[3].fts_path and "applycoupon" in recs[3].fts_names


def test_files_that_differ_are_each_analysed_and_large_copies_once(tmp_path, monkeypatch) -> None:
    big = "x = 1\n" * (extract.SAME_MAX_BYTES // 6 + 1)
    for path, text in (("a.py", CODE), ("b.py", CODE + "\n"), ("c.py", big), ("d.py", big), ("e.py", big + "\n")):
        (tmp_path / path).write_text(text)
    seen = _spy(monkeypatch)
    paths = ("a.py", "b.py", "c.py", "d.py", "e.py")
    recs = list(extract.stored_files([(str(tmp_path), p, (tmp_path / p).stat().st_size, 0) for p in paths]))
    assert seen == ["a.py", "b.py", "c.py", "e.py"]  # d.py is c.py's copy, over 4 KB
    assert recs[3].rows == recs[2].rows and recs[3].body == recs[2].body and recs[3].fts_path != recs[2].fts_path
    seen.clear()
    list(extract.stored_files([(str(tmp_path), "a.py", 0, 0)]))
    assert seen == ["a.py"]  # the memory lasts one call (one run), not the process


def test_large_copies_are_held_by_their_bytes(tmp_path, monkeypatch) -> None:
    big = "x = 1\n" * (extract.SAME_MAX_BYTES // 6 + 1)
    for path, text in (("c.py", big), ("d.py", big + "\n"), ("e.py", big)):
        (tmp_path / path).write_text(text)
    monkeypatch.setattr(extract, "SAME_LARGE_BYTES", len(big) + 2)  # room for one
    (tmp_path / "d.py").write_text(big[:-1] + "y")  # the same size as c.py and e.py, another text
    seen = _spy(monkeypatch)
    list(extract.stored_files([(str(tmp_path), p, (tmp_path / p).stat().st_size, 0) for p in ("c.py", "d.py", "e.py")]))
    assert seen == ["c.py", "d.py", "e.py"]  # c.py was forgotten when d.py came: its copy is analysed again


def test_a_large_file_is_held_only_when_another_has_its_size(tmp_path, monkeypatch) -> None:
    big = "x = 1\n" * (extract.SAME_MAX_BYTES // 6 + 1)
    for path, text in (("c.py", big), ("d.py", big)):
        (tmp_path / path).write_text(text)
    seen = _spy(monkeypatch)
    list(extract.stored_files([(str(tmp_path), "c.py", len(big), 0), (str(tmp_path), "d.py", len(big) + 1, 0)]))
    assert seen == ["c.py", "d.py"]  # the scan saw no two files of one size: nothing large was held


def test_the_memory_is_bounded(tmp_path, monkeypatch) -> None:
    for path, text in (("a.py", CODE), ("b.py", CODE + "\n"), ("c.py", CODE)):
        (tmp_path / path).write_text(text)
    monkeypatch.setattr(extract, "SAME_MAX_FILES", 1)
    seen = _spy(monkeypatch)
    list(extract.stored_files([(str(tmp_path), p, 0, 0) for p in ("a.py", "b.py", "c.py")]))
    assert seen == ["a.py", "b.py", "c.py"]  # a.py was forgotten when b.py came: its copy is analysed again


def test_a_copy_in_a_fixture_folder_is_not_given_the_parse_of_its_twin(tmp_path) -> None:
    """A fixture is not parsed (extract.is_fixture): its copy of source outside the fixtures, met first, must
    not lend it a parse, nor the reverse; either order gives each file the record it has alone."""
    for path in ("src/cart.py", "testdata/cart.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(CODE)
    for order in (["src/cart.py", "testdata/cart.py"], ["testdata/cart.py", "src/cart.py"]):
        recs = {r.path: r for r in extract.stored_files([(str(tmp_path), p, 0, 0) for p in order])}
        for p in order:
            assert recs[p].rows == extract.stored_file(str(tmp_path), p, 0, 0).rows, (order, p)
    assert "applycoupon" in extract.stored_file(str(tmp_path), "src/cart.py", 0, 0).fts_names
