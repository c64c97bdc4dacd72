"""An HTML page is indexed by its words: text, scripts and template expressions, not its markup."""

from __future__ import annotations

from cairn.codemap import fts_rows
from cairn.codemap.html_text import visible_text
from cairn.codemap.indexer import index_project, open_index
from cairn.project import resolve_project
from cairn.search.engine import search_code
from helpers import make_git_repo

PAGE = """<!doctype html>
<html class="no-js" lang="en">
<head>
  <meta charset="UTF-8"><title>Connection pool</title>
  <style>.sidebar { color: teal; }</style>
  <!-- navigation built by the site generator -->
  <script>var pathToRoot = "../../";</script>
</head>
<body>
<div class="main-content" data-key="AKIAIOSFODNN7EXAMPLE">
  <p>The <code>PoolExhausted</code> error means every connection is busy.</p>
</div>
</body>
</html>
"""

TEMPLATE = """{% extends "base.html" %}
<a class="usa-button" href="{% url 'domain-detail' pk=domain.id %}">Manage {{ domain.name }}</a>
"""


def test_markup_is_dropped_text_and_scripts_stay():
    out = visible_text(PAGE)
    for kept in ("Connection pool", "PoolExhausted", "every connection is busy", "pathToRoot"):
        assert kept in out
    for dropped in ("main-content", "class=", "<div", "teal", "navigation built", "AKIAIOSFODNN7EXAMPLE"):
        assert dropped not in out


def test_template_expressions_inside_tags_stay():
    out = visible_text(TEMPLATE)
    assert "{% url 'domain-detail' pk=domain.id %}" in out and "{{ domain.name }}" in out
    assert "usa-button" not in out and "href" not in out


def test_a_page_is_found_by_its_words_and_keeps_its_line_count(tmp_path):
    root = make_git_repo(tmp_path / "r", {"docs/pool.html": PAGE, "app/main.py": "def run():\n    return 1\n"})
    p = resolve_project(root)
    index_project(p)
    con = open_index(p)
    try:
        fid, lines = con.execute("SELECT id, lines FROM files WHERE path = 'docs/pool.html'").fetchone()
        assert lines == PAGE.count("\n")
        body = fts_rows.stored_text(con, fid)[2]
        assert "exhausted" in body.lower() and "main-content" not in body and "AKIA" not in body
        hits, _ = search_code(con, "what does the PoolExhausted error mean", root=root, kind="all")
        assert [h.path for h in hits][:1] == ["docs/pool.html"]
    finally:
        con.close()
