"""`cairn connect AGENT` on temp homes: right files, user entries kept, backups, idempotent, exact undo."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest

from cairn.agents.connectors.agents import AGENTS
from cairn.cli.main import main
from helpers import make_git_repo

USER_JSON = {"mcpServers": {"mine": {"command": "my-server", "args": ["--x"]}}, "theme": "dark"}
USER_TOML = 'model = "o3"\n\n# my own server\n[mcp_servers.mine]\ncommand = "my-server"\nargs = ["--x"]\n'
USER_HOOKS = {"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "echo mine"}]}]}}
USER_AGENTS_MD = "# Team rules\n\nUse tabs.\n"


@pytest.fixture
def env(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    repo = make_git_repo(tmp_path / "proj", {"main.py": "print(1)\n"})
    monkeypatch.chdir(repo)
    return home, repo


def connect(*args: str) -> int:
    return main(["connect", *args])


def snapshot(*roots: Path) -> dict[str, bytes]:
    """Every file under the roots, by path: to compare trees byte for byte."""
    return {str(p): p.read_bytes() for root in roots for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.parts}


def seed_user_files(home: Path, repo: Path) -> None:
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text(USER_TOML)
    (home / ".codex" / "hooks.json").write_text(json.dumps(USER_HOOKS, indent=4))
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text(json.dumps(USER_JSON))
    (home / ".codeium" / "windsurf").mkdir(parents=True)
    (home / ".codeium" / "windsurf" / "mcp_config.json").write_text(json.dumps(USER_JSON, indent=2))
    cline = home / ".config" / "Code" / "User" / "globalStorage" / "saoudrizwan.claude-dev" / "settings"
    if sys.platform == "darwin":
        cline = home / "Library" / "Application Support" / "Code" / "User" / "globalStorage" / \
            "saoudrizwan.claude-dev" / "settings"
    cline.mkdir(parents=True)
    claude = (home / "Library" / "Application Support" / "Claude") if sys.platform == "darwin" \
        else home / ".config" / "Claude"
    claude.mkdir(parents=True)
    (repo / "AGENTS.md").write_text(USER_AGENTS_MD)


def mcp_entry(agent: str, home: Path, repo: Path) -> dict:
    target = next(t for t in AGENTS[agent].targets if t.role == "mcp")
    path = target.path(home, repo)
    doc = tomllib.loads(path.read_text()) if target.fmt == "toml" else json.loads(path.read_text())
    for key in target.keypath:
        doc = doc[key]
    return doc


AUTOMATIC = ["codex", "gemini", "cursor", "windsurf", "cline", "claude-desktop"]


@pytest.mark.parametrize("agent", AUTOMATIC)
def test_connect_writes_keeps_user_entries_is_idempotent_and_undoes_exactly(env, agent, capsys, cairn_home):
    home, repo = env
    seed_user_files(home, repo)
    before = snapshot(home, repo)
    assert connect(agent) == 0
    servers = mcp_entry(agent, home, repo)
    assert servers["cairn"]["command"] == sys.executable
    assert servers["cairn"]["args"] == ["-m", "cairn", "serve"]
    if AGENTS[agent].pin_project:
        assert servers["cairn"]["env"] == {"CAIRN_PROJECT_DIR": str(repo)}
    if "mine" in before_servers(agent):
        assert servers["mine"] == {"command": "my-server", "args": ["--x"]}
    after_first = snapshot(home, repo)
    assert after_first != before
    # every pre-existing file that changed has its original bytes in a backup
    backups = {p.read_bytes() for p in (cairn_home / "connect" / "backups").rglob("*") if p.is_file()}
    for path, data in before.items():
        if after_first.get(path) != data:
            assert data in backups, path
    capsys.readouterr()
    assert connect(agent) == 0
    assert snapshot(home, repo) == after_first
    assert "wrote" not in capsys.readouterr().out
    assert connect(agent, "--undo") == 0
    assert snapshot(home, repo) == before
    assert not (cairn_home / "connect" / f"{agent}.json").exists()


def before_servers(agent: str) -> dict:
    return USER_JSON["mcpServers"] if agent in ("gemini", "windsurf") else \
        {"mine": 1} if agent == "codex" else {}


def test_codex_details(env):
    home, repo = env
    seed_user_files(home, repo)
    assert connect("codex") == 0
    text = (home / ".codex" / "config.toml").read_text()
    assert text.startswith(USER_TOML)  # the user's bytes are untouched, cairn's table appended
    assert tomllib.loads(text)["model"] == "o3"
    hooks = json.loads((home / ".codex" / "hooks.json").read_text())["hooks"]
    assert hooks["SessionStart"][0] == USER_HOOKS["hooks"]["SessionStart"][0]
    assert "-m cairn hook SessionStart" in hooks["SessionStart"][1]["hooks"][0]["command"]
    assert "-m cairn hook UserPromptSubmit" in hooks["UserPromptSubmit"][0]["hooks"][0]["command"]
    agents_md = (repo / "AGENTS.md").read_text()
    assert agents_md.startswith(USER_AGENTS_MD)
    assert agents_md.count("<!-- cairn:agent:start -->") == 1 and "`context`" in agents_md


def test_rerun_replaces_only_cairns_block(env):
    home, repo = env
    (repo / "GEMINI.md").write_text("Intro.\n")
    (home / ".gemini").mkdir()
    assert connect("gemini") == 0
    text = (repo / "GEMINI.md").read_text()
    stale = text.replace("`map`", "`old-map`") + "\nLater user note.\n"
    (repo / "GEMINI.md").write_text(stale)
    assert connect("gemini") == 0
    again = (repo / "GEMINI.md").read_text()
    assert "old-map" not in again and "`map`" in again
    assert again.startswith("Intro.\n") and again.endswith("Later user note.\n")


def test_undo_keeps_later_user_edits(env):
    home, repo = env
    seed_user_files(home, repo)
    assert connect("codex") == 0
    (repo / "AGENTS.md").write_text((repo / "AGENTS.md").read_text() + "\nNew team rule.\n")
    config = home / ".codex" / "config.toml"
    config.write_text(config.read_text() + '\n[profiles.fast]\nmodel = "mini"\n')
    edited = config.read_bytes()
    assert connect("codex", "--undo") == 0
    agents_md = (repo / "AGENTS.md").read_text()
    assert "cairn:agent" not in agents_md and "Use tabs." in agents_md and "New team rule." in agents_md
    assert config.read_bytes() == edited  # changed since: kept, never silently reverted


def test_printed_agents_write_nothing(env, capsys):
    home, repo = env
    zed = home / ".config" / "zed"
    zed.mkdir(parents=True)
    (zed / "settings.json").write_text('// Zed settings\n{\n  "theme": "One Dark",\n}\n')
    before = snapshot(home, repo)
    for agent in ("zed", "opencode", "continue", "goose"):
        capsys.readouterr()
        assert connect(agent) == 0
        out = capsys.readouterr().out
        assert "paste into" in out and "serve" in out, agent
    assert snapshot(home, repo) == before
    out_json = capsys.readouterr()
    assert out_json.err == ""


def test_vscode_prints_mcp_and_writes_copilot_instructions(env, capsys):
    home, repo = env
    assert connect("vscode") == 0
    out = capsys.readouterr().out
    assert '"servers"' in out and '"type": "stdio"' in out
    assert not (repo / ".vscode").exists()
    assert "cairn:agent:start" in (repo / ".github" / "copilot-instructions.md").read_text()
    assert connect("vscode", "--undo") == 0
    assert not (repo / ".github").exists()


def test_json_with_comments_is_printed_not_rewritten(env, capsys):
    home, repo = env
    (home / ".gemini").mkdir()
    original = '{\n  // my comment\n  "mcpServers": {}\n}\n'
    (home / ".gemini" / "settings.json").write_text(original)
    assert connect("gemini") == 0
    assert (home / ".gemini" / "settings.json").read_text() == original
    assert "paste into" in capsys.readouterr().out


def test_missing_agent_folder_prints_instead_of_creating(env, capsys):
    home, repo = env
    assert connect("claude-desktop") == 0
    assert "is Claude Desktop installed?" in capsys.readouterr().out
    assert not any(home.rglob("*.json"))


def test_cursor_rule_file_and_dry_run(env, capsys):
    home, repo = env
    assert connect("cursor", "--dry-run") == 0
    out = capsys.readouterr().out
    assert "would write" in out and "alwaysApply: true" in out
    assert not (repo / ".cursor").exists()
    assert connect("cursor") == 0
    rule = (repo / ".cursor" / "rules" / "cairn.mdc").read_text()
    assert rule.startswith("---\n") and "alwaysApply: true" in rule
    assert json.loads((repo / ".cursor" / "mcp.json").read_text())["mcpServers"]["cairn"]["env"] == \
        {"CAIRN_PROJECT_DIR": str(repo)}
    assert connect("cursor", "--undo") == 0
    assert not (repo / ".cursor").exists()


def test_list_and_bad_input(env, capsys):
    assert connect("--list") == 0
    out = capsys.readouterr().out
    for name in AGENTS:
        assert name in out
    assert connect("--list", "--json") == 0
    rows = json.loads(capsys.readouterr().out)["agents"]
    assert {r["agent"] for r in rows} == set(AGENTS) and len(rows) == 11
    assert connect("nosuchagent") == 1
    assert "unknown agent" in capsys.readouterr().err
    assert connect() == 1
    assert connect("codex", "--undo") == 0
    assert "nothing to undo" in capsys.readouterr().out


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_every_snippet_parses_in_its_format(env, agent, capsys):
    import yaml

    assert connect(agent, "--dry-run", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["done"] == []
    targets = {t.role: t for t in AGENTS[agent].targets}
    for step in report["steps"]:
        fmt, paste = targets[step["role"]].fmt, step["paste"]
        if fmt in ("json", "jsonc", "hooks-json"):
            doc = json.loads(paste)
        elif fmt == "toml":
            doc = tomllib.loads(paste)
        elif fmt == "yaml":
            doc = yaml.safe_load(paste)
        else:
            assert "<!-- cairn:agent:start -->" in paste or "`context`" in paste
            continue
        assert "serve" in json.dumps(doc) or "cairn hook" in json.dumps(doc), (agent, paste)
