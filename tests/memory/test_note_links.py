"""Links between notes: `[[wikilinks]]` written in a note's text are edges (broken ones reported),
and the ids a note links to are not searched as its own words."""

from __future__ import annotations

import json
import sqlite3

from cairn.codemap.knowledge.node import Link, Node, parse, render
from cairn.codemap.knowledge.wikilinks import body_wikilinks
from cairn.codemap.markdown import note_search_text
from cairn.project import resolve_project
from helpers import make_git_repo


def test_body_wikilinks_forms_and_code_is_not_a_link():
    body = (
        "See [[Coupon applied twice]] and [[checkout-1a2b3c|the checkout]], [[Retry policy#Backoff]].\n"
        "An image ![[diagram.png]] is an embed. Inline `[[not a link]]`.\n\n```\n[[nor this]]\n```\n"
        "Again [[Coupon applied twice]]."
    )
    assert body_wikilinks(body) == ["Coupon applied twice", "checkout-1a2b3c", "Retry policy"]
    node = Node(id="n", type="note", title="N", body=body, links=[Link("relates-to", "checkout-1a2b3c")])
    assert node.inline_links == ["Coupon applied twice", "Retry policy"]  # typed links are not repeated
    assert render(parse(render(node), "n.md")) == render(node)  # the file format is unchanged


def test_note_search_text_leaves_out_link_targets():
    node = Node(
        id="payment-retry-aaa111",
        type="decision",
        title="Payment retry policy",
        body="Retry the card twice, then give up.",
        files=["src/pay.py"],
        links=[Link("relates-to", "coupon-applied-twice-bbb222")],
        supersedes="old-coupon-rule-ccc333",
    )
    text = note_search_text(render(node))
    assert "coupon" not in text.lower() and "## Links" not in text and "cairn_hash" not in text
    assert "Payment retry policy" in text and "Retry the card twice" in text and "src/pay.py" in text
    hand = "# Notes\n\nBody.\n\n## Links\n\nfree text a person wrote, kept\n"
    assert note_search_text(hand) == hand  # not the generated list: stays searchable


def _fts_paths(root, word):
    project = resolve_project(root=str(root))
    con = sqlite3.connect(project.index_path())
    try:
        return {
            r[0]
            for r in con.execute(
                "SELECT f.path FROM files_fts JOIN files f ON f.id = files_fts.rowid WHERE files_fts MATCH ?", (word,)
            )
        }
    finally:
        con.close()


def test_linked_notes_are_found_for_their_own_words_and_inline_links_are_edges(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "shop", {"src/pay.py": "def pay():\n    return 1\n"})
    assert run_cli("init", "--root", str(root)).returncode == 0
    facts = [
        {"type": "gotcha", "title": "Coupon applied twice", "body": "The discount step re-runs on retry."},
        {
            "type": "decision",
            "title": "Payment retry policy",
            "body": "Retry the card twice, then give up.",
            "links": [{"rel": "relates-to", "target": "Coupon applied twice"}],
        },
    ]
    r = run_cli("remember", "--json", "--root", str(root), input=json.dumps(facts))
    assert r.returncode == 0, r.stderr
    ids = [x["id"] for x in json.loads(r.stdout)["results"]]
    (root / ".cairn/knowledge/checkout.md").write_text(
        "# Checkout\n\nHow an order is paid: see [[Payment retry policy]] and [[Refund flow]].\n"
    )
    assert run_cli("index", "--root", str(root)).returncode == 0
    coupon = _fts_paths(root, "coupon")
    assert coupon == {f".cairn/knowledge/{ids[0]}.md"}, coupon  # the linking decision is not found for it
    res = json.loads(run_cli("explain", "checkout", "--root", str(root), "--json").stdout)
    assert res["target"]["kind"] == "node"
    assert [x["id"] for x in res["links"]["to"]] == [ids[1]]  # the inline [[link]] is an edge
    doctor = run_cli("memory", "doctor", "--root", str(root))
    assert doctor.returncode == 1
    assert "broken link: .cairn/knowledge/checkout.md (checkout): in the text -> Refund flow" in doctor.stdout
    assert "Payment retry policy" not in doctor.stdout


def test_inline_links_count_in_a_notes_degree():
    from cairn.codemap.knowledge.graph import degree

    a = Node(id="a", type="note", title="Alpha", body="See [[Beta]] and [[Nowhere]].")
    b = Node(id="b", type="note", title="Beta", body="")
    assert degree([a, b]) == {"a": 1, "b": 1}
