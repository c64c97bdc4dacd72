"""The semantic channel: vectors stored and refreshed with the files, the request's paraphrase found,
and, without its model package (missing or broken), search exactly as without the channel.

Tests of the channel itself need the model package (the `semantic` extra: `pip install -e '.[semantic]'` in a clone) and skip
cleanly without it; the off path (no package, a broken package, the channel switched off, another
model's vectors, an inline hook) is tested always.
"""

from __future__ import annotations

import pytest

from cairn.codemap import embed, vectors
from cairn.codemap.index_meta import IndexMeta
from cairn.codemap.indexer import index_project, open_index
from cairn.project import resolve_project
from cairn.search import semantic
from cairn.search.engine import search_code
from cairn.search.ranking import DEFAULT_RANKING, override
from helpers import make_git_repo

FILES = {
    "app/limiter.py": 'class RateLimiter:\n    """Token bucket."""\n    def allow(self, key):\n'
    "        bucket = self.buckets[key]\n        return bucket.take(1)\n",
    "app/session.py": "def verify_session(cookie):\n    user = lookup(cookie)\n    return user is not None and user.active\n",
    "app/render.py": "def render_page(template, context):\n    html = template.format(**context)\n    return html\n",
    "app/db.py": "def open_connection(url):\n    return connect(url, pool=5)\n",
    "README.md": "# App\n\nA small web app.\n\n## Setup\n\nInstall it and run the server.\n",
}
PARAPHRASE = "where do we throttle requests"  # no word of app/limiter.py

needs_model = pytest.mark.skipif(not embed.status().ok, reason="the semantic model package is not installed")


def _project(tmp_path, cairn_home, on: bool, files=FILES):
    if on:
        (cairn_home / "config.toml").write_text("[index]\nsemantic = true\n")
    root = make_git_repo(tmp_path / "repo", files)
    project = resolve_project(root)
    index_project(project)
    return project


def _search(project, text: str, limit: int = 5, ranking=DEFAULT_RANKING) -> list[str]:
    con = open_index(project)
    try:
        return [h.path for h in search_code(con, text, root=project.root, limit=limit, ranking=ranking)[0]]
    finally:
        con.close()


def _rows(project) -> dict[int, tuple[str, bytes]]:
    con = open_index(project)
    try:
        if not vectors.has_table(con):
            return {}
        return {r[0]: (r[1], r[2]) for r in con.execute("SELECT file_id, spans, vecs FROM vectors")}
    finally:
        con.close()


@pytest.fixture
def no_model(monkeypatch):
    """The model package is absent: its name finds nothing."""
    monkeypatch.setattr(embed, "PACKAGE", "cairn_no_such_model_package")
    monkeypatch.setattr(embed, "_MODEL", None)
    monkeypatch.setattr(embed, "_FAILED", None)


def test_identifiers_are_split_into_the_words_a_request_uses():
    assert (
        embed.words("verify_session(RateLimiter) parseHTTPResponse")
        == "verify session rate limiter parse http response"
    )


def test_switched_off_by_default_no_vectors_are_stored(tmp_path, cairn_home):
    p = _project(tmp_path, cairn_home, on=False)
    assert _rows(p) == {}
    con = open_index(p)
    try:
        assert not semantic.active(con)
        assert semantic.semantic_channel(con, PARAPHRASE) == ({}, {})
    finally:
        con.close()


def test_without_the_model_package_search_is_exactly_as_without_the_channel(tmp_path, cairn_home, no_model):
    off = _search(_project(tmp_path / "off", cairn_home, on=False), PARAPHRASE)
    p = _project(tmp_path / "on", cairn_home, on=True)  # configured on, package missing
    assert _rows(p) == {}
    assert _search(p, PARAPHRASE) == off
    status, line = vectors.describe(True, p.index_path())
    assert status == "warn" and "not installed" in line and "search works without it" in line
    from cairn.util.install_hint import install_hint

    assert vectors.describe(False, p.index_path()) == (
        "ok",
        f"off (opt-in: {install_hint('semantic')}, set `[index] semantic = true`)",
    )


def test_a_broken_model_package_switches_the_channel_off_without_an_error(tmp_path, cairn_home, monkeypatch):
    pkg = tmp_path / "site" / "fakemodel"
    (pkg / "weights").mkdir(parents=True)
    (pkg / "tokenizers").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / embed.WEIGHTS).write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00not json")
    (pkg / embed.TOKENIZER).write_text("{")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    monkeypatch.setattr(embed, "PACKAGE", "fakemodel")
    monkeypatch.setattr(embed, "_MODEL", None)
    monkeypatch.setattr(embed, "_FAILED", None)
    assert embed.status().ok  # its files are there...
    p = _project(tmp_path, cairn_home, on=True)
    assert embed.load() is None and "broken" in (embed.failure() or "")  # ...but they do not load
    assert _rows(p) == {}
    assert _search(p, "how are users authenticated")[0] == "app/session.py"
    status, line = vectors.describe(True, p.index_path())
    assert status == "warn" and "broken" in line


def test_vectors_of_another_model_are_dropped_never_read(tmp_path, cairn_home, no_model):
    p = _project(tmp_path, cairn_home, on=False)
    con = open_index(p)
    try:
        con.execute(vectors.TABLE)
        fid = con.execute("SELECT id FROM files LIMIT 1").fetchone()[0]
        con.execute("INSERT INTO vectors(file_id, hash, spans, vecs) VALUES(?, 'x', '', ?)", (fid, b"\0" * 512))
        IndexMeta.write(con, semantic_model="some-other-model/1")
        con.commit()
        assert vectors.refresh_vectors(con, p.root, enabled=True) == 0
        assert con.execute("SELECT COUNT(*) FROM vectors").fetchone()[0] == 0
        assert not semantic.active(con)
    finally:
        con.close()


@needs_model
def test_every_file_and_chunk_gets_a_vector_refreshed_with_the_files(tmp_path, cairn_home):
    p = _project(tmp_path, cairn_home, on=True)
    con = open_index(p)
    try:
        n_files = con.execute("SELECT COUNT(*) FROM files").fetchone()[0]
        chunks = dict(con.execute("SELECT file_id, COUNT(*) FROM chunks GROUP BY file_id").fetchall())
    finally:
        con.close()
    rows = _rows(p)
    assert len(rows) == n_files
    for fid, (_spans, blob) in rows.items():
        assert len(blob) == (1 + chunks.get(fid, 0)) * 256 * 2  # float16 rows: the file, then its chunks
    before = dict(rows)
    (p.root / "app" / "db.py").write_text(
        "def open_connection(url):\n    return connect(url, pool=9)\n\ndef close_connection(con):\n    con.close()\n"
    )
    (p.root / "README.md").unlink()
    index_project(p)
    after = _rows(p)
    assert len(after) == n_files - 1
    con = open_index(p)
    try:
        db_id = con.execute("SELECT id FROM files WHERE path = 'app/db.py'").fetchone()[0]
        assert vectors.refresh_vectors(con, p.root, enabled=True) == 0  # nothing left stale
    finally:
        con.close()
    assert after[db_id] != before[db_id]
    assert all(after[f] == before[f] for f in after if f != db_id)  # the others were not re-embedded


@needs_model
def test_another_model_version_rebuilds_all_vectors(tmp_path, cairn_home, monkeypatch):
    p = _project(tmp_path, cairn_home, on=True)
    st = embed.status()
    monkeypatch.setattr(
        embed, "status", lambda backend="wordllama": embed.Status(True, st.model_id + "-next", "", st.folder)
    )
    con = open_index(p)
    try:
        n = con.execute("SELECT COUNT(*) FROM files").fetchone()[0]
        assert vectors.refresh_vectors(con, p.root, enabled=True) == n
        assert IndexMeta.load(con).semantic_model == st.model_id + "-next"
    finally:
        con.close()


@needs_model
def test_a_paraphrase_finds_the_file_lexical_search_misses(tmp_path, cairn_home, monkeypatch):
    p = _project(tmp_path, cairn_home, on=True)
    assert _search(p, PARAPHRASE)[0] == "app/limiter.py"
    off = override(DEFAULT_RANKING, {"fusion.semantic": 0.0})
    assert _search(p, PARAPHRASE, ranking=off)[0] != "app/limiter.py"  # the words alone do not find it
    status, line = vectors.describe(True, p.index_path())
    assert status == "ok" and line.startswith("active (") and f"{len(FILES)} files with vectors" in line


@needs_model
def test_switching_the_channel_off_drops_the_vectors(tmp_path, cairn_home):
    p = _project(tmp_path, cairn_home, on=True)
    assert _rows(p)
    (cairn_home / "config.toml").write_text("[index]\nsemantic = false\n")
    index_project(p)
    assert _rows(p) == {}
    con = open_index(p)
    try:
        assert not semantic.active(con)
    finally:
        con.close()


def test_an_inline_hook_never_loads_the_model(tmp_path, cairn_home, monkeypatch):
    """A prompt hook in a fresh process skips the channel rather than pay numpy and the tokenizer;
    the warm hook server (LOAD_IN_HOOK) loads them once. An index refresh inside such a hook embeds
    nothing either: the changed files' vectors are dropped, not left stale."""
    p = _project(tmp_path, cairn_home, on=False)
    con = open_index(p)
    try:
        IndexMeta.write(con, semantic_model="any-model")  # the index says it holds vectors
        con.commit()
        monkeypatch.setattr(embed, "_MODEL", None)
        monkeypatch.setattr(embed, "_FAILED", None)
        from cairn.agents.hooks import runner

        monkeypatch.setattr(runner, "INLINE_PROCESS", True)  # as while `cairn hook` answers in its own process
        monkeypatch.setattr(embed, "LOAD_IN_HOOK", False)
        assert semantic.semantic_channel(con, PARAPHRASE) == ({}, {})
        assert not embed.loaded() and embed.failure() is None  # not even tried
    finally:
        con.close()


@needs_model
def test_an_index_refresh_inside_an_inline_hook_drops_stale_vectors_and_embeds_nothing(
    tmp_path, cairn_home, monkeypatch
):
    p = _project(tmp_path, cairn_home, on=True)
    n = len(_rows(p))
    (p.root / "app" / "db.py").write_text("def open_connection(url):\n    return connect(url, pool=1)\n")
    monkeypatch.setattr(embed, "_MODEL", None)
    monkeypatch.setattr(embed, "LOAD_IN_HOOK", False)  # an inline hook, whatever an earlier test's warm server set
    from cairn.agents.hooks import runner

    monkeypatch.setattr(runner, "INLINE_PROCESS", True)  # as while `cairn hook` answers in its own process
    index_project(p)
    assert len(_rows(p)) == n - 1 and not embed.loaded()
    monkeypatch.setattr(embed, "LOAD_IN_HOOK", True)  # the warm server may load it
    index_project(p)  # the next run outside an inline hook embeds the file again
    assert len(_rows(p)) == n and embed.loaded()


@needs_model
def test_a_hit_found_by_meaning_says_so(tmp_path, cairn_home):
    p = _project(tmp_path, cairn_home, on=True)
    con = open_index(p)
    try:
        hits, _ = search_code(con, PARAPHRASE, root=p.root, limit=3)
    finally:
        con.close()
    assert hits[0].path == "app/limiter.py"
    assert "close in meaning to the request" in hits[0].why
    assert "related by the import graph" not in hits[0].why


@needs_model
def test_a_decision_note_is_found_by_a_paraphrase_of_its_question(tmp_path, cairn_home, run_cli):
    """Knowledge notes are indexed files: they get vectors too, so "why did we..." finds a decision
    worded otherwise."""
    import json

    (cairn_home / "config.toml").write_text("[index]\nsemantic = true\n")
    root = make_git_repo(tmp_path / "repo", FILES)
    assert run_cli("init", "--root", str(root)).returncode == 0
    facts = [
        {
            "type": "decision",
            "title": "Token bucket per client key",
            "body": "Each API key gets a bucket of 100 calls refilled every minute; past it, 429.",
            "files": ["app/limiter.py"],
        },
        {
            "type": "decision",
            "title": "Pages are rendered on the server",
            "body": "Templates are formatted into HTML before sending, no client framework.",
        },
    ]
    assert run_cli("remember", "--json", "--root", str(root), input=json.dumps(facts)).returncode == 0
    question = "why did we choose to throttle requests like that"

    from cairn.search.service import search

    def knowledge(weight: float) -> list[str]:
        ranking = override(DEFAULT_RANKING, {"fusion.semantic": weight})
        answer = search(resolve_project(root), question, kind="knowledge", ranking=ranking)
        return [r.get("title") for r in answer.results]

    out = run_cli("search", question, "--root", str(root), "--json", "--kind", "knowledge")
    assert out.returncode == 0, out.stderr
    assert "Token bucket per client key" not in knowledge(0.0)  # no word of the question in the note
    assert knowledge(DEFAULT_RANKING.fusion.semantic)[:1] == ["Token bucket per client key"]
    assert [r.get("title") for r in json.loads(out.stdout)["results"]][:1] == ["Token bucket per client key"]


def test_doctor_says_in_one_line_whether_the_channel_is_active(tmp_path, cairn_home, run_cli, no_model):
    import json

    (cairn_home / "config.toml").write_text("[index]\nsemantic = true\n")
    root = make_git_repo(tmp_path / "repo", FILES)
    out = run_cli("doctor", "--json", "--root", str(root))
    checks = {c["name"]: c for c in json.loads(out.stdout)["checks"]}
    assert checks["semantic"]["status"] == "warn"
    assert "not installed" in checks["semantic"]["detail"] and "\n" not in checks["semantic"]["detail"]


def test_only_a_hook_answered_in_its_own_process_counts_as_inline():
    """Importing the hook runner (many commands and the tests do) is not being an inline hook."""
    from cairn.agents.hooks import runner

    assert not runner.INLINE_PROCESS and not embed.inline_hook()
    runner.main(["hook", "Bogus"], raw=b"{}")  # an unknown event: answered inline, exit 0
    assert not runner.INLINE_PROCESS  # reset when it returns
