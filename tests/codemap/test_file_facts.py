"""Counts of the file list kept in meta under its version (codemap/file_facts.py): what a search
reads instead of counting every file, equal to a count at every step."""

from __future__ import annotations

from contextlib import closing

from cairn.codemap.file_facts import COUNT_SQL, kind_counts
from cairn.codemap.index_db import open_index
from cairn.codemap.index_meta import IndexMeta
from cairn.codemap.indexer import index_project
from cairn.project import resolve_project
from helpers import make_git_repo

FILES = {
    "src/app.py": "def main():\n    return 1\n",
    "src/util.ts": "export const x = 1;\n",
    "README.md": "# App\n\nWhat it does.\n",
}


def _counted(con) -> list:
    return sorted((r[0], r[1], r[2]) for r in con.execute(COUNT_SQL))


def _state(project) -> tuple[list, list, dict | None]:
    with closing(open_index(project)) as con:
        return sorted(kind_counts(con)), _counted(con), IndexMeta.load(con).kind_counts


def test_saved_counts_follow_the_file_list(tmp_path, cairn_home):
    root = make_git_repo(tmp_path / "app", FILES)
    project = resolve_project(root)
    index_project(project)
    read, counted, saved = _state(project)
    assert saved and read == counted
    (root / "src" / "app.py").write_text("def main():\n    return 2\n")  # a body edit: the list holds
    index_project(project)
    assert _state(project)[2] == saved
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("# Guide\n")  # a new file, a new language count
    (root / "src" / "util.ts").unlink()
    index_project(project)
    read, counted, saved2 = _state(project)
    assert saved2 != saved and read == counted
    assert not any(lang == "typescript" for _, lang, _ in read)  # the removed file's language is gone


def test_counts_without_a_saved_record_or_with_a_stale_one(tmp_path, cairn_home):
    root = make_git_repo(tmp_path / "app", FILES)
    project = resolve_project(root)
    index_project(project)
    with closing(open_index(project)) as con:
        con.execute(
            'UPDATE meta SET value = \'{"stamp": "old:0", "counts": [["code", "python", 99]]}\' '
            "WHERE key = 'kind_counts'"
        )
        assert sorted(kind_counts(con)) == _counted(con)  # another version's record is not read
        con.execute("DELETE FROM meta WHERE key = 'kind_counts'")
        assert sorted(kind_counts(con)) == _counted(con)
        con.execute("INSERT INTO meta(key, value) VALUES('kind_counts', 'not json')")
        assert sorted(kind_counts(con)) == _counted(con)
        con.commit()


def test_the_hub_query_reads_the_hub_index(tmp_path, cairn_home):
    root = make_git_repo(tmp_path / "app", FILES)
    project = resolve_project(root)
    index_project(project)
    with closing(open_index(project)) as con:
        plan = " ".join(str(r[-1]) for r in con.execute("EXPLAIN QUERY PLAN SELECT id FROM files WHERE is_hub = 1"))
    assert "files_hub" in plan
