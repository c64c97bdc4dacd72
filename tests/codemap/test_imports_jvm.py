"""Java/Kotlin resolution through package declarations, with several source roots."""

from __future__ import annotations

from pathlib import Path

from cairn.codemap.imports import ResolverContext, build_context, resolve_import
from cairn.codemap.model import ImportRef


def make_repo(root: Path, files: dict[str, str]) -> ResolverContext:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return build_context(root, files.keys())


def res(ctx: ResolverContext, path: str, raw: str, lang: str = "java") -> list[str]:
    return resolve_import(ctx, lang, path, ImportRef(raw=raw, line=1))


REPO = {
    "core/src/main/java/com/acme/model/User.java": "/* License: package x */\npackage com.acme.model;\n",
    "core/src/main/java/com/acme/model/Order.java": "package com.acme.model;\n",
    "core/src/main/java/com/acme/util/Strings.java": "package com.acme.util;\n",
    "core/src/test/java/com/acme/model/UserTest.java": "package com.acme.model;\n",
    "app/src/main/kotlin/com/acme/app/Main.kt": "package com.acme.app\n\nimport com.acme.model.User\n",
    # Kotlin does not require directories to follow the package.
    "app/src/main/kotlin/extensions/Ext.kt": '@file:JvmName("Ext")\npackage com.acme.ext\n',
}


def test_class_import_across_modules_and_languages(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, REPO)
    assert res(ctx, "app/src/main/kotlin/com/acme/app/Main.kt", "com.acme.model.User", "kotlin") == [
        "core/src/main/java/com/acme/model/User.java"
    ]
    assert res(ctx, "core/src/main/java/com/acme/model/User.java", "com.acme.util.Strings") == [
        "core/src/main/java/com/acme/util/Strings.java"
    ]
    assert res(ctx, "core/src/main/java/com/acme/model/User.java", "com.acme.ext.Ext") == [
        "app/src/main/kotlin/extensions/Ext.kt"
    ]


def test_wildcard_gives_the_package(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, REPO)
    assert sorted(res(ctx, "app/src/main/kotlin/com/acme/app/Main.kt", "com.acme.model.*")) == [
        "core/src/main/java/com/acme/model/Order.java",
        "core/src/main/java/com/acme/model/User.java",
        "core/src/test/java/com/acme/model/UserTest.java",
    ]


def test_nested_class_static_member_and_alias(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, REPO)
    assert res(ctx, "x.java", "com.acme.model.User.Builder") == ["core/src/main/java/com/acme/model/User.java"]
    assert res(ctx, "x.java", "static com.acme.util.Strings.isBlank") == [
        "core/src/main/java/com/acme/util/Strings.java"
    ]
    assert res(ctx, "x.java", "com.acme.util.Strings.*") == ["core/src/main/java/com/acme/util/Strings.java"]
    assert res(ctx, "x.kt", "com.acme.model.User as U", "kotlin") == ["core/src/main/java/com/acme/model/User.java"]


def test_external_and_unknown(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, REPO)
    assert res(ctx, "x.java", "java.util.List") == []
    assert res(ctx, "x.java", "org.junit.jupiter.api.*") == []
    assert res(ctx, "x.java", "com.acme.model.Missing") == []


def test_package_inferred_from_path_when_unreadable(tmp_path: Path) -> None:
    # Files listed but absent on disk: the path below java/ gives the package.
    ctx = build_context(tmp_path, ["lib/src/main/java/org/demo/Thing.java"])
    assert res(ctx, "x.java", "org.demo.Thing") == ["lib/src/main/java/org/demo/Thing.java"]
