"""Knowledge in git for a team: two branches that each add notes and change code (regenerating the
map) merge with a real `git merge` and no conflict; notes that disagree after a merge are named by
`cairn memory doctor`; `cairn install --project` commits no path of this machine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import git, make_git_repo

CODE = {
    "app/core.py": "def run():\n    return 1\n",
    "app/util.py": "def helper():\n    return 2\n",
    "README.md": "# demo\n",
}


def _git_run(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "HOME": str(root),
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=False)


def _ok(r) -> None:
    assert r.returncode == 0, (r.stdout, r.stderr)


def _initialised(tmp_path: Path, run_cli) -> Path:
    root = make_git_repo(tmp_path / "repo", CODE)
    _ok(run_cli("init", "--root", str(root)))
    assert (root / ".cairn" / "map.md").is_file()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "cairn init")
    return root


def _commit_all(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)


def _remember(run_cli, root: Path, title: str, body: str, *extra: str) -> dict:
    r = run_cli("remember", title, "--type", "decision", "--body", body, "--root", str(root), "--json", *extra)
    _ok(r)
    return json.loads(r.stdout)["results"][0]


def _doctor(run_cli, root: Path) -> dict:
    r = run_cli("memory", "doctor", "--root", str(root), "--json")
    return json.loads(r.stdout)


def test_two_branches_adding_notes_and_code_merge_without_conflict(tmp_path, run_cli):
    root = _initialised(tmp_path, run_cli)
    tracked = git(root, "ls-files", ".cairn").split()
    assert ".cairn/map.md" not in tracked and not any(p.startswith(".cairn/modules/") for p in tracked)
    assert ".cairn/.gitignore" in tracked

    git(root, "checkout", "-q", "-b", "alice")
    (root / "app" / "core.py").write_text("def run():\n    return 1\n\n\ndef start(x):\n    return run() + x\n")
    (root / "app" / "api.py").write_text("from app.core import start\n\n\ndef serve():\n    return start(1)\n")
    _remember(run_cli, root, "Serve requests through app.api", "The API entry point is serve().")
    _ok(run_cli("index", "--root", str(root), "--quiet"))  # the map is regenerated with alice's module
    _commit_all(root, "alice: api + note")

    git(root, "checkout", "-q", "main")
    git(root, "checkout", "-q", "-b", "bob")
    (root / "app" / "util.py").write_text("def helper():\n    return 2\n\n\ndef other():\n    return 3\n")
    (root / "lib").mkdir()
    (root / "lib" / "store.py").write_text("from app.util import helper\n\n\ndef save():\n    return helper()\n")
    _remember(run_cli, root, "Keep storage in lib.store", "All writes go through save().")
    _ok(run_cli("index", "--root", str(root), "--quiet"))
    _commit_all(root, "bob: store + note")

    merged = _git_run(root, "merge", "--no-edit", "alice")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert "CONFLICT" not in merged.stdout
    assert _git_run(root, "diff", "--name-only", "--diff-filter=U").stdout == ""
    notes = sorted(p.name for p in (root / ".cairn" / "knowledge").glob("*.md"))
    assert len(notes) == 2
    _ok(run_cli("index", "--root", str(root), "--quiet"))  # each machine regenerates its own map
    map_text = (root / ".cairn" / "map.md").read_text()
    assert "lib" in map_text and "app" in map_text
    assert _git_run(root, "status", "--porcelain").stdout == ""  # the regenerated map is not a change
    report = _doctor(run_cli, root)
    assert report["disagree"] == [] and report["tracked_generated"] == []


def test_doctor_names_two_live_decisions_on_one_subject_after_a_merge(tmp_path, run_cli):
    root = _initialised(tmp_path, run_cli)
    git(root, "checkout", "-q", "-b", "alice")
    a = _remember(run_cli, root, "Use PostgreSQL for the team archive", "Teams already run it.")
    _commit_all(root, "alice")
    git(root, "checkout", "-q", "main")
    git(root, "checkout", "-q", "-b", "bob")
    b = _remember(run_cli, root, "Use PostgreSQL for the team archives", "It scales and replicates.")
    _commit_all(root, "bob")
    _ok(_git_run(root, "merge", "--no-edit", "alice"))
    report = _doctor(run_cli, root)
    assert not report["ok"]
    [finding] = report["disagree"]
    assert finding["kind"] == "same subject"
    assert sorted(finding["paths"]) == sorted([a["path"], b["path"]])
    text = run_cli("memory", "doctor", "--root", str(root))
    assert text.returncode == 1
    assert a["path"] in text.stdout and b["path"] in text.stdout and "disagree" in text.stdout


def test_doctor_names_a_forked_supersede_chain(tmp_path, run_cli):
    root = _initialised(tmp_path, run_cli)
    old = _remember(run_cli, root, "Archive sessions in SQLite only", "One machine, one file.")
    _commit_all(root, "old decision")
    git(root, "checkout", "-q", "-b", "alice")
    b = _remember(run_cli, root, "Team archive on PostgreSQL", "Shared by the team.", "--supersedes", old["id"])
    _commit_all(root, "alice supersedes")
    git(root, "checkout", "-q", "main")
    git(root, "checkout", "-q", "-b", "bob")
    c = _remember(run_cli, root, "Team archive as a synced SQLite file", "Copied nightly.", "--supersedes", old["id"])
    _commit_all(root, "bob supersedes")
    merged = _git_run(root, "merge", "--no-edit", "alice")
    # Both branches marked the same old note superseded, each by its own note: git asks a person
    # about that one file (the new notes merge cleanly); whichever side is kept, doctor sees the fork.
    conflicted = _git_run(root, "diff", "--name-only", "--diff-filter=U").stdout.split()
    assert conflicted in ([], [old["path"]]), merged.stdout
    if conflicted:
        _ok(_git_run(root, "checkout", "--theirs", "--", old["path"]))
        _commit_all(root, "merge: keep alice's marker")
    report = _doctor(run_cli, root)
    forks = [f for f in report["disagree"] if f["kind"] == "forked supersede"]
    assert len(forks) == 1 and forks[0]["at"] == old["id"]
    assert set(forks[0]["paths"]) == {old["path"], b["path"], c["path"]}


def test_init_adds_the_generated_files_to_an_existing_gitignore(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "repo", CODE)
    (root / ".cairn").mkdir()
    (root / ".cairn" / ".gitignore").write_text("sessions/\n.state/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "old layout")
    _ok(run_cli("init", "--root", str(root)))
    text = (root / ".cairn" / ".gitignore").read_text()
    assert text.startswith("sessions/\n.state/\n") and "\nmap.md\n" in text and "\nmodules/\n" in text
    _ok(run_cli("init", "--root", str(root)))
    assert (root / ".cairn" / ".gitignore").read_text() == text  # idempotent


def test_doctor_says_when_the_map_is_still_committed(tmp_path, run_cli):
    root = _initialised(tmp_path, run_cli)
    _ok(_git_run(root, "add", "-f", ".cairn/map.md"))
    git(root, "commit", "-q", "-m", "map committed by an older cairn")
    r = run_cli("memory", "doctor", "--root", str(root))
    assert "generated files still tracked by git: .cairn/map.md" in r.stdout
    assert "git rm -r --cached" in r.stdout


def test_install_project_writes_no_machine_path(tmp_path, run_cli):
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    root = make_git_repo(tmp_path / "proj", {"a.py": "x = 1\n"})
    r = run_cli("install", "claude", "--project", cwd=root, env={"HOME": str(home), "CLAUDE_CONFIG_DIR": ""})
    _ok(r)
    for path in (root / ".claude" / "settings.json", root / ".mcp.json"):
        text = path.read_text()
        assert str(tmp_path) not in text and sys.executable not in text and sys.prefix not in text
        assert '"/' not in text  # no absolute path at all
    settings = json.loads((root / ".claude" / "settings.json").read_text())
    from cairn.agents.install import portable_hook_command

    commands = {e: [h["command"] for g in groups for h in g["hooks"]] for e, groups in settings["hooks"].items()}
    assert commands and all(cs == [portable_hook_command(e)] for e, cs in commands.items())  # `cairn` on PATH
    assert json.loads((root / ".mcp.json").read_text())["mcpServers"]["cairn"]["command"] == "cairn"


def test_disagreements_follow_the_remember_merge_rule():
    from cairn.codemap.knowledge.node import Node
    from cairn.memory.disagree import disagreements

    def n(i, title, **kw):
        return Node(id=i, type=kw.pop("type", "decision"), title=title, path=f".cairn/knowledge/{i}.md", **kw)

    nodes = [
        n("a", "Use PostgreSQL for the team archive"),
        n("b", "Use PostgreSQL for the team archives"),
        n("c", "Staging API rate limit is 100 per minute"),
        n("d", "Production API rate limit is 100 per minute"),
        n("e", "Use PostgreSQL for the team archive", status="superseded"),  # not live: no disagreement
        n("f", "Use PostgreSQL for the team archive", type="howto"),  # not a decision
        n("old", "Keep sessions local"),
        n("x", "Share sessions", supersedes="old"),
        n("y", "Sync sessions", supersedes="old"),
        n("z", "Chain end", supersedes="x"),
    ]
    found = disagreements(nodes)
    assert [(f["kind"], f["ids"]) for f in found] == [
        ("same subject", ["a", "b"]),
        ("forked supersede", ["old", "x", "y"]),
    ]
    assert found[1]["at"] == "old"
