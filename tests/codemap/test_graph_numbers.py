"""The rebuild's adjacency rows and ranks over edge arrays are those of the per-row functions, to the bit."""

from __future__ import annotations

import random

from cairn.codemap import graph, graph_numbers


def _rows(seed: int) -> list[tuple]:
    """Edge rows as the rebuild makes them: one per (src, dst, kind), sorted, every kind, pairs with
    three kinds, self-loops, equal weights (ties), weights whose sum depends on the order of adding."""
    rng = random.Random(seed)
    rows = {}
    for _ in range(3000):
        s, d = rng.randrange(60), rng.randrange(60)
        kind = rng.choice(("import", "ref", "cites", "link"))
        w = rng.choice((1.0, 0.7, 0.5, rng.random() * rng.choice((1e-3, 1.0, 37.0)), rng.randrange(1, 9)))
        rows[(s, d, kind)] = float(w)
    for s in range(0, 60, 7):  # a pair with three kinds of edge
        rows[(s, s + 1, "import")], rows[(s, s + 1, "ref")], rows[(s, s + 1, "link")] = 0.1, 0.2, 0.3
    return sorted((s, d, k, w) for (s, d, k), w in rows.items())


def test_adjacency_and_ranks_over_arrays_are_the_per_row_ones() -> None:
    for seed in range(4):
        rows = _rows(seed)
        ids = list(range(0, 64))
        kinds = {f: ("code" if f % 5 else "doc") for f in ids}
        modules = {f: f"m{f % 7}" for f in ids}
        packed = graph_numbers.packed(rows)
        assert list(graph_numbers.rows_of(packed)) == rows
        assert sorted(graph_numbers.adjacency(packed, graph.ADJ_PER_DIRECTION)) == sorted(
            graph.adjacency_rows(None, edges=rows)
        )
        file_ranks, mod_rank = graph_numbers.ranks(packed, ids, kinds, modules, graph.REF_WEIGHT, graph.DAMPING)
        want_ranks, want_modules = graph.ranks_of(ids, rows, kinds, modules)
        assert file_ranks == want_ranks and mod_rank == dict(want_modules)


def test_no_edges_and_no_files() -> None:
    packed = graph_numbers.packed([])
    assert graph_numbers.adjacency(packed, 16) == [] == graph.adjacency_rows(None, edges=[])
    assert graph_numbers.ranks(packed, [3, 5], {3: "code", 5: "code"}, {3: "a", 5: "a"}, 0.5, 0.85) == (
        [0.5, 0.5],
        {"a": 1.0},
    )
    assert graph_numbers.ranks(packed, [], {}, {}, 0.5, 0.85) == ([], {})


def test_the_rebuilds_dicts_pack_in_key_order_with_their_degrees() -> None:
    rows = _rows(7)
    imp = {(s, d): w for s, d, k, w in rows if k == "import"}
    ref = {(s, d): w for s, d, k, w in rows if k == "ref"}
    know = {}
    for s, d, k, w in rows:
        if k in ("cites", "link"):
            know[(s, d)] = (k, w)  # one knowledge edge per pair, as knowledge_rows gives
    want = sorted(
        [(s, d, "import", w) for (s, d), w in imp.items()]
        + [(s, d, "ref", w) for (s, d), w in ref.items()]
        + [(s, d, k, w) for (s, d), (k, w) in know.items()]
    )
    packed = graph_numbers.packed_of(dict(reversed(imp.items())), ref, know)
    assert list(graph_numbers.rows_of(packed)) == want
    pairs = set(imp) | set(ref) | set(know)
    indeg, outdeg = graph_numbers.degrees(packed)
    assert indeg == {f: sum(1 for _, d in pairs if d == f) for _, f in pairs}
    assert outdeg == {f: sum(1 for s, _ in pairs if s == f) for f, _ in pairs}
    assert graph_numbers.degrees(graph_numbers.packed_of({}, {}, {})) == ({}, {})
