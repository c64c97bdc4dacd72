"""One renderer of a knowledge node: `cairn read` and the MCP `read` tool print the same text."""

from __future__ import annotations

import json

import pytest
from memory_helpers import make_project

from cairn.errors import CairnError
from cairn.memory import load_knowledge
from cairn.memory.node_view import node_view


def _mcp_read(root, ref: str) -> str:
    from cairn.agents.mcp.guard import Scope
    from cairn.agents.mcp.tools import CairnTools

    return CairnTools(Scope(str(root))).read(id=ref)


@pytest.fixture
def shop(tmp_path, run_cli):
    project = make_project(tmp_path / "shop")
    root = project.root
    for args in (
        ("Use Postgres", "-t", "decision", "-b", "Postgres for orders."),
        ("Use MySQL", "-t", "decision", "--supersedes", "Use Postgres", "-b", "Ops asked."),
        ("Use SQLite", "-t", "decision", "--supersedes", "Use MySQL", "-b", "One file, no server."),
        ("Checkout retry", "-t", "concept", "-b", "Payment is retried 3 times."),
        (
            "Coupon applied twice",
            "-t",
            "gotcha",
            "-b",
            "Retry re-applies it.",
            "--file",
            "src/checkout.py",
            "--symbol",
            "apply_coupon",
            "--tag",
            "pinned",
            "--link",
            "caused-by:Checkout retry",
            "--link",
            "relates-to:Nothing written yet",
        ),
    ):
        r = run_cli("remember", *args, cwd=root)
        assert r.returncode == 0, r.stderr
    (root / "src/checkout.py").write_text("changed\n")
    return project


@pytest.mark.parametrize("ref", ["Coupon applied twice", "Checkout retry", "Use Postgres", "Use MySQL", "Use SQLite"])
def test_cli_and_mcp_read_print_the_one_rendering(shop, run_cli, ref) -> None:
    expected = node_view(shop, load_knowledge(shop), ref).text()
    cli = run_cli("read", ref, cwd=shop.root)
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout == expected
    assert _mcp_read(shop.root, ref) == expected


def test_the_rendering_says_what_the_graph_knows(shop, run_cli) -> None:
    text = node_view(shop, load_knowledge(shop), "Coupon applied twice").text()
    lines = text.splitlines()
    assert lines[0] == "# Coupon applied twice" and " · gotcha · " in lines[1]
    assert "files: src/checkout.py" in lines and "(changed since this note: src/checkout.py)" in lines
    assert "symbols: apply_coupon" in lines and "tags: pinned" in lines
    assert "Retry re-applies it." in lines
    assert any(ln.startswith("- caused-by: Checkout retry (checkout-retry-") for ln in lines)
    assert any("(pending: no such node yet)" in ln for ln in lines)
    back = node_view(shop, load_knowledge(shop), "Checkout retry").text()
    assert "- caused-by (from): Coupon applied twice (coupon-applied-twice-" in back
    old = node_view(shop, load_knowledge(shop), "Use Postgres").text()
    assert "; live version: use-sqlite-" in old and "superseded by use-mysql-" in old and '"Use MySQL"' in old
    data = json.loads(run_cli("read", "Use Postgres", "--json", cwd=shop.root).stdout)
    assert data["live_version"].startswith("use-sqlite-") and len(data["chain"]) == 3


def test_an_unknown_node_names_where_ids_are_listed(shop) -> None:
    with pytest.raises(CairnError, match=r"no knowledge node 'nope' \(see `cairn memory list`\)"):
        node_view(shop, load_knowledge(shop), "nope")
    with pytest.raises(CairnError, match=r"no knowledge node 'nope' \(search_knowledge lists ids\)"):
        _mcp_read(shop.root, "nope")


def test_inline_links_and_backlinks_are_listed_in_text_and_json(shop, run_cli) -> None:
    """A `[[link]]` written in a note's text is a link of that note and a backlink of its target
    (the graph counts it: memory/graph.degree), in `cairn read` and in `--json`."""
    r = run_cli(
        "remember",
        "Refund flow",
        "-t",
        "concept",
        "-b",
        "Refunds go through [[Checkout retry]] first; see [[Use SQLite|the store]] and [[Not yet written]].",
        cwd=shop.root,
    )
    assert r.returncode == 0, r.stderr
    text = run_cli("read", "Refund flow", cwd=shop.root).stdout.splitlines()
    assert any(ln.startswith("- mentions: Checkout retry (checkout-retry-") for ln in text), text
    assert any(ln.startswith("- mentions: Use SQLite (use-sqlite-") for ln in text), text
    assert "- mentions: Not yet written (pending: no such node yet)" in text
    back = run_cli("read", "Checkout retry", cwd=shop.root).stdout
    assert "- mentions (from): Refund flow (refund-flow-" in back
    assert "- caused-by (from): Coupon applied twice (coupon-applied-twice-" in back  # typed ones stay
    data = json.loads(run_cli("read", "Checkout retry", "--json", cwd=shop.root).stdout)
    assert {(x["rel"], x["title"], x["inline"]) for x in data["linked_from"]} == {
        ("caused-by", "Coupon applied twice", False),
        ("mentions", "Refund flow", True),
    }
    out = json.loads(run_cli("read", "Refund flow", "--json", cwd=shop.root).stdout)["links"]
    assert [(x["rel"], x["title"], x["pending"], x["inline"]) for x in out] == [
        ("mentions", "Checkout retry", False, True),
        ("mentions", "Use SQLite", False, True),
        ("mentions", None, True, True),
    ]
    assert _mcp_read(shop.root, "Refund flow") == run_cli("read", "Refund flow", cwd=shop.root).stdout
