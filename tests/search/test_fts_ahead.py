"""A request's common terms asked of FTS5 on a helper thread (search/fts_ahead.py): the answers
are those of the request asking alone, whichever side asks each term, and a failing helper only
hands the work back."""

from __future__ import annotations

import _thread
import json
import time

import pytest

from cairn.search import channels, fts_ahead, index_cache, text
from cairn.search.service import search

REQUESTS = [
    "post a journal entry",
    "ledger balance of an account",
    "how are entries validated",
    "trial balance report",
    "account",
    "ledger entry amount",
]


def _answers(project, monkeypatch, *, ahead: bool, keep: bool = False) -> list[str]:
    monkeypatch.setenv("CAIRN_FTS_AHEAD", "1" if ahead else "0")
    index_cache.clear()
    index_cache.keep_open(keep)
    try:
        return [json.dumps(search(project, q, refresh=False, kind="all").as_json(), sort_keys=True) for q in REQUESTS]
    finally:
        index_cache.keep_open(False)
        index_cache.clear()


@pytest.fixture
def every_term(monkeypatch):
    """Every term handed to the helper (the test repository's terms are in a few rows each), and
    which thread asked FTS5 for each."""
    monkeypatch.setattr(fts_ahead, "MIN_ROWS", 0)
    asked: list[int] = []
    real = text.fresh

    def recording(*args, **kwargs):
        asked.append(_thread.get_ident())
        return real(*args, **kwargs)

    monkeypatch.setattr(text, "fresh", recording)
    slow = channels.path_channel

    def slower(*args, **kwargs):  # the request's own channels take a while, as on a large index
        time.sleep(0.05)
        return slow(*args, **kwargs)

    monkeypatch.setattr(channels, "path_channel", slower)
    return asked


@pytest.mark.parametrize("keep", [False, True])  # a one-shot process, a warm one (its helper connections kept)
def test_answers_with_the_helper_equal_answers_without(project, monkeypatch, every_term, keep):
    alone = _answers(project, monkeypatch, ahead=False, keep=keep)
    assert {t for t in every_term} == {_thread.get_ident()}
    every_term.clear()
    helped = _answers(project, monkeypatch, ahead=True, keep=keep)
    assert helped == alone
    assert any(t != _thread.get_ident() for t in every_term)  # the helper did ask some of them


def test_a_failing_helper_hands_the_terms_back(project, monkeypatch, every_term):
    alone = _answers(project, monkeypatch, ahead=False)

    def broken(ident):
        raise OSError("no connection")

    monkeypatch.setattr(fts_ahead, "helper_connection", broken)
    assert _answers(project, monkeypatch, ahead=True) == alone


def test_a_term_the_helper_has_not_begun_is_the_requests():
    cache = index_cache.IndexCache(("/nowhere/index.db", 1, 2, 0, 0, ()))
    job = fts_ahead.Job({("files_fts", "3.0, 2.0, 1.0", '"ledger"', 300): "ledger"})
    key = next(iter(job.todo))
    cache.ahead[key] = job
    assert fts_ahead.wait(cache, key) is None  # taken back: the caller asks FTS5 itself
    assert key not in job.todo and key not in cache.ahead
    job.done.release()
    fts_ahead.finish(job)


def test_no_helper_for_rare_terms_or_when_turned_off(project, monkeypatch):
    from cairn.codemap.index_db import open_index
    from cairn.search.query import analyze

    con = open_index(project)
    try:
        with index_cache.Pinned(con):
            q = analyze(con, "ledger balance of an account", None)
            assert text.ask_ahead(con, q.main) is None  # the default MIN_ROWS: these are in a few files
            monkeypatch.setattr(fts_ahead, "MIN_ROWS", 0)
            monkeypatch.setenv("CAIRN_FTS_AHEAD", "0")
            assert text.ask_ahead(con, q.main) is None
            monkeypatch.setenv("CAIRN_FTS_AHEAD", "1")
            job = text.ask_ahead(con, q.main)
            assert job is not None
            fts_ahead.finish(job)
    finally:
        con.close()
        index_cache.clear()
