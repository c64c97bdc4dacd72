"""Editing agents' TOML configs (Codex's config.toml) with tomlkit: the user's comments survive."""

from __future__ import annotations

import tomllib

import pytest

from cairn.agents.connectors.edit import NeedsManual, toml_set_table, toml_set_true

ENTRY = {"command": "/usr/bin/python3", "args": ["-m", "cairn", "serve"], "env": {"CAIRN_PROJECT_DIR": "/p q"}}
TABLE = ("mcp_servers", "cairn")

USER = """\
# Codex settings (mine)
model = "o3"  # the default model
approval_policy = "on-request"

# my own server
[mcp_servers.mine]
command = "my-server"   # keep this spacing
args = [
  "--x",  # why x
]

# profiles below: fast is for small edits
[profiles.fast]
model = "mini"
"""


def _comments(text: str) -> list[str]:
    return [line[line.index("#") :] for line in text.splitlines() if "#" in line]


def test_a_new_table_is_appended_and_every_user_byte_stays() -> None:
    new = toml_set_table(USER, TABLE, ENTRY)
    assert new.startswith(USER)
    assert tomllib.loads(new)["mcp_servers"]["cairn"] == ENTRY
    assert 'env = {CAIRN_PROJECT_DIR = "/p q"}' in new or 'env = { CAIRN_PROJECT_DIR = "/p q" }' in new
    assert toml_set_table(new, TABLE, ENTRY) == new  # idempotent: `cairn connect` twice writes once


def test_replacing_cairns_table_keeps_the_comments_around_it() -> None:
    old = USER.replace(
        "# profiles below",
        '[mcp_servers.cairn]\ncommand = "old"\nargs = []\nstale = 1\n\n'
        "# after cairn's table: the user's\n# profiles below",
    )
    new = toml_set_table(old, TABLE, ENTRY)
    doc = tomllib.loads(new)
    assert doc["mcp_servers"]["cairn"] == ENTRY and doc["mcp_servers"]["mine"]["command"] == "my-server"
    assert doc["profiles"] == {"fast": {"model": "mini"}} and doc["model"] == "o3"
    assert _comments(new) == _comments(old)  # every comment, in its order
    assert "\n\n# after cairn's table: the user's\n# profiles below" in new  # still above [profiles.fast]
    assert new.index("[mcp_servers.cairn]") < new.index("# after cairn's table")
    assert "stale" not in new and 'command = "old"' not in new
    assert new.startswith(old[: old.index("[mcp_servers.cairn]")])  # bytes before cairn's table untouched


def test_the_snippet_for_an_empty_file_is_just_cairns_table() -> None:
    snippet = toml_set_table(None, TABLE, ENTRY)
    assert snippet.startswith("[mcp_servers.cairn]\n")
    assert tomllib.loads(snippet) == {"mcp_servers": {"cairn": ENTRY}}
    assert toml_set_true("", "features", "codex_hooks") == "[features]\ncodex_hooks = true\n"


def test_the_hooks_switch_goes_under_the_users_header_and_keeps_their_comments() -> None:
    user = USER + "\n[features]  # experimental things\n# web search costs money\nweb_search = true  # mine\n"
    new = toml_set_true(user, "features", "codex_hooks")
    assert _comments(new) == _comments(user)
    assert "[features]  # experimental things\ncodex_hooks = true\n# web search costs money\n" in new
    assert tomllib.loads(new)["features"] == {"codex_hooks": True, "web_search": True}
    assert toml_set_true(new, "features", "codex_hooks") == new
    no_newline = toml_set_true('model = "o3"  # last line', "features", "codex_hooks")
    assert no_newline.startswith('model = "o3"  # last line\n') and no_newline.endswith(
        "[features]\ncodex_hooks = true\n"
    )


@pytest.mark.parametrize(
    "text, words",
    [
        ('mcp_servers = { mine = { command = "x" } }\n', "could not be placed"),
        ('[mcp_servers]\ncairn = { command = "x" }\n', "form cairn does not edit"),
        ("model = \n", "does not parse"),
    ],
)
def test_a_form_tomlkit_would_not_edit_cleanly_is_refused(text, words) -> None:
    with pytest.raises(NeedsManual, match=words):
        toml_set_table(text, TABLE, ENTRY)


def test_the_hooks_switch_never_overrules_the_user() -> None:
    with pytest.raises(NeedsManual, match="set to false; cairn does not overrule it"):
        toml_set_true("[features]\ncodex_hooks = false  # off on purpose\n", "features", "codex_hooks")
    with pytest.raises(NeedsManual, match="not a table"):
        toml_set_true('features = "all"\n', "features", "codex_hooks")
    with pytest.raises(NeedsManual, match="form cairn does not edit"):
        toml_set_true("features = { web_search = true }\n", "features", "codex_hooks")
    with pytest.raises(NeedsManual, match="older name of hooks"):  # an older name set to false by the user
        toml_set_true("[features]\ncodex_hooks = false\n", "features", "hooks", ("codex_hooks",))
    both = toml_set_true("[features]\ncodex_hooks = true\n", "features", "hooks", ("codex_hooks",))
    assert tomllib.loads(both)["features"] == {"hooks": True, "codex_hooks": True}


def test_cairn_connect_codex_keeps_the_users_comments_and_backs_the_file_up(tmp_path, monkeypatch, cairn_home) -> None:
    from cairn.cli.main import main
    from helpers import make_git_repo

    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(make_git_repo(tmp_path / "proj", {"main.py": "print(1)\n"}))
    config = home / ".codex" / "config.toml"
    user = USER + "\n[features]  # experimental things\nweb_search = true  # mine\n"
    config.write_text(user)
    assert main(["connect", "codex"]) == 0
    text = config.read_text()
    assert _comments(text) == _comments(user)
    doc = tomllib.loads(text)
    assert doc["features"] == {"hooks": True, "web_search": True}
    assert doc["mcp_servers"]["cairn"]["args"] == ["-m", "cairn", "serve"]
    backups = [p.read_text() for p in (cairn_home / "connect" / "backups").rglob("*") if p.is_file()]
    assert user in backups  # the original is kept before the first edit
    assert main(["connect", "codex", "--undo"]) == 0
    assert config.read_text() == user
