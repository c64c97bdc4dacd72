"""`cairn graph --html`: one self-contained page; in headless Chromium its self-check equals the index."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import subprocess

import pytest

from cairn.project import resolve_project
from helpers import git, make_git_repo

FILES = {
    "app/__init__.py": "",
    "app/billing.py": "def charge_card(amount: int) -> bool:\n    return amount > 0\n",
    "app/api.py": "from app.billing import charge_card\n\n\ndef checkout(total):\n    return charge_card(total)\n",
    "go/a.go": "package shop\n\nfunc Total(x int) int {\n\treturn x * 2\n}\n",
    "go/b.go": "package shop\n\nfunc Report() int {\n\treturn Total(3)\n}\n",
    "README.md": "# Shop\n",
}


def _repo(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "shop", FILES)
    for i in range(3):  # billing and api change together: a changes-with edge
        (root / "app/billing.py").write_text(FILES["app/billing.py"] + f"\nV = {i}\n")
        (root / "app/api.py").write_text(FILES["app/api.py"] + f"\n# {i}\n")
        git(root, "commit", "-qam", f"v{i}")
    assert run_cli("init", "--root", str(root)).returncode == 0
    facts = [
        {
            "type": "decision",
            "title": "Charge at checkout </script>",
            "body": "Only there.",
            "files": ["app/billing.py"],
        },
        {
            "type": "gotcha",
            "title": "Totals double",
            "body": "See [[Charge at checkout </script>]].",
            "files": ["go/a.go"],
        },
    ]
    assert run_cli("remember", "--json", "--root", str(root), input=json.dumps(facts)).returncode == 0
    (root / "go/a.go").write_text(FILES["go/a.go"].replace("x * 2", "x * 3"))  # the gotcha is now stale
    return root


def _index_counts(root):
    con = sqlite3.connect(resolve_project(root=str(root)).index_path())
    try:
        kinds = dict(con.execute("SELECT kind, COUNT(*) FROM edges GROUP BY kind").fetchall())
        return (
            con.execute("SELECT COUNT(*) FROM files").fetchone()[0],
            con.execute("SELECT COUNT(*) FROM nodes").fetchone()[0],
            kinds,
        )
    finally:
        con.close()


def _browser(page, tmp_path, *extra, fragment=""):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)")
    return subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=20000",
            *extra,
            page.as_uri() + fragment,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


def _body(dom):
    tag = re.search(r"<body([^>]*)>", dom).group(1)
    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', tag))


def test_page_is_self_contained_and_its_self_check_equals_the_index(tmp_path, run_cli):
    root = _repo(tmp_path, run_cli)
    page = tmp_path / "graph.html"
    r = run_cli("graph", "--html", str(page), "--root", str(root), "--json")
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    files, nodes, kinds = _index_counts(root)
    assert (info["files"], info["notes"], info["starts_at"]) == (files, nodes, "files")
    assert info["edges"]["changes-with"] >= 1 and info["edges"]["link"] == kinds.get("link", 0) == 1
    html = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html), "the page must not load anything"
    # a note titled "... </script>" is in the data, escaped: it never closes a script element
    assert html.count("</script>") == 3 and "Charge at checkout \\u003c/script>" in html
    res = _browser(page, tmp_path, "--dump-dom", fragment="#f=app/billing.py")
    assert res.returncode == 0, res.stderr[-2000:]
    body = _body(res.stdout)
    assert body["ready"] == "1" and body["mode"] == "files"
    assert int(body["files"]) == files and int(body["notes"]) == nodes == 2
    for kind in ("import", "ref", "cites", "link"):
        assert int(body[f"edges-{kind}"]) == kinds.get(kind, 0), kind
    assert int(body["edges-changes-with"]) == info["edges"]["changes-with"]
    assert int(body["rendered-nodes"]) == files  # every file drawn once, inside its module's cluster
    assert int(body["rendered-edges"]) == int(body["edges"])  # every edge drawn, none twice
    panel = re.search(r'<aside id="panel"[^>]*>(.*?)</aside>', res.stdout, re.S).group(1)
    assert "<h2>app/billing.py</h2>" in panel and "Used by, importing it (1)" in panel
    assert "Knowledge citing it (1)" in panel and "Changes together with (1)" in panel
    console = [ln for ln in res.stderr.splitlines() if ":CONSOLE" in ln]
    assert console == [], console
    stale = _browser(page, tmp_path, "--dump-dom", fragment="#f=go/a.go")
    assert "stale" in re.search(r'<aside id="panel"[^>]*>(.*?)</aside>', stale.stdout, re.S).group(1)
    found = _browser(page, tmp_path, "--dump-dom", fragment="#q=checkout")  # a search: the best file whose path...
    assert "<h2>app/api.py</h2>" in found.stdout or "Charge at checkout" in found.stdout
    by_def = _browser(page, tmp_path, "--dump-dom", fragment="#q=charge_card")  # ...or whose definitions match
    stats = re.search(r'id="stats"[^>]*>([^<]*)<', by_def.stdout).group(1)
    assert "<h2>app/billing.py</h2>" in by_def.stdout and stats == "1 match", (stats, by_def.stdout[-3000:])
    for width, height in ((1400, 900), (600, 900)):
        shot = tmp_path / f"shot-{width}.png"
        res = _browser(page, tmp_path, f"--window-size={width},{height}", f"--screenshot={shot}")
        assert res.returncode == 0 and shot.stat().st_size > 10_000, res.stderr[-1000:]


def test_a_big_repository_opens_at_module_level(tmp_path, run_cli, monkeypatch):
    from cairn.search import graph_page

    monkeypatch.setattr(graph_page, "DETAIL_LIMIT", 3)
    root = make_git_repo(tmp_path / "shop", FILES)
    page = tmp_path / "graph.html"
    r = run_cli("graph", "--html", str(page), "--root", str(root), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["starts_at"] == "modules", r.stderr
    res = _browser(page, tmp_path, "--dump-dom")
    body = _body(res.stdout)
    assert body["ready"] == "1" and body["mode"] == "modules"
    assert int(body["rendered-nodes"]) == int(body["modules"]) < int(body["files"])
    assert [ln for ln in res.stderr.splitlines() if ":CONSOLE" in ln] == []


def test_data_that_reads_like_a_template_marker_is_never_filled_in(tmp_path, run_cli):
    """A file named `{{CYTOSCAPE}}.py` (or any marker) stays a path: the template is filled in one pass."""
    markers = ("{{CYTOSCAPE}}", "{{DATA}}", "{{TITLE}}")
    root = make_git_repo(
        tmp_path / "{{DATA}}",
        {**FILES, **{f"app/{m}.py": f"def f{i}():\n    return {i}\n" for i, m in enumerate(markers)}},
    )
    page = tmp_path / "graph.html"
    r = run_cli("graph", "--html", str(page), "--root", str(root), "--json")
    assert r.returncode == 0, r.stderr
    html = page.read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="graph-data">(.*?)</script>', html, re.S).group(1))
    assert {f"app/{m}.py" for m in markers} <= {f["p"] for f in data["files"]}
    assert data["project"] == "{{DATA}}" and html.count("<h1>{{DATA}}</h1>") == 1
    assert html.count("</script>") == 3  # the library is inlined once, never into the data
