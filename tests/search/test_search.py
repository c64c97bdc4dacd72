"""Search channels on a small repo where the right answer is known; budget, JSON shape, eval mining."""

from __future__ import annotations

import json

import pytest

from cairn.codemap.indexer import index_project, open_index
from cairn.project import resolve_project
from cairn.search.engine import search_code
from cairn.search.eval.cases import clean_subject, mine_cases
from cairn.search.service import search
from cairn.text.budget import estimate_tokens
from helpers import git, make_git_repo

REPO = {
    "billing/invoice.py": "from billing.tax import vat_rate\n\n\nclass Invoice:\n    def total(self):\n"
    "        return self.net * (1 + vat_rate(self.country))\n",
    "billing/tax.py": 'RATES = {\'de\': 0.19, \'fr\': 0.2}\n\n\ndef vat_rate(country):\n    """Value added tax by country."""\n'
    "    return RATES.get(country, 0.0)\n",
    "billing/__init__.py": "",
    "shipping/parcel.py": "def parcel_weight(items):\n    return sum(i.weight for i in items)\n\n\n"
    "def shipping_label(parcel):\n    return f'label {parcel}'\n",
    "shipping/__init__.py": "",
    "web/routes.py": "from billing.invoice import Invoice\n\n\ndef invoice_page(request):\n    return Invoice()\n",
    "web/__init__.py": "",
    "tests/test_tax.py": "from billing.tax import vat_rate\n\n\ndef test_vat_rate():\n    assert vat_rate('de') == 0.19\n",
    "docs/guide.md": "# Guide\n\n## Shipping\n\nParcels get a label.\n",
}


@pytest.fixture
def repo(tmp_path):
    root = make_git_repo(tmp_path / "shop", REPO)
    project = resolve_project(root)
    index_project(project)
    return root, project


def _paths(project, q, **kw):
    con = open_index(project)
    try:
        hits, _ = search_code(con, q, root=project.root, **kw)
    finally:
        con.close()
    return [h.path for h in hits], hits


def test_name_channel_symbol_and_file_names(repo):
    _, p = repo
    paths, hits = _paths(p, "where is vat_rate computed")
    assert paths[0] == "billing/tax.py"
    assert any(w.startswith("defines vat_rate") for w in hits[0].why)
    paths, hits = _paths(p, "open parcel.py please")
    assert paths[0] == "shipping/parcel.py" and "named in the request: parcel.py" in hits[0].why


def test_text_channel_and_matching_definitions(repo):
    _, p = repo
    paths, hits = _paths(p, "weight of the items in a parcel")
    assert paths[0] == "shipping/parcel.py"
    assert any(sig.startswith("def parcel_weight") for _, _, sig in hits[0].snippets)
    assert [1, 2] in [list(x) for x in hits[0].lines]


def test_graph_channel_brings_a_neighbour(repo):
    _, p = repo
    paths, hits = _paths(p, "Invoice total", limit=5)
    assert paths[0] == "billing/invoice.py"
    neighbours = {h.path: h.why for h in hits}
    assert "billing/tax.py" in neighbours or "web/routes.py" in neighbours
    assert any("import" in w for h in hits[1:] for w in h.why)


def test_tests_rank_below_the_code_they_test(repo):
    _, p = repo
    paths, _ = _paths(p, "vat rate by country")
    assert paths.index("billing/tax.py") < paths.index("tests/test_tax.py")


def test_expansion_terms_count_but_less(repo):
    _, p = repo
    paths, _ = _paths(p, "how do we print the sticker", terms=["shipping_label", "parcel"])
    assert paths[0] == "shipping/parcel.py"


@pytest.mark.parametrize("budget", [1, 20, 60, 200])
def test_budget_is_never_exceeded(repo, budget):
    _, p = repo
    ans = search(p, "vat rate invoice total parcel weight", budget=budget, limit=10)
    assert ans.tokens <= budget
    assert sum(estimate_tokens(t + "\n") for t in ans.texts) == ans.tokens


def test_json_shape_and_relative_paths(repo, run_cli):
    root, _ = repo
    out = run_cli("search", "vat rate", "--root", str(root), "--json", "--limit", "3")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {"results", "tokens"} and 1 <= len(data["results"]) <= 3
    for r in data["results"]:
        assert {"path", "score", "kind", "lines", "symbols", "why"} <= set(r)
        assert not r["path"].startswith("/") and isinstance(r["why"], list) and r["why"]
    scores = [r["score"] for r in data["results"]]
    assert scores == sorted(scores, reverse=True)
    assert not (root / ".cairn").exists()


def test_search_refreshes_a_stale_index(repo, run_cli):
    root, _ = repo
    (root / "shipping" / "customs.py").write_text("def customs_declaration(parcel):\n    return 'cn23'\n")
    out = run_cli("search", "customs declaration", "--root", str(root), "--json")
    assert json.loads(out.stdout)["results"][0]["path"] == "shipping/customs.py"


@pytest.mark.parametrize(
    "subject,query",
    [
        ("feat(cart): apply coupon only once per order (#123)", "apply coupon only once per order"),
        ("JIRA-42: Retry failed webhook deliveries with backoff", "Retry failed webhook deliveries with backoff"),
        ("docs: update readme", None),
        ("Bump version to 1.2.3", None),
        ("fix typo", None),
        ("Merge branch 'main'", None),
        ("chore(deps): bump x", None),
    ],
)
def test_clean_subject(subject, query):
    assert clean_subject(subject) == query


def test_mine_cases_from_history(tmp_path):
    root = make_git_repo(tmp_path / "shop", REPO)
    (root / "billing/tax.py").write_text(REPO["billing/tax.py"] + "\n\ndef reduced_rate():\n    return 0.07\n")
    (root / "tests/test_tax.py").write_text(REPO["tests/test_tax.py"] + "\n# more\n")
    git(root, "commit", "-qam", "Support reduced rates for books and food")
    (root / "shipping/parcel.py").write_text(REPO["shipping/parcel.py"] + "\n# parcel\n")
    git(root, "commit", "-qam", "Change how the parcel module computes things")  # names its gold file
    (root / "docs/guide.md").write_text("# Guide\n")
    git(root, "commit", "-qam", "Rewrite the user guide from scratch")  # no source file
    cases = mine_cases(root)
    assert [c.query for c in cases] == ["Support reduced rates for books and food"]
    assert cases[0].gold == ["billing/tax.py"]
    assert cases[0].snapshot == git(root, "rev-parse", "HEAD~3").strip()


def test_eval_run_reports_metrics_beside_baseline(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "shop", REPO)
    (root / "billing/tax.py").write_text(REPO["billing/tax.py"] + "\n\ndef reduced_rate():\n    return 0.07\n")
    git(root, "commit", "-qam", "Support reduced rates for books and food")
    cases = tmp_path / "cases.jsonl"
    assert run_cli("eval", "cases", "--root", str(root), "--out", str(cases)).returncode == 0
    out = run_cli(
        "eval", "run", "--cases", str(cases), "--root", str(root), "--json", "--cache", str(tmp_path / "cache")
    )
    assert out.returncode == 0, out.stderr
    rep = json.loads(out.stdout)
    assert rep["cases"] == 1 and set(rep["systems"]) == {"cairn", "bm25-files"}
    for m in rep["systems"].values():
        assert {"files@5", "files@10", "hit@1", "mrr@10", "ms/query"} <= set(m)


def test_the_named_definition_comes_first_in_the_lines(repo):
    _, p = repo
    _, hits = _paths(p, "what does vat_rate return for an unknown country")
    top = hits[0]
    assert top.path == "billing/tax.py" and top.snippets[0][2].startswith("def vat_rate")
    assert list(top.lines[0]) == [4, 6]
