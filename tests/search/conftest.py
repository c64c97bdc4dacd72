"""A small indexed repository for the tests of what the request path keeps per index state
(test_index_cache.py, test_request_memo.py)."""

from __future__ import annotations

import pytest

from cairn.codemap.indexer import index_project
from cairn.project import resolve_project
from cairn.search import index_cache
from helpers import LEDGER, make_git_repo


@pytest.fixture
def project(tmp_path):
    """The ledger repository, indexed, with every process-wide memo and held connection let go after."""
    index_cache.clear()
    root = make_git_repo(tmp_path / "books", LEDGER)
    p = resolve_project(root)
    index_project(p)
    yield p
    index_cache.keep_open(False)
    index_cache.clear()
