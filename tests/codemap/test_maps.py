"""Modules, graph ranks, hubs and the level-0/1 maps; maps written only into opted-in projects."""

from __future__ import annotations

import json

from cairn.codemap.graph import pagerank
from cairn.codemap.modules import ROOT_MODULE, assign_modules
from cairn.text.budget import estimate_tokens
from helpers import make_git_repo


def test_modules_split_big_folders_collapse_chains_and_fold_tiny_ones():
    paths = (
        ["setup.py"]
        + [f"src/pkg/core/m{i}.py" for i in range(20)]
        + [f"src/pkg/web/v{i}.py" for i in range(15)]
        + ["src/pkg/tiny/a.py", "src/pkg/__init__.py"]
        + [f"docs/p{i}.md" for i in range(4)]
    )
    mods = assign_modules(paths, max_size=12)
    assert mods["setup.py"] == ROOT_MODULE
    assert mods["src/pkg/core/m0.py"] == "src/pkg/core" and mods["src/pkg/web/v3.py"] == "src/pkg/web"
    assert mods["src/pkg/tiny/a.py"] == "src/pkg" and mods["src/pkg/__init__.py"] == "src/pkg"
    assert mods["docs/p0.md"] == "docs"


def test_pagerank_favours_the_imported_file():
    ranks = pagerank(4, [(0, 3, 1.0), (1, 3, 1.0), (2, 3, 1.0), (3, 0, 1.0)])
    assert max(range(4), key=ranks.__getitem__) == 3 and abs(sum(ranks) - 1) < 1e-9


def _pagerank_by_hand(n, edges, damping=0.85, iters=200):
    """The textbook power iteration in plain Python: rank flows along each edge by its weight share."""
    out = [0.0] * n
    for s, _d, w in edges:
        out[s] += w
    r = [1.0 / n] * n
    for _ in range(iters):
        dangling = sum(r[i] for i in range(n) if out[i] == 0)
        new = [(1 - damping) / n + damping * dangling / n] * n
        for s, d, w in edges:
            new[d] += damping * r[s] * w / out[s]
        r = new
    total = sum(r)
    return [x / total for x in r]


def test_pagerank_matches_the_textbook_iteration_with_weights_and_dangling_nodes():
    import random

    rng = random.Random(7)
    n = 60
    edges = {(rng.randrange(n), rng.randrange(n)): rng.choice([1.0, 0.5, 0.25]) for _ in range(240)}
    edge_list = [(s, d, w) for (s, d), w in edges.items() if s < 50]  # nodes 50..59 only receive: dangling
    ranks = pagerank(n, edge_list)
    expected = _pagerank_by_hand(n, edge_list)
    assert max(abs(a - b) for a, b in zip(ranks, expected, strict=True)) < 1e-9
    assert pagerank(3, []) == [1 / 3] * 3 and pagerank(0, []) == []


def test_pagerank_needs_no_scipy(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "scipy", None)  # any `import scipy...` now raises ImportError
    monkeypatch.setitem(sys.modules, "scipy.sparse", None)
    ranks = pagerank(3, [(0, 2, 1.0), (1, 2, 1.0)])
    assert max(range(3), key=ranks.__getitem__) == 2


def _repo(tmp_path, n_users=12):
    files = {
        "core/db.py": "def connect():\n    return 1\n\nclass Session:\n    pass\n",
        "core/__init__.py": "",
        "main.py": "from core.db import connect\n\nconnect()\n",
    }
    for i in range(n_users):
        files[f"feature{i}/__init__.py"] = ""
        files[f"feature{i}/views.py"] = f"from core.db import Session\n\ndef view{i}():\n    return Session()\n"
    return make_git_repo(tmp_path / "proj", files)


def test_map_level0_level1_and_hub(tmp_path, run_cli):
    root = _repo(tmp_path)
    out = run_cli("map", "--root", str(root), "--json")
    assert out.returncode == 0, out.stderr
    md = json.loads(out.stdout)["markdown"]
    assert md.startswith("# Map of proj")
    assert "`core/db.py` [hub]" in md and "connect" in md and "## Entry points" in md and "`main.py`" in md
    assert estimate_tokens(md) <= 500  # ~500-token overview
    mod = run_cli("map", "core", "--root", str(root))
    assert mod.returncode == 0 and "# Module `core`" in mod.stdout and "L1 def connect()" in mod.stdout
    assert "Imported by:" in mod.stdout
    bad = run_cli("map", "nosuchmodule", "--root", str(root))
    assert bad.returncode == 1 and "no module" in bad.stderr


def test_maps_written_only_after_init_and_stable(tmp_path, run_cli):
    root = _repo(tmp_path, n_users=3)
    assert run_cli("index", "--root", str(root)).returncode == 0
    assert not (root / ".cairn").exists()  # never writes into a repo that has not opted in
    assert run_cli("init", "--root", str(root)).returncode == 0
    first = (root / ".cairn" / "map.md").read_text()
    modules = sorted(p.name for p in (root / ".cairn" / "modules").glob("*.md"))
    assert modules and (root / ".cairn" / ".gitignore").exists()
    (root / "main.py").write_text("from core.db import connect\n\nconnect()\nconnect()\n")
    assert run_cli("index", "--root", str(root)).returncode == 0
    assert (root / ".cairn" / "map.md").read_text() == first  # no churn when the map did not change


def test_summary_kept_across_reindex_and_shown_first(tmp_path, run_cli):
    root = _repo(tmp_path, n_users=3)
    run_cli("init", "--root", str(root))
    assert run_cli("summary", "set", "A tiny app around one database module.", "--root", str(root)).returncode == 0
    assert (
        run_cli(
            "summary", "set", "-", "--module", "core", "--root", str(root), input="The database layer.\n"
        ).returncode
        == 0
    )
    run_cli("index", "--root", str(root), "--full")
    top = run_cli("map", "--root", str(root)).stdout
    assert top.splitlines()[2] == "A tiny app around one database module."
    assert "The database layer." in run_cli("map", "core", "--root", str(root)).stdout
    assert "A tiny app" in (root / ".cairn" / "map.md").read_text()


def test_maps_list_key_decisions_and_module_knowledge(tmp_path, run_cli):
    root = _repo(tmp_path, n_users=3)
    run_cli("init", "--root", str(root))
    facts = [
        {
            "type": "decision",
            "title": "One connection pool per process",
            "body": "connect() reuses it.",
            "files": ["core/db.py"],
        },
        {"type": "note", "title": "Views are thin", "body": "no logic in views"},
    ]
    assert run_cli("remember", "--json", "--root", str(root), input=json.dumps(facts)).returncode == 0
    run_cli("index", "--root", str(root))
    top = run_cli("map", "--root", str(root)).stdout
    assert "## Key decisions and gotchas" in top and "decision: One connection pool per process" in top
    assert "Views are thin" not in top
    page = run_cli("map", "core", "--root", str(root)).stdout
    assert "## Knowledge about this module" in page and "One connection pool per process" in page
    assert "One connection pool per process" in (root / ".cairn" / "map.md").read_text()


def test_module_page_keeps_imports_and_shared_names_apart(tmp_path, run_cli):
    """A Go package that only shares names with another (reference edges) does not "import" it."""
    files = {"go.mod": "module example.com/shop\n\ngo 1.22\n"}
    for i in range(5):
        files[f"alpha/a{i}.go"] = f"package alpha\n\nfunc AlphaThing{i}() int {{\n\treturn {i}\n}}\n"
        files[f"beta/b{i}.go"] = f"package beta\n\nfunc Beta{i}() int {{\n\treturn AlphaThing{i}() + 1\n}}\n"
        files[f"gamma/g{i}.go"] = (
            f'package gamma\n\nimport "example.com/shop/alpha"\n\n'
            f"func Gamma{i}() int {{\n\treturn alpha.AlphaThing{i}()\n}}\n"
        )
    root = make_git_repo(tmp_path / "shop", files)
    beta = run_cli("map", "beta", "--root", str(root)).stdout
    assert "Imports: none" in beta and "Names used from (no import): `alpha`" in beta
    gamma = run_cli("map", "gamma", "--root", str(root)).stdout
    assert "Imports: `alpha`" in gamma
    alpha = run_cli("map", "alpha", "--root", str(root)).stdout
    assert "Imported by: `gamma`" in alpha and "Names used by (no import): `beta`" in alpha


def test_the_index_line_and_the_map_count_the_same_symbols_and_text_files(tmp_path, run_cli):
    """`cairn index` counted markdown headings as symbols, the map did not (cairn's own repository:
    5,109 against 4,895); and its language list kept the count of the 'text' group read last (files
    of no language and .txt files are both "text"): 2 where there were 89."""
    import re

    root = make_git_repo(
        tmp_path / "shop",
        {
            "shop/cart.py": "def add(cart, item):\n    return cart\n\n\nclass Cart:\n    def total(self):\n        return 0\n",
            "README.md": "# Shop\n\n## Install\n\ntext\n\n## Use\n\nmore\n",
            "notes.txt": "a note\n",
            "LICENSE": "MIT\n",
            "data.csv": "a,b\n1,2\n",
        },
    )
    r = run_cli("index", "--root", str(root), "--json")
    assert r.returncode == 0, r.stderr
    stats = json.loads(r.stdout)
    line = run_cli("index", "--root", str(root)).stdout
    overview = run_cli("map", "--root", str(root)).stdout
    mapped = int(re.search(r"(\d+) symbols\.", overview).group(1))
    assert stats["symbols"] == mapped == int(re.search(r"(\d+) symbols", line).group(1))
    assert stats["headings"] == 3 and "(and 3 markdown headings)" in line
    assert stats["languages"]["text"] == 3 and "text 3" in line  # notes.txt, LICENSE, data.csv
