"""Frontmatter format: exact round-trip on golden files, clear errors with file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.codemap.knowledge.node import (
    Cite,
    Link,
    Node,
    ParseError,
    is_unchanged_since_written,
    make_id,
    parse,
    render,
)

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "memory" / "golden"


def golden_files() -> list[Path]:
    files = sorted(GOLDEN.glob("*.md"))
    assert len(files) >= 3
    return files


@pytest.mark.parametrize("path", golden_files(), ids=lambda p: p.name)
def test_golden_round_trip_is_byte_exact(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    node = parse(text, path.name)
    assert render(node) == text
    assert not node.hand_edited
    assert is_unchanged_since_written(text)
    again = parse(render(node), path.name)
    assert again == node


def test_golden_fields_are_read() -> None:
    node = parse((GOLDEN / "coupon-applied-twice-3f9a1c.md").read_text(), "x.md")
    assert node.type == "gotcha" and node.status == "active" and node.state == "active"
    assert node.files == ["src/checkout/coupons.py"] and node.symbols == ["apply_coupon"]
    assert node.links == [
        Link("caused-by", "checkout-retry-12ab34"),
        Link("relates-to", "Payment provider timeouts", True),
    ]
    assert node.cites == [
        Cite(
            "src/checkout/coupons.py",
            "0123456789abcdef0123456789abcdef01234567",
            "9b1f0c3a8d2e4f5a6b7c8d9e0f1a2b3c4d5e6f70",
            {"apply_coupon": "1111111111111111111111111111111111111111"},
        )
    ]
    assert node.tags == ["pinned", "checkout"]
    assert "## Links" not in node.body and node.body.startswith("The payment retry loop")
    sup = parse((GOLDEN / "use-sqlite-for-the-index-77e0aa.md").read_text(), "y.md")
    assert sup.state == "superseded" and sup.supersedes == "use-json-files-5d1c22"
    assert sup.superseded_by == "use-duckdb-0a9f3e"
    note = parse((GOLDEN / "empty-body-note-000001.md").read_text(), "z.md")
    assert note.body == "" and note.extra == {"owner": "team-a", "priority": 2}


def test_editing_the_file_is_detected_as_hand_edit() -> None:
    text = (GOLDEN / "coupon-applied-twice-3f9a1c.md").read_text()
    edited = text.replace("Guard with", "Always guard with")
    assert not is_unchanged_since_written(edited)
    assert parse(edited, "x.md").hand_edited


def test_ids_are_slug_plus_content_hash() -> None:
    a = make_id("gotcha", "Coupon applied twice!", "body one")
    b = make_id("gotcha", "Coupon applied twice!", "body two")
    assert a.startswith("coupon-applied-twice-") and a != b
    assert make_id("gotcha", "Coupon applied twice!", "body one") == a


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("---\nid: x\ntype: gotcha\ntitle: a: b\nstatus: active\n---\nbody\n", 4, "malformed YAML"),
        ("---\nid: x\ntype: gotcha\n\ttitle: tab\n---\n", 4, "malformed YAML"),
        ("---\nid: x\ntitle: t\ntype: rumour\n---\n", 4, "type 'rumour'"),
        ("---\nid: x\ntitle: t\nstatus: maybe\n---\n", 4, "status 'maybe'"),
        ("---\nid: x\ntitle: t\n", 1, "never closed"),
        ("---\n- a\n- b\n---\n", 2, "mapping"),
        ("---\nid: x\ntitle: t\nfiles: {a: 1}\n---\n", 4, "files"),
        ("---\nid: x\ntitle: t\nlinks:\n- 42\n---\n", 4, "bad link"),
    ],
)
def test_malformed_frontmatter_names_file_and_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(ParseError) as info:
        parse(text, ".cairn/knowledge/bad.md")
    assert info.value.line == line
    assert str(info.value).startswith(f".cairn/knowledge/bad.md:{line}: ")
    assert fragment in str(info.value)


def test_hand_written_markdown_without_frontmatter_is_a_note() -> None:
    node = parse("# Deploys need the VPN\n\nOtherwise the registry times out.\n", "k/deploys-need-vpn.md")
    assert (node.id, node.type, node.title) == ("deploys-need-vpn", "note", "Deploys need the VPN")
    assert node.body == "Otherwise the registry times out." and node.hand_edited


def test_wikilinks_typed_by_hand_join_the_links() -> None:
    node = Node(id="a-1", type="concept", title="Checkout", links=[Link("relates-to", "b-2")])
    text = render(node).rstrip("\n") + "\n- part-of [[Payments]]\n- [[c-3|Coupons]]\n"
    parsed = parse(text, "a.md")
    assert [(lk.rel, lk.target) for lk in parsed.links] == [
        ("relates-to", "b-2"),
        ("part-of", "Payments"),
        ("relates-to", "c-3"),
    ]
    assert parsed.hand_edited


def test_hand_written_dates_and_shorthand_links_are_accepted() -> None:
    text = "---\ntitle: Retry policy\ntype: decision\ncreated: 2026-01-02\nlinks: [fixes:Timeouts]\n---\nBody\n"
    node = parse(text, "retry.md")
    assert node.created == "2026-01-02" and node.id == "retry"
    assert node.links == [Link("fixes", "Timeouts")]


@pytest.mark.parametrize(
    "node",
    [
        Node(id="a-1", type="note", title="Title: with colon, 'quotes' and \"double\"", body="x"),
        Node(id="a-2", type="note", title="Brackets [v2] | pipes", links=[Link("about", "Foo [bar] | baz", True)]),
        Node(
            id="a-3", type="note", title="Body with its own links heading", body="See:\n\n## Links\n\n- [[elsewhere]]"
        ),
        Node(id="a-4", type="note", title="Same heading twice", body="# Same heading twice\n\nsecond copy"),
        Node(id="a-5", type="note", title="Dashes", body="---\nnot frontmatter\n---\n\n  indented code"),
        Node(id="a-6", type="note", title="yes", tags=["no", "null", "1.0", "2026-01-01"], extra={"when": "on"}),
    ],
    ids=lambda n: n.id,
)
def test_tricky_nodes_round_trip(node: Node) -> None:
    text = render(node)
    parsed = parse(text, "t.md")
    assert parsed == Node(**{**node.__dict__, "path": "t.md"})
    assert render(parsed) == text and not parsed.hand_edited
    assert render(parse(render(parsed), "t.md")) == text  # stable: nothing grows on rewrite


def test_crlf_bodies_are_stored_with_lf() -> None:
    node = Node(id="w-1", type="note", title="Windows", body="line one\r\nline two\r\n")
    parsed = parse(render(node), "w.md")
    assert parsed.body == "line one\nline two" and not parsed.hand_edited
