"""C/C++ includes, Dart package: URIs, C# namespaces, Swift modules, dispatch robustness."""

from __future__ import annotations

from pathlib import Path

from cairn.codemap.imports import ResolverContext, build_context, family_of, resolve_import
from cairn.codemap.model import ImportRef


def make_repo(root: Path, files: dict[str, str]) -> ResolverContext:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return build_context(root, [f for f in files if not f.endswith((".yaml", ".json"))])


def res(ctx: ResolverContext, lang: str, path: str, raw: str, kind: str = "module") -> list[str]:
    return resolve_import(ctx, lang, path, ImportRef(raw=raw, line=1, kind=kind))


C = {
    "include/fmt/core.h": "",
    "include/fmt/format.h": "",
    "src/format.cc": "",
    "src/internal.h": "",
    "src/os/posix.c": "",
    "src/os/posix.h": "",
    "config.h": "",
    "third_party/zlib/zlib.h": "",
    "tests/format_test.cc": "",
    "lib/net/include/net/socket.hpp": "",
    "lib/net/src/socket.cpp": "",
}


def test_c_include_relative_to_including_file(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, C)
    assert res(ctx, "c", "src/os/posix.c", "posix.h", "local") == ["src/os/posix.h"]
    assert res(ctx, "c", "src/os/posix.c", "../internal.h", "local") == ["src/internal.h"]
    assert res(ctx, "cpp", "src/format.cc", "internal.h", "local") == ["src/internal.h"]


def test_c_include_from_include_dirs_and_root(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, C)
    assert res(ctx, "cpp", "src/format.cc", "fmt/core.h", "local") == ["include/fmt/core.h"]
    assert res(ctx, "cpp", "tests/format_test.cc", "fmt/format.h", "local") == ["include/fmt/format.h"]
    assert res(ctx, "cpp", "tests/format_test.cc", "config.h", "local") == ["config.h"]
    assert res(ctx, "cpp", "tests/format_test.cc", "os/posix.h", "local") == ["src/os/posix.h"]
    assert res(ctx, "cpp", "lib/net/src/socket.cpp", "net/socket.hpp", "local") == ["lib/net/include/net/socket.hpp"]
    # An unseen -I flag: the unique file ending with the written path.
    assert res(ctx, "c", "src/format.cc", "zlib.h", "local") == ["third_party/zlib/zlib.h"]
    assert res(ctx, "c", "src/format.cc", "missing.h", "local") == []


def test_c_system_includes(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, C)
    assert res(ctx, "c", "src/os/posix.c", "stdio.h", "system") == []
    assert res(ctx, "cpp", "src/format.cc", "vector", "system") == []
    # A system-style include of a header the project ships under include/.
    assert res(ctx, "cpp", "tests/format_test.cc", "fmt/core.h", "system") == ["include/fmt/core.h"]
    assert res(ctx, "cpp", "tests/format_test.cc", "config.h", "system") == ["config.h"]
    # ...but never a relative or arbitrary match.
    assert res(ctx, "c", "src/os/posix.c", "posix.h", "system") == []
    assert res(ctx, "c", "src/format.cc", "zlib.h", "system") == []


DART = {
    "pubspec.yaml": "# app\nname: shop_app\ndescription: x\ndependencies:\n  name_dep: ^1.0.0\n",
    "lib/main.dart": "",
    "lib/src/cart.dart": "",
    "lib/src/models/item.dart": "",
    "packages/ui_kit/pubspec.yaml": "name: 'ui_kit'\n",
    "packages/ui_kit/lib/button.dart": "",
    "test/cart_test.dart": "",
}


def test_dart_package_and_relative_uris(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, DART)
    assert res(ctx, "dart", "test/cart_test.dart", "package:shop_app/src/cart.dart") == ["lib/src/cart.dart"]
    assert res(ctx, "dart", "lib/main.dart", "package:ui_kit/button.dart") == ["packages/ui_kit/lib/button.dart"]
    assert res(ctx, "dart", "lib/main.dart", "src/cart.dart") == ["lib/src/cart.dart"]
    assert res(ctx, "dart", "lib/src/cart.dart", "models/item.dart") == ["lib/src/models/item.dart"]
    assert res(ctx, "dart", "lib/src/models/item.dart", "../cart.dart") == ["lib/src/cart.dart"]
    assert res(ctx, "dart", "lib/main.dart", "dart:async") == []
    assert res(ctx, "dart", "lib/main.dart", "package:flutter/material.dart") == []


CS_SWIFT = {
    "src/Shop.Core/Services/OrderService.cs": "",
    "src/Shop.Core/Services/PriceService.cs": "",
    "src/Shop.Core/Models/Order.cs": "",
    "src/Shop.Web/Program.cs": "",
    "Sources/NetKit/Client.swift": "",
    "Sources/NetKit/Internal/Pool.swift": "",
    "Sources/App/main.swift": "",
    "Tests/NetKitTests/ClientTests.swift": "",
}


def test_csharp_namespace_matches_directory_suffix(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, CS_SWIFT)
    assert res(ctx, "csharp", "src/Shop.Web/Program.cs", "Shop.Core.Services", "namespace") == [
        "src/Shop.Core/Services/OrderService.cs",
        "src/Shop.Core/Services/PriceService.cs",
    ]
    assert res(ctx, "c_sharp", "src/Shop.Web/Program.cs", "Shop.Core.Models", "namespace") == [
        "src/Shop.Core/Models/Order.cs"
    ]
    assert res(ctx, "csharp", "src/Shop.Web/Program.cs", "System.Collections.Generic", "namespace") == []
    assert res(ctx, "csharp", "src/Shop.Web/Program.cs", "Models", "namespace") == []  # too deep for one segment


def test_swift_module_under_sources(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, CS_SWIFT)
    assert res(ctx, "swift", "Sources/App/main.swift", "NetKit") == [
        "Sources/NetKit/Client.swift",
        "Sources/NetKit/Internal/Pool.swift",
    ]
    assert res(ctx, "swift", "Tests/NetKitTests/ClientTests.swift", "Foundation") == []


def test_dispatch_never_raises(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, {"a.py": "", "b.rs": "", "c.go": ""})
    weird = ImportRef(raw="...", line=1)
    assert resolve_import(ctx, "cobol", "x.cbl", ImportRef(raw="X", line=1)) == []
    assert resolve_import(ctx, "python", "a.py", weird) == []
    assert resolve_import(ctx, "rust", "b.rs", ImportRef(raw="{{{", line=1, kind="use")) == []
    assert resolve_import(ctx, "go", "c.go", ImportRef(raw="", line=1)) == []
    # A family with no files in the repo has no index: still [] without error.
    assert resolve_import(ctx, "java", "X.java", ImportRef(raw="a.B", line=1)) == []
    bad: object = None
    assert resolve_import(ctx, "python", "a.py", bad) == []  # type: ignore[arg-type]


def test_family_names() -> None:
    assert family_of("TypeScript") == "javascript"
    assert family_of("kotlin") == "jvm"
    assert family_of("", "src/x.hpp") == "cfamily"
    assert family_of("unknown", "README") is None


def test_broken_configs_do_not_break_build(tmp_path: Path) -> None:
    ctx = make_repo(
        tmp_path,
        {
            "tsconfig.json": "{ not json at all",
            "go.mod": "",
            "Cargo.toml": "[package\nname=",
            "composer.json": "[1, 2]",
            "pubspec.yaml": "::",
            "a.ts": "",
            "b.go": "",
            "c.rs": "",
            "d.php": "",
            "e.dart": "",
        },
    )
    assert res(ctx, "typescript", "a.ts", "./a") == []
    assert res(ctx, "go", "b.go", "example.com/x") == []
