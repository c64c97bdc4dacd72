"""The in-place graph update after a few edited files equals a full rebuild (random edit sequences)."""

from __future__ import annotations

import json
import os
import random

from cairn.codemap.graph import rank_pass, rebuild_graph
from cairn.codemap.indexer import index_project, open_index
from cairn.project import resolve_project
from helpers import make_git_repo

# Go files (reference edges: a package's files use each other's names), Python (imports).
NAMES = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Theta", "Kappa", "Lambda", "Sigma"]


def _go(i: int, defs: list[str], uses: list[str]) -> str:
    body = "".join(f"func {d}() int {{ return {i} }}\n\n" for d in defs)
    calls = "\n".join(f"\t_ = {u}()" for u in uses)
    return f"package pkg\n\n{body}func use{i}() {{\n{calls}\n}}\n"


def _py(i: int, imports: list[int], defs: list[str]) -> str:
    head = "".join(f"from app import m{j}\n" for j in imports)
    return head + "".join(f"\ndef {d.lower()}_{i}():\n    return {i}\n" for d in defs)


def _tree(rng: random.Random) -> dict[str, str]:
    files = {}
    for i in range(12):
        files[f"pkg/f{i}.go"] = _go(i, rng.sample(NAMES, 2), rng.sample(NAMES, 3))
    files["app/__init__.py"] = ""
    for i in range(10):
        files[f"app/m{i}.py"] = _py(i, rng.sample([j for j in range(10) if j != i], 2), rng.sample(NAMES, 2))
    return files


def _edit(rng: random.Random, root, files: dict[str, str]) -> None:
    path = rng.choice(sorted(p for p in files if p != "app/__init__.py"))
    i = int(path.rsplit("/", 1)[1][1:].split(".")[0])
    shape = rng.random()
    if shape < 0.25:  # a comment: no use, definition or import moves (the update recomputes nothing)
        text = files[path] + ("// a note\n" if path.endswith(".go") else "# a note\n")
    elif shape < 0.4 and path.endswith(".go") and "\t_ = " in files[path]:  # one more use of a name it uses
        first = files[path].split("\t_ = ", 1)[1].split("(", 1)[0]
        text = files[path].replace(f"\t_ = {first}()", f"\t_ = {first}()\n\t_ = {first}()", 1)
    elif path.endswith(".go"):
        text = _go(i, rng.sample(NAMES, rng.randint(0, 3)), rng.sample(NAMES, rng.randint(0, 4)))
    else:
        text = _py(i, rng.sample([j for j in range(10) if j != i], rng.randint(0, 3)), rng.sample(NAMES, 2))
    files[path] = text
    full = root / path
    full.write_text(text)
    st = full.stat()
    os.utime(full, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # a new mtime even within one tick


def _graph(con) -> tuple:
    path = dict(con.execute("SELECT id, path FROM files").fetchall())
    edges = {
        (path[s], path[d], k): round(w, 9) for s, d, k, w in con.execute("SELECT src, dst, kind, weight FROM edges")
    }
    adj = {
        path[f]: sorted((path[v], round(w, 4)) for v, w in json.loads(n))
        for f, n in con.execute("SELECT file_id, nbrs FROM adjacency")
    }
    deg = {r[0]: tuple(r[1:]) for r in con.execute("SELECT path, indegree, outdegree, is_hub FROM files")}
    return edges, adj, deg


def _ranks(con) -> dict[str, float]:
    return dict(con.execute("SELECT path, rank FROM files").fetchall())


def test_random_edit_sequences_match_a_full_rebuild(tmp_path):
    for seed in range(4):
        rng = random.Random(seed)
        files = _tree(rng)
        root = make_git_repo(tmp_path / f"r{seed}", files)
        project = resolve_project(root)
        assert index_project(project).graph_rebuilt
        updated = 0
        for _ in range(4):
            for _ in range(rng.randint(1, 3)):
                _edit(rng, root, files)
            stats = index_project(project)
            assert stats.changed >= 1
            updated += stats.graph_updated
            con = open_index(project)
            try:
                incremental = _graph(con)
                rank_pass(con, warm=True)  # what the deferred rank pass would give now
                warm = _ranks(con)
                rebuild_graph(con, project)
                assert _graph(con) == incremental
                full = _ranks(con)
                assert max(abs(warm[p] - full[p]) for p in full) < 1e-8
            finally:
                con.close()
        assert updated >= 3  # the in-place path was taken, not the rebuild every time


def test_an_edit_updates_in_place_and_a_new_file_rebuilds(tmp_path):
    files = _tree(random.Random(7))
    root = make_git_repo(tmp_path / "r", files)
    project = resolve_project(root)
    index_project(project)
    (root / "pkg/f0.go").write_text(_go(0, ["Omega"], ["Alpha"]))
    stats = index_project(project)
    assert stats.graph_updated and not stats.graph_rebuilt
    con = open_index(project)
    try:
        row = con.execute(
            "SELECT COUNT(*) FROM symbols s JOIN files f ON f.id = s.file_id "
            "WHERE f.path = 'pkg/f0.go' AND s.name = 'Omega'"
        ).fetchone()
        assert row[0] == 1
    finally:
        con.close()
    (root / "pkg/new.go").write_text(_go(99, ["Psi"], ["Omega"]))
    stats = index_project(project)
    assert stats.graph_rebuilt and not stats.graph_updated


def test_a_body_edit_resolves_no_import(tmp_path, monkeypatch):
    """Only an edit of a file's import lines re-resolves them with the resolver context the full
    build saved (a pickle of every path: ~0.3 s to load at 100k files); a comment does not."""
    from cairn.codemap import resolver_store

    files = _tree(random.Random(3))
    root = make_git_repo(tmp_path / "r", files)
    project = resolve_project(root)
    index_project(project)
    loads: list[str] = []
    real = resolver_store.load_resolver
    monkeypatch.setattr(resolver_store, "load_resolver", lambda *a: loads.append("load") or real(*a))
    (root / "app/m1.py").write_text(files["app/m1.py"] + "# a comment\n")
    assert index_project(project).graph_updated and loads == []
    (root / "app/m1.py").write_text("from app import m9\n" + files["app/m1.py"])
    assert index_project(project).graph_updated and loads == ["load"]


def test_the_file_counts_follow_the_file_list_without_counting_on_an_edit(tmp_path, monkeypatch):
    """update_graph reads the number of files and of code files (the rank pass's and the hub
    threshold's inputs) from meta, counted again only when the file list's version moved."""
    from cairn.codemap.graph_update import file_counts
    from cairn.store.db import transaction

    files = _tree(random.Random(5))
    root = make_git_repo(tmp_path / "r", files)
    project = resolve_project(root)
    index_project(project)

    def real_and_memo() -> tuple:
        con = open_index(project)
        try:
            with transaction(con):
                memo = file_counts(con)
            real = (
                con.execute("SELECT COUNT(*) FROM files").fetchone()[0],
                con.execute("SELECT COUNT(*) FROM files WHERE kind = 'code'").fetchone()[0],
            )
            return real, memo
        finally:
            con.close()

    real, memo = real_and_memo()
    assert real == memo
    (root / "pkg/f1.go").write_text(files["pkg/f1.go"] + "// a note\n")
    assert index_project(project).graph_updated
    assert real_and_memo() == (real, real)
    (root / "README.md").write_text("# notes\n")  # a new file that is not code
    (root / "pkg/f2.go").unlink()  # one code file fewer
    index_project(project)
    real2, memo2 = real_and_memo()
    assert real2 == memo2 == (real[0], real[1] - 1)
    con = open_index(project)
    try:
        with con:  # a kind that changes moves the file list's version: counted again
            con.execute("UPDATE files SET kind = 'text' WHERE path = 'pkg/f3.go'")
        with transaction(con):
            assert file_counts(con) == (real[0], real[1] - 2)
    finally:
        con.close()


def _kt(pkg: str, cls: str, uses: str = "") -> str:
    head = f"package {pkg}\n\n" if pkg else ""
    return head + f"class {cls} {{\n    fun run() = {uses or '1'}\n}}\n"


def test_a_jvm_body_edit_reads_the_small_record_not_the_resolver(tmp_path, monkeypatch):
    """An edit of a Kotlin file that keeps its import lines is checked against the folder-head record
    (`jvm_heads`, saved beside the resolver context) without loading the context (~0.3 s at 100k
    files); a folder's first file whose `package` line moved still makes the full rebuild."""
    from cairn.codemap import resolver_store
    from cairn.codemap.imports import build_context

    files = {f"src/main/kotlin/app/A{i}.kt": _kt("app", f"A{i}") for i in range(5)}
    files |= {f"src/main/kotlin/lib/B{i}.kt": _kt("lib", f"B{i}") for i in range(2)}
    files["src/main/kotlin/app/Main.kt"] = "package app\n\nimport lib.B0\n\nfun main() = B0()\n"
    root = make_git_repo(tmp_path / "r", files)
    project = resolve_project(root)
    index_project(project)
    heads = resolver_store.jvm_heads(build_context(root, list(files)))
    assert heads == {
        "src/main/kotlin/app/A0.kt": "app",
        "src/main/kotlin/app/A1.kt": "app",
        "src/main/kotlin/app/A2.kt": "app",
        "src/main/kotlin/lib/B0.kt": "lib",
        "src/main/kotlin/lib/B1.kt": "lib",
    }
    loads: list[str] = []
    real = resolver_store.load_resolver
    monkeypatch.setattr(resolver_store, "load_resolver", lambda *a: loads.append("load") or real(*a))
    path = root / "src/main/kotlin/app/A0.kt"
    path.write_text(_kt("app", "A0") + "// a note\n")  # a head, same package
    assert index_project(project).graph_updated and loads == []
    (root / "src/main/kotlin/app/A4.kt").write_text(_kt("elsewhere", "A4"))  # not a head: its package is not read
    assert index_project(project).graph_updated and loads == []
    path.write_text(_kt("moved", "A0"))  # a head whose package moved: the folder's package may move
    stats = index_project(project)
    assert stats.graph_rebuilt and not stats.graph_updated and loads == []
    main = root / "src/main/kotlin/app/Main.kt"
    main.write_text("package app\n\nimport lib.B1\n\nfun main() = B1()\n")  # import lines: the context is loaded
    assert index_project(project).graph_updated and loads == ["load"]
    resolver_store.heads_path(project.index_path()).unlink()  # no record: the context answers, as before
    main.write_text("package app\n\nimport lib.B1\n\nfun main() = B1() // note\n")
    assert index_project(project).graph_updated and loads == ["load", "load"]
    assert resolver_store.heads_path(project.index_path()).exists()  # written from the context it loaded
    path.write_text(_kt("moved", "A0") + "// again\n")
    assert index_project(project).graph_updated and loads == ["load", "load"]
