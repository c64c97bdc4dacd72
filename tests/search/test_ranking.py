"""Ranking rules on small repositories where the right order is known: definitions first, prose in its
place, names of files, words common to most files, languages without a grammar, the default kind."""

from __future__ import annotations

import json

from cairn.codemap.indexer import index_project, open_index
from cairn.project import resolve_project
from cairn.search.engine import search_code
from helpers import make_git_repo

CONN_USERS = "\n".join(
    f'  test "case {i}" do\n    conn = Conn.put(Conn.new(), :a, {i})\n    assert Conn.get(conn, :a) == {i}\n  end'
    for i in range(12)
)

PLUG = {
    "lib/plug/conn.ex": 'defmodule Plug.Conn do\n  @moduledoc "The connection struct."\n'
    "  defstruct assigns: %{}, halted: false\n\n  def halt(conn), do: %{conn | halted: true}\n"
    "  def put(conn, k, v), do: conn\n  def get(conn, k), do: nil\nend\n",
    "lib/plug/router.ex": "defmodule Plug.Router do\n  alias Plug.Conn\n  def match(%Conn{} = conn, path), do: conn\n"
    "  def dispatch(conn), do: Conn.halt(conn)\nend\n",
    "lib/plug/builder.ex": "defmodule Plug.Builder do\n  def call(conn, plugs), do: Enum.reduce(plugs, conn, & &1.(&2))\nend\n",
    "lib/plug/conn/utils.ex": "defmodule Plug.Conn.Utils do\n  def media_type(binary), do: binary\nend\n",
    "test/plug/conn_test.exs": "defmodule Plug.ConnTest do\n  use ExUnit.Case\n  alias Plug.Conn\n"
    + CONN_USERS
    + "\nend\n",
    "guides/connections.md": "# Connections\n\nA `Conn` holds the request. Use `Conn.halt/1` to stop. " * 6 + "\n",
    "guides/installation.md": "# Installation\n\nHow do I install and configure Plug?\n\nAdd `plug` to your deps "
    "and configure the router in config.exs.\n",
    "CHANGELOG.md": "# Changelog\n\n## v1.2\n\n* Conn: halt is faster. Router: dispatch Conn. Conn Conn.\n",
}


def _index(tmp_path, files, name="repo"):
    root = make_git_repo(tmp_path / name, files)
    project = resolve_project(root)
    index_project(project)
    return project


def _paths(project, q, **kw):
    con = open_index(project)
    try:
        hits, _ = search_code(con, q, root=project.root, **kw)
    finally:
        con.close()
    return [h.path for h in hits]


def test_a_bare_name_ranks_its_defining_file_first_even_without_a_grammar(tmp_path):
    p = _index(tmp_path, PLUG)
    paths = _paths(p, "Conn")
    assert paths[0] == "lib/plug/conn.ex"  # `defmodule Plug.Conn`, ahead of the test that says Conn 40 times
    assert paths.index("lib/plug/conn.ex") < paths.index("test/plug/conn_test.exs")
    assert _paths(p, "Plug.Router")[0] == "lib/plug/router.ex"
    assert _paths(p, "how the Builder composes plugs with call")[0] == "lib/plug/builder.ex"


def test_guides_and_changelogs_come_after_code_for_code_questions_and_first_for_doc_questions(tmp_path):
    p = _index(tmp_path, PLUG)
    code = _paths(p, "how does halt stop the connection")
    assert code[0] == "lib/plug/conn.ex"
    assert code.index("lib/plug/conn.ex") < code.index("guides/connections.md")
    docs = _paths(p, "how do I install and configure plug")
    assert docs[0] == "guides/installation.md"


CSHARP = {
    "Dapper/SqlMapper.cs": "namespace Dapper\n{\n    public static partial class SqlMapper\n    {\n"
    "        public static int Execute(this IDbConnection cnn, string sql) => 0;\n    }\n}\n",
    "Dapper/SqlMapper.CacheInfo.cs": "namespace Dapper\n{\n    public static partial class SqlMapper\n    {\n"
    "        private class CacheInfo { }\n        // SqlMapper cache, SqlMapper.CacheInfo\n"
    "    }\n}\n",
    "Dapper/Mentions.cs": 'namespace Dapper\n{\n    class Mentions\n    {\n        void A() { SqlMapper.Execute(null, ""); '
    'SqlMapper.Execute(null, ""); SqlMapper.Execute(null, ""); }\n    }\n}\n',
}


def test_the_defining_file_named_after_the_symbol_beats_partial_names_and_mentions(tmp_path):
    p = _index(tmp_path, CSHARP)
    paths = _paths(p, "SqlMapper")
    assert paths[:2] == ["Dapper/SqlMapper.cs", "Dapper/SqlMapper.CacheInfo.cs"]


def test_files_named_by_the_request_words_and_words_in_most_files(tmp_path):
    files = {
        f"Source/Core/{n}.swift": f"final class {n} {{\n  func upload() {{ }}\n  let request = 1\n}}\n"
        for n in ("Session", "DataRequest", "DownloadRequest", "Response", "Monitor")
    }
    files["Source/Core/UploadRequest.swift"] = (
        "final class UploadRequest {\n  func upload() { }\n  func uploadStream() { upload(); upload() }\n}\n"
    )
    p = _index(tmp_path, files)
    # `upload` is in every file: FTS5 alone would give it no weight at all; the file named after the words wins
    assert _paths(p, "how upload requests stream to the server")[0] == "Source/Core/UploadRequest.swift"


def test_default_kind_puts_the_decision_first_for_why_questions_and_code_first_otherwise(tmp_path, run_cli):
    files = {
        "src/db/connect.py": 'def connect(url):\n    """Open the Postgres pool."""\n    return url\n',
        "docs/adr/0001-use-postgres-over-mongo.md": "# 1. Use Postgres over Mongo\n\nStatus: accepted\n\n"
        "## Context\n\nWe need transactions.\n\n## Decision\n\nWe pick Postgres over Mongo for transactions.\n",
        "README.md": "# App\n\nUses Postgres.\n",
    }
    root = make_git_repo(tmp_path / "app", files)

    def search(*args):
        out = run_cli("search", *args, "--root", str(root), "--json")
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)["results"]

    why = search("why did we pick Postgres over Mongo?")
    assert why[0]["kind"] == "knowledge" and why[0]["path"] == "docs/adr/0001-use-postgres-over-mongo.md"
    how = search("where do we connect to postgres")
    assert how[0]["path"] == "src/db/connect.py"
    assert [r["kind"] for r in how] == sorted((r["kind"] for r in how), key=lambda k: k == "knowledge")
    assert all(r["kind"] != "knowledge" for r in search("why did we pick Postgres over Mongo?", "--kind", "code"))


def test_a_word_in_most_files_still_counts_by_its_frequency(tmp_path):
    from cairn.search.query import Term
    from cairn.search.text import file_text_channel

    files = {f"src/f{i}.py": "def upload():\n    pass\n" for i in range(8)}
    files["src/many.py"] = "def upload():\n    upload()\n    upload()\n    upload()\n"
    files["src/other.py"] = "def retry():\n    pass\n"
    p = _index(tmp_path, files)
    con = open_index(p)
    try:
        ids = dict(con.execute("SELECT path, id FROM files"))
        scores, _ = file_text_channel(con, [Term("upload", 9, 1.0), Term("retry", 1, 1.0)])
    finally:
        con.close()
    # FTS5 gives `upload` (9 of 10 files) an IDF of 1e-6; its frequency part is kept instead, on the scale of
    # a rare word's, so a file that is about uploads is not drowned by any file with one rare word in it
    assert scores[ids["src/many.py"]] > scores[ids["src/f0.py"]] > 0.5
    assert scores[ids["src/many.py"]] > 0.5 * scores[ids["src/other.py"]]
