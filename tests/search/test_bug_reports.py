"""A pasted bug report read as one (issue 38): its stack frames, error messages and failing tests
lead to the project's files and functions, from whatever machine the report came."""

from __future__ import annotations

import random
import time

import pytest

from cairn.search.engine import search_code
from cairn.search.ranking import DEFAULT_RANKING, override
from helpers import indexed_repo, search_fresh

FILES = {
    "src/shop/__init__.py": "",
    "src/shop/parser.py": "import json\n\n\ndef parse_order(text):\n    data = json.loads(text)\n"
    "    return data['qty'] * data['price']\n\n\ndef parse_lines(text):\n    return text.splitlines()\n",
    "src/shop/cart.py": "def apply_coupon(cart, code):\n    if code.expired:\n"
    "        raise ValueError(f'coupon code has expired for {code.name!r}')\n    return cart\n",
    "src/shop/cli.py": "from shop.parser import parse_order\n\n\ndef main(argv):\n    return parse_order(argv[1])\n",
    "tests/test_cart.py": "from shop.cart import apply_coupon\n\n\ndef test_apply_coupon():\n"
    "    assert apply_coupon([], None) == []\n",
    "src/main/java/com/acme/shop/Checkout.java": "package com.acme.shop;\n\npublic class Checkout {\n"
    "  int total(int[] xs) {\n    return xs[3];\n  }\n}\n",
    "packages/core/src/router/match.ts": "export function matchRoute(path: string) {\n  return path.split('#')[0]\n}\n",
    "pkg/store/bucket.go": "package store\n\ntype Reader struct{}\n\nfunc (r *Reader) LoadChunks(n int) []byte {\n"
    "\tbuf := make([]byte, 2)\n\treturn buf[:n]\n}\n",
    **{
        f"src/shop/orders_{i}.py": f"def order_total_{i}(order, parse, text):\n    # parse the order text\n"
        f"    return parse(text) + {i}\n"
        for i in range(10)
    },
}


@pytest.fixture
def shop(tmp_path):
    con, root = indexed_repo(tmp_path / "shop", FILES)
    yield con, root
    con.close()


def test_a_traceback_from_another_machine_leads_to_the_frame_and_its_function(shop):
    con, root = shop
    report = (
        "Crash when I run the CLI on an order\n\nTraceback (most recent call last):\n"
        '  File "C:\\Users\\bob\\work\\shop\\src\\shop\\cli.py", line 5, in main\n    return parse_order(argv[1])\n'
        '  File "/home/bob/venv/lib/python3.12/site-packages/shop/parser.py", line 6, in parse_order\n'
        "    return data['qty'] * data['price']\nKeyError: 'qty'\n"
    )
    hits, _ = search_code(con, report, root=root)
    assert hits[0].path == "src/shop/parser.py"
    assert hits[0].symbols[0] == "parse_order"
    assert "in the traceback: src/shop/parser.py:6 in parse_order()" in hits[0].why


def test_a_long_reports_stack_is_no_path_it_names_the_callee_it_blames_can_come_first(tmp_path):
    """The innermost frame unpacks what `parse_order` returned, and the report blames `parse_order`:
    the stack's file is ranked by the trace channel, not as a path the reporter chose to name."""
    files = {k.replace("src/shop/", "shop/"): v for k, v in FILES.items()}
    files["shop/cli.py"] = (
        "from shop.parser import parse_order\n\n\ndef main(argv):\n    qty, price = parse_order(argv[1])\n"
        "    return qty * price\n"
    )
    files["shop/parser.py"] = (
        "import json\n\n\ndef parse_order(text):\n    if not text.strip():\n        return ()\n"
        "    data = json.loads(text)\n    return data['qty'], data['price']\n"
    )
    report = (
        "The CLI crashes on an empty order\n\n"
        "When I run the command line on an empty order text, it crashes with a ValueError instead of telling me "
        "the order is empty. `parse_order` returns an empty tuple for an empty text, but its callers always "
        "expect the quantity and the price back, so I think it should raise a clear error itself.\n\n"
        "```\nTraceback (most recent call last):\n"
        '  File "/home/bob/venv/lib/python3.12/site-packages/shop/cli.py", line 5, in main\n'
        "    qty, price = parse_order(argv[1])\nValueError: not enough values to unpack (expected 2, got 0)\n```\n"
    )
    hits, q = search_fresh(tmp_path / "shop", files, report)
    assert q.long and [h.path for h in hits[:2]] == ["shop/parser.py", "shop/cli.py"]
    assert "in the traceback: shop/cli.py:5 in main()" in hits[1].why
    assert not any(w.startswith("named in the prompt") for w in hits[1].why)


def test_a_java_frame_names_its_file_by_its_class(shop):
    con, root = shop
    report = (
        'Exception in thread "main" java.lang.ArrayIndexOutOfBoundsException: Index 3 out of bounds\n'
        "\tat com.acme.shop.Checkout.total(Checkout.java:5)\n\tat java.base/java.util.List.get(List.java:12)\n"
    )
    hits, _ = search_code(con, report, root=root)
    assert hits[0].path == "src/main/java/com/acme/shop/Checkout.java"
    assert hits[0].why[0] == "in the traceback: src/main/java/com/acme/shop/Checkout.java:5 in total()"


def test_built_javascript_in_node_modules_stands_for_its_typescript_source(shop):
    con, root = shop
    report = (
        "TypeError: Cannot read properties of undefined (reading 'split')\n"
        "    at matchRoute (/app/node_modules/@acme/core/dist/router/match.js:2:15)\n"
        "    at Layer.handle (/app/node_modules/express/lib/router/layer.js:95:5)\n"
    )
    hits, _ = search_code(con, report, root=root)
    assert hits[0].path == "packages/core/src/router/match.ts"
    assert hits[0].symbols[0] == "matchRoute"
    assert "in the traceback: packages/core/src/router/match.ts:2 in matchRoute()" in hits[0].why


def test_a_go_panic_from_a_module_path_finds_the_method(shop):
    con, root = shop
    report = (
        "panic: runtime error: slice bounds out of range [:5] with capacity 2\n\ngoroutine 7 [running]:\n"
        "github.com/acme/shop/pkg/store.(*Reader).LoadChunks(0xc0000a0000, 0x5)\n"
        "\t/home/ci/go/src/github.com/acme/shop/pkg/store/bucket.go:7 +0x1118\n"
    )
    hits, _ = search_code(con, report, root=root)
    assert hits[0].path == "pkg/store/bucket.go"
    assert hits[0].symbols[0] == "LoadChunks"


def test_an_error_message_finds_where_it_is_raised(shop):
    con, root = shop
    hits, _ = search_code(con, "Paying fails with ValueError: coupon code has expired for 'SAVE10'", root=root)
    assert hits[0].path == "src/shop/cart.py"
    assert "raises 'coupon code has expired for' at L3" in hits[0].why
    assert hits[0].symbols[0] == "apply_coupon"


def test_a_failing_test_id_leads_to_the_code_it_tests(shop):
    con, root = shop
    hits, _ = search_code(con, "FAILED tests/test_cart.py::test_apply_coupon - AssertionError", root=root)
    cart = next(h for h in hits if h.path == "src/shop/cart.py")
    assert hits.index(cart) <= 1 and "exercised by the failing test" in cart.why


def test_a_request_that_is_no_bug_report_ranks_as_without_the_channels(shop):
    from cairn.search.bugreport import parse

    con, root = shop
    off = override(DEFAULT_RANKING, {"fusion.trace": 0, "fusion.raises": 0, "fusion.tested": 0})
    for q in ("parse the order text", "where is the coupon applied", "fix: order total off by one in parser.py"):
        assert not parse(q)
        ours, _ = search_code(con, q, root=root)
        base, _ = search_code(con, q, root=root, ranking=off)
        assert [(h.path, h.score, h.why, h.symbols) for h in ours] == [
            (h.path, h.score, h.why, h.symbols) for h in base
        ]


def test_a_traceback_of_another_project_adds_nothing(shop):
    con, root = shop
    report = (
        "Traceback (most recent call last):\n"
        '  File "/home/x/other/app/views.py", line 3, in index\n'
        '  File "/usr/lib/python3.12/json/decoder.py", line 337, in decode\n'
        "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n"
    )
    hits, _ = search_code(con, report, root=root)
    assert hits and not any(w.startswith(("in the traceback", "raises")) for h in hits for w in h.why)
    ours = report.replace('  File "/usr', '  File "/srv/shop/src/shop/cli.py", line 5, in main\n  File "/usr')
    traced = [h.path for h in search_code(con, ours, root=root)[0] if any("in the traceback" in w for w in h.why)]
    assert traced == ["src/shop/cli.py"]


def test_a_huge_log_and_binary_garbage_answer_in_bounded_time(shop):
    from cairn.search.bugreport import parse

    con, root = shop
    rnd = random.Random(38)
    log = "".join(
        f"2026-01-0{i % 9 + 1} INFO worker {i}: processed /var/data/{rnd.randrange(10**6)}.json in {i}ms\n"
        for i in range(3_000)
    )
    log += "  File \"/srv/app/src/shop/parser.py\", line 6, in parse_order\nKeyError: 'qty'\n"
    assert len(log) > 200_000
    garbage = bytes(rnd.randrange(256) for _ in range(50_000)).decode("latin-1")
    for text in (log, garbage, 'File "' * 20_000, "at (" * 30_000, "x.py:" * 40_000):
        started = time.perf_counter()
        search_code(con, text, root=root)
        assert time.perf_counter() - started < 10.0
        started = time.perf_counter()
        parse(text)
        assert time.perf_counter() - started < 1.0


def test_the_parser_reads_each_format():
    from cairn.search.bugreport import fragments, parse

    rep = parse(
        "thread 'main' panicked at src/de/impls.rs:1933:9:\noverflow in Duration::new\n"
        "   3: serde::de::impls::visit_seq\n             at /home/u/.cargo/registry/src/serde-1.0/src/de/impls.rs:1940:5\n"
        "   at Acme.Shop.Cart.Apply() in C:\\src\\Shop\\Cart.cs:line 42\n"
        "--- FAIL: TestRedirectFixedPath (0.00s)\n"
        "E   ValueError: Option '--name' requires an argument.\n"
    )
    frames = {(f.path, f.line, f.func) for f in rep.frames}
    assert ("src/de/impls.rs", 1933, "") in frames
    assert ("/home/u/.cargo/registry/src/serde-1.0/src/de/impls.rs", 1940, "visit_seq") in frames
    assert ("C:\\src\\Shop\\Cart.cs", 42, "Apply") in frames
    assert ("", "TestRedirectFixedPath") in rep.tests
    assert rep.messages == ["Option '--name' requires an argument."]
    assert fragments(rep.messages[0]) == ["requires an argument"]
    python = parse('  File "a/b.py", line 1, in outer\n  File "a/c.py", line 2, in inner\n').frames
    assert [(f.path, f.depth) for f in python] == [("a/c.py", 0), ("a/b.py", 1)]  # innermost first


def test_a_ci_logs_timestamps_hide_no_frame():
    """A CI log prints its timestamp before each line of the traceback (Jenkins, GitHub Actions)."""
    from cairn.search.bugreport import parse

    rep = parse(
        "[2024-12-02T18:56:38.590Z] Traceback (most recent call last):\n\n"
        '[2024-12-02T18:56:38.590Z]   File "/ci/ws/proj/tests/test_vit.py", line 87, in test_shape\n'
        '2024-01-05T10:00:00.1234567Z   File "/ci/ws/proj/proj/blocks/patch.py", line 117, in __init__\n'
        "[18:56:38]     self.pos = build_pos(grid)\n"
    )
    assert [(f.path, f.line, f.func) for f in rep.frames] == [
        ("/ci/ws/proj/proj/blocks/patch.py", 117, "__init__"),
        ("/ci/ws/proj/tests/test_vit.py", 87, "test_shape"),
    ]


def test_a_module_a_report_imports_from_leads_to_its_file(tmp_path):
    """A report's snippet imports the function it calls from its module (`from shop.pricing.rules import
    apply`, MONAI#8040): the dotted path names that file, whatever the prose's words match; a package
    (`from shop import ...`) names no module file."""
    from cairn.search.bugreport import parse

    files = {k.replace("src/shop/", "shop/"): v for k, v in FILES.items()}
    files["shop/pricing/__init__.py"] = ""
    files["shop/pricing/rules.py"] = "def apply(rows, rate):\n    return [r * rate for r in rows]\n"
    for name in ("totals", "discounts", "coupons"):
        files[f"shop/{name}.py"] = (
            f"def apply(cart, coupon):\n    # apply the coupon to the cart total; the discount of every cart\n"
            f"    # item counts once in the {name} of the order\n    return cart\n"
        )
    report = (
        "Cart total wrong when a coupon discount is applied twice\n\n"
        "When I apply a coupon to a cart, the discount of every item is counted twice in the total, so the "
        "order total is wrong. I expected the coupon discount to count once for every cart item.\n\n"
        "```py\nfrom shop import cli\nfrom shop.pricing.rules import apply\n\nprint(apply([1, 2], 0.5))\n```\n"
    )
    assert parse(report, modules=True).modules == ["shop.pricing.rules"]
    hits, q = search_fresh(tmp_path / "shop", files, report)
    assert q.long and hits[0].path == "shop/pricing/rules.py"
    assert "the report names the module shop.pricing.rules" in hits[0].why
    assert not any("names the module" in w for h in hits[1:] for w in h.why)
