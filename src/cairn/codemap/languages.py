"""Which language a file is, and lazily-loaded tree-sitter grammars for the ones we parse.

Importing this module must stay cheap (the scanner imports it for every run), so
tree-sitter and the grammar wheels are only imported on first use of a grammar.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from functools import cache
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from tree_sitter import Language, Parser

# language -> (python module of the official grammar wheel, function returning the TSLanguage pointer)
GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "java": ("tree_sitter_java", "language"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "php": ("tree_sitter_php", "language_php"),
    "swift": ("tree_sitter_swift", "language"),
    "dart": ("tree_sitter_dart", "language"),
}

# Languages whose structure we extract (tree-sitter grammars + markdown headings).
CODE_LANGUAGES: frozenset[str] = frozenset(GRAMMARS) | {"markdown"}

EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin", ".kts": "kotlin",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp", ".inl": "cpp", ".tpp": "cpp",
    ".cs": "csharp",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".ru": "ruby",
    ".php": "php", ".phtml": "php",
    ".swift": "swift",
    ".dart": "dart",
    ".md": "markdown", ".markdown": "markdown", ".mdx": "markdown",
}

# Files indexed as plain text (searchable, chunked by lines; no definitions).
TEXT_EXTENSIONS: dict[str, str] = {
    ".sh": "shell", ".bash": "shell", ".zsh": "shell", ".fish": "shell", ".ps1": "powershell",
    ".bat": "batch", ".cmd": "batch",
    ".yaml": "yaml", ".yml": "yaml", ".toml": "toml", ".json": "json", ".jsonc": "json",
    ".json5": "json", ".ini": "ini", ".cfg": "ini", ".conf": "ini", ".properties": "ini",
    ".xml": "xml", ".plist": "xml", ".csproj": "xml", ".gradle": "gradle",
    ".sql": "sql", ".graphql": "graphql", ".gql": "graphql", ".proto": "protobuf",
    ".html": "html", ".htm": "html", ".css": "css", ".scss": "css", ".sass": "css", ".less": "css",
    ".vue": "vue", ".svelte": "svelte", ".astro": "astro",
    ".rst": "rst", ".txt": "text", ".adoc": "asciidoc", ".tex": "tex",
    ".tf": "hcl", ".hcl": "hcl", ".nix": "nix", ".cmake": "cmake",
    ".lua": "lua", ".pl": "perl", ".pm": "perl", ".r": "r", ".scala": "scala", ".sc": "scala",
    ".ex": "elixir", ".exs": "elixir", ".erl": "erlang", ".hs": "haskell", ".ml": "ocaml",
    ".clj": "clojure", ".zig": "zig", ".nim": "nim", ".jl": "julia", ".groovy": "groovy",
    ".m": "objc", ".mm": "objc", ".v": "verilog", ".sol": "solidity", ".elm": "elm",
}

# Exact file names (no or meaningless extension).
FILENAMES: dict[str, str] = {
    "Makefile": "make", "makefile": "make", "GNUmakefile": "make",
    "Dockerfile": "dockerfile", "Containerfile": "dockerfile",
    "CMakeLists.txt": "cmake", "Jenkinsfile": "groovy", "Procfile": "text", "Vagrantfile": "ruby",
    "Gemfile": "ruby", "Rakefile": "ruby", "Podfile": "ruby", "Brewfile": "ruby",
    "BUILD": "starlark", "BUILD.bazel": "starlark", "WORKSPACE": "starlark",
    ".gitignore": "text", ".dockerignore": "text", ".editorconfig": "ini",
    "go.mod": "text", "requirements.txt": "text",
}

# A .h file is C unless it looks like C++ (classes, namespaces, templates in the first KBs).
_CPP_HEADER = re.compile(
    rb"^\s*(class\s+\w+\s*[:{;]|namespace\s+\w|template\s*<|public:|private:|protected:)|std::", re.M
)


def language_for_path(path: str | PurePath, head: bytes | None = None) -> str | None:
    """Language name for a path (grammar, "markdown" or a plain-text language), None if not indexed.

    `head` (the file's first bytes) lets a `.h` header be recognised as C++.
    """
    p = PurePath(path)
    name = p.name
    if name in FILENAMES:
        return FILENAMES[name]
    if name.startswith("Dockerfile."):
        return "dockerfile"
    suffix = p.suffix.lower()
    lang = EXTENSIONS.get(suffix)
    if lang == "c" and suffix == ".h" and head and _CPP_HEADER.search(head[:8192]):
        return "cpp"
    if lang:
        return lang
    return TEXT_EXTENSIONS.get(suffix)


def has_grammar(lang: str) -> bool:
    """True when we can parse `lang` with tree-sitter."""
    return lang in GRAMMARS


def is_text_language(lang: str) -> bool:
    """True for languages indexed only as plain text."""
    return lang not in CODE_LANGUAGES


@cache
def get_language(lang: str) -> Language:
    """The tree-sitter Language for `lang` (KeyError for unknown ones), loaded once per process."""
    from tree_sitter import Language

    module_name, func = GRAMMARS[lang]
    module = importlib.import_module(module_name)
    return Language(getattr(module, func)())


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
