"""Defects found checking each grammar of the last release on a real repository (issue 35, item 12).

Each test names the repository where the defect showed.
"""

from __future__ import annotations

from pathlib import Path

from cairn.codemap.imports import ResolverContext, resolve_import
from cairn.codemap.model import ImportRef


def _ctx(root: Path, files: list[str]) -> ResolverContext:
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    return ResolverContext.build(root, files)


def _res(ctx: ResolverContext, lang: str, path: str, raw: str) -> list[str]:
    return resolve_import(ctx, lang, path, ImportRef(raw=raw, line=1))


def test_zig_imports_a_module_by_its_name(tmp_path: Path) -> None:
    """Hejsil/zig-clap: the examples' `@import("clap")` (the module build.zig names after clap.zig)."""
    ctx = _ctx(tmp_path, ["clap.zig", "clap/parsers.zig", "example/help.zig", "build.zig", "src/util.jl"])
    assert _res(ctx, "zig", "example/help.zig", "clap") == ["clap.zig"]
    assert _res(ctx, "zig", "example/help.zig", "std") == []
    assert _res(ctx, "zig", "example/help.zig", "util") == []  # a Julia file is no Zig module
