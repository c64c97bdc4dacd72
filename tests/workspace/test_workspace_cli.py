"""`cairn workspace` and the commands that answer across it: search, explain, path, map."""

from __future__ import annotations

import json
import os
import shutil

from workspace_trees import ROUTER, SERVICE

from helpers import make_git_repo, write_tree


def test_add_list_remove(trio, run_cli):
    r = run_cli("workspace", "list", "--json")
    data = json.loads(r.stdout)
    assert [(m["name"], m["state"]) for m in data["members"]] == [("billing", "ok"), ("router", "ok")]
    assert data["links"][0]["from"] == "billing" and data["links"][0]["to"] == "router"
    r = run_cli("workspace", "remove", "router")
    assert r.returncode == 0 and "removed" in r.stdout
    data = json.loads(run_cli("workspace", "list", "--json").stdout)
    assert [m["name"] for m in data["members"]] == ["billing"]


def test_search_answers_across_members_labelled(trio, run_cli):
    r = run_cli("search", "throttle concurrent requests", "--json", cwd=trio["billing"])
    assert r.returncode == 0, r.stderr
    results = json.loads(r.stdout)["results"]
    assert results[0]["path"] == "router:middleware/throttle.go"
    assert results[0]["project"] == "router"
    r = run_cli("search", "throttle concurrent requests", "--json", "--no-workspace", cwd=trio["billing"])
    assert all(not row["path"].startswith("router:") for row in json.loads(r.stdout)["results"])


def test_isolation_a_project_outside_is_never_read(trio, run_cli):
    # the project's own committed config asks for the outside folder: it is dropped (USER_ONLY)
    write_tree(trio["billing"], {".cairn/config.toml": f'[workspace]\nroots = ["{trio["outside"]}"]\n'})
    r = run_cli("search", "zanzibar quokka protocol", "--json", cwd=trio["billing"])
    assert r.returncode == 0, r.stderr
    paths = [row["path"] for row in json.loads(r.stdout)["results"]]
    assert not any("secret_plans" in p for p in paths), paths
    data = json.loads(run_cli("workspace", "list", "--json").stdout)
    assert str(trio["outside"]) not in [m["root"] for m in data["members"]]
    from cairn.config import project_suggestions

    assert "workspace" in project_suggestions(trio["billing"])  # shown by `cairn doctor`, never applied
    # from the outside project nothing of the workspace is searched either
    r = run_cli("search", "throttle concurrent requests", "--json", cwd=trio["outside"])
    assert all(":" not in row["path"] for row in json.loads(r.stdout)["results"])


def test_explain_and_path_cross_the_go_import(trio, run_cli):
    r = run_cli("explain", "router:middleware/throttle.go", cwd=trio["billing"])
    assert r.returncode == 0, r.stderr
    assert "used by other projects" in r.stdout
    assert "billing:server.go" in r.stdout and "github.com/acme/router/v2/middleware" in r.stdout
    r = run_cli("path", "server.go", "router:middleware/throttle.go", "--json", cwd=trio["billing"])
    res = json.loads(r.stdout)
    assert res["direction"] == "forward", res
    assert res["paths"][0][0] == "billing:server.go" and res["paths"][0][-1].endswith("router:middleware/throttle.go")
    assert res["crossing"]["kind"] == "go module"


def test_map_lists_members_and_links(trio, run_cli):
    r = run_cli("map", cwd=trio["billing"])
    assert r.returncode == 0, r.stderr
    assert "## Workspace" in r.stdout and "billing -> router" in r.stdout


def test_member_gone_is_one_line_and_the_rest_answers(trio, run_cli):
    shutil.rmtree(trio["router"])
    r = run_cli("search", "invoice total", "--json", cwd=trio["billing"])
    assert r.returncode == 0, r.stderr
    assert "router" in r.stderr and "is gone" in r.stderr
    assert any(row["path"].endswith("invoice/total.go") for row in json.loads(r.stdout)["results"])
    assert "missing" in run_cli("workspace", "list", "--json").stdout


def test_unindexed_member_is_named_and_skipped(trio, run_cli, tmp_path):
    fresh = make_git_repo(tmp_path / "ledger", {"ledger.py": "def post_entry():\n    pass\n"})
    r = run_cli("workspace", "add", "--no-index", str(fresh))
    assert r.returncode == 0, r.stderr
    r = run_cli("search", "post entry", "--json", cwd=trio["billing"])
    assert r.returncode == 0
    assert "ledger is not indexed yet" in r.stderr and "cairn workspace index" in r.stderr
    r = run_cli("workspace", "index")
    assert r.returncode == 0 and f"indexed {fresh}" in r.stdout
    r = run_cli("search", "post entry", "--json", cwd=trio["billing"])
    assert any(row["path"] == "ledger:ledger.py" for row in json.loads(r.stdout)["results"])


def test_symlink_loop_nested_and_duplicate_entries_refused(trio, run_cli, tmp_path):
    loop = tmp_path / "loop"
    os.symlink(loop, loop)
    r = run_cli("workspace", "add", str(loop))
    assert r.returncode == 1 and "symlink loop" in r.stderr
    r = run_cli("workspace", "add", str(trio["router"] / "middleware"))
    assert "refused: inside the entry" in r.stdout
    link = tmp_path / "router-link"
    os.symlink(trio["router"], link)
    r = run_cli("workspace", "add", str(link))
    assert "already in the workspace" in r.stdout
    r = run_cli("workspace", "add", str(tmp_path))
    assert "refused: around the entry" in r.stdout
    data = json.loads(run_cli("workspace", "list", "--json").stdout)
    assert len(data["members"]) == 2


def test_hand_edited_file_with_nested_entries_counts_each_folder_once(trio, run_cli, cairn_home):
    from cairn.workspace.registry import read_entries

    (cairn_home / "workspace.toml").write_text(
        f'roots = ["{trio["router"] / "middleware"}", "{trio["router"]}", "{trio["router"]}", "{trio["billing"]}"]\n'
    )
    entries = read_entries()
    assert entries.roots == [trio["router"], trio["billing"]]
    assert len(entries.problems) == 2


def test_a_damaged_member_index_is_one_line_and_the_rest_answers(trio, run_cli):
    from cairn.project import project_for_root

    project_for_root(trio["router"]).index_path().write_bytes(b"not a database at all" * 100)
    r = run_cli("search", "invoice total", "--json", cwd=trio["billing"])
    assert r.returncode == 0, r.stderr
    assert "router has nothing indexed" in r.stderr
    assert any(row["path"].endswith("invoice/total.go") for row in json.loads(r.stdout)["results"])
    r = run_cli("map", cwd=trio["billing"])
    assert r.returncode == 0 and "## Workspace" in r.stdout


def test_a_broken_workspace_file_leaves_the_project_searchable(trio, run_cli, cairn_home):
    (cairn_home / "workspace.toml").write_text("roots = [\n")
    r = run_cli("search", "invoice total", "--json", cwd=trio["billing"])
    assert r.returncode == 0
    assert "workspace.toml" in r.stderr and "this project only" in r.stderr
    assert any(row["path"] == "invoice/total.go" for row in json.loads(r.stdout)["results"])
    r = run_cli("workspace", "list")
    assert r.returncode == 1 and "workspace.toml" in r.stderr


def test_add_refuses_a_folder_that_is_not_there_or_too_wide(trio, run_cli, tmp_path):
    r = run_cli("workspace", "add", str(tmp_path / "nowhere"))
    assert r.returncode == 1 and "no such folder" in r.stderr
    r = run_cli("workspace", "add", "/")
    assert r.returncode == 1 and "too wide" in r.stderr


def test_add_refuses_a_folder_whose_name_is_not_utf8_in_one_line(trio, run_cli, tmp_path):
    odd = os.fsdecode(bytes(tmp_path) + b"/odd\xff")  # a name from another system's encoding
    os.mkdir(odd)
    before = run_cli("workspace", "list", "--json").stdout
    r = run_cli("workspace", "add", odd, "--no-index")
    assert r.returncode == 1 and "not UTF-8" in r.stderr and "internal error" not in r.stderr, r.stderr
    assert run_cli("workspace", "list", "--json").stdout == before


def test_two_adds_at_once_keep_both_folders(tmp_path, cairn_home, monkeypatch):
    """`workspace add` reads the file, then writes it whole: two at once (two terminals, an agent's
    script) must not lose one of the folders."""
    import threading
    import time

    from cairn.workspace import registry

    real = registry.read_entries

    def slow() -> registry.Entries:
        out = real()
        time.sleep(0.3)  # both have read the file before either writes it
        return out

    monkeypatch.setattr(registry, "read_entries", slow)
    folders = [make_git_repo(tmp_path / name, SERVICE) for name in ("one", "two")]
    workers = [threading.Thread(target=registry.add, args=([str(f)],)) for f in folders]
    for w in workers:
        w.start()
    for w in workers:
        w.join(30)
    assert sorted(real().roots) == sorted(f.resolve() for f in folders)


def test_workspace_roots_in_the_users_own_config(tmp_path, run_cli, cairn_home):
    billing = make_git_repo(tmp_path / "billing", SERVICE)
    router = make_git_repo(tmp_path / "router", ROUTER)
    for root in (billing, router):
        assert run_cli("index", "--root", str(root)).returncode == 0
    (cairn_home / "config.toml").write_text(f'[workspace]\nroots = ["{billing}", "{router}"]\n')
    r = run_cli("search", "throttle concurrent requests", "--json", cwd=billing)
    assert json.loads(r.stdout)["results"][0]["path"] == "router:middleware/throttle.go"
    r = run_cli("workspace", "remove", str(router))
    assert r.returncode == 1 and "config.toml" in r.stderr


def test_knowledge_stays_in_its_project_and_is_found_from_the_workspace(trio, run_cli):
    assert run_cli("init", cwd=trio["router"]).returncode == 0
    r = run_cli(
        "remember",
        "Throttle rejects past the limit instead of queueing",
        "--type",
        "decision",
        "--body",
        "Queueing hid overload from callers; a 429 tells them to back off.",
        "--file",
        "middleware/throttle.go",
        cwd=trio["router"],
    )
    assert r.returncode == 0, r.stderr
    assert run_cli("workspace", "index").returncode == 0
    r = run_cli(
        "search", "why does throttle reject instead of queueing", "--kind", "knowledge", "--json", cwd=trio["billing"]
    )
    assert r.returncode == 0, r.stderr
    first = json.loads(r.stdout)["results"][0]
    assert first["project"] == "router" and first["path"].startswith("router:.cairn/knowledge/")
    assert not (trio["billing"] / ".cairn" / "knowledge").exists()  # nothing copied into the home project
