"""PHP (PSR-4, PSR-0, group use, require paths) and Ruby (require_relative, lib/ roots)."""

from __future__ import annotations

from pathlib import Path

from cairn.codemap.imports import ResolverContext, build_context, resolve_import
from cairn.codemap.model import ImportRef


def make_repo(root: Path, files: dict[str, str]) -> ResolverContext:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return build_context(root, [f for f in files if f.endswith((".php", ".rb"))])


def res(ctx: ResolverContext, lang: str, path: str, raw: str, kind: str) -> list[str]:
    return resolve_import(ctx, lang, path, ImportRef(raw=raw, line=1, kind=kind))


PHP = {
    "composer.json": """{
        "autoload": {"psr-4": {"App\\\\": "app/", "Acme\\\\Lib\\\\": ["lib/src/", "lib/extra/"]},
                     "psr-0": {"Legacy_": "old/"}},
        "autoload-dev": {"psr-4": {"Tests\\\\": "tests/"}}
    }""",
    "app/Models/User.php": "",
    "app/Models/Post.php": "",
    "app/Http/Controllers/UserController.php": "",
    "lib/extra/Helpers/Str.php": "",
    "old/Legacy/Db/Conn.php": "",
    "tests/Feature/UserTest.php": "",
    "modules/billing/Invoice/Pdf.php": "",
    "bootstrap/app.php": "",
    "config/db.php": "",
    "public/index.php": "",
}


def test_psr4_class_import(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, PHP)
    c = "app/Http/Controllers/UserController.php"
    assert res(ctx, "php", c, "App\\Models\\User", "use") == ["app/Models/User.php"]
    assert res(ctx, "php", c, "\\App\\Models\\Post", "use") == ["app/Models/Post.php"]
    assert res(ctx, "php", c, "Acme\\Lib\\Helpers\\Str", "use") == ["lib/extra/Helpers/Str.php"]
    assert res(ctx, "php", "tests/Feature/UserTest.php", "App\\Models\\User as U", "use") == ["app/Models/User.php"]
    assert res(ctx, "php", c, "Illuminate\\Http\\Request", "use") == []


def test_group_use_and_psr0(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, PHP)
    c = "app/Http/Controllers/UserController.php"
    assert res(ctx, "php", c, "App\\Models\\{User, Post}", "use") == [
        "app/Models/User.php",
        "app/Models/Post.php",
    ]
    assert res(ctx, "php", c, "Legacy_Db_Conn", "use") == ["old/Legacy/Db/Conn.php"]  # PSR-0: "_" is a separator
    ctx0 = make_repo(
        tmp_path / "p0",
        {"composer.json": '{"autoload": {"psr-0": {"Legacy": "old/"}}}', "old/Legacy/Db/Conn.php": ""},
    )
    assert res(ctx0, "php", "x.php", "Legacy\\Db\\Conn", "use") == ["old/Legacy/Db/Conn.php"]
    assert res(ctx0, "php", "x.php", "Legacy_Db_Conn", "use") == ["old/Legacy/Db/Conn.php"]


def test_namespace_tail_fallback_without_autoload(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, PHP)
    assert res(ctx, "php", "app/Models/User.php", "Billing\\Invoice\\Pdf", "use") == ["modules/billing/Invoice/Pdf.php"]


def test_require_paths(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, PHP)
    assert res(ctx, "php", "public/index.php", "../bootstrap/app.php", "path") == ["bootstrap/app.php"]
    assert res(ctx, "php", "public/index.php", "__DIR__ . '/../config/db.php'", "path") == ["config/db.php"]
    # A parser that keeps only the literal of `__DIR__ . "/../x"` hands over "/../x".
    assert res(ctx, "php", "public/index.php", "/../config/db.php", "path") == ["config/db.php"]
    assert res(ctx, "php", "public/index.php", "config/db.php", "path") == ["config/db.php"]
    assert res(ctx, "php", "public/index.php", "vendor/autoload.php", "path") == []


RUBY = {
    "lib/shop.rb": "",
    "lib/shop/cart.rb": "",
    "lib/shop/cart/item.rb": "",
    "spec/spec_helper.rb": "",
    "spec/shop/cart_spec.rb": "",
    "gems/pay/lib/pay.rb": "",
    "gems/pay/lib/shop/cart.rb": "",
    "gems/pay/spec/pay_spec.rb": "",
}


def test_ruby_require_relative(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, RUBY)
    assert res(ctx, "ruby", "lib/shop/cart.rb", "cart/item", "relative") == ["lib/shop/cart/item.rb"]
    assert res(ctx, "ruby", "lib/shop/cart/item.rb", "../cart.rb", "relative") == ["lib/shop/cart.rb"]
    assert res(ctx, "ruby", "lib/shop.rb", "nope", "relative") == []


def test_ruby_require_through_lib_roots(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, RUBY)
    assert res(ctx, "ruby", "lib/shop.rb", "shop/cart", "module") == ["lib/shop/cart.rb"]
    assert res(ctx, "ruby", "spec/shop/cart_spec.rb", "shop/cart/item", "module") == ["lib/shop/cart/item.rb"]
    assert res(ctx, "ruby", "spec/shop/cart_spec.rb", "spec_helper", "module") == ["spec/spec_helper.rb"]
    # In a monorepo the requiring gem's own lib/ wins.
    assert res(ctx, "ruby", "gems/pay/spec/pay_spec.rb", "shop/cart", "module") == ["gems/pay/lib/shop/cart.rb"]
    assert res(ctx, "ruby", "gems/pay/spec/pay_spec.rb", "pay", "module") == ["gems/pay/lib/pay.rb"]
    assert res(ctx, "ruby", "lib/shop.rb", "json", "module") == []


def test_ruby_require_with_explicit_relative_path(tmp_path: Path) -> None:
    ctx = make_repo(tmp_path, {**RUBY, "test/helper.rb": "", "test/spec_request.rb": "", "test/x/y_test.rb": ""})
    assert res(ctx, "ruby", "test/x/y_test.rb", "../helper", "module") == ["test/helper.rb"]
    assert res(ctx, "ruby", "test/spec_request.rb", "./lib/shop", "module") == ["lib/shop.rb"]
