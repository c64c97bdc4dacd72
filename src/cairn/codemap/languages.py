"""The language registry: one row per language says everything the index needs to know about it.

A row (`Lang`) names the language's file extensions and file names, its kind (code, doc or
text), the official grammar wheel and loader, the query files the parser runs, the import
handler and resolver family, and whether shared names stand in for imports in the graph.
Every other table (extension maps, resolver families, query sources) is derived from REGISTRY,
so adding a language is one row here plus its `queries/<lang>-*.scm` file.

Importing this module must stay cheap (the scanner imports it for every run), so tree-sitter
and the grammar wheels are only imported on first use of a grammar; a grammar that fails to
load is remembered as broken and its files are indexed as text.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePath

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from tree_sitter import Language, Parser


@dataclass(frozen=True)
class Lang:
    """Everything cairn knows about one language."""

    name: str
    kind: str = "code"  # code | doc | text (how search treats the file)
    extensions: tuple[str, ...] = ()  # lowercase, with the dot
    filenames: tuple[str, ...] = ()  # exact base names (Makefile, Gemfile...)
    grammar: tuple[str, str] | None = None  # (grammar wheel module, function returning the language)
    queries: tuple[str, ...] = ()  # "shipped:<lang>" (the wheel's tags.scm) or files in queries/
    imports: str = "plain"  # import handler in extract_imports.HANDLERS
    family: str | None = None  # import resolver family in imports.FAMILIES
    ref_edges: bool = False  # imports do not name files: shared names fill in the graph


def _code(
    name: str, exts: str, grammar: tuple[str, str] | str, *, queries: tuple[str, ...] | None = None, **kw: Any
) -> Lang:
    """A parsed language; `grammar` "mod" means (tree_sitter_mod, "language"); queries default to
    `<name>-tags.scm` and `<name>-imports.scm`."""
    if isinstance(grammar, str):
        grammar = (f"tree_sitter_{grammar}", "language")
    if queries is None:
        queries = (f"{name}-tags.scm", f"{name}-imports.scm")
    return Lang(name, "code", tuple(exts.split()), grammar=grammar, queries=queries, **kw)


def _text(name: str, exts: str = "", kind: str = "text", **kw: Any) -> Lang:
    """A language indexed as text (kind "text") or as a document (kind "doc"), never parsed here."""
    return Lang(name, kind, tuple(exts.split()), **kw)


_JS_Q = ("shipped:javascript", "javascript-tags.scm")
_TS_Q = (*_JS_Q, "shipped:typescript", "typescript-tags.scm", "javascript-imports.scm", "typescript-imports.scm")

REGISTRY: tuple[Lang, ...] = (
    # -- parsed with tree-sitter (official grammar wheels) --
    _code(
        "python",
        ".py .pyi .pyw",
        "python",
        queries=("shipped:python", "python-tags.scm", "python-imports.scm"),
        imports="python",
        family="python",
    ),
    _code(
        "javascript",
        ".js .mjs .cjs .jsx",
        "javascript",
        imports="js",
        family="javascript",
        queries=(*_JS_Q, "jsx-tags.scm", "javascript-only-tags.scm", "javascript-imports.scm"),
    ),
    _code(
        "typescript",
        ".ts .mts .cts",
        ("tree_sitter_typescript", "language_typescript"),
        queries=_TS_Q,
        imports="js",
        family="javascript",
    ),
    _code(
        "tsx",
        ".tsx",
        ("tree_sitter_typescript", "language_tsx"),
        queries=(*_TS_Q, "jsx-tags.scm"),
        imports="js",
        family="javascript",
    ),
    _code(
        "go",
        ".go",
        "go",
        queries=("shipped:go", "go-tags.scm", "go-imports.scm"),
        imports="go",
        family="go",
        ref_edges=True,
    ),
    _code(
        "rust",
        ".rs",
        "rust",
        queries=("shipped:rust", "rust-tags.scm", "rust-imports.scm"),
        imports="rust",
        family="rust",
    ),
    _code(
        "java",
        ".java",
        "java",
        queries=("shipped:java", "java-tags.scm", "java-imports.scm"),
        imports="java",
        family="jvm",
        ref_edges=True,
    ),
    _code("kotlin", ".kt .kts", "kotlin", imports="kotlin", family="jvm", ref_edges=True),
    _code(
        "scala",
        ".scala .sc .sbt .mill",
        "scala",
        queries=("shipped:scala", "scala-tags.scm", "scala-imports.scm"),
        imports="scala",
        family="jvm",
        ref_edges=True,
    ),
    _code(
        "groovy",
        ".groovy .gradle .gvy",
        "groovy",
        imports="java",
        family="jvm",
        ref_edges=True,
        filenames=("Jenkinsfile",),
    ),
    _code(
        "c",
        ".c .h",
        "c",
        queries=("shipped:c", "c-tags.scm", "c-imports.scm"),
        imports="c",
        family="cfamily",
        ref_edges=True,
    ),
    _code(
        "cpp",
        ".cc .cpp .cxx .c++ .hpp .hh .hxx .h++ .ipp .inl .tpp .cu .cuh",
        "cpp",
        queries=("shipped:cpp", "c-tags.scm", "cpp-tags.scm", "c-imports.scm"),
        imports="c",
        family="cfamily",
        ref_edges=True,
    ),
    _code(
        "objc",
        ".m .mm",
        "objc",
        queries=("c-tags.scm", "objc-tags.scm", "c-imports.scm", "objc-imports.scm"),
        imports="c",
        family="cfamily",
        ref_edges=True,
    ),
    _code("csharp", ".cs", "c_sharp", imports="csharp", family="csharp", ref_edges=True),
    _code(
        "ruby",
        ".rb .rake .gemspec .ru",
        "ruby",
        queries=("shipped:ruby", "ruby-tags.scm", "ruby-imports.scm"),
        imports="ruby",
        family="ruby",
        ref_edges=True,
        filenames=("Gemfile", "Rakefile", "Podfile", "Brewfile", "Vagrantfile", "Guardfile", "Fastfile"),
    ),
    _code(
        "php",
        ".php .phtml",
        ("tree_sitter_php", "language_php"),
        queries=("shipped:php", "php-tags.scm", "php-imports.scm"),
        imports="php",
        family="php",
        ref_edges=True,
    ),
    _code("swift", ".swift", "swift", imports="swift", family="swift", ref_edges=True),
    _code("dart", ".dart", "dart", imports="dart", family="dart", ref_edges=True),
    _code("elixir", ".ex .exs", "elixir", family="elixir", ref_edges=True),
    _code("haskell", ".hs .lhs .hs-boot", "haskell", family="haskell"),
    _code(
        "lua", ".lua", "lua", queries=("shipped:lua", "lua-tags.scm", "lua-imports.scm"), family="lua", ref_edges=True
    ),
    _code("zig", ".zig", "zig", family="paths", ref_edges=True),
    _code("bash", ".sh .bash .zsh .bats .ksh", "bash", family="shell"),
    _code("ocaml", ".ml", ("tree_sitter_ocaml", "language_ocaml"), family="ocaml", ref_edges=True),
    _code(
        "ocaml_interface",
        ".mli",
        ("tree_sitter_ocaml", "language_ocaml_interface"),
        queries=("ocaml-tags.scm", "ocaml-imports.scm"),
        family="ocaml",
        ref_edges=True,
    ),
    _code("julia", ".jl", "julia", family="paths", ref_edges=True),
    _code("perl", ".pl .pm .t .psgi", "perl", family="perl"),
    _code("hcl", ".tf .hcl .tfvars", "hcl", family="paths", ref_edges=True),
    _code("sql", ".sql", "sql", queries=("sql-tags.scm",), ref_edges=True),
    _code("fsharp", ".fs .fsx", "fsharp", ref_edges=True),
    _code("powershell", ".ps1 .psm1", "powershell", family="paths", ref_edges=True),
    _code("fortran", ".f90 .f95 .f03 .f08 .f .for .f77", "fortran", family="fortran", ref_edges=True),
    # -- documents --
    _text("markdown", ".md .markdown .mdx", kind="doc"),
    _text("rst", ".rst", kind="doc"),
    _text(
        "text", ".txt", kind="doc", filenames=("Procfile", ".gitignore", ".dockerignore", "go.mod", "requirements.txt")
    ),
    _text("asciidoc", ".adoc", kind="doc"),
    _text("tex", ".tex", kind="doc"),
    # -- indexed as plain text (searchable, no definitions) --
    _text("shell", ".fish .psd1"),
    _text("batch", ".bat .cmd"),
    _text("yaml", ".yaml .yml"),
    _text("toml", ".toml"),
    _text("json", ".json .jsonc .json5"),
    _text("ini", ".ini .cfg .conf .properties", filenames=(".editorconfig",)),
    _text("xml", ".xml .plist .csproj"),
    _text("graphql", ".graphql .gql"),
    _text("protobuf", ".proto"),
    _text("html", ".html .htm"),
    _text("css", ".css .scss .sass .less"),
    _text("vue", ".vue", family="javascript"),
    _text("svelte", ".svelte", family="javascript"),
    _text("astro", ".astro"),
    _text("nix", ".nix"),
    _text("cmake", ".cmake", filenames=("CMakeLists.txt",)),
    _text("r", ".r"),
    _text("erlang", ".erl .hrl"),
    _text("clojure", ".clj .cljs .cljc .edn"),
    _text("nim", ".nim"),
    _text("matlab"),  # .m files that do not look like Objective-C (see _MATLAB)
    _text("verilog", ".v .sv"),
    _text("solidity", ".sol"),
    _text("elm", ".elm"),
    _text("make", ".mk", filenames=("Makefile", "makefile", "GNUmakefile")),
    _text("dockerfile", ".dockerfile", filenames=("Dockerfile", "Containerfile")),
    _text("starlark", ".bzl .star", filenames=("BUILD", "BUILD.bazel", "WORKSPACE", "WORKSPACE.bazel")),
)

BY_NAME: dict[str, Lang] = {lang.name: lang for lang in REGISTRY}
EXTENSIONS: dict[str, str] = {ext: lang.name for lang in REGISTRY for ext in lang.extensions}
FILENAMES: dict[str, str] = {name: lang.name for lang in REGISTRY for name in lang.filenames}
# language -> (python module of the official grammar wheel, function returning the TSLanguage pointer)
GRAMMARS: dict[str, tuple[str, str]] = {lang.name: lang.grammar for lang in REGISTRY if lang.grammar}
# Languages whose structure we extract (tree-sitter grammars + markdown headings).
CODE_LANGUAGES: frozenset[str] = frozenset(GRAMMARS) | {"markdown"}
DOC_LANGUAGES: frozenset[str] = frozenset(lang.name for lang in REGISTRY if lang.kind == "doc")
REF_EDGE_LANGUAGES: frozenset[str] = frozenset(lang.name for lang in REGISTRY if lang.ref_edges)


def family_extensions() -> dict[str, tuple[str, ...]]:
    """Import resolver family -> the extensions of its languages (which families have work to do)."""
    out: dict[str, tuple[str, ...]] = {}
    for lang in REGISTRY:
        if lang.family:
            out[lang.family] = out.get(lang.family, ()) + lang.extensions
    return out


# A .h file is C unless it looks like C++ (classes, namespaces, templates) or Objective-C.
_CPP_HEADER = re.compile(
    rb"^[^\S\n]*(class\s+\w+\s*[:{;]|namespace\s+\w|template\s*<|public:|private:|protected:)|std::", re.M
)
_OBJC = re.compile(rb"^[^\S\n]*(@interface|@implementation|@protocol|#import\s|@class\s)", re.M)
# A .m file is Objective-C unless it reads as MATLAB (function files, % comments, no ObjC markers).
_MATLAB = re.compile(rb"^[^\S\n]*(function\s|%|classdef\s)", re.M)


# Interpreters a `#!` line names -> language, for scripts without a known extension (nvm's
# tests, bin/ commands, git hooks). Version suffixes are dropped first: python3.12 -> python.
INTERPRETERS: dict[str, str] = {
    **dict.fromkeys(("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "bats"), "bash"),
    **dict.fromkeys(("python", "pypy"), "python"),
    **dict.fromkeys(("node", "nodejs", "bun"), "javascript"),
    **dict.fromkeys(("deno", "ts-node", "tsx"), "typescript"),
    **dict.fromkeys(("ruby", "jruby"), "ruby"),
    **dict.fromkeys(("lua", "luajit"), "lua"),
    **dict.fromkeys(("pwsh", "powershell"), "powershell"),
    **dict.fromkeys(("runhaskell", "runghc"), "haskell"),
    **dict.fromkeys(("scala", "scala-cli"), "scala"),
    "perl": "perl",
    "php": "php",
    "julia": "julia",
    "elixir": "elixir",
    "groovy": "groovy",
    "ocaml": "ocaml",
    "rscript": "r",
    "fish": "shell",
    "make": "make",
}
_VERSION_TAIL = re.compile(r"(?<![\d.-])[\d.-]+$")  # tried at a run's start only: linear
_ENV_ARG_OPTIONS = frozenset({"-u", "--unset", "-C", "--chdir"})  # env options that take the next word


def shebang_language(head: bytes) -> str | None:
    """The language a script's `#!` line names (`#!/bin/sh`, `#!/usr/bin/env -S node --flag`), or None.

    Reads the first line only: it is asked for files whose name says nothing (see
    language_for_path), so a tree of extension-less scripts costs one slice per file.
    """
    if not head.startswith(b"#!"):
        return None
    words = head[2:256].split(b"\n", 1)[0].decode("utf-8", errors="replace").split()
    if not words:
        return None
    i = 0
    if words[0].rsplit("/", 1)[-1] == "env":  # env [-S] [-i] [NAME=value...] PROGRAM args
        i = 1
        while i < len(words) and (words[i].startswith("-") or "=" in words[i]):
            i += 2 if words[i] in _ENV_ARG_OPTIONS else 1
        if i >= len(words):
            return None
    program = words[i].rsplit("/", 1)[-1].lower()
    return INTERPRETERS.get(program) or INTERPRETERS.get(_VERSION_TAIL.sub("", program))


def language_for_path(path: str | PurePath, head: bytes | None = None) -> str | None:
    """Language name for a path (one of REGISTRY), None if not indexed.

    `head` (the file's first bytes) tells a C++ or Objective-C `.h` from a C one, a MATLAB
    `.m` from an Objective-C one, and names the language of a script whose name does not (no
    extension, or one no language claims) by its `#!` line.
    """
    p = PurePath(path)
    name = p.name
    lang = FILENAMES.get(name)
    if lang:
        return lang
    if name.startswith("Dockerfile."):
        return "dockerfile"
    suffix = p.suffix.lower()
    lang = EXTENSIONS.get(suffix)
    if lang is None:
        return shebang_language(head) if head else None
    if head and suffix in (".h", ".m"):
        sample = head[:8192]
        if _OBJC.search(sample):
            return "objc"
        if suffix == ".h" and _CPP_HEADER.search(sample):
            return "cpp"
        if suffix == ".m" and _MATLAB.search(sample):
            return "matlab"
    return lang


def kind_of(lang: str | None) -> str:
    """ "code", "doc" or "text" for a language name (unknown names are text)."""
    spec = BY_NAME.get(lang or "")
    return spec.kind if spec else "text"


def has_grammar(lang: str) -> bool:
    """True when we can parse `lang` with tree-sitter."""
    return lang in GRAMMARS


def is_text_language(lang: str) -> bool:
    """True for languages indexed only as plain text."""
    return lang not in CODE_LANGUAGES


class GrammarUnavailable(RuntimeError):
    """A grammar wheel is missing or incompatible: its files are indexed as text."""


_BROKEN: dict[str, str] = {}  # language -> why its grammar could not be loaded (once per process)


@cache
def _load_language(lang: str) -> Language:
    import warnings

    from tree_sitter import Language

    module_name, func = GRAMMARS[lang]
    module = importlib.import_module(module_name)
    with warnings.catch_warnings():  # older wheels hand over an int pointer (deprecated, still fine)
        warnings.simplefilter("ignore", DeprecationWarning)
        return Language(getattr(module, func)())


def get_language(lang: str) -> Language:
    """The tree-sitter Language for `lang`, loaded once per process.

    KeyError for a language without a grammar; GrammarUnavailable (remembered) when the wheel is
    missing or built for another tree-sitter ABI.
    """
    if lang in _BROKEN:
        raise GrammarUnavailable(_BROKEN[lang])
    if lang not in GRAMMARS:
        raise KeyError(lang)
    try:
        return _load_language(lang)
    except Exception as exc:  # ImportError, ValueError (ABI), AttributeError...
        _BROKEN[lang] = f"grammar for {lang} unavailable: {type(exc).__name__}: {exc}"
        raise GrammarUnavailable(_BROKEN[lang]) from exc


@cache
def get_parser(lang: str) -> Parser:
    """A Parser for `lang`, reused by every parse in this process (parsers are not thread-safe)."""
    from tree_sitter import Parser

    return Parser(get_language(lang))


def shipped_queries_dir(lang: str) -> Path | None:
    """The `queries/` directory inside the grammar wheel's package, when it ships one."""
    module_name, _ = GRAMMARS[lang]
    spec = importlib.util.find_spec(module_name)
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        qdir = Path(location) / "queries"
        if qdir.is_dir():
            return qdir
    return None
