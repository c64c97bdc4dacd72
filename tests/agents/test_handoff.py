"""`cairn handoff save|last`: from options or stdin, redacted, stored in .cairn/handoffs/ or under
CAIRN_HOME without .cairn/, newest first."""

from __future__ import annotations

import json

from helpers import make_git_repo


def test_save_from_options_and_last(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "p", {"src/a.py": "x = 1\n"})
    assert run_cli("init", cwd=root).returncode == 0
    r = run_cli(
        "handoff",
        "save",
        "--goal",
        "ship export",
        "--where",
        "writer done",
        "--file",
        str(root / "src/a.py"),
        "--decision",
        "CSV first",
        "--next",
        "tests",
        "--next",
        "docs",
        "--blocker",
        "none yet",
        cwd=root,
    )
    assert r.returncode == 0, r.stderr
    saved = list((root / ".cairn" / "handoffs").glob("*.md"))
    assert len(saved) == 1
    last = json.loads(run_cli("handoff", "last", "--json", cwd=root).stdout)
    assert last["files"] == ["src/a.py"] and last["title"] == "Handoff: ship export"
    body = last["body"]
    for part in (
        "## Goal\nship export",
        "## Where we are\nwriter done",
        "## Files in play\n- `src/a.py`",
        "## Decisions made\n- CSV first",
        "## Next steps\n- tests\n- docs",
        "## Blockers\n- none yet",
    ):
        assert part in body
    assert "writer done" in run_cli("handoff", "last", cwd=root).stdout


def test_stdin_body_redacted_newest_wins_and_no_memory_dir(tmp_path, run_cli, cairn_home):
    root = make_git_repo(tmp_path / "p", {"a.py": "x = 1\n"})  # not opted in: nothing in the repo
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    r = run_cli("handoff", "save", cwd=root, input=f"# Payments\nwork on `a.py`; key {token}\n")
    assert r.returncode == 0, r.stderr
    assert not (root / ".cairn").exists()
    stored = list(cairn_home.glob("projects/*/handoffs/*.md"))
    assert len(stored) == 1 and token not in stored[0].read_text()
    r = run_cli("handoff", "save", "--goal", "second", cwd=root)
    last = json.loads(run_cli("handoff", "last", "--json", cwd=root).stdout)
    assert last["title"] == "Handoff: second"


def test_empty_and_outside_project_are_one_line_errors(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "p", {"a.py": "x = 1\n"})
    r = run_cli("handoff", "save", cwd=root, input="  \n")
    assert r.returncode == 1 and r.stderr.startswith("cairn: error:") and r.stderr.count("\n") == 1
    plain = tmp_path / "nowhere"
    plain.mkdir()
    r = run_cli("handoff", "last", cwd=plain)
    assert r.returncode == 1 and "not inside a project" in r.stderr
    assert json.loads(run_cli("handoff", "last", "--json", cwd=root).stdout) is None
