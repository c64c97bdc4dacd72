"""Rust resolution: mod declarations, crate::/super::/self:: paths, use trees, workspace crates."""

from __future__ import annotations

from pathlib import Path

from cairn.codemap.imports import ResolverContext, build_context, resolve_import
from cairn.codemap.imports.rust import expand_use
from cairn.codemap.model import ImportRef


def make_repo(root: Path, files: dict[str, str]) -> ResolverContext:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return build_context(root, [f for f in files if f.endswith(".rs")])


def use(ctx: ResolverContext, path: str, raw: str, names: list[str] | None = None) -> list[str]:
    return resolve_import(ctx, "rust", path, ImportRef(raw=raw, line=1, kind="use", names=names or []))


def mod(ctx: ResolverContext, path: str, name: str) -> list[str]:
    return resolve_import(ctx, "rust", path, ImportRef(raw=name, line=1, kind="mod"))


CRATE = {
    "Cargo.toml": '[package]\nname = "my-app"\nversion = "0.1.0"\n',
    "src/lib.rs": "mod config; mod net;",
    "src/main.rs": "",
    "src/config.rs": "",
    "src/net/mod.rs": "mod http; mod tcp;",
    "src/net/http.rs": "mod headers;",
    "src/net/http/headers.rs": "",
    "src/net/tcp.rs": "",
    "src/bin/tool.rs": "mod helper;",
    "src/bin/helper.rs": "",
    "tests/integration.rs": "mod common;",
    "tests/common/mod.rs": "",
}


def test_mod_declarations(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, CRATE)
    assert mod(ctx, "src/lib.rs", "config") == ["src/config.rs"]
    assert mod(ctx, "src/lib.rs", "net") == ["src/net/mod.rs"]
    assert mod(ctx, "src/net/mod.rs", "http") == ["src/net/http.rs"]
    assert mod(ctx, "src/net/http.rs", "headers") == ["src/net/http/headers.rs"]
    assert mod(ctx, "src/bin/tool.rs", "helper") == ["src/bin/helper.rs"]
    assert mod(ctx, "tests/integration.rs", "common") == ["tests/common/mod.rs"]
    assert mod(ctx, "src/lib.rs", "missing") == []


def test_crate_paths(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, CRATE)
    assert use(ctx, "src/net/tcp.rs", "crate::config::Settings") == ["src/config.rs"]
    assert use(ctx, "src/config.rs", "crate::net::http::headers::HeaderMap") == ["src/net/http/headers.rs"]
    assert use(ctx, "src/config.rs", "crate::net") == ["src/net/mod.rs"]
    # An item defined in the crate root itself.
    assert use(ctx, "src/config.rs", "crate::Error") == ["src/lib.rs"]


def test_super_and_self(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, CRATE)
    assert use(ctx, "src/net/http.rs", "super::tcp::Stream") == ["src/net/tcp.rs"]
    assert use(ctx, "src/net/http.rs", "super::Shared") == ["src/net/mod.rs"]
    assert use(ctx, "src/net/http/headers.rs", "super::super::tcp") == ["src/net/tcp.rs"]
    assert use(ctx, "src/net/tcp.rs", "super::super::config") == ["src/config.rs"]
    assert use(ctx, "src/net/mod.rs", "super::config::Settings") == ["src/config.rs"]
    assert use(ctx, "src/net/mod.rs", "self::http::Client") == ["src/net/http.rs"]
    assert use(ctx, "src/net/http.rs", "self::headers::*") == ["src/net/http/headers.rs"]
    # Above the crate root there is nothing.
    assert use(ctx, "src/lib.rs", "super::x") == []


def test_use_trees_and_names(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, CRATE)
    assert use(ctx, "src/lib.rs", "crate::net::{http::Client, tcp, self}") == [
        "src/net/http.rs",
        "src/net/tcp.rs",
        "src/net/mod.rs",
    ]
    assert use(ctx, "src/lib.rs", "crate::net", ["http", "tcp"]) == [
        "src/net/mod.rs",
        "src/net/http.rs",
        "src/net/tcp.rs",
    ]
    assert expand_use("pub use a::{b as c, d::{e, f}};") == ["a::b", "a::d::e", "a::d::f"]


def test_uniform_paths_and_externals(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, CRATE)
    assert use(ctx, "src/lib.rs", "net::http::Client") == ["src/net/http.rs"]
    assert use(ctx, "src/lib.rs", "std::collections::HashMap") == []
    assert use(ctx, "src/lib.rs", "serde::Deserialize") == []
    # main.rs uses the library crate by its (underscored) package name.
    assert use(ctx, "src/main.rs", "my_app::config::Settings") == ["src/config.rs"]


def test_workspace_member_crates(tmp_path: Path) -> None:
    ctx = make_repo(
        tmp_path,
        {
            "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
            "crates/core/Cargo.toml": '[package]\nname = "acme-core"\n[lib]\npath = "src/core.rs"\n',
            "crates/core/src/core.rs": "",
            "crates/core/src/model.rs": "",
            "crates/cli/Cargo.toml": '[package]\nname = "acme-cli"\n',
            "crates/cli/src/main.rs": "",
            "crates/cli/src/args.rs": "",
        },
    )
    assert use(ctx, "crates/cli/src/main.rs", "acme_core::model::User") == ["crates/core/src/model.rs"]
    assert use(ctx, "crates/cli/src/main.rs", "acme_core::Thing") == ["crates/core/src/core.rs"]
    assert use(ctx, "crates/cli/src/args.rs", "crate::Cli") == ["crates/cli/src/main.rs"]
    assert use(ctx, "crates/core/src/model.rs", "crate::Id") == ["crates/core/src/core.rs"]
    assert mod(ctx, "crates/cli/src/main.rs", "args") == ["crates/cli/src/args.rs"]


def test_parser_shape_one_ref_per_leaf(tmp_path: Path) -> None:
    """The parser flattens use trees: raw is the full path, names the leaf (or "*")."""
    ctx = make_repo(tmp_path, {**CRATE, "src/net/net.rs": ""})
    assert use(ctx, "src/lib.rs", "crate::net::tcp", ["tcp"]) == ["src/net/tcp.rs"]
    assert use(ctx, "src/lib.rs", "crate::net", ["net"]) == ["src/net/mod.rs"]  # not net/net.rs
    assert use(ctx, "src/net/http.rs", "super", ["*"]) == []  # the inline `mod tests` idiom
    assert use(ctx, "src/net/http.rs", "super::*") == []
    assert use(ctx, "src/config.rs", "crate::net", ["*"]) == ["src/net/mod.rs"]
