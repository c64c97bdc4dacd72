"""Imports resolved by naming convention (conventions.py) and by path (paths.py), and Scala through jvm."""

from __future__ import annotations

from pathlib import Path

from cairn.codemap.imports import ResolverContext, build_context, resolve_import
from cairn.codemap.imports.conventions import underscore
from cairn.codemap.model import ImportRef


def make_repo(root: Path, files: list[str]) -> ResolverContext:
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("package com.example.http\n" if rel.endswith(".scala") else "")
    return build_context(root, files)


def res(ctx: ResolverContext, lang: str, path: str, raw: str) -> list[str]:
    return resolve_import(ctx, lang, path, ImportRef(raw=raw, line=1))


def test_elixir_modules_by_underscored_path(tmp_path: Path) -> None:
    ctx = make_repo(
        tmp_path,
        [
            "lib/plug/conn.ex",
            "lib/plug/conn/query.ex",
            "lib/plug/conn/utils.ex",
            "lib/plug/html_escape.ex",
            "lib/plug.ex",
            "test/plug/conn_test.exs",
            "apps/web/lib/web/router.ex",
        ],
    )
    assert res(ctx, "elixir", "lib/plug/router.ex", "Plug.Conn") == ["lib/plug/conn.ex"]
    assert res(ctx, "elixir", "lib/plug/router.ex", "Plug.Conn.{Query, Utils}") == [
        "lib/plug/conn/query.ex",
        "lib/plug/conn/utils.ex",
    ]
    assert res(ctx, "elixir", "lib/x.ex", "Plug.HTMLEscape") == ["lib/plug/html_escape.ex"]
    assert res(ctx, "elixir", "lib/x.ex", "Plug.Conn.Query.Parser") == ["lib/plug/conn/query.ex"]  # nested module
    assert res(ctx, "elixir", "lib/x.ex", "Web.Router") == ["apps/web/lib/web/router.ex"]  # umbrella app
    assert res(ctx, "elixir", "lib/x.ex", "Logger") == []  # outside the repository
    assert underscore("HTTPServer") == "http_server" and underscore("Conn") == "conn"


def test_haskell_perl_lua_ocaml_fortran(tmp_path: Path) -> None:
    ctx = make_repo(
        tmp_path,
        [
            "src/Data/Aeson/Types.hs",
            "src/Data/Aeson.hs",
            "attoparsec-aeson/src/Data/Aeson/Parser.hs",
            "lib/Mojo/Server/Daemon.pm",
            "lib/Mojo/Base.pm",
            "lua/lazy/core/config.lua",
            "lua/lazy/core/util.lua",
            "lua/lazy/view/init.lua",
            "src/store_io.ml",
            "src/store.ml",
            "src/kinds_mod.f90",
            "src/geometry.f90",
        ],
    )
    assert res(ctx, "haskell", "src/Data/Aeson.hs", "Data.Aeson.Types") == ["src/Data/Aeson/Types.hs"]
    assert res(ctx, "haskell", "src/Data/Aeson.hs", "Data.Aeson.Parser") == [
        "attoparsec-aeson/src/Data/Aeson/Parser.hs"
    ]
    assert res(ctx, "haskell", "src/Data/Aeson.hs", "Data.Map.Strict") == []
    assert res(ctx, "perl", "script/daemon.pl", "Mojo::Server::Daemon") == ["lib/Mojo/Server/Daemon.pm"]
    assert res(ctx, "perl", "lib/Mojo/Server/Daemon.pm", "strict") == []
    assert res(ctx, "lua", "lua/lazy/init.lua", "lazy.core.config") == ["lua/lazy/core/config.lua"]
    assert res(ctx, "lua", "lua/lazy/init.lua", "lazy.view") == ["lua/lazy/view/init.lua"]
    assert res(ctx, "ocaml", "src/store.ml", "Store_io") == ["src/store_io.ml"]
    assert res(ctx, "ocaml", "src/store.ml", "List") == []
    assert res(ctx, "fortran", "src/geometry.f90", "kinds_mod") == ["src/kinds_mod.f90"]


def test_paths_for_zig_julia_shell_powershell_terraform(tmp_path: Path) -> None:
    ctx = make_repo(
        tmp_path,
        [
            "clap.zig",
            "clap/parsers.zig",
            "clap/util/arena.zig",
            "src/Geometry.jl",
            "src/shapes.jl",
            "bin/run.sh",
            "lib/common.sh",
            "lib/colors.sh",
            "test/test_helper.bash",
            "test/helpers/assertions.bash",
            "test/run.bats",
            "deploy.ps1",
            "lib/Helpers.ps1",
            "modules/Deploy.psm1",
            "main.tf",
            "modules/network/main.tf",
            "modules/network/outputs.tf",
        ],
    )
    assert res(ctx, "zig", "clap.zig", "clap/parsers.zig") == ["clap/parsers.zig"]
    assert res(ctx, "zig", "clap/parsers.zig", "util/arena.zig") == ["clap/util/arena.zig"]
    assert res(ctx, "zig", "clap.zig", "std") == []
    assert res(ctx, "julia", "src/Geometry.jl", "shapes.jl") == ["src/shapes.jl"]
    assert res(ctx, "julia", "src/shapes.jl", "Geometry") == ["src/Geometry.jl"]  # `using Geometry`
    assert res(ctx, "bash", "bin/run.sh", '$(dirname "$0")/../lib/common.sh') == ["lib/common.sh"]  # by its tail
    assert res(ctx, "bash", "bin/run.sh", '$(dirname "$0")/lib/common.sh') == ["lib/common.sh"]
    assert res(ctx, "bash", "bin/run.sh", "./lib/colors.sh") == ["lib/colors.sh"]  # from the root
    assert res(ctx, "bash", "test/run.bats", "test_helper") == ["test/test_helper.bash"]  # bats `load`
    assert res(ctx, "bash", "test/run.bats", "helpers/assertions") == ["test/helpers/assertions.bash"]
    assert res(ctx, "powershell", "deploy.ps1", "$PSScriptRoot\\lib\\Helpers.ps1") == ["lib/Helpers.ps1"]
    assert res(ctx, "powershell", "deploy.ps1", "./modules/Deploy.psm1") == ["modules/Deploy.psm1"]
    assert res(ctx, "hcl", "main.tf", "./modules/network") == ["modules/network/main.tf", "modules/network/outputs.tf"]
    assert res(ctx, "hcl", "main.tf", "hashicorp/consul/aws") == []


def test_scala_and_groovy_go_through_the_jvm_resolver(tmp_path: Path) -> None:
    ctx = make_repo(
        tmp_path, ["src/main/scala/com/example/http/Router.scala", "src/main/scala/com/example/http/Route.scala"]
    )
    assert res(ctx, "scala", "src/main/scala/App.scala", "com.example.http.Router") == [
        "src/main/scala/com/example/http/Router.scala"
    ]
    assert sorted(res(ctx, "scala", "src/main/scala/App.scala", "com.example.http.*")) == [
        "src/main/scala/com/example/http/Route.scala",
        "src/main/scala/com/example/http/Router.scala",
    ]
