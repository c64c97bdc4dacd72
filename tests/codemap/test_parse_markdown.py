"""Markdown headings and links, without tree-sitter."""

from __future__ import annotations

from pathlib import Path

from cairn.codemap.markdown import parse_markdown
from cairn.codemap.parse import parse_source

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "langs"


def test_sample_document() -> None:
    parsed = parse_source("markdown", (FIXTURES / "sample.md").read_bytes())
    assert parsed.lang == "markdown" and parsed.error is None
    got = [(d.name, d.kind, d.line, d.end_line, d.parent, d.top_level) for d in parsed.defs]
    assert got == [
        ("Project Guide", "heading", 5, 26, None, True),  # front matter skipped
        ("Install", "heading", 9, 19, "Project Guide", False),
        ("Details", "heading", 18, 19, "Install", False),  # `# not a heading` in the fence ignored
        ("Setext Title", "heading", 20, 26, "Project Guide", False),
        ("Top Again", "heading", 27, 30, None, True),
    ]
    assert parsed.defs[0].signature == "# Project Guide"
    assert parsed.defs[3].signature == "Setext Title"
    links = [(i.raw, i.kind, i.line) for i in parsed.imports]
    # external URLs, images and links inside the code fence are not file links
    assert links == [
        ("docs/api.md", "link", 7),
        ("../scripts/install.sh", "link", 11),
        ("./CONTRIBUTING.md", "link", 25),
    ]


def test_fenced_blocks_hide_headings() -> None:
    src = b"# Real\n\n```python\n# not a heading\n## nor this\n```\n\n~~~~\n# tilde fence\n~~~~\n\n## Sub\n"
    parsed = parse_markdown(src)
    assert [(d.name, d.line, d.end_line, d.parent) for d in parsed.defs] == [
        ("Real", 1, 12, None),
        ("Sub", 12, 12, "Real"),
    ]


def test_unclosed_fence_swallows_the_rest() -> None:
    parsed = parse_markdown(b"# A\n```\n# inside\n")
    assert [d.name for d in parsed.defs] == ["A"]


def test_atx_details() -> None:
    src = b"#NoSpace\n   ### Indented ok ###\n    # code block, not heading\n#\n## Trailing hashes ##\n"
    parsed = parse_markdown(src)
    assert [(d.name, d.line) for d in parsed.defs] == [("Indented ok", 2), ("Trailing hashes", 5)]


def test_thematic_break_is_not_a_setext_heading() -> None:
    parsed = parse_markdown(b"# T\n\ntext\n\n---\n\n- item\n---\n")
    assert [d.name for d in parsed.defs] == ["T"]


def test_reference_links_and_anchors() -> None:
    src = b"[a](#local) [b](mailto:x@y.z) [c](/abs/path.md) [d](<spaced.md>) [e](src/x.py?plain=1#L3)\n"
    parsed = parse_markdown(src)
    assert [i.raw for i in parsed.imports] == ["spaced.md", "src/x.py"]


def test_crlf_and_empty() -> None:
    parsed = parse_markdown(b"Title\r\n=====\r\n\r\n## Two\r\n")
    assert [(d.name, d.line, d.end_line) for d in parsed.defs] == [("Title", 1, 4), ("Two", 4, 4)]
    assert parse_markdown(b"").defs == []
    assert [d.name for d in parse_markdown(b"\xef\xbb\xbf# With BOM\n").defs] == ["With BOM"]
