"""Knowledge searched together with the code: the purchase -> checkout -> coupon example, kinds,
supersede ranking, staleness, and isolation between projects."""

from __future__ import annotations

import json

from helpers import make_git_repo

SHOP = {
    "src/cart/coupons.ts": "export function applyCoupon(cart: Cart, code: string): Cart {\n"
    "  const discount = lookupDiscount(code)\n  return { ...cart, total: cart.total - discount }\n}\n",
    "src/cart/discounts.ts": "export function lookupDiscount(code: string): number {\n  return TABLE[code] ?? 0\n}\n",
    "src/orders/checkout.ts": "import { applyCoupon } from '../cart/coupons'\n"
    "export function submitOrder(cart: Cart) {\n  return pay(applyCoupon(cart, cart.code))\n}\n",
    "src/ui/header.ts": "export function renderHeader(title: string) { return `<h1>${title}</h1>` }\n",
    "README.md": "# Shop\n\nA small shop.\n",
}


def _remember(run_cli, root, *facts):
    out = run_cli("remember", "--json", "--root", str(root), input=json.dumps(list(facts)))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def _search(run_cli, root, query, *extra):
    out = run_cli("search", query, "--root", str(root), "--json", *extra)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["results"]


def test_purchase_reaches_checkout_concept_coupon_gotcha_and_its_file(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "shop", SHOP)
    assert run_cli("init", "--root", str(root)).returncode == 0
    _remember(
        run_cli,
        root,
        {"type": "concept", "title": "Checkout", "body": "How an order is paid and submitted."},
        {
            "type": "gotcha",
            "title": "Coupon applied twice",
            "body": "Retrying payment re-runs the discount step, so the total drops twice.",
            "files": ["src/cart/coupons.ts"],
            "links": [{"rel": "part-of", "target": "Checkout"}],
        },
    )
    res = _search(run_cli, root, "finishing a purchase", "--terms", "checkout", "--kind", "all")
    kinds = {(r["kind"], r.get("title") or r["path"]) for r in res}
    assert ("knowledge", "Checkout") in kinds
    assert ("knowledge", "Coupon applied twice") in kinds
    code_paths = [r["path"] for r in res if r["kind"] != "knowledge"]
    assert "src/cart/coupons.ts" in code_paths
    gotcha = next(r for r in res if r.get("title") == "Coupon applied twice")
    for key in ("id", "type", "status", "title", "path", "files", "superseded_by", "stale"):
        assert key in gotcha
    assert gotcha["files"] == ["src/cart/coupons.ts"] and gotcha["stale"] == []


def test_code_kind_has_no_notes_and_knowledge_kind_only_notes(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "shop", SHOP)
    run_cli("init", "--root", str(root))
    _remember(
        run_cli,
        root,
        {
            "type": "decision",
            "title": "Discounts come from one table",
            "body": "lookupDiscount reads TABLE only.",
            "files": ["src/cart/discounts.ts"],
        },
    )
    code = _search(run_cli, root, "discount table lookup", "--kind", "code")
    assert code and all(r["kind"] != "knowledge" for r in code)
    assert not any(r["path"].startswith(".cairn/") for r in code)
    assert code[0]["path"] == "src/cart/discounts.ts"
    know = _search(run_cli, root, "discount table lookup", "--kind", "knowledge")
    assert [r["title"] for r in know] == ["Discounts come from one table"]


def test_superseded_ranks_last_and_names_the_live_one_and_stale_is_marked(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "shop", SHOP)
    run_cli("init", "--root", str(root))
    _remember(
        run_cli,
        root,
        {
            "type": "decision",
            "title": "Coupons are validated on the client",
            "body": "coupon validation happens in the browser",
            "files": ["src/cart/coupons.ts"],
        },
    )
    _remember(
        run_cli,
        root,
        {
            "type": "decision",
            "title": "Coupons are validated on the server",
            "body": "coupon validation moved to the server",
            "supersedes": "Coupons are validated on the client",
        },
    )
    res = _search(run_cli, root, "why are coupons validated", "--kind", "knowledge")
    titles = [r["title"] for r in res]
    assert titles.index("Coupons are validated on the server") < titles.index("Coupons are validated on the client")
    old = next(r for r in res if r["title"].endswith("client"))
    assert old["superseded_by"] and any("superseded by" in w for w in old["why"])
    (root / "src/cart/coupons.ts").write_text("export function applyCoupon() { return null }\n")
    old = next(
        r
        for r in _search(run_cli, root, "why are coupons validated", "--kind", "knowledge")
        if r["title"].endswith("client")
    )
    assert old["stale"] == ["src/cart/coupons.ts"]


def test_knowledge_search_never_returns_another_projects_nodes(tmp_path, run_cli):
    a = make_git_repo(tmp_path / "a" / "shop", SHOP)
    b = make_git_repo(tmp_path / "b" / "shop", SHOP)
    for r in (a, b):
        run_cli("init", "--root", str(r))
    _remember(
        run_cli,
        a,
        {
            "type": "gotcha",
            "title": "Zebra coupon codes expire at midnight UTC",
            "body": "zebra codes use UTC midnight",
        },
    )
    assert _search(run_cli, a, "zebra coupon midnight", "--kind", "knowledge")
    assert _search(run_cli, b, "zebra coupon midnight", "--kind", "knowledge") == []
    assert all("zebra" not in json.dumps(r).lower() for r in _search(run_cli, b, "zebra coupon", "--kind", "all"))


def test_secrets_pasted_into_notes_and_summaries_are_redacted(tmp_path, run_cli):
    token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
    root = make_git_repo(tmp_path / "shop", SHOP)
    run_cli("init", "--root", str(root))
    _remember(
        run_cli, root, {"type": "gotcha", "title": f"CI token {token} expires", "body": f"export GITHUB_TOKEN={token}"}
    )
    assert run_cli("summary", "set", f"uses {token}", "--root", str(root)).returncode == 0
    for f in (root / ".cairn").rglob("*.md"):
        assert token not in f.read_text()


def test_cited_files_must_be_inside_the_project(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "shop", SHOP)
    run_cli("init", "--root", str(root))
    out = run_cli(
        "remember",
        "--json",
        "--root",
        str(root),
        input=json.dumps({"type": "note", "title": "x", "files": ["../../etc/passwd"]}),
    )
    assert out.returncode == 2 and "inside the project" in out.stderr and "Traceback" not in out.stderr
    assert not list((root / ".cairn" / "knowledge").glob("*.md"))
    ok = run_cli(
        "remember",
        "--json",
        "--root",
        str(root),
        input=json.dumps({"type": "note", "title": "coupons", "files": ["src/cart/../cart/coupons.ts"]}),
    )
    assert ok.returncode == 0
    assert json.loads(run_cli("read", "coupons", "--root", str(root), "--json").stdout)["files"] == [
        "src/cart/coupons.ts"
    ]


def test_maps_follow_a_refresh_by_search_and_a_new_note(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "shop", SHOP)
    run_cli("init", "--root", str(root))
    (root / "src/ui/header.ts").unlink()
    run_cli("search", "header", "--root", str(root))  # the refresh comes from a search, not `cairn index`
    assert "header.ts" not in "".join(p.read_text() for p in (root / ".cairn").rglob("*.md"))
    _remember(
        run_cli,
        root,
        {"type": "decision", "title": "Totals are computed server side", "files": ["src/cart/coupons.ts"]},
    )
    assert "Totals are computed server side" in (root / ".cairn" / "map.md").read_text()


def test_init_outside_git_uses_the_current_folder(tmp_path, run_cli):
    plain = tmp_path / "notes"
    plain.mkdir()
    (plain / "a.md").write_text("# A\n")
    out = run_cli("init", cwd=plain)
    assert out.returncode == 0, out.stderr
    assert (plain / ".cairn" / "map.md").exists()


def test_personal_notes_found_by_words_the_code_never_uses_even_outside_a_project(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "shop", SHOP)
    run_cli("init", "--root", str(root))
    out = run_cli(
        "remember",
        "--personal",
        "--type",
        "preference",
        "Indent with tabs, never spaces",
        "--body",
        "The user prefers tabs for indentation in every project.",
    )
    assert out.returncode == 0, out.stderr
    res = _search(run_cli, root, "should I indent with tabs or spaces", "--kind", "knowledge")
    assert res and res[0]["title"] == "Indent with tabs, never spaces" and res[0]["origin"] == "personal"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = run_cli("search", "tabs or spaces", "--kind", "knowledge", "--json", cwd=elsewhere)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["results"][0]["origin"] == "personal"
