"""The language registry is the one place a language is declared, and every row of it works."""

from __future__ import annotations

from collections import Counter

import pytest

from cairn.codemap.extract_imports import HANDLERS
from cairn.codemap.imports import FAMILIES, family_of
from cairn.codemap.languages import GRAMMARS, REGISTRY, get_parser, language_for_path
from cairn.codemap.parse_queries import QUERY_SOURCES, get_query, read_source, split_patterns


def test_names_extensions_and_file_names_are_claimed_once() -> None:
    for what in ("name", "extensions", "filenames"):
        values = [v for lang in REGISTRY for v in ((getattr(lang, what),) if what == "name" else getattr(lang, what))]
        dupes = [v for v, n in Counter(values).items() if n > 1]
        assert dupes == [], what


def test_every_row_is_consistent() -> None:
    for lang in REGISTRY:
        assert lang.kind in ("code", "doc", "text"), lang.name
        assert all(ext.startswith(".") and ext == ext.lower() for ext in lang.extensions), lang.name
        assert lang.imports in HANDLERS, lang.name
        assert lang.family is None or lang.family in FAMILIES, lang.name
        for ext in lang.extensions:
            assert language_for_path("x" + ext) == lang.name
        for name in lang.filenames:
            assert language_for_path(f"sub/{name}") == lang.name
        if lang.grammar:
            assert lang.kind == "code" and lang.queries, lang.name
    assert set(QUERY_SOURCES) == set(GRAMMARS)
    assert family_of("elixir") == "elixir" and family_of("", "lib/plug/conn.ex") == "elixir"


@pytest.mark.parametrize("lang", sorted(GRAMMARS))
def test_grammar_loads_and_queries_compile(lang: str) -> None:
    assert get_parser(lang).parse(b"").root_node is not None
    compiled = get_query(lang)
    assert compiled.dropped == []
    for name in QUERY_SOURCES[lang]:
        assert split_patterns(read_source(lang, name)), name  # every listed file exists and says something
    assert any(role and role.what == "def" for role in compiled.roles)
