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
    return {
        str(p): p.read_bytes()
        for root in roots
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.parts
    }


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
        cline = (
            home
            / "Library"
            / "Application Support"
            / "Code"
            / "User"
            / "globalStorage"
            / "saoudrizwan.claude-dev"
            / "settings"
        )
    cline.mkdir(parents=True)
    claude = (
        (home / "Library" / "Application Support" / "Claude")
        if sys.platform == "darwin"
        else home / ".config" / "Claude"
    )
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
    return USER_JSON["mcpServers"] if agent in ("gemini", "windsurf") else {"mine": 1} if agent == "codex" else {}


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
    assert tomllib.loads(text)["features"] == {"hooks": True}  # hooks.json is dead without it
    assert text.endswith("\n[features]\nhooks = true\n")
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
    assert json.loads((repo / ".cursor" / "mcp.json").read_text())["mcpServers"]["cairn"]["env"] == {
        "CAIRN_PROJECT_DIR": str(repo)
    }
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
    for step in report["steps"]:
        fmt, paste = step["format"], step["paste"]
        if paste == "[features]\nhooks = true\n":  # Codex's hooks switch, printed with its hooks
            assert agent == "codex" and tomllib.loads(paste) == {"features": {"hooks": True}}
            continue
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


# --- one journal per agent and project: undo in B never touches A -----------------------------


@pytest.fixture
def two_projects(env, tmp_path):
    """Project A (the cwd of `env`) and project B, both with a user AGENTS.md, and Codex installed."""
    home, a = env
    seed_user_files(home, a)
    b = make_git_repo(tmp_path / "proj-b", {"lib.py": "x = 1\n"})
    (b / "AGENTS.md").write_text("# B rules\n")
    return home, a, b


def test_undo_in_one_project_leaves_the_other_projects_files(two_projects, cairn_home, capsys):
    home, a, b = two_projects
    before_a, before_b, before_home = snapshot(a), snapshot(b), snapshot(home)
    for agent in ("codex", "cursor"):
        assert connect(agent, "--root", str(a)) == 0
    after_a = snapshot(a)
    for agent in ("codex", "cursor"):
        assert connect(agent, "--root", str(b)) == 0
    assert snapshot(a) == after_a and snapshot(b) != before_b
    capsys.readouterr()
    for agent in ("codex", "cursor"):
        assert connect(agent, "--undo", "--root", str(b)) == 0
    out = capsys.readouterr().out
    assert snapshot(b) == before_b  # B's AGENTS.md and .cursor/ back, byte for byte
    assert snapshot(a) == after_a  # A's AGENTS.md block and .cursor/ files untouched
    assert "cairn:agent:start" in (a / "AGENTS.md").read_text()
    # Codex's config.toml and hooks.json are shared by every project: restored from any of them
    assert snapshot(home) == before_home and f"stays connected in {a}" in out
    assert connect("cursor", "--undo", "--root", str(b)) == 0
    assert f"nothing to undo for cursor in {b} (connected in: {a}" in capsys.readouterr().out
    for agent in ("codex", "cursor"):
        assert connect(agent, "--undo", "--root", str(a)) == 0
    assert snapshot(a) == before_a and not (a / ".cursor").exists()
    assert not list((cairn_home / "connect").glob("*.json"))


def windsurf_config(home: Path) -> Path:
    return home / ".codeium" / "windsurf" / "mcp_config.json"


def pinned_to(home: Path) -> str:
    return json.loads(windsurf_config(home).read_text())["mcpServers"]["cairn"]["env"]["CAIRN_PROJECT_DIR"]


def test_a_pinned_shared_entry_is_taken_back_only_by_its_project(two_projects, cairn_home, capsys):
    home, a, b = two_projects
    original = windsurf_config(home).read_bytes()
    assert connect("windsurf", "--root", str(a)) == 0
    pinned_a = windsurf_config(home).read_bytes()
    assert connect("windsurf", "--root", str(b)) == 0
    assert pinned_to(home) == str(b)
    capsys.readouterr()
    # undo in B puts back exactly what B's connect replaced: A's entry
    assert connect("windsurf", "--undo", "--root", str(b)) == 0
    assert windsurf_config(home).read_bytes() == pinned_a
    assert f"serves {a} again" in capsys.readouterr().out
    assert connect("windsurf", "--undo", "--root", str(b)) == 0
    assert windsurf_config(home).read_bytes() == pinned_a  # nothing of B's is left to take back
    assert connect("windsurf", "--undo", "--root", str(a)) == 0
    assert windsurf_config(home).read_bytes() == original
    assert not (cairn_home / "connect" / "windsurf.json").exists()
    # the other order: A's undo while B's entry is on top leaves the file serving B
    assert connect("windsurf", "--root", str(a)) == 0
    assert connect("windsurf", "--root", str(b)) == 0
    pinned_b = windsurf_config(home).read_bytes()
    assert connect("windsurf", "--undo", "--root", str(a)) == 0
    assert windsurf_config(home).read_bytes() == pinned_b and pinned_to(home) == str(b)
    assert connect("windsurf", "--undo", "--root", str(b)) == 0
    assert windsurf_config(home).read_bytes() == original
    assert not list((cairn_home / "connect" / "backups").rglob("*.json"))


def test_a_version_1_journal_is_still_undone_per_project(two_projects, cairn_home):
    """A journal written before per-project keys (one flat `files` list) is read and migrated."""
    home, a, b = two_projects
    before_a, before_b, before_home = snapshot(a), snapshot(b), snapshot(home)
    assert connect("codex", "--root", str(a)) == 0
    after_a = snapshot(a)
    assert connect("codex", "--root", str(b)) == 0
    path = cairn_home / "connect" / "codex.json"
    v2 = json.loads(path.read_text())
    flat = {**v2["user"], **{k: r for files in v2["projects"].values() for k, r in files.items()}}
    path.write_text(json.dumps({"files": flat}, indent=1))
    assert connect("codex", "--undo", "--root", str(b)) == 0
    assert snapshot(b) == before_b and snapshot(a) == after_a and snapshot(home) == before_home
    assert json.loads(path.read_text())["version"] == 2  # rewritten in the new layout
    assert connect("codex", "--undo", "--root", str(a)) == 0
    assert snapshot(a) == before_a and not path.exists()


# --- Codex hooks need [features] hooks = true (codex_hooks before Codex 0.171) -------------------------------------------


def test_codex_hooks_switch_goes_inside_the_users_features_table(env, capsys):
    home, repo = env
    seed_user_files(home, repo)
    config = home / ".codex" / "config.toml"
    user = USER_TOML + '\n[features]\nweb_search = true  # mine\n\n[profiles.fast]\nmodel = "mini"\n'
    config.write_text(user)
    assert connect("codex") == 0
    text = config.read_text()
    doc = tomllib.loads(text)
    assert doc["features"] == {"web_search": True, "hooks": True}
    assert doc["profiles"] == {"fast": {"model": "mini"}}
    assert "[features]\nhooks = true\nweb_search = true  # mine\n" in text
    assert text.count("[features]") == 1
    assert connect("codex") == 0 and config.read_text() == text  # idempotent
    assert connect("codex", "--undo") == 0
    assert config.read_text() == user


def test_codex_hooks_switch_set_false_by_the_user_is_printed_not_overruled(env, capsys):
    home, repo = env
    seed_user_files(home, repo)
    config = home / ".codex" / "config.toml"
    for off in ("hooks", "codex_hooks"):  # the switch, or its older name, turned off on purpose
        config.write_text(USER_TOML + f"\n[features]\n{off} = false\n")
        assert connect("codex") == 0
        assert tomllib.loads(config.read_text())["features"] == {off: False}
        out = capsys.readouterr().out
        assert "paste into" in out and "hooks = true" in out and "set to false" in out
        assert connect("codex", "--undo") == 0


def test_codex_hooks_switch_written_by_its_older_name_is_kept(env, capsys):
    """An older cairn (or the user) wrote `codex_hooks = true`: Codex 0.171 still reads it, and
    cairn adds the current name beside it, changing nothing else."""
    home, repo = env
    seed_user_files(home, repo)
    config = home / ".codex" / "config.toml"
    user = USER_TOML + "\n[features]\ncodex_hooks = true\n"
    config.write_text(user)
    assert connect("codex") == 0
    assert tomllib.loads(config.read_text())["features"] == {"hooks": True, "codex_hooks": True}


def test_a_version_1_pinned_entry_stays_undoable_under_a_new_projects_entry(two_projects, cairn_home):
    home, a, b = two_projects
    original = windsurf_config(home).read_bytes()
    assert connect("windsurf", "--root", str(a)) == 0
    pinned_a = windsurf_config(home).read_bytes()
    path = cairn_home / "connect" / "windsurf.json"
    v2 = json.loads(path.read_text())
    path.write_text(
        json.dumps({"files": {k: {f: v for f, v in r.items() if f != "layers"} for k, r in v2["user"].items()}})
    )
    assert connect("windsurf", "--root", str(b)) == 0
    assert connect("windsurf", "--undo", "--root", str(b)) == 0
    assert windsurf_config(home).read_bytes() == pinned_a
    assert connect("windsurf", "--undo", "--root", str(b)) == 0  # no project owns the old entry: any undo
    assert windsurf_config(home).read_bytes() == original and not path.exists()


def test_yaml_snippets_parse_back_to_the_server_command(env, monkeypatch):
    import yaml

    from cairn.agents.connectors import agents as ag

    monkeypatch.setattr(ag, "server_command", lambda: ["/opt/my tools: x #1/python", "-m", "cairn", "serve"])
    repo = env[1]
    for name in ("continue", "goose"):
        agent = ag.AGENTS[name]
        doc = yaml.safe_load(ag.yaml_snippet(agent, repo))
        server = doc["extensions"]["cairn"] if name == "goose" else doc["mcpServers"][0]
        cmd = [server["cmd"] if name == "goose" else server["command"], *server["args"]]
        assert cmd == ["/opt/my tools: x #1/python", "-m", "cairn", "serve"], name
