"""Symbol-reference edges: thresholds, weights, self-edges, speed on a large synthetic repo."""

from __future__ import annotations

import math
import time

import pytest

from cairn.codemap.imports import refs
from cairn.codemap.imports.refs import MAX_DEFINERS, MAX_USERS_SHARE, MIN_USERS_CAP, reference_edges


def edges_of(result: list[tuple[str, str, float]]) -> dict[tuple[str, str], float]:
    return {(s, d): w for s, d, w in result}


def filler(n: int) -> dict[str, dict[str, int]]:
    """n files that use nothing relevant, to give the share threshold a population."""
    return {f"f{i}.py": {"unrelated": 1} for i in range(n)}


def test_thresholds_are_documented_constants() -> None:
    assert MAX_DEFINERS == 5 and 0 < MAX_USERS_SHARE < 0.5 and MIN_USERS_CAP > 0
    doc = refs.__doc__ or ""
    assert "MAX_DEFINERS" in doc and "MAX_USERS_SHARE" in doc and "MIN_USERS_CAP" in doc


def test_rare_name_makes_an_edge() -> None:
    result = reference_edges({"lib/parse.py": {"parse_config"}}, {"app/main.py": {"parse_config": 1}})
    assert result == [("app/main.py", "lib/parse.py", 1.0)]


def test_name_defined_in_ten_files_is_dropped() -> None:
    defs = {f"m{i}.py": {"render"} for i in range(10)}
    defs["special.py"] = {"render_invoice"}
    result = edges_of(reference_edges(defs, {"app.py": {"render": 5, "render_invoice": 1}}))
    assert result == {("app.py", "special.py"): 1.0}


def test_name_at_the_definer_limit_is_kept_and_its_weight_split() -> None:
    defs = {f"m{i}.py": {"handler"} for i in range(MAX_DEFINERS)}
    result = edges_of(reference_edges(defs, {"app.py": {"handler": 1}}))
    assert len(result) == MAX_DEFINERS
    assert all(math.isclose(w, 1 / MAX_DEFINERS) for w in result.values())


def test_name_used_everywhere_is_dropped() -> None:
    n = 400
    users = filler(n)
    for i in range(n):
        users[f"f{i}.py"]["log_event"] = 1
    users["few_a.py"] = {"rare_helper": 1}
    result = edges_of(reference_edges({"core/log.py": {"log_event"}, "util.py": {"rare_helper"}}, users))
    assert result == {("few_a.py", "util.py"): 1.0}


def test_small_repo_keeps_popular_names_under_the_floor() -> None:
    # 10 of 12 files use `load_settings`: popular, but a 12-file repo has no noise to cut.
    users = {f"f{i}.py": {"load_settings": 1} for i in range(10)}
    result = reference_edges({"settings.py": {"load_settings"}}, users)
    assert len(result) == 10
    # A stricter caller can still cut it.
    assert reference_edges({"settings.py": {"load_settings"}}, users, min_users_cap=5) == []


def test_weight_grows_sub_linearly_with_use_count() -> None:
    defs = {"lib.py": {"compute_total"}}
    w1 = reference_edges(defs, {"a.py": {"compute_total": 1}})[0][2]
    w4 = reference_edges(defs, {"a.py": {"compute_total": 4}})[0][2]
    w100 = reference_edges(defs, {"a.py": {"compute_total": 100}})[0][2]
    assert w1 < w4 < w100
    assert math.isclose(w4, 2 * w1) and math.isclose(w100, 10 * w1)


def test_weights_add_up_across_names_and_skip_self_and_shadowed() -> None:
    defs = {"lib.py": {"alpha_fn", "beta_fn"}, "app.py": {"gamma_fn"}, "other.py": {"gamma_fn"}}
    uses = {
        "app.py": {"alpha_fn": 1, "beta_fn": 9, "gamma_fn": 3},  # gamma: defined here, so no edge
        "lib.py": {"alpha_fn": 2},  # self-use: no self-edge
    }
    result = edges_of(reference_edges(defs, uses))
    assert result == {("app.py", "lib.py"): 4.0}


def test_short_and_unknown_names_are_ignored() -> None:
    assert reference_edges({"a.py": {"x"}}, {"b.py": {"x": 3, "print": 2}}) == []


def _six_thousand_files() -> tuple[int, list, float]:
    n = 6000
    defs = {f"pkg{i % 60}/m{i}.py": {f"func_{i}", f"Class{i}", "run", "__init__"} for i in range(n)}
    uses = {
        f"pkg{i % 60}/m{i}.py": {**{f"func_{(i * 7 + k) % n}": k + 1 for k in range(20)}, "run": 3, "len": 9}
        for i in range(n)
    }
    t0 = time.perf_counter()
    result = reference_edges(defs, uses)
    return n, result, time.perf_counter() - t0


def test_six_thousand_files() -> None:
    n, result, _ = _six_thousand_files()
    assert len(result) >= n * 19


@pytest.mark.perf
def test_fast_on_six_thousand_files() -> None:
    _, _, elapsed = _six_thousand_files()
    assert elapsed < 2.0, elapsed


def test_weights_do_not_depend_on_the_order_of_a_files_references() -> None:
    # py-tree-sitter's captures() lists nodes in an order that changes between processes
    # (tree-sitter/py-tree-sitter#450), so a file's references reach here in any order; the
    # weight of a pair is a float sum, and sqrt(1) + sqrt(2) + sqrt(2) differs in its last bit
    # from the same three added the other way round: two indexes of one tree differed.
    defs = {"lib.py": {"alpha", "beta", "gamma"}}
    forward = reference_edges(defs, {"app.py": {"alpha": 1, "beta": 2, "gamma": 2}})
    backward = reference_edges(defs, {"app.py": {"gamma": 2, "beta": 2, "alpha": 1}})
    assert forward == backward
