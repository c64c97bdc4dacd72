"""Team identity is the server's, not the client's: two member roles made by the README's own SQL
on a real PostgreSQL. Member B can neither forget nor overwrite member A's rows, not with
`[team] user` set to A's name, not with hand-written SQL (row-level security); a session id B
pushed first does not swallow A's turns; a user who renames keeps pushing; a v1 database upgrades."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import psycopg
import pytest
from pg_server import PASSWORD
from team_helpers import make_repo, write_transcripts

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_sql() -> list[str]:
    """The statements of the ```sql block in the README's "A team" section."""
    section = README.read_text(encoding="utf-8").split("## A team", 1)[1].split("\n## ", 1)[0]
    block = section.split("```sql\n", 1)[1].split("```", 1)[0]
    body = "\n".join(line for line in block.splitlines() if not line.lstrip().startswith("--"))
    return [s.strip() for s in body.split(";") if s.strip()]


class Team:
    """One database set up by the README's SQL, with member roles, and CLI runs as any of them."""

    def __init__(self, pg_server, tmp_path: Path, run_cli, repo: Path) -> None:
        self.server, self.tmp, self.run_cli, self.repo = pg_server, tmp_path, run_cli, repo
        tag = uuid.uuid4().hex[:8]
        self.db, self.roles = f"t_{tag}", {}
        for who in ("alice", "bob"):
            self.roles[who] = f"{who}_{tag}"
        for stmt in readme_sql():
            stmt = re.sub(r"\bcairn\b", self.db, stmt)  # the database (cairn_member stays)
            if stmt.startswith("CREATE ROLE alice "):
                for role in self.roles.values():
                    pg_server.psql(stmt.replace("alice", role).replace("change-me", PASSWORD))
                continue
            try:
                pg_server.psql(stmt)
            except Exception:  # the group role is cluster-wide: made by an earlier test
                if not stmt.startswith("CREATE ROLE cairn_member"):
                    raise
        self.admin = pg_server.url_with(dbname=self.db)

    def url(self, who: str) -> str:
        return f"postgresql://{self.roles[who]}:{PASSWORD}@127.0.0.1:{self.server.port}/{self.db}"

    def home(self, who: str, user: str) -> Path:
        """A CAIRN_HOME for `who` whose `[team] user` is `user` (the user's own config)."""
        home = self.tmp / f"home-{who}"
        home.mkdir(exist_ok=True)
        (home / "config.toml").write_text(f'[team]\nuser = "{user}"\nmachine = "box-{who}"\n')
        return home

    def cli(self, who: str, user: str, *args: str):
        env = {"CAIRN_HOME": str(self.home(who, user)), "CAIRN_TEAM_DATABASE": self.url(who)}
        return self.run_cli(*args, cwd=self.repo, env=env)

    def ingest(self, who: str, user: str, **kw) -> None:
        folder = write_transcripts(self.tmp / f"tx-{who}-{kw['prefix']}-{kw.get('seed', 0)}", self.repo, **kw)
        r = self.cli(who, user, "sessions", "ingest", str(folder))
        assert r.returncode == 0, r.stderr

    def close(self) -> None:
        self.server.psql(f"DROP DATABASE IF EXISTS {self.db} WITH (FORCE)")
        for role in self.roles.values():
            self.server.psql(f"DROP ROLE IF EXISTS {role}")


@pytest.fixture
def team(pg_server, tmp_path, run_cli, cairn_home):
    t = Team(pg_server, tmp_path, run_cli, make_repo(tmp_path / "repo"))
    yield t
    t.close()


def _json(r) -> dict:
    assert r.returncode == 0, (r.stdout, r.stderr)
    return json.loads(r.stdout)


def _admin_creates_the_schema(team: Team) -> None:
    r = team.run_cli("team", "status", "--json", cwd=team.repo, env={"CAIRN_TEAM_DATABASE": team.admin})
    assert _json(r)["sessions"] == 0


def test_a_member_cannot_forget_or_overwrite_anothers_rows(team):
    # before the admin made the schema, a member gets one line that says what to do
    r = team.cli("alice", "alice", "team", "status")
    assert r.returncode == 2 and "admin runs `cairn team status`" in r.stderr and len(r.stderr.splitlines()) == 1
    _admin_creates_the_schema(team)
    team.ingest("alice", "alice", sessions=2, turns=4, prefix="a", texts={(0, 0): "the original alembic answer"})
    pushed = _json(team.cli("alice", "alice", "team", "push", "--json"))
    assert pushed["inserted"] == 8 and pushed["role"] == team.roles["alice"]

    # bob claims to be alice: his push is refused before anything is sent, his forget finds nothing
    team.ingest("bob", "alice", sessions=1, turns=2, prefix="b")
    r = team.cli("bob", "alice", "team", "push", "--json")
    assert r.returncode == 1 and "belongs to the database role" in r.stderr and "Traceback" not in r.stderr
    assert _json(team.cli("bob", "alice", "team", "forget", "a-00000", "--json"))["forgotten"] == 0
    assert _json(team.cli("bob", "alice", "team", "forget", "--before", "2100-01-01", "--json"))["forgotten"] == 0
    # bob pushes alice's very sessions again (same ids, his own text): new rows of his, hers untouched
    team.ingest("bob", "bob", sessions=2, turns=4, prefix="a", seed=7, texts={(0, 0): "bob rewrote the answer"})
    assert _json(team.cli("bob", "bob", "team", "push", "--json"))["inserted"] == 10  # b-00000 (2) + a-* (8)

    # and by hand, through SQL: row-level security answers for the server
    alice_role = team.roles["alice"]
    with psycopg.connect(team.url("bob"), autocommit=True) as con:
        assert con.execute("DELETE FROM cairn.sessions WHERE session_id = 'a-00000'").rowcount == 1  # his own
        assert con.execute(f"DELETE FROM cairn.sessions WHERE owner = '{alice_role}'").rowcount == 0
        assert con.execute("UPDATE cairn.sessions SET title = 'pwned' WHERE user_name = 'alice'").rowcount == 0
        assert con.execute("UPDATE cairn.push_marks SET last_id = 999999999 WHERE user_name = 'alice'").rowcount == 0
        for stmt in (
            f"INSERT INTO cairn.sessions (session_id, project, user_name, machine, owner) "
            f"VALUES ('x', 'p', 'bob', 'm', '{alice_role}')",
            "INSERT INTO cairn.sessions (session_id, project, user_name, machine) VALUES ('y', 'p', 'alice', 'm')",
            f"INSERT INTO cairn.members (user_name, owner) VALUES ('carol', '{alice_role}')",
            "UPDATE cairn.turns SET body = 'pwned'",
            "DELETE FROM cairn.turns",
            "DELETE FROM cairn.members",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                con.execute(stmt)

    with psycopg.connect(team.admin) as con:
        mine = con.execute(
            "SELECT count(*), count(*) FILTER (WHERE body LIKE '%%original alembic%%') FROM cairn.turns"
            " WHERE owner = %s",
            (alice_role,),
        ).fetchone()
        titles = [r[0] for r in con.execute("SELECT title FROM cairn.sessions WHERE owner = %s", (alice_role,))]
    assert mine == (8, 1) and "pwned" not in titles
    assert _json(team.cli("alice", "alice", "team", "push", "--json"))["offered"] == 0  # her mark is hers
    hits = _json(team.cli("alice", "alice", "team", "search", "alembic", "answer", "--user", "alice", "--json"))
    assert [h["user"] for h in hits["results"]] == ["alice"]
    assert _json(team.cli("alice", "alice", "team", "forget", "a-00000", "a-00001", "--json"))["forgotten"] == 2


def test_a_session_id_pushed_first_by_another_member_does_not_swallow_yours(team):
    _admin_creates_the_schema(team)
    team.ingest("bob", "bob", sessions=1, turns=2, prefix="s", seed=3, texts={(0, 0): "squatted placeholder"})
    assert _json(team.cli("bob", "bob", "team", "push", "--json"))["inserted"] == 2
    team.ingest("alice", "alice", sessions=1, turns=4, prefix="s", texts={(0, 0): "the real flaky webhook story"})
    mine = _json(team.cli("alice", "alice", "team", "push", "--json"))
    assert mine["inserted"] == mine["offered"] == 4
    hits = _json(team.cli("alice", "alice", "team", "search", "flaky", "webhook", "--json"))["results"]
    assert [(h["session_id"], h["user"]) for h in hits] == [("s-00000", "alice")]
    r = team.cli("alice", "alice", "team", "pull", "s-00000")
    assert r.returncode == 1 and "add --user" in r.stderr
    shown = _json(team.cli("alice", "alice", "team", "pull", "s-00000", "--user", "alice", "--json"))
    assert len(shown["turns"]) == 4 and shown["session"]["owner"] == team.roles["alice"]


def test_a_user_who_changes_their_name_keeps_pushing_their_sessions(tmp_path, run_cli, team_db, cairn_home):
    repo = make_repo(tmp_path / "repo")
    folder = tmp_path / "tx"
    (cairn_home / "config.toml").write_text('[team]\nuser = "alice"\n')
    write_transcripts(folder, repo, sessions=1, turns=4, prefix="r")
    assert run_cli("sessions", "ingest", str(folder)).returncode == 0
    assert _json(run_cli("team", "push", "--json", cwd=repo))["inserted"] == 4
    (cairn_home / "config.toml").write_text('[team]\nuser = "alice@corp.example"\n')
    write_transcripts(folder, repo, sessions=1, turns=10, prefix="r")  # the session goes on: 6 more turns
    assert run_cli("sessions", "ingest", str(folder)).returncode == 0
    more = _json(run_cli("team", "push", "--json", cwd=repo))
    assert more["offered"] == 6 and more["inserted"] == 6
    shown = _json(run_cli("team", "pull", "r-00000", "--json", cwd=repo))
    assert len(shown["turns"]) == 10


def test_a_version_1_database_upgrades_and_keeps_its_rows(tmp_path, run_cli, team_db, cairn_home):
    """A database an older cairn made: its rows belong to the role that upgrades it; pushing the
    same sessions again adds only what is missing."""
    from cairn.team import schema

    with psycopg.connect(team_db) as con:
        con.execute("CREATE SCHEMA cairn")
        con.execute(
            "CREATE TABLE cairn.schema_version (version integer PRIMARY KEY, "
            "applied_at timestamptz NOT NULL DEFAULT now())"
        )
        schema._v1(con)
        con.execute("INSERT INTO cairn.schema_version (version) VALUES (1)")
        con.execute(
            "INSERT INTO cairn.sessions (session_id, project, user_name, machine, turns)"
            " VALUES ('v-00000', 'github.com/acme/app', 'alice', 'box', 2)"
        )
        con.execute(
            "INSERT INTO cairn.turns (session_id, uuid, block, project, user_name, role, body) VALUES"
            " ('v-00000', 'v-00000-u0', 0, 'github.com/acme/app', 'alice', 'user', 'old'),"
            " ('v-00000', 'v-00000-u1', 0, 'github.com/acme/app', 'alice', 'assistant', 'old')"
        )
    repo = make_repo(tmp_path / "repo")
    (cairn_home / "config.toml").write_text('[team]\nuser = "alice"\n')
    assert (
        run_cli(
            "sessions", "ingest", str(write_transcripts(tmp_path / "tx", repo, sessions=1, turns=5, prefix="v"))
        ).returncode
        == 0
    )
    pushed = _json(run_cli("team", "push", "--json", cwd=repo))
    assert pushed["offered"] == 5 and pushed["inserted"] == 3
    with psycopg.connect(team_db) as con:
        versions = [r[0] for r in con.execute("SELECT version FROM cairn.schema_version ORDER BY version")]
        owners = {r[0] for r in con.execute("SELECT owner FROM cairn.turns")}
        count = con.execute("SELECT count(*) FROM cairn.turns").fetchone()[0]
    assert versions == list(range(1, len(schema.MIGRATIONS) + 1)) and owners == {"cairn"} and count == 5


def test_the_admins_status_grants_a_member_role_the_schema_left_out(team):
    """`cairn_member` without its grants (made after the schema, or revoked): the member gets one
    line saying what to do, and the admin's next `cairn team status` fixes it."""
    _admin_creates_the_schema(team)
    with psycopg.connect(team.admin, autocommit=True) as con:
        con.execute("REVOKE ALL ON ALL TABLES IN SCHEMA cairn FROM cairn_member")
        con.execute("REVOKE ALL ON SCHEMA cairn FROM cairn_member")
    team.ingest("alice", "alice", sessions=1, turns=2, prefix="g")
    r = team.cli("alice", "alice", "team", "push")
    assert r.returncode == 2 and "member of cairn_member" in r.stderr and len(r.stderr.splitlines()) == 1
    _admin_creates_the_schema(team)
    assert _json(team.cli("alice", "alice", "team", "push", "--json"))["inserted"] == 2
    assert (
        _json(team.cli("alice", "alice", "team", "status", "--json"))["sessions"] == 1
    )  # a member's status grants nothing
