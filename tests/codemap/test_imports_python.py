"""Python import resolution: absolute, relative, submodules via names, src layouts."""

from __future__ import annotations

from pathlib import Path

from cairn.codemap.imports import ResolverContext, build_context, resolve_import
from cairn.codemap.model import ImportRef


def make_repo(root: Path, files: dict[str, str]) -> ResolverContext:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return build_context(root, files.keys())


def res(ctx: ResolverContext, path: str, raw: str, names: list[str] | None = None) -> list[str]:
    return resolve_import(ctx, "python", path, ImportRef(raw=raw, line=1, names=names or []))


FLAT = {
    "app/__init__.py": "",
    "app/core.py": "",
    "app/utils/__init__.py": "",
    "app/utils/text.py": "",
    "app/utils/num.py": "",
    "app/api/__init__.py": "",
    "app/api/routes.py": "",
    "scripts/tool.py": "",
    "scripts/helpers.py": "",
    "tests/test_core.py": "",
}


def test_absolute_module_and_package(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, FLAT)
    assert res(ctx, "tests/test_core.py", "app.core") == ["app/core.py"]
    assert res(ctx, "tests/test_core.py", "app") == ["app/__init__.py"]
    assert res(ctx, "tests/test_core.py", "app.utils.text") == ["app/utils/text.py"]


def test_from_package_import_module_uses_names(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, FLAT)
    assert res(ctx, "app/core.py", "app.utils", ["text", "num"]) == ["app/utils/text.py", "app/utils/num.py"]
    # An attribute (function/class) lands on the package's __init__.py.
    assert res(ctx, "app/core.py", "app.utils", ["slugify"]) == ["app/utils/__init__.py"]
    # Mixed: the submodule and the package itself.
    assert res(ctx, "app/core.py", "app.utils", ["text", "slugify"]) == [
        "app/utils/text.py",
        "app/utils/__init__.py",
    ]
    assert res(ctx, "app/core.py", "app.utils", ["text as t"]) == ["app/utils/text.py"]
    # A submodule named like its package.
    ctx2 = make_repo(tmp_path / "b", {"app/__init__.py": "", "app/app.py": "", "main.py": ""})
    assert res(ctx2, "main.py", "app", ["app"]) == ["app/app.py"]


def test_attribute_path_lands_on_deepest_module(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, FLAT)
    assert res(ctx, "tests/test_core.py", "app.core.Engine") == ["app/core.py"]
    assert res(ctx, "tests/test_core.py", "app.core", ["Engine"]) == ["app/core.py"]


def test_external_imports_are_empty(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, FLAT)
    assert res(ctx, "app/core.py", "os.path") == []
    assert res(ctx, "app/core.py", "requests", ["get"]) == []


def test_relative_imports(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, FLAT)
    assert res(ctx, "app/utils/text.py", ".num") == ["app/utils/num.py"]
    assert res(ctx, "app/utils/text.py", ".", ["num"]) == ["app/utils/num.py"]
    assert res(ctx, "app/api/routes.py", "..core", ["Engine"]) == ["app/core.py"]
    assert res(ctx, "app/api/routes.py", "..utils", ["text"]) == ["app/utils/text.py"]
    assert res(ctx, "app/api/routes.py", "..", ["core"]) == ["app/core.py"]
    # `from . import x` inside __init__.py refers to the package's own submodule.
    assert res(ctx, "app/utils/__init__.py", ".", ["text"]) == ["app/utils/text.py"]
    assert res(ctx, "app/utils/__init__.py", ".text", ["slugify"]) == ["app/utils/text.py"]


def test_relative_import_beyond_top_level_package_is_empty(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, FLAT)
    assert res(ctx, "app/core.py", "..", ["something"]) == []
    assert res(ctx, "app/utils/text.py", "...outside") == []
    assert res(ctx, "app/api/routes.py", "....deep") == []
    assert res(ctx, "app/core.py", ".missing") == []


def test_src_layout(tmp_path: Path) -> None:
    ctx = make_repo(
        tmp_path,
        {
            "src/mylib/__init__.py": "",
            "src/mylib/models.py": "",
            "src/mylib/sub/__init__.py": "",
            "src/mylib/sub/deep.py": "",
            "tests/test_models.py": "",
            "tests/conftest.py": "",
        },
    )
    assert res(ctx, "tests/test_models.py", "mylib.models") == ["src/mylib/models.py"]
    assert res(ctx, "tests/test_models.py", "mylib", ["models"]) == ["src/mylib/models.py"]
    assert res(ctx, "src/mylib/sub/deep.py", "..models", ["X"]) == ["src/mylib/models.py"]
    assert res(ctx, "src/mylib/sub/deep.py", "mylib.sub.deep") == []  # itself: never returned
    # Climbing above the top-level package of a src layout is an error in Python.
    assert res(ctx, "src/mylib/models.py", "..", ["x"]) == []
    # Test modules import their siblings (pytest puts the directory on sys.path).
    assert res(ctx, "tests/test_models.py", "conftest") == ["tests/conftest.py"]


def test_script_directory_siblings_but_not_inside_packages(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, {**FLAT, "app/helpers.py": ""})
    assert res(ctx, "scripts/tool.py", "helpers") == ["scripts/helpers.py"]
    # Inside a package there are no implicit relative imports (Python 3).
    assert res(ctx, "app/core.py", "helpers") == []


def test_stub_only_module_and_star_import(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, {"pkg/__init__.py": "", "pkg/fast.pyi": "", "pkg/slow.py": "", "pkg/slow.pyi": ""})
    assert res(ctx, "main.py", "pkg.fast") == ["pkg/fast.pyi"]
    assert res(ctx, "main.py", "pkg.slow") == ["pkg/slow.py"]
    assert res(ctx, "main.py", "pkg", ["*"]) == ["pkg/__init__.py"]


def test_nested_project_root_with_own_package(tmp_path: Path) -> None:
    ctx = make_repo(
        tmp_path,
        {
            "services/api/server/__init__.py": "",
            "services/api/server/app.py": "",
            "services/api/server/db.py": "",
        },
    )
    assert res(ctx, "services/api/server/app.py", "server.db") == ["services/api/server/db.py"]
    assert res(ctx, "services/api/server/app.py", "server", ["db"]) == ["services/api/server/db.py"]


def test_ambiguous_module_across_sibling_projects_is_not_guessed(tmp_path: Path) -> None:
    ctx = make_repo(
        tmp_path,
        {
            "examples/blog/app/__init__.py": "",
            "examples/shop/app/__init__.py": "",
            "examples/shop/run.py": "",
            "tools/check.py": "",
        },
    )
    assert res(ctx, "examples/shop/run.py", "app") == ["examples/shop/app/__init__.py"]
    assert res(ctx, "tools/check.py", "app") == []
