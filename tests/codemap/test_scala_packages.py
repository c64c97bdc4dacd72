"""Scala on typelevel/cats (issue 35): package lines are not definitions, chained package clauses
name the package a folder holds, and a test body's locals are not a suite's members."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.codemap.imports import build_context, resolve_import
from cairn.codemap.imports.jvm import package_of
from cairn.codemap.model import ImportRef
from cairn.codemap.parse import parse_source

MIT = "/*\n * Copyright (c) 2015 Typelevel\n *\n * Permission is hereby granted, free of charge...\n */\n\n"


def _defs(lang: str, src: str) -> list[tuple[str, str, str | None, bool]]:
    return [(d.name, d.kind, d.parent, d.top_level) for d in parse_source(lang, src).defs]


def test_package_lines_are_not_definitions() -> None:
    src = MIT + "package cats\npackage arrow\n\ntrait Strong[F[_, _]] extends Profunctor[F]\n\nobject Strong\n"
    assert _defs("scala", src) == [("Strong", "interface", None, True), ("Strong", "object", None, True)]


def test_a_package_object_is_a_namespace_of_top_level_members() -> None:
    src = (
        "package cats\n\npackage object data extends Compat {\n  type ValidatedNel[+E, +A] = Validated[E, A]\n"
        "  def NonEmptyStream[A](head: A): A = head\n}\n"
    )
    assert _defs("scala", src) == [
        ("data", "module", None, True),
        ("ValidatedNel", "type", "data", True),
        ("NonEmptyStream", "function", "data", True),
    ]


def test_locals_of_a_test_body_or_lambda_are_not_members() -> None:
    src = """package cats.tests

class KleisliSuite extends CatsSuite {
  implicit val kleisliEq: Eq[Int] = Eq.fromUniversalEquals
  test("local") {
    val count = 0
    trait A1
    case class Config(i: Int)
    def helper(x: Int) = x
  }
  val fn = (x: Int) => { val z = x; z }
  def program[A1 >: A](x: A1): A1 = { class Local; x }
}
"""
    assert _defs("scala", src) == [
        ("KleisliSuite", "class", None, True),
        ("kleisliEq", "variable", "KleisliSuite", False),
        ("fn", "variable", "KleisliSuite", False),
        ("program", "method", "KleisliSuite", False),
        ("Local", "class", "program", False),
    ]  # a named function's local class stays, as in every language


@pytest.mark.parametrize(
    ("lang", "src", "names"),
    [
        ("csharp", "namespace App.Services;\n\npublic class UserService {}\n", ["UserService"]),
        ("csharp", "namespace App.Services\n{\n    public class UserService {}\n}\n", ["App.Services", "UserService"]),
        ("php", "<?php\nnamespace App\\Http;\n\nclass Controller {}\n", ["Controller"]),
        ("php", "<?php\nnamespace App\\Http {\n    class Controller {}\n}\n", ["App\\Http", "Controller"]),
        ("fsharp", "namespace Shop.Cart\n\ntype Item = { Sku: string }\n", ["Item"]),
        ("fsharp", "module Shop.Cart\n\nlet total x = x\n", ["Shop.Cart", "total"]),  # a module is a definition
        ("scala", "package a.b {\n  class C\n}\n", ["a.b", "C"]),  # a package with a block scopes what it holds
    ],
)
def test_namespace_lines_of_other_languages(lang: str, src: str, names: list[str]) -> None:
    assert [d[0] for d in _defs(lang, src)] == names


def test_chained_package_clauses() -> None:
    assert package_of(MIT + "package cats\npackage arrow\n\nimport cats.data.Kleisli\n") == "cats.arrow"
    assert package_of("package cats\n// the package object\npackage object data extends X {\n") == "cats.data"
    assert package_of("package object cats {\n") == "cats"
    assert package_of('package com.x;\n\nclass A { String s = """\npackage q\n"""; }\n') == "com.x"
    assert package_of("package `type`.x\n") == "type.x"
    assert package_of("import a.b\n") == ""


CATS = {
    "core/src/main/scala/cats/Functor.scala": "package cats\n\ntrait Functor[F[_]]\n",
    "core/src/main/scala/cats/package.scala": "package object cats {\n  type Id[A] = A\n}\n",
    "core/src/main/scala/cats/arrow/Profunctor.scala": MIT + "package cats\npackage arrow\n\ntrait Profunctor\n",
    "core/src/main/scala/cats/arrow/Strong.scala": MIT + "package cats\npackage arrow\n\ntrait Strong\n",
    "core/src/main/scala/cats/data/package.scala": "package cats\n\npackage object data {\n}\n",
    "core/src/main/scala/cats/data/Kleisli.scala": "package cats\npackage data\n\nfinal case class Kleisli()\n",
    "kernel/src/main/scala/cats/kernel/Monoid.scala": "package cats.kernel\n\nimport compat.scalaVersionSpecific._\n",
    "kernel/src/main/scala/cats/kernel/compat/scalaVersionSpecific.scala": "package cats.kernel\npackage compat\n\nobject scalaVersionSpecific\n",
    "laws/src/main/scala/cats/laws/discipline/Eq.scala": "package cats.laws.discipline\n\nobject eq\n",
    "tests/src/test/scala/cats/tests/StrongSuite.scala": "package cats.tests\n\nimport cats._\n",
}


def test_imports_of_a_cats_like_tree(tmp_path: Path) -> None:
    for rel, text in CATS.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    ctx = build_context(tmp_path, list(CATS))
    suite = "tests/src/test/scala/cats/tests/StrongSuite.scala"

    def res(path: str, raw: str) -> list[str]:
        return sorted(resolve_import(ctx, "scala", path, ImportRef(raw=raw, line=1)))

    # `import cats._` is the package cats: not its sub-packages arrow and data (they were, as "cats")
    assert res(suite, "cats.*") == ["core/src/main/scala/cats/Functor.scala", "core/src/main/scala/cats/package.scala"]
    assert res(suite, "cats.arrow.Strong") == ["core/src/main/scala/cats/arrow/Strong.scala"]
    assert res(suite, "cats.data.Kleisli") == ["core/src/main/scala/cats/data/Kleisli.scala"]
    assert res(suite, "cats.data.*") == [
        "core/src/main/scala/cats/data/Kleisli.scala",
        "core/src/main/scala/cats/data/package.scala",
    ]
    # relative to the importer's package (cats.kernel), and an object kept in a file named otherwise
    assert res("kernel/src/main/scala/cats/kernel/Monoid.scala", "compat.scalaVersionSpecific.*") == [
        "kernel/src/main/scala/cats/kernel/compat/scalaVersionSpecific.scala"
    ]
    assert res(suite, "cats.laws.discipline.eq.*") == ["laws/src/main/scala/cats/laws/discipline/Eq.scala"]
    assert res(suite, "org.scalacheck.Prop.*") == [] and res(suite, "Prop.*") == []
