"""Parsing of the languages added with issue 12, on realistic snippets in tests/fixtures/langs/.

Each case pins the definitions (name, kind, line, parent) and the imports as written (the
`raw` the resolvers in codemap/imports/conventions.py and paths.py read), plus a few references.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.codemap.languages import language_for_path
from cairn.codemap.model import symbol_key
from cairn.codemap.parse import parse_source

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "langs"

CASES: dict[str, dict] = {
    "sample.ex": {
        "lang": "elixir",
        "defs": [
            ("Plug.Conn", "module", 1, None),
            ("put_status", "function", 14, "Plug.Conn"),
            ("parse", "function", 18, "Plug.Conn"),
            ("halt_if", "function", 20, "Plug.Conn"),
            ("Adapter", "module", 24, "Plug.Conn"),
            ("send_resp", "function", 25, "Adapter"),
            ("to_string", "method", 29, "Chars"),
        ],
        "imports": [("Plug.Conn.{Query, Utils}", 4), ("Plug.Conn.Status", 5), ("Logger", 6), ("Plug.Builder", 7)],
    },
    "sample.hs": {
        "lang": "haskell",
        "defs": [
            ("Data.Aeson.Types", "module", 2, None),
            ("Value", "type", 13, None),
            ("Key", "type", 18, None),
            ("Object", "type", 20, None),
            ("FromJSON", "interface", 22, None),
            ("parseJSON", "method", 23, "FromJSON"),
            ("parseJSON", "method", 26, "FromJSON"),
            ("parseField", "function", 28, None),
            ("withObject", "function", 33, None),
        ],
        "imports": [("Data.Map.Strict", 8), ("Data.Aeson.Internal", 9), ("Control.Monad", 10)],
    },
    "sample.scala": {
        "lang": "scala",
        "defs": [
            ("Handler", "interface", 7, None),
            ("handle", "method", 8, "Handler"),
            ("Route", "class", 11, None),
            ("path", "property", 11, "Route"),
            ("handler", "property", 11, "Route"),
            ("Router", "object", 13, None),
            ("DefaultTimeout", "variable", 14, "Router"),
            ("apply", "method", 16, "Router"),
            ("Router", "class", 19, None),
            ("routes", "property", 19, "Router"),
            ("handle", "method", 20, "Router"),
            ("Method", "enum", 24, None),
            ("Get", "class", 25, "Method"),
            ("Post", "class", 25, "Method"),
            ("Headers", "type", 28, None),
        ],
        "imports": [
            ("scala.concurrent.Future", 3),
            ("com.example.http.model.Request", 4),
            ("com.example.http.model.Response", 4),
            ("com.example.util.*", 5),
        ],
    },
    "sample.groovy": {
        "lang": "groovy",
        "defs": [
            ("ReleasePlugin", "class", 6, None),
            ("apply", "method", 10, "ReleasePlugin"),
            ("bumpVersion", "method", 15, "ReleasePlugin"),
            ("Plugin", "interface", 20, None),
            ("apply", "method", 21, "Plugin"),
            ("configure", "function", 24, None),
        ],
        "imports": [("groovy.transform.CompileStatic", 3), ("org.example.build.tasks.CopyTask", 4)],
    },
    "sample.sh": {
        "lang": "bash",
        "defs": [
            ("VERSION", "variable", 7, None),
            ("BUILD_DIR", "variable", 8, None),
            ("log_info", "function", 10, None),
            ("build_all", "function", 14, None),
        ],
        "imports": [('$(dirname "$0")/lib/common.sh', 4), ("./lib/colors.sh", 5)],
    },
    "sample.bats": {
        "lang": "bash",
        "defs": [
            ("setup", "function", 6, None),
            ("prints the version", "function", 10, None),
            ("fails on a missing file", "function", 15, None),
        ],
        "imports": [("test_helper", 3), ("helpers/assertions", 4)],
    },
    "sample.zig": {
        "lang": "zig",
        "defs": [
            ("max_args", "constant", 5, None),
            ("Param", "struct", 7, None),
            ("init", "method", 11, "Param"),
            ("Kind", "enum", 16, None),
            ("Error", "type", 18, None),
            ("parse", "function", 20, None),
        ],
        "imports": [("std", 1), ("parsers.zig", 2), ("util/arena.zig", 3)],
    },
    "sample.lua": {
        "lang": "lua",
        "defs": [
            ("VERSION", "constant", 6, None),
            ("load", "function", 9, None),
            ("reset", "function", 14, None),
            ("helper", "function", 18, None),
            ("setup", "function", 22, None),
        ],
        "imports": [("lazy.core.util", 1), ("lazy.core.config", 2)],
    },
    "sample.ml": {
        "lang": "ocaml",
        "defs": [
            ("SMap", "module", 3, None),
            ("entry", "type", 5, None),
            ("op", "type", 7, None),
            ("Not_found_key", "type", 9, None),
            ("empty", "constant", 11, None),
            ("put", "function", 13, None),
            ("apply", "function", 15, None),
            ("Stats", "module", 19, None),
            ("count", "function", 20, "Stats"),
            ("counter", "class", 23, None),
            ("incr", "method", 25, "counter"),
        ],
        "imports": [("Printf", 2), ("SMap", 11), ("Stats", 28), ("Store_io", 28)],
    },
    "sample.jl": {
        "lang": "julia",
        "defs": [
            ("Geometry", "module", 1, None),
            ("ORIGIN_TOLERANCE", "constant", 9, "Geometry"),
            ("Shape", "type", 11, "Geometry"),
            ("Point", "struct", 13, "Geometry"),
            ("Polygon", "struct", 18, "Geometry"),
            ("distance", "function", 22, "Geometry"),
            ("area", "function", 26, "Geometry"),
            ("checked", "macro", 28, "Geometry"),
        ],
        "imports": [("LinearAlgebra", 3), ("shapes.jl", 5)],
    },
    "sample.pl": {
        "lang": "perl",
        "defs": [
            ("Mojo::Server::Daemon", "module", 1, None),
            ("MAX_CLIENTS", "constant", 9, None),
            ("new", "function", 11, None),
            ("listen", "function", 17, None),
            ("_accept", "function", 23, None),
        ],
        "imports": [
            ("strict", 2),
            ("warnings", 3),
            ("Mojo::Base", 4),
            ("Mojo::IOLoop", 5),
            ("Mojo::Util", 6),
            ("constant", 9),
        ],
    },
    "sample.tf": {
        "lang": "hcl",
        "defs": [
            ("aws", "class", 5, None),
            ("region", "variable", 9, None),
            ("network", "module", 18, None),
            ("web", "class", 23, None),
            ("ubuntu", "class", 29, None),
            ("web_ip", "variable", 33, None),
        ],
        "imports": [("./modules/network", 19)],
    },
    "sample.sql": {
        "lang": "sql",
        "defs": [
            ("accounts", "table", 2, None),
            ("orders", "table", 7, None),
            ("big_orders", "view", 15, None),
            ("order_total", "function", 18, None),
        ],
        "imports": [],
    },
    "sample.m": {
        "lang": "objc",
        "defs": [
            ("AFCache", "interface", 6, None),
            ("objectForKey", "method", 7, "AFCache"),
            ("AFHTTPClient", "class", 10, None),
            ("baseURL", "property", 11, "AFHTTPClient"),
            ("initWithBaseURL", "method", 12, "AFHTTPClient"),
            ("sharedClient", "method", 13, "AFHTTPClient"),
            ("AFHTTPClient", "class", 16, None),
            ("initWithBaseURL", "method", 18, "AFHTTPClient"),
            ("sharedClient", "method", 24, "AFHTTPClient"),
            ("objectForKey", "method", 28, "AFHTTPClient"),
        ],
        "imports": [("Foundation/Foundation.h", 1), ("AFURLSessionManager.h", 2)],
    },
    "sample.fs": {
        "lang": "fsharp",
        "defs": [
            ("Shop.Cart", "module", 1, None),
            ("Item", "type", 6, "Shop.Cart"),
            ("Discount", "type", 8, "Shop.Cart"),
            ("CartService", "class", 12, "Shop.Cart"),
            ("Total", "method", 13, "CartService"),
            ("applyDiscount", "function", 15, "Shop.Cart"),
            ("Tax", "module", 20, "Shop.Cart"),
            ("rate", "constant", 21, "Tax"),
            ("addTax", "function", 22, "Tax"),
        ],
        "imports": [("System", 3), ("Shop.Pricing", 4)],
    },
    "sample.ps1": {
        "lang": "powershell",
        "defs": [
            ("Get-BuildVersion", "function", 6, None),
            ("Invoke-Deploy", "function", 12, None),
            ("BuildInfo", "class", 17, None),
            ("Describe", "method", 19, "BuildInfo"),
        ],
        "imports": [("$PSScriptRoot\\lib\\Helpers.ps1", 1), ("./modules/Deploy.psm1", 2)],
    },
    "sample.f90": {
        "lang": "fortran",
        "defs": [
            ("geometry_mod", "module", 1, None),
            ("circle", "type", 6, "geometry_mod"),
            ("circle_area", "function", 12, "geometry_mod"),
            ("print_area", "function", 18, "geometry_mod"),
            ("main", "module", 25, None),
        ],
        "imports": [("kinds_mod", 2), ("geometry_mod", 26)],
    },
}

REFS: dict[str, list[str]] = {
    "sample.ex": ["Query", "Utils", "Logger", "code", "put_status"],
    "sample.hs": ["Parser", "lookup", "parseJSON", "FromJSON"],
    "sample.scala": ["Future", "Request", "getOrElse", "successful"],
    "sample.groovy": ["bumpVersion", "register", "Plugin"],
    "sample.sh": ["log_info", "build_all", "make"],
    "sample.bats": ["assert_success"],
    "sample.zig": ["Arena", "deinit", "parsers"],
    "sample.lua": ["track", "helper"],
    "sample.ml": ["Store_io", "SMap", "cardinal"],
    "sample.jl": ["norm", "Point", "Polygon"],
    "sample.pl": ["IOLoop", "trim", "emit"],
    "sample.tf": ["network", "web", "region"],
    "sample.sql": ["orders", "accounts"],
    "sample.m": ["AFURLSessionManager", "NSLog", "initWithBaseURL"],
    "sample.fs": ["sumBy", "ICartRepo"],
    "sample.ps1": ["Get-Content", "Publish-Artifact", "Invoke-Deploy"],
    "sample.f90": ["circle_area", "print_area", "circle"],
}
NOT_REFS: dict[str, list[str]] = {  # keywords and definition sites never count as references
    "sample.ex": [
        "def",
        "defmodule",
        "alias",
        "halt_if",
        "decode",
        "halt",
        "info",
    ],  # `Query.decode(..)` uses Query: its name would match any `decode`
    "sample.sh": ["source", "set", "printf"],
    "sample.bats": ["load", "run"],
    "sample.lua": ["require"],
}


def _parse(fixture: str):
    data = (FIXTURES / fixture).read_bytes()
    lang = language_for_path(fixture, data[:8192])
    assert lang == CASES[fixture]["lang"]
    parsed = parse_source(lang, data, fixture)
    assert parsed.error is None, parsed.error
    return parsed


@pytest.mark.parametrize("fixture", sorted(CASES))
def test_definitions(fixture: str) -> None:
    got = [(d.name, d.kind, d.line, d.parent) for d in _parse(fixture).defs]
    assert got == CASES[fixture]["defs"]


@pytest.mark.parametrize("fixture", sorted(CASES))
def test_imports(fixture: str) -> None:
    got = [(i.raw, i.line) for i in _parse(fixture).imports]
    assert got == CASES[fixture]["imports"]


@pytest.mark.parametrize("fixture", sorted(REFS))
def test_references(fixture: str) -> None:
    refs = _parse(fixture).refs
    for name in REFS[fixture]:
        assert refs.get(name, 0) >= 1, name
    for name in NOT_REFS.get(fixture, []):
        assert name not in refs, name


def test_clauses_merge_into_one_definition_headed_by_the_signature() -> None:
    hs = {d.name: d for d in _parse("sample.hs").defs}
    assert (hs["withObject"].line, hs["withObject"].end_line) == (33, 35)  # signature + 2 equations
    assert hs["withObject"].signature == "withObject :: String -> (Object -> Parser a) -> Value -> Parser a"
    clauses = b"defmodule M do\n  def f(0), do: 1\n  def f(n), do: n\n  def g, do: 2\nend\n"
    defs = parse_source("elixir", clauses).defs
    assert [(d.name, d.line, d.end_line) for d in defs] == [("M", 1, 5), ("f", 2, 3), ("g", 4, 4)]


def test_signatures_are_headers() -> None:
    sigs = {
        d.name: d.signature
        for f in (
            "sample.ex",
            "sample.ml",
            "sample.jl",
            "sample.zig",
            "sample.m",
            "sample.ps1",
            "sample.f90",
            "sample.tf",
        )
        for d in _parse(f).defs
    }
    assert sigs["put_status"] == "def put_status(%Plug.Conn{} = conn, status)"
    assert sigs["put"] == "let put store e"
    assert sigs["Point"] == "struct Point <: Shape"
    assert sigs["Param"] == "pub const Param = struct"
    assert sigs["AFCache"] == "@protocol AFCache <NSObject>"
    assert sigs["Get-BuildVersion"] == "function Get-BuildVersion"
    assert sigs["circle_area"] == "function circle_area(c) result(a)"
    assert sigs["web"] == 'resource "aws_instance" "web"'


def test_qualified_names_are_keyed_by_their_last_segment() -> None:
    assert symbol_key("Plug.Conn", "module") == "conn"
    assert symbol_key("Mojo::Server::Daemon", "module") == "daemon"
    assert symbol_key("Data.Aeson.Types", "module") == "types"
    assert symbol_key("Get-BuildVersion", "function") == "getbuildversion"
    assert symbol_key("1.2 Install", "heading") == "12install"  # headings keep their whole text


def test_header_sniffing_for_objc_and_matlab() -> None:
    assert language_for_path("AFNetworking.h", b"#import <Foundation/Foundation.h>\n@interface A\n@end\n") == "objc"
    assert language_for_path("x.m", b"function y = f(x)\n  y = x;\nend\n") == "matlab"
    assert language_for_path("x.m", (FIXTURES / "sample.m").read_bytes()) == "objc"
    assert language_for_path("x.mli") == "ocaml_interface" and language_for_path("main.tf") == "hcl"
    assert language_for_path("Jenkinsfile") == "groovy" and language_for_path("t/basic.t") == "perl"


def test_ocaml_interface_files_parse() -> None:
    src = b"(** Stores. *)\ntype t\nval empty : t\nval put : t -> string -> int -> t\nmodule Io : sig\n  val load : string -> t\nend\n"
    defs = parse_source("ocaml_interface", src).defs
    assert [(d.name, d.kind) for d in defs] == [
        ("t", "type"),
        ("empty", "function"),
        ("put", "function"),
        ("Io", "module"),
        ("load", "function"),
    ]
