"""Per-language parser behaviour on realistic snippets in tests/fixtures/langs/.

Each case pins the exact definitions (name, kind, line, parent), a few references and the
imports with the `raw`/`kind` conventions the import resolver relies on (see ImportRef).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.codemap.languages import language_for_path
from cairn.codemap.parse import parse_source

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "langs"

CASES: dict[str, dict] = {
    "sample.py": {
        "lang": "python",
        "defs": [
            ("MAX_SIZE", "constant", 8, None),
            ("User", "class", 11, None),
            ("greet", "method", 15, "User"),
            ("main", "function", 21, None),
            ("load", "function", 28, None),
        ],
        "refs": {
            "Base": 1,
            "Loggable": 1,
            "Person": 1,
            "helper": 1,
            "dataclass": 1,
            "User": 1,
            "run": 1,
            "ConfigError": 1,
            "ParseError": 1,
            "parse": 1,
        },
        "absent_refs": ["path", "argv", "inner", "str", "int", "list", "self"],
        "imports": [
            ("os", "module", []),
            ("sys", "module", []),
            ("a.b.c", "module", []),
            (".", "module", ["sibling"]),
            ("..utils", "module", ["helper", "other"]),
            (".models", "module", ["*"]),
        ],
    },
    "sample.jsx": {
        "lang": "javascript",
        "defs": [
            ("utils", "constant", 2, None),
            ("App", "function", 4, None),
            ("Store", "class", 9, None),
            ("add", "method", 11, "Store"),
            ("helper", "function", 14, None),
            ("VERSION", "constant", 15, None),
        ],
        "refs": {"track": 1, "EventEmitter": 1, "emit": 1, "List": 1, "Row": 1},
        "imports": [("react", "module", ["default"]), ("./utils", "module", [])],
    },
    "sample.ts": {
        "lang": "typescript",
        "defs": [
            ("Plugin", "interface", 8, None),
            ("apply", "method", 10, "Plugin"),
            ("Hook", "type", 13, None),
            ("Mode", "enum", 15, None),
            ("Base", "class", 17, None),
            ("run", "method", 18, "Base"),
            ("Server", "class", 21, None),
            ("apply", "method", 23, "Server"),
            ("run", "method", 27, "Server"),
            ("createServer", "function", 30, None),
            ("defineConfig", "function", 35, None),
            ("DEFAULT_PORT", "constant", 39, None),
        ],
        "refs": {"Config": 4, "resolveConfig": 1, "start": 1, "Base": 1, "Plugin": 1, "Server": 2},
        "imports": [
            ("react", "module", ["default", "useState"]),
            ("node:path", "module", ["*"]),
            ("./types", "module", ["Config"]),
            ("fs", "module", []),
            ("../build", "module", []),
            ("./all", "module", []),
            ("./lazy", "module", []),
        ],
    },
    "sample.tsx": {
        "lang": "tsx",
        "defs": [("Props", "interface", 3, None), ("Header", "function", 5, None), ("Footer", "function", 10, None)],
        "refs": {"Button": 1, "Bar": 1, "track": 1, "formatYear": 1, "Props": 1},
        "absent_refs": ["footer", "onClick", "title"],
        "imports": [("./components/Button", "module", ["Button"])],
    },
    "sample.go": {
        "lang": "go",
        "defs": [
            ("Max", "constant", 9, None),
            ("Server", "struct", 11, None),
            ("Handler", "interface", 15, None),
            ("Serve", "method", 16, "Handler"),
            ("Start", "method", 19, "Server"),
            ("NewServer", "function", 24, None),
        ],
        "refs": {"Server": 3, "Println": 1, "ToUpper": 1, "Run": 1},
        "absent_refs": ["string", "error", "int", "fmt"],
        "imports": [("fmt", "module", []), ("strings", "module", ["str"]), ("github.com/x/y/pkg", "module", [])],
    },
    "sample.rs": {
        "lang": "rust",
        "defs": [
            ("inner", "module", 6, None),
            ("outer", "module", 8, None),
            ("helper_in_mod", "function", 9, "outer"),
            ("MAX", "constant", 12, None),
            ("Point", "struct", 15, None),
            ("Shape", "enum", 19, None),
            ("new", "method", 24, "Point"),
            ("fmt", "method", 33, "Point"),
            ("Area", "interface", 38, None),
            ("area", "method", 39, "Area"),
            ("compute", "function", 42, None),
        ],
        "refs": {"origin": 1, "compute": 1, "println": 1, "Display": 1, "HashMap": 2, "Formatter": 1},
        "imports": [
            ("std::collections::HashMap", "use", ["HashMap"]),
            ("crate::model::User", "use", ["User"]),
            ("crate::model::Repo", "use", ["Repo"]),
            ("super::util", "use", ["*"]),
            ("self::inner::thing", "use", ["thing"]),
            ("inner", "mod", []),
        ],
    },
    "sample.java": {
        "lang": "java",
        "defs": [
            ("UserService", "class", 7, None),
            ("MAX_USERS", "constant", 9, "UserService"),
            ("find", "method", 16, "UserService"),
            ("Repo", "interface", 23, None),
            ("find", "method", 24, "Repo"),
            ("Color", "enum", 27, None),
            ("Pair", "class", 29, None),
        ],
        "refs": {"BaseService": 1, "Helper": 1, "load": 1, "List": 2, "User": 6},
        "imports": [
            ("java.util.List", "module", ["List"]),
            ("org.junit.Assert.*", "module", ["*"]),
            ("com.example.util.*", "module", ["*"]),
        ],
    },
    "sample.kt": {
        "lang": "kotlin",
        "defs": [
            ("MAX", "constant", 7, None),
            ("logger", "constant", 8, None),
            ("Repo", "interface", 10, None),
            ("find", "method", 11, "Repo"),
            ("User", "class", 14, None),
            ("display", "property", 15, "User"),
            ("find", "method", 16, "User"),
            ("create", "method", 20, "User"),
            ("Registry", "object", 24, None),
            ("register", "method", 25, "Registry"),
            ("Color", "enum", 28, None),
            ("Users", "type", 30, None),
            ("topLevel", "function", 32, None),
            ("ext", "function", 37, None),
        ],
        "refs": {"Helper": 1, "lookup": 1, "println": 1, "format": 1, "Base": 1, "Logger": 1, "create": 1},
        "imports": [
            ("com.example.util.Helper", "module", ["Helper"]),
            ("kotlinx.coroutines.*", "module", ["*"]),
            ("java.io.File", "module", ["File"]),
        ],
    },
    "sample.c": {
        "lang": "c",
        "defs": [
            ("MAX_LEN", "macro", 4, None),
            ("SQUARE", "macro", 5, None),
            ("node_t", "type", 7, None),
            ("node", "struct", 7, None),
            ("color", "enum", 12, None),
            ("helper", "function", 14, None),
            ("list_length", "function", 16, None),
            ("dup_name", "function", 26, None),
        ],
        "refs": {"helper": 1, "printf": 1, "strbuf_copy": 1, "node_t": 1},
        "imports": [("util/strbuf.h", "local", []), ("stdio.h", "system", [])],
    },
    "sample.cpp": {
        "lang": "cpp",
        "defs": [
            ("ui", "module", 4, None),
            ("Widget", "class", 6, "ui"),
            ("Widget", "method", 8, "Widget"),
            ("draw", "method", 9, "Widget"),
            ("size", "method", 10, "Widget"),
            ("draw", "method", 13, "Widget"),
            ("Point", "struct", 18, "ui"),
            ("count_items", "function", 22, None),
        ],
        "refs": {"Base": 1, "helper": 1, "sort": 1, "begin": 1, "Point": 1},
        "imports": [("widget.hpp", "local", []), ("vector", "system", [])],
    },
    "sample.cs": {
        "lang": "csharp",
        "defs": [
            ("App.Services", "module", 6, None),
            ("IRepo", "interface", 8, "App.Services"),
            ("Find", "method", 10, "IRepo"),
            ("UserService", "class", 13, "App.Services"),
            ("Max", "constant", 16, "UserService"),
            ("Name", "property", 17, "UserService"),
            ("Find", "method", 21, "UserService"),
            ("Point", "struct", 29, "App.Services"),
            ("Color", "enum", 30, "App.Services"),
            ("Person", "class", 31, "App.Services"),
            ("Handler", "type", 32, "App.Services"),
        ],
        "refs": {"BaseService": 1, "IRepo": 1, "Entity": 1, "ILogger": 2, "Info": 1, "Helper": 1, "Load": 1},
        "imports": [
            ("System", "namespace", []),
            ("System.Collections.Generic", "namespace", []),
            ("System.Math", "namespace", []),
            ("App.Models", "namespace", ["Models"]),
        ],
    },
    "sample.rb": {
        "lang": "ruby",
        "defs": [
            ("Shop", "module", 5, None),
            ("Cart", "class", 6, "Shop"),
            ("MAX", "constant", 7, "Cart"),
            ("add", "method", 9, "Cart"),
            ("build", "method", 14, "Cart"),
            ("top_helper", "function", 20, None),
        ],
        "refs": {"Base": 1, "push": 1, "Logger": 1, "info": 1, "Cart": 1},
        "absent_refs": ["item", "items"],  # locals/bare identifiers are not references
        # require "net/#{proto}" is dynamic: not an import
        "imports": [("json", "module", []), ("../lib/helper", "relative", [])],
    },
    "sample.php": {
        "lang": "php",
        "defs": [
            ("VERSION", "constant", 10, None),
            ("Handler", "interface", 12, None),
            ("handle", "method", 14, "Handler"),
            ("Greets", "trait", 17, None),
            ("greet", "method", 19, "Greets"),
            ("Suit", "enum", 22, None),
            ("UserController", "class", 27, None),
            ("LIMIT", "constant", 31, "UserController"),
            ("mailer", "field", 32, "UserController"),
            ("handle", "method", 34, "UserController"),
            ("format_user", "function", 42, None),
        ],
        "refs": {"Controller": 1, "Response": 3, "json": 1, "send": 1, "Mailer": 1, "Request": 2},
        "imports": [
            ("App\\Models\\User", "use", ["User"]),
            ("App\\Services\\Mailer", "use", ["Mailer"]),
            ("App\\Services\\Logger", "use", ["L"]),
            ("./bootstrap.php", "path", []),
            ("helpers.php", "path", []),
        ],
    },
    "sample.swift": {
        "lang": "swift",
        "defs": [
            ("maxCount", "constant", 4, None),
            ("Greeter", "interface", 6, None),
            ("greet", "method", 7, "Greeter"),
            ("ViewController", "class", 10, None),
            ("label", "property", 11, "ViewController"),
            ("greet", "method", 13, "ViewController"),
            ("Point", "struct", 19, None),
            ("x", "property", 19, "Point"),
            ("Direction", "enum", 20, None),
            ("zero", "method", 22, "Point"),  # declared in `extension Point`
            ("Pair", "type", 24, None),
            ("topLevel", "function", 25, None),
        ],
        "refs": {"UIViewController": 1, "Greeter": 1, "format": 1, "make": 1, "Helper": 1, "Equatable": 1},
        "absent_refs": ["msg", "maxCount"],
        "imports": [("Foundation", "module", []), ("UIKit", "module", [])],
    },
    "sample.dart": {
        "lang": "dart",
        "defs": [
            ("maxItems", "constant", 7, None),
            ("logger", "constant", 8, None),
            ("Repository", "class", 10, None),
            ("find", "method", 11, "Repository"),
            ("UserRepo", "class", 14, None),
            ("name", "method", 18, "UserRepo"),
            ("find", "method", 20, "UserRepo"),  # `@override` line included
            ("Loggable", "mixin", 28, None),
            ("log", "method", 29, "Loggable"),
            ("Status", "enum", 32, None),
            ("StringX", "extension", 34, None),
            ("isBlank", "method", 35, "StringX"),
            ("Callback", "type", 38, None),
            ("main", "function", 40, None),
        ],
        "refs": {"helper": 1, "runApp": 1, "MyApp": 1, "fromJson": 1, "load": 1, "Logger": 1, "Base": 2},
        "imports": [
            ("dart:async", "module", []),
            ("package:app/models/user.dart", "module", []),
            ("src/helpers.dart", "module", ["helper"]),
            ("src/api.dart", "module", []),
            ("part_file.dart", "module", []),
        ],
    },
}


def _parse(fixture: str):
    path = FIXTURES / fixture
    lang = CASES[fixture]["lang"]
    assert language_for_path(path) == lang
    parsed = parse_source(lang, path.read_bytes(), fixture)
    assert parsed.error is None
    assert parsed.lang == lang
    return parsed


@pytest.mark.parametrize("fixture", sorted(CASES))
def test_definitions(fixture: str) -> None:
    parsed = _parse(fixture)
    got = [(d.name, d.kind, d.line, d.parent) for d in parsed.defs]
    assert got == CASES[fixture]["defs"]
    for d in parsed.defs:
        assert 1 <= d.line <= d.end_line
        assert d.signature and len(d.signature) <= 200 and "\n" not in d.signature


@pytest.mark.parametrize("fixture", sorted(CASES))
def test_references(fixture: str) -> None:
    parsed = _parse(fixture)
    for name, count in CASES[fixture]["refs"].items():
        assert parsed.refs.get(name) == count, (name, parsed.refs)
    for name in CASES[fixture].get("absent_refs", []):
        assert name not in parsed.refs
    assert all(len(name) > 1 for name in parsed.refs)
    assert not {"self", "this", "return", "def", "function"} & set(parsed.refs)


@pytest.mark.parametrize("fixture", sorted(CASES))
def test_imports(fixture: str) -> None:
    parsed = _parse(fixture)
    got = [(i.raw, i.kind, i.names) for i in parsed.imports]
    assert got == CASES[fixture]["imports"]
    lines = [i.line for i in parsed.imports]
    assert lines == sorted(lines) and all(n >= 1 for n in lines)


def test_every_grammar_language_has_a_case() -> None:
    from test_parse_langs_new import CASES as NEW_CASES  # same folder (pytest puts it on sys.path)

    from cairn.codemap.languages import GRAMMARS

    covered = {case["lang"] for case in (*CASES.values(), *NEW_CASES.values())} | {"ocaml_interface"}
    assert covered == set(GRAMMARS)


def test_spans_signatures_and_top_level() -> None:
    py = {d.name: d for d in _parse("sample.py").defs}
    assert (py["User"].line, py["User"].end_line) == (11, 18)  # decorator included in the span
    assert py["User"].signature == "class User(Base, mixins.Loggable)"
    assert py["greet"].top_level is False and py["User"].top_level is True
    assert py["main"].signature == "async def main(argv: list[str]) -> int"  # multi-line header joined
    assert "inner" not in py  # closures inside functions are not map entries

    go = {d.name: d for d in _parse("sample.go").defs}
    assert go["Start"].top_level is True  # receiver methods sit at file level
    assert go["Start"].signature == "func (s *Server) Start(port int) error"
    assert go["Max"].signature == "const Max = 3"
    assert go["Server"].signature == "type Server struct"  # fields are the body
    assert go["Handler"].signature == "type Handler interface"
    assert go["Serve"].top_level is False

    ts = {(d.name, d.parent): d for d in _parse("sample.ts").defs}
    assert ts[("Server", None)].signature == "export class Server extends Base implements Plugin"
    assert (ts[("Server", None)].line, ts[("Server", None)].end_line) == (21, 28)
    assert ts[("createServer", None)].signature.startswith("export const createServer = async (opts: Options)")

    cs = {(d.name, d.parent): d for d in _parse("sample.cs").defs}
    assert cs[("UserService", "App.Services")].top_level is True  # namespaces do not nest chunks
    assert cs[("Find", "UserService")].signature == "public User Find(int id)"

    dart = {(d.name, d.parent): d for d in _parse("sample.dart").defs}
    assert (dart[("find", "UserRepo")].line, dart[("find", "UserRepo")].end_line) == (20, 25)  # body is a sibling
    assert dart[("main", None)].end_line == 42

    c = {d.name: d for d in _parse("sample.c").defs}
    assert (c["list_length"].line, c["list_length"].end_line) == (16, 24)
    assert c["list_length"].signature == "int list_length(const node_t *head)"
    assert c["node_t"].signature == "typedef struct node"
    assert c["MAX_LEN"].end_line == 4  # preproc node ends at the start of the next line

    cpp = {(d.name, d.line): d for d in _parse("sample.cpp").defs}
    assert cpp[("draw", 13)].top_level is True  # out-of-line Widget::draw
    assert cpp[("draw", 9)].top_level is False

    rb = {d.name: d for d in _parse("sample.rb").defs}
    assert rb["build"].signature == "def self.build"
    assert (rb["Shop"].line, rb["Shop"].end_line) == (5, 18)


def test_definition_sites_are_not_references() -> None:
    parsed = parse_source("python", b"def alpha():\n    return beta()\n\ndef beta():\n    return alpha()\n")
    assert [d.name for d in parsed.defs] == ["alpha", "beta"]
    assert parsed.refs == {"beta": 1, "alpha": 1}  # calls count, the `def` names do not
