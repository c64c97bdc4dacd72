"""One real PostgreSQL server for the team tests (started once, stopped after); skipped with the
reason when the server binaries are not installed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from pg_server import PgServer, available  # noqa: E402

pytest.importorskip("psycopg", reason="the team archive needs psycopg: pip install -e '.[team]'")


@pytest.fixture(scope="session")
def pg_server():
    reason = available()
    if reason:
        pytest.skip(reason)
    server = PgServer()
    server.start()
    yield server
    server.close()


@pytest.fixture
def team_db(pg_server, monkeypatch):
    """A fresh database on the shared server for one test; CAIRN_TEAM_DATABASE points at it."""
    import uuid

    name = "t_" + uuid.uuid4().hex[:12]
    pg_server.psql(f"CREATE DATABASE {name}")
    url = pg_server.url_with(dbname=name)
    monkeypatch.setenv("CAIRN_TEAM_DATABASE", url)
    yield url
    pg_server.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
