"""The command line's contract with people and programs: exit codes, JSON errors, help, budgets.

Most run in-process (`run_cli`); the last ones run the installed entry point in a real process.
"""

from __future__ import annotations

import json

from cairn.text.budget import estimate_tokens
from helpers import git, make_git_repo

FILES = {
    "src/app/main.py": "def main():\n    return run_checkout()\n",
    **{f"src/pkg{i}/mod{j}.py": f"def fn_{i}_{j}(x):\n    return x + {j}\n" for i in range(8) for j in range(3)},
}


def test_json_errors_are_json_on_stdout(tmp_path, run_cli):
    r = run_cli("read", "no-such-note", "--json", cwd=make_git_repo(tmp_path / "p", FILES))
    assert r.returncode == 1
    assert json.loads(r.stdout) == {
        "error": "no knowledge node 'no-such-note' (see `cairn memory list`)",
        "exit_code": 1,
    }
    assert r.stderr.startswith("cairn: error: ")


def test_an_empty_search_is_an_error(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "p", FILES)
    for query in ("", "   "):
        r = run_cli("search", query, cwd=root)
        assert r.returncode == 1 and "empty query" in r.stderr and r.stdout == ""


def test_map_budget_is_a_cap(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "p", FILES)
    for budget in (100, 200):
        out = run_cli("map", "--budget", str(budget), cwd=root)
        assert out.returncode == 0, out.stderr
        assert estimate_tokens(out.stdout) <= budget, (budget, estimate_tokens(out.stdout), out.stdout)
    assert "## Modules" in run_cli("map", "--budget", "200", cwd=root).stdout


def test_eval_cases_says_why_it_wrote_none(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "p", FILES)
    (root / "README.md").write_text("docs\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "docs: readme")
    r = run_cli("eval", "cases", "--out", str(tmp_path / "c.jsonl"), cwd=root)
    assert r.returncode == 0, r.stderr
    assert "wrote 0 cases" in r.stdout and "2 commits examined" in r.stdout
    assert "the first commit or a bot's" in r.stdout and "chore" in r.stdout
    data = json.loads(run_cli("eval", "cases", "--out", str(tmp_path / "c.jsonl"), "--json", cwd=root).stdout)
    assert data["cases"] == 0 and data["commits_examined"] == 2 and sum(data["skipped"].values()) == 2


def test_eval_prune_removes_the_materialized_trees(tmp_path, run_cli, cairn_home):
    cache = cairn_home / "eval"
    (cache / "trees" / "abc123" / "src").mkdir(parents=True)
    (cache / "trees" / "abc123" / "src" / "a.py").write_text("x = 1\n")
    (cache / "home" / "projects").mkdir(parents=True)
    (cache / "keep.txt").write_text("not ours to delete\n")
    r = run_cli("eval", "prune", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["trees"] == 1
    assert not (cache / "trees").exists() and not (cache / "home").exists() and (cache / "keep.txt").exists()


def test_restore_names_the_file_given_not_a_temporary_copy(tmp_path, run_cli):
    bad = tmp_path / "not-a-backup.db"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    r = run_cli("restore", str(bad), "--yes")
    assert r.returncode == 1
    assert str(bad) in r.stderr and "restore.db" not in r.stderr and "tmp" not in r.stderr.replace(str(bad), "")


def test_xray_simulate_help_is_its_own(run_cli):
    r = run_cli("xray", "simulate", "--help")
    assert r.returncode == 0
    assert r.stdout.startswith("usage: cairn xray simulate") and "--thresholds" in r.stdout and "--html" not in r.stdout
    assert "--thresholds" not in run_cli("xray", "--help").stdout.split("options:")[-1]


def test_the_installed_command_in_a_real_process(tmp_path, run_cli_process):
    root = make_git_repo(tmp_path / "p", FILES)
    assert run_cli_process("--version").stdout.startswith("cairn ")
    r = run_cli_process("search", "", "--json", cwd=root)
    assert r.returncode == 1 and json.loads(r.stdout)["exit_code"] == 1
    r = run_cli_process("search", "run checkout", "--json", cwd=root)
    assert r.returncode == 0 and "src/app/main.py" in r.stdout


def test_the_command_table_names_what_each_module_registers():
    """build_parser(command) imports one module from the table: the table must be true."""
    import argparse
    import importlib

    from cairn.cli.main import COMMAND_MODULES

    for module, names in COMMAND_MODULES.items():
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(module).register(sub)
        assert tuple(sub.choices) == names, module


def test_one_command_parser_gives_the_same_help_as_the_whole_one():
    import argparse

    from cairn.cli.main import MODULE_OF, build_parser

    whole = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    for name in MODULE_OF:
        one = next(a for a in build_parser(name)._actions if isinstance(a, argparse._SubParsersAction)).choices
        assert one[name].format_help() == whole[name].format_help(), name
    assert set(
        next(a for a in build_parser("no-such")._actions if isinstance(a, argparse._SubParsersAction)).choices
    ) == set(whole)
