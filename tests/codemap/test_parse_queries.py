"""Queries: every pattern compiles against the installed grammars; the splitter is exact."""

from __future__ import annotations

import pytest

from cairn.codemap.languages import BY_NAME, GRAMMARS, get_language, shipped_queries_dir
from cairn.codemap.parse_queries import (
    QUERY_SOURCES,
    _compile_renamed,
    compile_patterns,
    get_query,
    read_source,
    split_patterns,
)


def test_every_grammar_has_query_sources() -> None:
    assert set(QUERY_SOURCES) == set(GRAMMARS)


@pytest.mark.parametrize("lang", sorted(GRAMMARS))
def test_all_patterns_compile(lang: str) -> None:
    """Shipped and own patterns all compile: a grammar upgrade that renames nodes fails here."""
    compiled = get_query(lang)
    assert compiled.dropped == []
    for name in QUERY_SOURCES[lang]:
        patterns = split_patterns(read_source(lang, name))
        assert patterns, name
        _, kept, dropped = compile_patterns(lang, patterns)
        assert dropped == [] and len(kept) == len(patterns), name
    assert any(role and role.what == "def" for role in compiled.roles)
    if BY_NAME[lang].family:  # a language whose imports resolve to files must extract them
        assert any(role and role.what == "import" for role in compiled.roles)


@pytest.mark.parametrize(
    "lang", ["python", "javascript", "typescript", "go", "rust", "java", "c", "cpp", "ruby", "php"]
)
def test_shipped_tags_are_used(lang: str) -> None:
    qdir = shipped_queries_dir(lang)
    assert qdir is not None and (qdir / "tags.scm").is_file()
    assert any(name.startswith("shipped:") for name in QUERY_SOURCES[lang])


def test_bad_pattern_is_dropped_not_fatal() -> None:
    good = "(function_definition name: (identifier) @name) @definition.function"
    bad = "(no_such_node_type) @name @reference.call"
    query, kept, dropped = compile_patterns("python", [good, bad])
    assert kept == [good] and dropped == [bad] and query.pattern_count == 1
    assert get_language("python") is get_language("python")  # cached per process


def test_a_bad_pattern_leaves_the_others_renamed_by_their_kept_place() -> None:
    """The one-compile path falls back to pattern by pattern: roles then follow the kept patterns."""
    good = "(function_definition name: (identifier) @name) @definition.function"
    bad = "(no_such_node_type) @name @definition.class"
    call = "(call function: (identifier) @name) @reference.call"
    query, roles, dropped = _compile_renamed("python", [bad, good, call])
    assert dropped == [bad] and query.pattern_count == 2
    assert [(r.what, r.node_key) for r in roles if r] == [("def", "def.0"), ("ref", "ref")]
    query, roles, dropped = _compile_renamed("python", [good, call])
    assert dropped == [] and [r.node_key for r in roles if r] == ["def.0", "ref"]


def test_split_patterns_handles_comments_strings_and_trailing_captures() -> None:
    src = """
; a comment with (parens
(call function: (identifier) @name) @reference.call
((identifier) @name (#match? @name "^[(]x;"))
[(a) (b)] @name @reference.x
(type_identifier) @name @reference.type
"""
    assert split_patterns(src) == [
        "(call function: (identifier) @name) @reference.call",
        '((identifier) @name (#match? @name "^[(]x;"))',
        "[(a) (b)] @name @reference.x",
        "(type_identifier) @name @reference.type",
    ]
