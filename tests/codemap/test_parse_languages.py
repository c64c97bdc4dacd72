"""File -> language mapping."""

from __future__ import annotations

import pytest

from cairn.codemap.languages import (
    CODE_LANGUAGES,
    GRAMMARS,
    get_parser,
    has_grammar,
    is_text_language,
    language_for_path,
)


@pytest.mark.parametrize(
    ("path", "lang"),
    [
        ("a/b.py", "python"),
        ("x.pyi", "python"),
        ("app.jsx", "javascript"),
        ("m.mjs", "javascript"),
        ("t.ts", "typescript"),
        ("types.d.ts", "typescript"),
        ("c.tsx", "tsx"),
        ("main.go", "go"),
        ("lib.rs", "rust"),
        ("A.java", "java"),
        ("b.kt", "kotlin"),
        ("build.gradle.kts", "kotlin"),
        ("x.c", "c"),
        ("x.h", "c"),
        ("x.cc", "cpp"),
        ("x.HPP", "cpp"),
        ("p.cs", "csharp"),
        ("r.rb", "ruby"),
        ("Rakefile", "ruby"),
        ("Gemfile", "ruby"),
        ("i.php", "php"),
        ("v.swift", "swift"),
        ("w.dart", "dart"),
        ("README.md", "markdown"),
        ("doc.markdown", "markdown"),
        ("run.sh", "bash"),
        ("run.fish", "shell"),
        ("c.yaml", "yaml"),
        ("c.yml", "yaml"),
        ("p.toml", "toml"),
        ("d.json", "json"),
        ("q.sql", "sql"),
        ("i.html", "html"),
        ("s.css", "css"),
        ("App.vue", "vue"),
        ("C.svelte", "svelte"),
        ("Makefile", "make"),
        ("Dockerfile", "dockerfile"),
        ("Dockerfile.dev", "dockerfile"),
        ("CMakeLists.txt", "cmake"),
        ("image.png", None),
        ("archive.tar.gz", None),
        ("noext", None),
    ],
)
def test_language_for_path(path: str, lang: str | None) -> None:
    assert language_for_path(path) == lang


def test_cpp_header_sniffing() -> None:
    assert language_for_path("a.h", b"#pragma once\nnamespace x {\n}\n") == "cpp"
    assert language_for_path("a.h", b"template <typename T> struct V;") == "cpp"
    assert language_for_path("a.h", b"#ifndef A_H\nint f(void);\n#endif\n") == "c"
    assert language_for_path("a.h", b"classify_thing(int x);\nnamespaced_call();\n") == "c"


def test_language_sets() -> None:
    assert has_grammar("rust") and not has_grammar("markdown") and not has_grammar("yaml")
    assert CODE_LANGUAGES == set(GRAMMARS) | {"markdown"}
    assert is_text_language("yaml") and not is_text_language("markdown")


@pytest.mark.parametrize("lang", sorted(GRAMMARS))
def test_every_grammar_loads(lang: str) -> None:
    parser = get_parser(lang)
    assert parser is get_parser(lang)
    assert parser.parse(b"").root_node is not None
