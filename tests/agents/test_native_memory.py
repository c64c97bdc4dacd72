"""The agents' own memories: Claude Code's auto memory and Codex's task groups of this project are
imported read-only (redacted, deduplicated, never another project's, never into the repository),
found by search with their source in `why`; cairn's live decisions go to Codex as one ad-hoc note;
`--undo` removes both."""

from __future__ import annotations

import json
import re

import pytest

from cairn.agents import native_memory as nm
from cairn.codemap.knowledge.load import load_knowledge
from cairn.project import resolve_project
from helpers import make_git_repo

FILES = {"app/billing.py": "def charge_card(amount):\n    return amount > 0\n", "README.md": "# Shop\n"}
SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture
def setup(tmp_path, monkeypatch, run_cli):
    root = make_git_repo(tmp_path / "shop", FILES)
    (root / ".cairn" / "knowledge").mkdir(parents=True)
    claude = tmp_path / "claude-config"
    memdir = claude / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(root)) / "memory"
    memdir.mkdir(parents=True)
    (memdir / "MEMORY.md").write_text("# Memory index\n\n- [billing](billing.md): how refunds are charged\n")
    (memdir / "billing.md").write_text(
        f"# Refunds go through the ledger\n\nNever call charge_card with a negative amount; token {SECRET}\n"
    )
    (memdir / "dup.md").write_text("# Use the staging database for tests\n\nAlready a project note.\n")
    (memdir / "blob.md").write_bytes(b"\0\x01binary")
    other = claude / "projects" / "-somewhere-else" / "memory"
    other.mkdir(parents=True)
    (other / "x.md").write_text("# Another project's secret plan\n")
    codex = tmp_path / "codex-home"
    (codex / "memories").mkdir(parents=True)
    (codex / "memories" / "MEMORY.md").write_text(
        f"v1\n\n# Task Group: invoice export\n\napplies_to: cwd={root}/app\n\n- exports use ISO dates\n\n"
        "# Task Group: unrelated\n\napplies_to: cwd=/home/other/project\n\n- nothing for shop\n\n"
        "# Task Group: no scope\n\n- applies to no cwd\n"
    )
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    r = run_cli(
        "remember", "Use the staging database for tests", "--type", "decision", "--body", "Tests run on staging.",
        "--root", str(root),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    return root, codex, run_cli


def test_import_finds_this_projects_memories_only_redacted_and_read_only(setup, cairn_home):
    root, codex, run_cli = setup
    r = run_cli("memory", "agents", "--import", "claude,codex", "--root", str(root), "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["imported"] == {"claude": 2, "codex": 1}  # MEMORY.md, billing.md; the invoice group
    assert report["duplicates"] == 1  # dup.md: its title is a project note's
    assert any("blob.md: not text" in s for s in report["skipped"])
    project = resolve_project(root)
    agent = [n for n in load_knowledge(project) if n.origin == "agent"]
    assert sorted(n.title for n in agent) == [
        "Memory index",
        "Refunds go through the ledger",
        "Task Group: invoice export",
    ]
    assert all(n.read_only for n in agent)
    text = "".join(p.read_text() for p in nm.agent_memory_dir(project.id).glob("*.md"))
    assert SECRET not in text and "REDACTED" in text
    assert "Another project's" not in text and "nothing for shop" not in text and "applies to no cwd" not in text
    assert not list((root / ".cairn").rglob("*memory-*"))  # nothing written into the repository
    found = run_cli("search", "refund negative amount ledger", "--kind", "knowledge", "--root", str(root), "--json")
    hits = json.loads(found.stdout)["results"]
    assert hits and hits[0]["origin"] == "agent" and "Claude Code's auto memory" in " ".join(hits[0]["why"])


def test_export_writes_one_codex_note_and_undo_removes_everything(setup, cairn_home):
    root, codex, run_cli = setup
    notes = codex / "memories" / "extensions" / "ad_hoc" / "notes"
    r = run_cli("memory", "agents", "--import", "claude", "--export", "codex", "--root", str(root), "--json")
    assert r.returncode == 0, r.stderr
    (note,) = notes.iterdir()
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-cairn-shop\.md", note.name)
    body = note.read_text()
    assert "[decision] Use the staging database for tests" in body and f"cwd={root}" in body
    again = json.loads(run_cli("memory", "agents", "--export", "codex", "--root", str(root), "--json").stdout)
    assert again["exported"] == "unchanged" and len(list(notes.iterdir())) == 1
    project = resolve_project(root)
    assert nm.agent_memory_dir(project.id).is_dir()
    r = run_cli("memory", "agents", "--undo", "--root", str(root))
    assert r.returncode == 0 and "removed" in r.stdout
    assert not list(notes.iterdir()) and not nm.agent_memory_dir(project.id).exists()
    assert not [n for n in load_knowledge(project) if n.origin == "agent"]


def test_imported_memories_stay_out_of_the_committed_block_and_bad_input_is_one_line(setup, cairn_home):
    root, codex, run_cli = setup
    run_cli("memory", "agents", "--import", "claude", "--root", str(root))
    r = run_cli("memory-md", "--root", str(root), "--json")
    assert r.returncode == 0 and "Refunds go through the ledger" not in (root / "CLAUDE.md").read_text()
    bad = run_cli("memory", "agents", "--import", "cursor", "--root", str(root))
    assert bad.returncode != 0 and "unknown agent 'cursor'" in bad.stderr and "Traceback" not in bad.stderr
    (codex / "memories" / "MEMORY.md").write_bytes(b"\xff\xfe\0garbage")  # a memory file of the wrong shape
    r = run_cli("memory", "agents", "--import", "codex", "--root", str(root), "--json")
    assert r.returncode == 0 and any("not text" in s for s in json.loads(r.stdout)["skipped"])
