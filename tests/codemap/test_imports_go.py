"""Go resolution: module path from go.mod, nested packages, nested modules, replace, vendor."""

from __future__ import annotations

from pathlib import Path

from cairn.codemap.imports import ResolverContext, build_context, resolve_import
from cairn.codemap.model import ImportRef


def make_repo(root: Path, files: dict[str, str]) -> ResolverContext:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return build_context(root, [f for f in files if f.endswith(".go")])


def res(ctx: ResolverContext, path: str, raw: str) -> list[str]:
    return resolve_import(ctx, "go", path, ImportRef(raw=raw, line=1))


REPO = {
    "go.mod": "module github.com/acme/shop\n\ngo 1.22\n\nrequire (\n\tgithub.com/gin-gonic/gin v1.9.1\n)\n"
    "replace github.com/acme/kit => ./third_party/kit\n",
    "main.go": "",
    "internal/store/store.go": "",
    "internal/store/cache.go": "",
    "internal/store/store_test.go": "",
    "internal/store/sql/query.go": "",
    "pkg/api/api.go": "",
    "third_party/kit/kit.go": "",
    "tools/linter/go.mod": "module github.com/acme/shop/tools/linter\n",
    "tools/linter/lint.go": "",
    "tools/linter/rules/rules.go": "",
}


def test_package_directory_gives_every_non_test_file(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, REPO)
    assert res(ctx, "main.go", "github.com/acme/shop/internal/store") == [
        "internal/store/cache.go",
        "internal/store/store.go",
    ]


def test_nested_package_and_root_package(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, REPO)
    assert res(ctx, "main.go", "github.com/acme/shop/internal/store/sql") == ["internal/store/sql/query.go"]
    assert res(ctx, "pkg/api/api.go", "github.com/acme/shop") == ["main.go"]
    assert res(ctx, "main.go", "github.com/acme/shop/pkg/missing") == []


def test_nested_module_wins_over_parent(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, REPO)
    assert res(ctx, "tools/linter/lint.go", "github.com/acme/shop/tools/linter/rules") == [
        "tools/linter/rules/rules.go"
    ]
    assert res(ctx, "main.go", "github.com/acme/shop/tools/linter") == ["tools/linter/lint.go"]


def test_stdlib_and_third_party_are_external(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, REPO)
    assert res(ctx, "main.go", "fmt") == []
    assert res(ctx, "main.go", "net/http") == []
    assert res(ctx, "main.go", "github.com/gin-gonic/gin") == []
    assert res(ctx, "main.go", "C") == []


def test_local_replace_directive(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, REPO)
    assert res(ctx, "main.go", "github.com/acme/kit") == ["third_party/kit/kit.go"]


def test_vendor_directory(tmp_path: Path) -> None:
    ctx = make_repo(
        tmp_path,
        {"go.mod": "module example.com/app\n", "main.go": "", "vendor/github.com/x/y/y.go": ""},
    )
    assert res(ctx, "main.go", "github.com/x/y") == ["vendor/github.com/x/y/y.go"]
