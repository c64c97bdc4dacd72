"""The plain data that flows through the code-map pipeline (parse -> resolve -> store).

Kept free of tree-sitter and SQLite so every stage can be tested on its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Definition kinds that name a type or a namespace (what a bare capitalised request usually means),
# as opposed to functions, methods, fields, constants and headings.
TYPE_KINDS = frozenset(
    {
        "class",
        "struct",
        "interface",
        "trait",
        "enum",
        "union",
        "type",
        "object",
        "mixin",
        "extension",
        "module",
        "protocol",
        "record",
    }
)
_QUALIFIER = re.compile(r"(?:\.|::|/|\\|:)(?=[^.:/\\])")


def short_name(name: str) -> str:
    """The last segment of a qualified name, the part a person types: `Plug.Conn` -> `Conn`,
    `Foo::Bar` -> `Bar`, `Data.Aeson.Types` -> `Types`; simple names are returned unchanged."""
    parts = _QUALIFIER.split(name.strip())
    last = parts[-1] if parts else name
    return last or name


def symbol_key(name: str, kind: str = "") -> str:
    """The lookup key stored for a definition: its short name as a name key (headings keep theirs);
    an operator (`.:?`, `<>`), which has no letters to key on, is its own key."""
    from cairn.text.tokens import name_key

    return name_key(name if kind == "heading" else short_name(name)) or name_key(name) or name.strip()[:40]


@dataclass
class Definition:
    """A named definition in a file (function, class, method, type, constant, heading...)."""

    name: str
    kind: str  # function | method | class | interface | type | enum | constant | module | heading ...
    line: int  # 1-based first line
    end_line: int  # 1-based last line (inclusive)
    signature: str  # the declaration's first line(s), trimmed, <= ~200 chars
    parent: str | None = None  # enclosing class/impl/module name, if any
    top_level: bool = True  # False for members nested in a class/impl (chunks cut at top level)


@dataclass
class ImportRef:
    """An import as written in the source; resolving it to repository files is a later stage.

    `raw` conventions per language (the resolver relies on them):
      python      module with its leading dots: "os.path", "..utils", "." ; names = imported names
      js/ts       the specifier string: "./foo", "@/lib/x", "react" (import, export-from,
                  require(), dynamic import())
      go          the import path: "github.com/x/y/pkg"
      rust        kind "use": the path "crate::a::b" / "super::x" / "self::y" / "std::..";
                  kind "mod": the module name of `mod foo;`
      java/kotlin the qualified name "com.x.Y" or "com.x.*"
      php         kind "use": "App\\Models\\User"; kind "path": require/include string
      ruby        kind "relative": require_relative arg; kind "module": require arg
      c/cpp       kind "local": #include "x.h"; kind "system": #include <x.h>
      csharp      kind "namespace": using X.Y
      swift       kind "module": import X
      dart        the URI string: "package:app/x.dart", "src/y.dart", "dart:async"
      scala       like java: "a.b.C" (one ref per selector of `a.b.{C, D}`), "a.b.*"
      others      the captured module name or path as written, unquoted (extract_imports._plain):
                  elixir "Plug.Conn" / "Plug.Conn.{A, B}", haskell "Data.Aeson.Types", perl
                  "Foo::Bar", lua "lazy.core.config", ocaml "Store_io", fortran "kinds_mod",
                  zig "util/arena.zig", julia "shapes.jl" / "Geometry", bash "$DIR/lib/x.sh" /
                  bats "test_helper", powershell "$PSScriptRoot\\x.ps1", hcl "./modules/vpc"
    """

    raw: str
    line: int
    kind: str = "module"
    names: list[str] = field(default_factory=list)


@dataclass
class ParsedFile:
    """Everything the parser extracts from one file."""

    lang: str
    defs: list[Definition] = field(default_factory=list)
    refs: dict[str, int] = field(default_factory=dict)  # identifier used/called -> count
    imports: list[ImportRef] = field(default_factory=list)
    error: str | None = None  # set when parsing failed; the file is still indexed as text
