"""A broken grammar, a parser error, a parse that never ends or a parser that kills its process
costs the structure of the files concerned, never the run: they are indexed as text and counted."""

from __future__ import annotations

import os

import pytest

from cairn.cli.index_cmd import summary_line
from cairn.codemap import extract, languages, parse, workers
from cairn.codemap.indexer import index_project, open_index
from cairn.project import project_for_root
from helpers import make_git_repo

FILES = {
    "lib/plug/conn.ex": "defmodule Plug.Conn do\n  def halt(conn), do: conn\nend\n",
    "lib/plug/router.ex": "defmodule Plug.Router do\n  alias Plug.Conn\n  def match(c), do: Conn.halt(c)\nend\n",
    "app.py": "def main():\n    return 1\n",
}


def _rows(project, sql: str):
    con = open_index(project)
    try:
        return [tuple(r) for r in con.execute(sql)]
    finally:
        con.close()


def test_a_grammar_that_fails_to_load_falls_back_to_text(tmp_path, monkeypatch) -> None:
    def broken(lang):
        if lang == "elixir":
            raise ImportError("tree_sitter_elixir: undefined symbol (built for another ABI)")
        return real(lang)

    real = languages._load_language
    monkeypatch.setattr(languages, "_load_language", broken)
    monkeypatch.setattr(languages, "_BROKEN", {})
    languages.get_parser.cache_clear()
    root = make_git_repo(tmp_path / "r", FILES)
    project = project_for_root(root)
    try:
        stats = index_project(project, workers=1)
    finally:
        languages.get_parser.cache_clear()
    assert stats.parse_errors == 2 and stats.parse_failures == {"elixir": 2}
    assert "2 indexed as text after a parser failure (elixir 2)" in summary_line(stats)
    assert stats.as_dict()["parse_failures"] == {"elixir": 2}  # what `cairn index --json` prints
    errors = dict(_rows(project, "SELECT path, parse_error FROM files WHERE parse_error IS NOT NULL"))
    assert set(errors) == {"lib/plug/conn.ex", "lib/plug/router.ex"}
    assert "grammar for elixir unavailable" in errors["lib/plug/conn.ex"]
    # still searchable as text, and the other languages are untouched
    hits = _rows(
        project,
        "SELECT f.path FROM files_fts JOIN files f ON f.id = files_fts.rowid "
        "WHERE files_fts MATCH 'halt' ORDER BY f.path",
    )
    assert [h[0] for h in hits] == ["lib/plug/conn.ex", "lib/plug/router.ex"]
    assert _rows(project, "SELECT name FROM symbols WHERE file_id = (SELECT id FROM files WHERE path='app.py')") == [
        ("main",)
    ]


def test_a_parse_past_the_deadline_is_text(monkeypatch) -> None:
    monkeypatch.setattr(parse, "PARSE_TIMEOUT_S", 0.0)
    parsed = parse.parse_source("python", b"def f():\n    return 1\n" * 2000, "slow.py")
    assert parsed.defs == [] and parsed.error is not None and "TimeoutError" in parsed.error
    monkeypatch.setattr(parse, "PARSE_TIMEOUT_S", 10.0)
    assert [d.name for d in parse.parse_source("python", b"def f():\n    return 1\n").defs] == ["f"]  # parser reusable


@pytest.mark.skipif(not hasattr(os, "fork"), reason="workers inherit the patched parser through fork")
def test_a_parser_that_kills_its_process_costs_one_file(tmp_path, monkeypatch) -> None:
    files = {f"pkg/m{i}.py": f"def f{i}():\n    return {i}\n" for i in range(40)}
    files["pkg/poison.py"] = "def poison():\n    pass\n"
    real = parse.parse_source

    def deadly(lang, source, path=""):
        if path.endswith("poison.py"):
            os._exit(139)  # what a segfault in a grammar looks like from the pool
        return real(lang, source, path)

    monkeypatch.setattr(parse, "parse_source", deadly)
    monkeypatch.setattr(workers, "POOL_MIN_FILES", 1)
    root = make_git_repo(tmp_path / "r", files)
    project = project_for_root(root)
    stats = index_project(project, workers=2)
    assert stats.files == 41 and stats.parse_errors == 1
    errors = _rows(project, "SELECT path, parse_error FROM files WHERE parse_error IS NOT NULL")
    assert errors == [("pkg/poison.py", workers.CRASHED)]
    assert len(_rows(project, "SELECT 1 FROM symbols WHERE name LIKE 'f%'")) == 40


def test_extract_file_can_skip_the_parser() -> None:
    rec = extract.extract_file(os.path.dirname(__file__), os.path.basename(__file__), 0, 0, parse_error="x")
    assert rec.parsed is not None and rec.parsed.error == "x" and rec.body
    # without its parser the file is read by its declaration lines (codemap/textdefs.py), still counted as an error
    assert "test_extract_file_can_skip_the_parser" in [d.name for d in rec.parsed.defs]
