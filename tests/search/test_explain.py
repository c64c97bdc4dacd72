"""`cairn explain` and `cairn path` on a small real repository with history and knowledge."""

from __future__ import annotations

import json

from cairn.text.budget import estimate_tokens
from helpers import git, make_git_repo

SHOP = {
    "app/__init__.py": "",
    "app/billing.py": '"""Charging cards: the one place money moves."""\n\n\n'
    "def charge_card(amount: int) -> bool:\n    return amount > 0 and fee(amount) >= 0\n\n\n"
    "def fee(amount: int) -> int:\n    return amount // 100\n",
    "app/api.py": "from app.billing import charge_card\n\n\ndef checkout(total):\n"
    "    if charge_card(total):\n        return charge_card(total)\n",
    "app/web.py": "from app.api import checkout\n\n\ndef handle(req):\n    return checkout(req)\n",
    "tools/lonely.py": "def alone():\n    return 1\n",
    "go/a.go": "package shop\n\nfunc Total(x int) int {\n\treturn x * 2\n}\n",
    "go/b.go": "package shop\n\nfunc Report() int {\n\treturn Total(3) + Total(4)\n}\n",
    "README.md": "# Shop\n\nSee [billing](app/billing.py).\n",
}


def _repo(tmp_path):
    root = make_git_repo(tmp_path / "shop", SHOP)
    for i in range(2):  # billing and api change together twice more
        (root / "app/billing.py").write_text(SHOP["app/billing.py"] + f"\nVERSION = {i}\n")
        (root / "app/api.py").write_text(SHOP["app/api.py"] + f"\n# v{i}\n")
        git(root, "commit", "-qam", f"billing: version {i}")
    return root


def _json(run_cli, root, *args):
    r = run_cli(*args, "--root", str(root), "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_explain_a_file(tmp_path, run_cli):
    root = _repo(tmp_path)
    data = _json(run_cli, root, "explain", "app/billing.py")
    assert data["target"] == {"kind": "file", "name": "app/billing.py"}
    assert data["description"] == "Charging cards: the one place money moves."
    assert [d["name"] for d in data["definitions"]][:2] == ["charge_card", "fee"]
    assert data["definitions"][0]["signature"].startswith("def charge_card(amount: int) -> bool")
    importers = data["used_by"]["imports"]
    assert importers[0] == {"path": "app/api.py", "count": 2, "names": ["charge_card"]}
    assert data["centrality"]["position"] >= 1 and data["centrality"]["of"] >= 5
    assert len(data["history"]["commits"]) == 3 and data["history"]["commits"][0]["subject"] == "billing: version 1"
    [api] = [d for d in data["history"]["changes_with"] if d["path"] == "app/api.py"]
    assert (api["together"], api["of"]) == (3, 3) and api["score"] > 0
    text = run_cli("explain", "app/billing.py", "--root", str(root)).stdout
    assert "Used by, importing it (1):" in text and "app/api.py  x2: charge_card" in text
    assert "in 3 of its last 3 commits" in text


def test_explain_separates_references_from_imports(tmp_path, run_cli):
    root = _repo(tmp_path)
    data = _json(run_cli, root, "explain", "go/a.go")
    assert data["used_by"]["imports"] == []
    assert data["used_by"]["references"] == [{"path": "go/b.go", "count": 2, "names": ["Total"]}]
    uses = _json(run_cli, root, "explain", "go/b.go")["uses"]
    assert uses["references"][0]["path"] == "go/a.go" and uses["imports"] == []


def test_explain_a_symbol(tmp_path, run_cli):
    root = _repo(tmp_path)
    data = _json(run_cli, root, "explain", "charge_card")
    assert data["target"]["kind"] == "symbol" and data["target"]["defined_in"] == 1
    assert data["definitions"][0]["path"] == "app/billing.py" and data["definitions"][0]["line"] == 4
    assert data["used_by"]["imports"] == [{"path": "app/api.py", "count": 2}]  # two calls
    assert [d["name"] for d in data["uses"]["names"]] == ["fee"]
    # FILE:SYMBOL and the name key (chargeCard) find it too
    assert _json(run_cli, root, "explain", "app/billing.py:charge_card")["target"]["name"] == "charge_card"
    assert _json(run_cli, root, "explain", "chargeCard")["target"]["name"] == "charge_card"


def test_explain_knowledge_both_ways_and_staleness(tmp_path, run_cli):
    root = _repo(tmp_path)
    assert run_cli("init", "--root", str(root)).returncode == 0
    fact = {
        "type": "decision",
        "title": "Cards are charged only at checkout",
        "body": "Never before the order.",
        "files": ["app/billing.py"],
        "symbols": ["charge_card"],
    }
    made = json.loads(run_cli("remember", "--json", "--root", str(root), input=json.dumps([fact])).stdout)
    node_id = made["results"][0]["id"]
    [note] = _json(run_cli, root, "explain", "app/billing.py")["knowledge"]
    assert note["id"] == node_id and note["stale"] == [] and note["status"] == "active"
    assert _json(run_cli, root, "explain", "charge_card")["knowledge"][0]["id"] == node_id
    node = _json(run_cli, root, "explain", node_id)
    assert node["target"]["kind"] == "node" and node["node"]["files"] == ["app/billing.py"]
    assert node["description"] == "Never before the order."
    by_path = _json(run_cli, root, "explain", f".cairn/knowledge/{node_id}.md")  # its file is the note too
    assert by_path["target"] == {"kind": "node", "name": node_id}
    (root / "app/billing.py").write_text(SHOP["app/billing.py"].replace("amount > 0", "amount > 1"))
    [note] = _json(run_cli, root, "explain", "app/billing.py")["knowledge"]
    assert note["stale"] == ["app/billing.py"]
    assert "STALE, changed since: app/billing.py" in run_cli("explain", "app/billing.py", "--root", str(root)).stdout


def test_explain_budget_and_errors(tmp_path, run_cli):
    root = _repo(tmp_path)
    for budget in (60, 120):
        r = run_cli("explain", "app/billing.py", "--budget", str(budget), "--root", str(root))
        assert r.returncode == 0 and estimate_tokens(r.stdout) <= budget, r.stdout
        assert "left out for the budget" in r.stdout
    r = run_cli("explain", "app/biling.py", "--root", str(root))
    assert r.returncode == 1 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1
    assert "did you mean app/billing.py" in r.stderr
    r = run_cli("explain", "chrage_card", "--root", str(root), "--json")
    assert r.returncode == 1 and "charge_card" in json.loads(r.stdout)["error"]
    (root / "lib").mkdir()
    (root / "lib/api.py").write_text("x = 1\n")
    r = run_cli("explain", "api.py", "--root", str(root))
    assert r.returncode == 1 and "names 2 files" in r.stderr and "app/api.py" in r.stderr


def test_path_forward_reverse_and_none(tmp_path, run_cli):
    root = _repo(tmp_path)
    res = _json(run_cli, root, "path", "app/web.py", "charge_card")
    assert res["direction"] == "forward" and res["reason"] == ""
    [steps] = res["paths"]
    assert [s["path"] for s in steps] == ["app/web.py", "app/api.py", "app/billing.py"]
    assert steps[1] == {"path": "app/api.py", "edge": "import", "forward": True, "via": ["checkout"]}
    text = run_cli("path", "app/web.py", "app/billing.py", "--root", str(root)).stdout
    assert "--imports--> app/api.py  (via checkout)" in text and "2 steps" in text
    back = _json(run_cli, root, "path", "app/billing.py", "app/web.py")
    assert back["direction"] == "reverse" and "depends on app/billing.py" in back["reason"]
    assert [s["path"] for s in back["paths"][0]] == ["app/web.py", "app/api.py", "app/billing.py"]
    refs = _json(run_cli, root, "path", "Report", "go/a.go")
    assert refs["paths"][0][1]["edge"] == "ref"
    assert "--names--> go/a.go" in run_cli("path", "go/b.go", "go/a.go", "--root", str(root)).stdout
    lonely = _json(run_cli, root, "path", "tools/lonely.py", "app/api.py")
    assert lonely["paths"] == [] and "tools/lonely.py has no import or reference edges" in lonely["reason"]
    apart = _json(run_cli, root, "path", "go/a.go", "app/api.py")
    assert apart["paths"] == [] and "different components" in apart["reason"]
    same = _json(run_cli, root, "path", "fee", "charge_card")
    assert same["reason"] == "both are in app/billing.py"


def test_path_through_a_shared_neighbour(tmp_path, run_cli):
    files = {
        "m/core.py": "def base():\n    return 1\n",
        "m/left.py": "from m.core import base\n\n\ndef left():\n    return base()\n",
        "m/right.py": "from m.core import base\n\n\ndef right():\n    return base()\n",
    }
    root = make_git_repo(tmp_path / "p", files)
    res = _json(run_cli, root, "path", "m/left.py", "m/right.py")
    assert res["direction"] == "mixed" and "meet only through" in res["reason"]
    steps = res["paths"][0]
    assert [s["path"] for s in steps] == ["m/left.py", "m/core.py", "m/right.py"]
    assert steps[1]["forward"] is True and steps[2]["forward"] is False
    assert "<--imported by-- m/right.py" in run_cli("path", "m/left.py", "m/right.py", "--root", str(root)).stdout


def test_a_go_package_import_is_listed_once_and_own_names_are_not_counted(tmp_path, run_cli):
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        "alpha/a.go": 'package alpha\n\nfunc Thing() int {\n\treturn 1\n}\n\nfunc String() string {\n\treturn "a"\n}\n',
        "gamma/g.go": 'package gamma\n\nimport "example.com/shop/alpha"\n\n'
        'func String() string {\n\treturn "g"\n}\n\n'
        "func Use() int {\n\t_ = String()\n\t_ = String()\n\treturn alpha.Thing() + Thing()\n}\n",
    }
    root = make_git_repo(tmp_path / "shop", files)
    data = _json(run_cli, root, "explain", "alpha/a.go")
    assert data["used_by"]["imports"] == [{"path": "gamma/g.go", "count": 2, "names": ["Thing"]}]
    assert data["used_by"]["references"] == []  # the reference edge of the same pair is not listed twice


def test_a_module_name_points_to_the_map(tmp_path, run_cli):
    root = _repo(tmp_path)
    r = run_cli("explain", "app", "--root", str(root))
    assert r.returncode == 1 and "'app' is a module" in r.stderr and "cairn map app" in r.stderr
