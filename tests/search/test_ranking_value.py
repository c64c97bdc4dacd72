"""The ranking as one value (search/ranking.py): variants are built by replacing fields, a variant
reaches every channel through the call alone (no module is patched), the per-index memos never
hand one ranking's answer to another, and every field says what chose it."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from cairn.codemap.indexer import index_project, open_index
from cairn.project import resolve_project
from cairn.search import index_cache, ranking
from cairn.search.engine import search_code
from cairn.search.names import name_channel
from cairn.search.paths import path_channel
from cairn.search.query import analyze
from cairn.search.ranking import DEFAULT_RANKING, RoleFactors, override
from helpers import make_git_repo

FILES = {
    "src/coupons.py": "def apply_coupon(cart, code):\n    return cart.total - lookup(code)\n",
    "src/cart.py": "class Cart:\n    def total(self):\n        return sum(i.price for i in self.items)\n",
    "src/invoice.py": "def render_invoice(cart):\n    return f'total {cart.total()}'  # apply coupon first\n",
    "docs/coupons.md": "# Coupons\n\nHow apply coupon works: the cart total goes down.\n",
    "src/upload/request.py": "def upload_request(data):\n    return send(data)\n",
    **{f"src/shop{i}/orders.py": "def checkout(cart):\n    return cart\n" for i in range(3)},
}


@pytest.fixture
def project(tmp_path):
    p = resolve_project(make_git_repo(tmp_path / "repo", FILES))
    index_project(p)
    return p


def _search(project, text: str, r=DEFAULT_RANKING):
    con = open_index(project)
    try:
        hits, _ = search_code(con, text, root=project.root, ranking=r)
    finally:
        con.close()
    return [(h.path, round(h.score, 6), tuple(h.why)) for h in hits]


def test_override_replaces_nested_fields_and_refuses_unknown_names():
    r = override(
        DEFAULT_RANKING,
        {
            "fusion.name": 0,
            "roles.code_intent.test": 1.0,
            "roles.doc_intent": {"prose": 2.0},
            "names.kind_weight": {"class": 0.5},
        },
    )
    assert r.fusion.name == 0 and r.fusion.text == DEFAULT_RANKING.fusion.text
    assert r.roles.code_intent == dataclasses.replace(DEFAULT_RANKING.roles.code_intent, test=1.0)
    assert r.roles.doc_intent.prose == 2.0 and isinstance(r.roles.doc_intent, RoleFactors)
    assert dict(r.names.kind_weight)["class"] == 0.5 and dict(r.names.kind_weight)["method"] == 0.6
    assert DEFAULT_RANKING == ranking.Ranking()  # the shipped value is untouched
    with pytest.raises(KeyError, match="no field 'nmae'"):
        override(DEFAULT_RANKING, {"fusion.nmae": 1.0})
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_RANKING.fusion.name = 0.0  # type: ignore[misc]
    hash(DEFAULT_RANKING)  # usable as a memo key


def test_a_variant_reaches_the_channels_through_the_call_alone(project):
    shipped = _search(project, "apply_coupon")
    no_names = _search(project, "apply_coupon", override(DEFAULT_RANKING, {"fusion.name": 0.0, "fusion.defines": 0.0}))
    assert shipped != no_names
    assert _search(project, "apply_coupon") == shipped  # and the next default request is the shipped one


def test_the_memos_of_one_index_state_keep_each_ranking_apart(project):
    """Analyses, name rows and path verdicts are memoized per index state: a variant asked in the
    same state must get its own answer, not the shipped ranking's (nor leave its own behind)."""
    loud = override(DEFAULT_RANKING, {"terms.key_ident": 5.0, "terms.identifier_factor": 3.0})
    con = open_index(project)
    try:
        with index_cache.Pinned(con):
            text = "where is apply_coupon used for the upload request"
            a = analyze(con, text)
            b = analyze(con, text, None, loud.terms)
            assert dict(a.name_keys)["applycoupon"] == DEFAULT_RANKING.terms.key_ident
            assert dict(b.name_keys)["applycoupon"] == 5.0
            assert analyze(con, text) is a
            few = dataclasses.replace(DEFAULT_RANKING.names, max_places=1)  # `checkout` is defined in 3 files
            assert name_channel(con, [("checkout", 2.0)], few)[0] == {}
            assert len(name_channel(con, [("checkout", 2.0)])[0]) == 3
            stem = path_channel(con, a.main)
            dirs_only = path_channel(con, a.main, dataclasses.replace(DEFAULT_RANKING.paths, stem_part=0.0))
            assert stem != dirs_only
            assert path_channel(con, a.main) == stem
    finally:
        con.close()


def test_every_field_says_what_chose_it():
    """Each field of each group carries a comment (its job and its figure, or "no figure recorded")."""
    src = Path(ranking.__file__).read_text()
    lines = src.splitlines()
    tree = ast.parse(src)
    missing = []
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name != "Ranking"):
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                span = lines[stmt.lineno - 1 : (stmt.end_lineno or stmt.lineno) + 1]
                if not any("#" in line for line in span):
                    missing.append(f"{cls.name}.{ast.unparse(stmt.target)}")
    assert missing == []
    described = [f.name for f in dataclasses.fields(ranking.Ranking)]
    assert {type(getattr(DEFAULT_RANKING, n)).__name__ for n in described} >= {"Fusion", "Roles", "Terms", "Names"}
