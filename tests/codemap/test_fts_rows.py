"""The contentless text index: rows taken out with their stored copy leave it as a fresh build would."""

from __future__ import annotations

import random
import sqlite3
import sys
import zlib

import pytest

from cairn.codemap import fts_rows
from cairn.codemap.indexer import index_project, open_index
from cairn.codemap.schema import FTS_TOKENIZER, MIGRATIONS
from cairn.project import project_for_root
from cairn.search.fts_carry import fts_totals
from cairn.store.db import migrate
from helpers import make_git_repo

WORDS = (
    "ledger apply coupon retry http timeout parseConfig load_user cache schema plan state lock "
    "router middleware effect scheduler décodé naïve 東京 token session build"
).split()


def _text(rng: random.Random) -> str:
    lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12))) for _ in range(rng.randint(1, 15))]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "values",
    [
        ("src/a.py", "load user", "def load_user(): ..."),
        ("", "", ""),
        ("dir,with\ncomma/и.md", "東京 naïve", "body\x00with nul\n" * 50),
        ("a.txt", "", "lone surrogate \udc80 kept"),
    ],
)
def test_pack_gives_back_the_very_values(values):
    assert fts_rows.unpack(fts_rows.pack(*values)) == values


def test_pack_writes_with_isal_and_either_compressor_is_read_back(monkeypatch):
    from isal import isal_zlib

    values = ("src/a.go", "load user loaduser", "func loadUser() {}\n" * 400)
    assert fts_rows.compressor() is isal_zlib.compress  # installed with cairn: the faster deflate
    fast = fts_rows.pack(*values)
    monkeypatch.setattr(fts_rows, "_compress", None)
    monkeypatch.setitem(sys.modules, "isal.isal_zlib", None)  # a platform without its wheel
    assert fts_rows.compressor() is zlib.compress
    slow = fts_rows.pack(*values)
    assert fast != slow  # two encoders, one format: the stdlib reads both
    assert fts_rows.unpack(fast) == fts_rows.unpack(slow) == values


def _reference(con: sqlite3.Connection) -> None:
    """The same rows in a table with content, built in one go from the stored copies."""
    con.execute(f"CREATE VIRTUAL TABLE temp.ref USING fts5(path, names, body, tokenize='{FTS_TOKENIZER}')")
    for file_id, z in con.execute("SELECT file_id, z FROM fts_text").fetchall():
        con.execute("INSERT INTO temp.ref(rowid, path, names, body) VALUES(?,?,?,?)", (file_id, *fts_rows.unpack(z)))


def _answers(con: sqlite3.Connection, table: str, term: str) -> list[tuple[int, float]]:
    return con.execute(
        f"SELECT rowid, bm25({table}, 3.0, 2.0, 1.0) FROM {table} WHERE {table} MATCH ? ORDER BY rowid", (f'"{term}"',)
    ).fetchall()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_edits_and_deletes_leave_the_index_a_fresh_build_would_make(tmp_path, seed):
    rng = random.Random(seed)
    files = {f"pkg/m{i}.py": _text(rng) for i in range(30)}
    project = project_for_root(make_git_repo(tmp_path / "r", files))
    root = project.root
    index_project(project, workers=1)
    names = sorted(files)
    for step in range(6):
        for name in rng.sample(names, 6):
            (root / name).write_text(_text(rng), encoding="utf-8")
        for name in rng.sample(names, 2):
            (root / name).unlink()
            names.remove(name)
        for k in range(3):
            name = f"pkg/new_{step}_{k}.md"
            (root / name).write_text("# " + _text(rng), encoding="utf-8")
            names.append(name)
        victim = rng.choice(names)
        (root / victim).write_bytes(b"\x00\x01 binary now")  # now skipped: its row goes
        names.remove(victim)
        index_project(project, workers=1)
    con = open_index(project)
    try:
        # FTS5's integrity-check cannot compare a contentless table with its text (it passes on rows
        # taken out with the wrong values): the token instances and answers compared below are the check.
        con.execute("INSERT INTO files_fts(files_fts) VALUES('integrity-check')")
        ids = {r[0] for r in con.execute("SELECT id FROM files")}
        assert {r[0] for r in con.execute("SELECT file_id FROM fts_text")} == ids
        assert {r[0] for r in con.execute("SELECT id FROM files_fts_docsize")} == ids
        for file_id, path in con.execute("SELECT id, path FROM files"):
            assert path in names
            body = fts_rows.stored_text(con, file_id)[2]
            assert body.startswith((root / path).read_text(encoding="utf-8").rstrip("\n")[:20])
        _reference(con)
        assert (
            con.execute("SELECT * FROM files_fts_docsize ORDER BY id").fetchall()
            == con.execute("SELECT * FROM temp.ref_docsize ORDER BY id").fetchall()
        )
        con.execute("CREATE VIRTUAL TABLE temp.got_terms USING fts5vocab(main, files_fts, 'instance')")
        con.execute("CREATE VIRTUAL TABLE temp.want_terms USING fts5vocab(temp, ref, 'instance')")
        every = "SELECT term, doc, col, offset FROM temp.{} ORDER BY 1, 2, 3, 4"
        assert con.execute(every.format("got_terms")).fetchall() == con.execute(every.format("want_terms")).fetchall()
        terms = [r[0] for r in con.execute("SELECT DISTINCT term FROM temp.want_terms")]
        assert len(terms) > 20
        for term in terms:
            got, want = _answers(con, "files_fts", term), _answers(con, "ref", term)
            assert [r for r, _ in got] == [r for r, _ in want], term
            assert all(abs(a - b) < 1e-9 for (_, a), (_, b) in zip(got, want, strict=True)), term
    finally:
        con.close()


@pytest.mark.parametrize(
    "damage",
    [
        "DELETE FROM fts_text WHERE file_id = {id}",  # no copy
        "UPDATE fts_text SET z = 'not a blob' WHERE file_id = {id}",  # a copy that is not one
        "UPDATE fts_text SET z = x'00ff' WHERE file_id = {id}",  # not zlib
        "the row taken out of FTS5, its copy left",
    ],
)
def test_a_row_without_its_copy_makes_the_index_rebuild(tmp_path, damage):
    project = project_for_root(
        make_git_repo(tmp_path / "r", {"a.py": "def alpha():\n    pass\n", "b.py": "def beta():\n    pass\n"})
    )
    index_project(project, workers=1)
    con = open_index(project)
    with con:
        file_id = con.execute("SELECT id FROM files WHERE path = 'a.py'").fetchone()[0]
        if damage.startswith("the row"):  # taking it out again would lower FTS5's totals a second time
            con.execute(
                "INSERT INTO files_fts(files_fts, rowid, path, names, body) VALUES('delete', ?, ?, ?, ?)",
                (file_id, *fts_rows.stored_text(con, file_id)),
            )
        else:
            con.execute(damage.format(id=file_id))
    con.close()
    (project.root / "a.py").write_text("def gamma():\n    pass\n")
    index_project(project, workers=1)  # taking a.py's old row out fails: the index is built again
    con = open_index(project)
    try:
        hits = {
            r[0]
            for r in con.execute(
                "SELECT f.path FROM files_fts JOIN files f ON f.id = files_fts.rowid "
                "WHERE files_fts MATCH 'gamma OR beta OR alpha'"
            )
        }
        assert hits == {"a.py", "b.py"}
        assert con.execute("SELECT COUNT(*) FROM fts_text").fetchone()[0] == 2
        assert fts_totals(con, "files_fts")[0] == 2  # FTS5's own row count, which BM25 reads, is right
        con.execute("INSERT INTO files_fts(files_fts) VALUES('integrity-check')")
    finally:
        con.close()


def test_a_second_row_under_one_id_is_refused():
    con = sqlite3.connect(":memory:")
    migrate(con, MIGRATIONS)
    fts_rows.insert(con, 7, "a.py", "alpha", "def alpha")
    with pytest.raises(sqlite3.IntegrityError):  # FTS5 alone would take it: the copy's key refuses it
        fts_rows.insert(con, 7, "b.py", "beta", "def beta")
