"""Symbol-reference edges: the fallback graph when imports do not resolve.

A file that uses a name defined in another file probably depends on it. That guess is only
as good as the name is specific, so two filters drop the noise before any edge is made:

* MAX_DEFINERS = 5. A name defined in more than five files (`get`, `run`, `__init__`,
  `render`, `main`, `test_*` helpers) cannot say which definition a use means, and the edges
  it would fan out to are mostly wrong. Five is also where Aider's repo map starts to discount
  a name: it keeps genuine small overload families (an interface and a handful of
  implementations) while cutting the generic ones.
* MAX_USERS_SHARE = 0.05, with MIN_USERS_CAP = 25. A name used by more than 5% of all files
  (`len`, `map`, `error`, `logger`, the project's own `config`) behaves like vocabulary: every
  file would point at its definer, which then wins centrality for being ubiquitous rather
  than relevant (import edges already capture genuinely central modules). The floor keeps
  small repositories usable: no name is dropped for popularity while it has 25 users or
  fewer, since 5% of a 100-file repository would be 5 files.

The weight of an edge sums, over the names that link the two files, sqrt(uses) / definers:
repeated use is evidence, but the tenth call adds far less than the first (sub-linear), and
a name shared by several definers splits its weight among them. A file that defines a name
itself is taken to use its own definition, so it gets no edges for that name.
"""

from __future__ import annotations

import math

MAX_DEFINERS = 5
MAX_USERS_SHARE = 0.05
MIN_USERS_CAP = 25
MIN_NAME_LENGTH = 2  # one-letter names (i, x, T, _) are never specific


def reference_edges(
    defs_by_file: dict[str, set[str]],
    refs_by_file: dict[str, dict[str, int]],
    max_definers: int = MAX_DEFINERS,
    max_users_share: float = MAX_USERS_SHARE,
    min_users_cap: int = MIN_USERS_CAP,
) -> list[tuple[str, str, float]]:
    """(file that uses a name, file that defines it, weight), noise names dropped, no self-edges.

    Built from an inverted index (name -> definers, name -> users), so cost follows the number
    of kept (use, definition) pairs, not files squared. Sorted for stable output.
    """
    definers: dict[str, list[str]] = {}
    for path, names in defs_by_file.items():
        for name in names:
            if len(name) >= MIN_NAME_LENGTH:
                definers.setdefault(name, []).append(path)
    users: dict[str, list[tuple[str, int]]] = {}
    for path, refs in refs_by_file.items():
        for name, count in refs.items():
            if count > 0 and name in definers:
                users.setdefault(name, []).append((path, count))

    n_files = len(defs_by_file.keys() | refs_by_file.keys())
    max_users = max(min_users_cap, int(max_users_share * n_files))
    weights: dict[tuple[str, str], float] = {}
    for name in sorted(users):  # each pair's weight summed in one order: the refs' order varies between runs
        using = users[name]
        defs = definers[name]
        if len(defs) > max_definers or len(using) > max_users:
            continue
        def_set = set(defs)
        share = 1.0 / len(defs)
        for src, count in using:
            if src in def_set:
                continue
            w = math.sqrt(count) * share
            for dst in defs:
                weights[(src, dst)] = weights.get((src, dst), 0.0) + w
    return [(s, d, w) for (s, d), w in sorted(weights.items())]
