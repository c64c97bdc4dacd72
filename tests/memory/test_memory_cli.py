"""The real CLI in a subprocess: remember (args and JSON stdin), read, list, doctor, memory-md."""

from __future__ import annotations

import json

from memory_helpers import knowledge_files, make_project


def test_remember_read_list_end_to_end(tmp_path, run_cli) -> None:
    project = make_project(tmp_path / "shop")
    root = project.root
    r = run_cli(
        "remember",
        "Coupon applied twice",
        "--type",
        "gotcha",
        "--body",
        "Retry re-applies it.",
        "--file",
        "src/checkout.py",
        "--symbol",
        "apply_coupon",
        "--link",
        "caused-by:Checkout retry",
        "--tag",
        "pinned",
        "--json",
        cwd=root,
    )
    assert r.returncode == 0, r.stderr
    [created] = json.loads(r.stdout)["results"]
    assert created["action"] == "created" and created["path"].startswith(".cairn/knowledge/")
    stdin = json.dumps(
        [
            {"type": "concept", "title": "Checkout retry", "body": "Payment is retried 3 times."},
            {"type": "gotcha", "title": "Coupons applied twice", "body": "Also on refresh."},
        ]
    )
    r = run_cli("remember", "--json", cwd=root, input=stdin)
    assert r.returncode == 0, r.stderr
    actions = [(x["action"], x["id"]) for x in json.loads(r.stdout)["results"]]
    assert actions[1] == ("merged", created["id"]) and actions[0][0] == "created"
    (root / "src/checkout.py").write_text("changed\n")
    r = run_cli("read", created["id"], cwd=root / "src")
    assert r.returncode == 0, r.stderr
    assert "(changed since this note: src/checkout.py)" in r.stdout
    assert "caused-by: Checkout retry" in r.stdout and "Also on refresh." in r.stdout
    r = run_cli("read", "checkout retry", "--json", cwd=root)
    data = json.loads(r.stdout)
    assert data["type"] == "concept" and data["linked_from"][0]["source"] == created["id"]
    r = run_cli("memory", "list", "--type", "gotcha", "--json", cwd=root)
    assert [n["id"] for n in json.loads(r.stdout)["nodes"]] == [created["id"]]
    r = run_cli("memory", "doctor", "--json", cwd=root)
    report = json.loads(r.stdout)
    assert [s["id"] for s in report["stale"]] == [created["id"]] and report["malformed"] == []
    assert r.returncode == 1  # problems found: a script can act on the exit code
    assert run_cli("memory", "doctor", cwd=root).returncode == 1


def test_supersede_and_personal_vault(tmp_path, run_cli, cairn_home) -> None:
    root = make_project(tmp_path / "shop").root
    assert run_cli("remember", "Use Postgres", "-t", "decision", cwd=root).returncode == 0
    r = run_cli("remember", "Use SQLite", "-t", "decision", "--supersedes", "Use Postgres", cwd=root)
    assert r.returncode == 0 and r.stdout.startswith("superseded ")
    r = run_cli("read", "Use Postgres", cwd=root)
    assert "superseded by use-sqlite-" in r.stdout
    r = run_cli("remember", "Prefer small commits", "-t", "preference", "--personal", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert list((cairn_home / "personal").glob("prefer-small-commits-*.md"))
    other = make_project(tmp_path / "other").root
    r = run_cli("memory", "list", "--json", cwd=other)
    assert [(n["title"], n["origin"]) for n in json.loads(r.stdout)["nodes"]] == [("Prefer small commits", "personal")]


def test_memory_md_cli_idempotent(tmp_path, run_cli) -> None:
    root = make_project(tmp_path / "shop").root
    run_cli("remember", "Coupon applied twice", "-t", "gotcha", "-b", "Guard it.", cwd=root)
    r = run_cli("memory-md", "--bytes", "2000", cwd=root)
    assert r.returncode == 0 and r.stdout.startswith("updated ")
    first = (root / "CLAUDE.md").read_bytes()
    r = run_cli("memory-md", "--bytes", "2000", "--json", cwd=root)
    assert json.loads(r.stdout)["changed"] is False and (root / "CLAUDE.md").read_bytes() == first


def test_bad_input_is_one_clear_line(tmp_path, run_cli) -> None:
    root = make_project(tmp_path / "shop").root
    plain = make_project(tmp_path / "plain", opted_in=False).root
    cases = [
        (("remember", "x", "--link", "caused-by:"), None, root, "target is empty"),
        (("remember", "--json"), "{not json", root, "not valid JSON"),
        (("remember", "--json"), '{"title": "x", "type": "rumour"}', root, "type 'rumour'"),
        (("remember", "--json"), '{"title": "x", "colour": 1}', root, "unknown key"),
        (("remember", "--json"), "[]", root, "no facts"),
        (("remember",), None, root, "give a TITLE"),
        (("remember", "x", "--supersedes", "nothing like it"), None, root, "no node with that id"),
        (("remember", "x"), None, plain, "cairn init"),
        (("read", "nope"), None, root, "no knowledge node"),
    ]
    for args, stdin, cwd, fragment in cases:
        r = run_cli(*args, cwd=cwd, input=stdin)
        assert r.returncode == 1, (args, r.stdout, r.stderr)
        assert r.stderr.count("\n") == 1 and fragment in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
    assert knowledge_files(root) == [] and not (plain / ".cairn").exists()


def test_staleness_is_symbol_precise_and_ignores_comments_through_the_cli(tmp_path, run_cli) -> None:
    root = make_project(tmp_path / "shop").root
    assert run_cli("index", cwd=root).returncode == 0
    r = run_cli(
        "remember",
        "Coupons replace the discount",
        "-t",
        "gotcha",
        "--file",
        "src/checkout.py",
        "--symbol",
        "apply_coupon",
        "--json",
        cwd=root,
    )
    node_id = json.loads(r.stdout)["results"][0]["id"]
    path = root / "src/checkout.py"

    def stale() -> list[str]:
        return json.loads(run_cli("read", node_id, "--json", cwd=root).stdout)["stale"]

    path.write_text(
        path.read_text().replace(
            "return sum(line.price for line in order.lines)",
            "return sum(line.price * line.qty for line in order.lines)",
        )
    )
    assert stale() == []  # another function of the cited file changed
    path.write_text(
        path.read_text().replace(
            "    order.discount = coupon.amount\n",
            "    # the coupon replaces any earlier discount\n    order.discount = coupon.amount\n",
        )
    )
    assert stale() == []  # a comment inside the cited function
    assert run_cli("memory", "doctor", cwd=root).returncode == 0
    path.write_text(path.read_text().replace("order.discount = coupon.amount", "order.discount += coupon.amount"))
    assert stale() == ["src/checkout.py"]
    assert run_cli("memory", "doctor", cwd=root).returncode == 1
