"""Bad input: each case gets a clear one-line message or is skipped and counted; never a traceback."""

from __future__ import annotations

import json
import os

from cairn.codemap.indexer import index_project, open_index
from cairn.project import project_for_root
from helpers import make_git_repo, write_tree


def _ok(out):
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    return out


def _fails_cleanly(out, text):
    assert out.returncode == 1
    assert "Traceback" not in out.stderr and text in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_nonexistent_and_file_roots(tmp_path, run_cli):
    _fails_cleanly(run_cli("index", "--root", str(tmp_path / "nope")), "no such directory")
    (tmp_path / "f.txt").write_text("x")
    _fails_cleanly(run_cli("index", "--root", str(tmp_path / "f.txt")), "not a directory")


def test_outside_any_project_is_a_clear_error(tmp_path, run_cli):
    plain = tmp_path / "plain"
    plain.mkdir()
    _fails_cleanly(run_cli("index", cwd=plain), "not inside a project")
    _fails_cleanly(run_cli("search", "x", cwd=plain), "not inside a project")


def test_directory_that_is_not_a_repository_indexes_with_root(tmp_path, run_cli):
    root = write_tree(
        tmp_path / "plain", {"a.py": "def a():\n    pass\n", "node_modules/x/i.js": "x", ".venv/l.py": "x"}
    )
    out = _ok(run_cli("index", "--root", str(root), "--json"))
    assert json.loads(out.stdout)["files"] == 1


def test_repository_with_no_commits(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "fresh", {"a.py": "def a():\n    pass\n"}, commit=False)
    out = _ok(run_cli("index", "--json", cwd=root))
    assert json.loads(out.stdout)["files"] == 1


def test_unreadable_invalid_utf8_huge_binary_and_symlink_loop(tmp_path):
    root = write_tree(
        tmp_path / "r",
        {
            "good.py": "def good():\n    return 1\n",
            "latin1.py": b"# caf\xe9\ndef cafe():\n    return '\xff\xfe'\n",
            "image.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00",
            "blob.dat2": b"abc\x00def" * 100,
            "locked.py": "def secret():\n    pass\n",
            "package-lock.json": "{}",
            "dist.min.js": "var a=1;" * 2000,
        },
    )
    (root / "locked.py").chmod(0)
    with open(root / "huge.txt", "wb") as fh:  # 200 MB, sparse: costs no disk
        fh.truncate(200 * 1024 * 1024)
    os.symlink(root / "loop", root / "loop")
    (root / "sub").mkdir()
    os.symlink(root, root / "sub" / "up")  # a directory link back to the root
    os.symlink("/etc/passwd", root / "outside.txt")
    p = project_for_root(root)
    s = index_project(p)
    con = open_index(p)
    paths = {r[0] for r in con.execute("SELECT path FROM files")}
    assert "good.py" in paths and "latin1.py" in paths
    assert {"image.png", "blob.dat2", "huge.txt", "outside.txt", "loop", "package-lock.json", "dist.min.js"}.isdisjoint(
        paths
    )
    assert not any(p_.startswith("sub/up") for p_ in paths)
    assert con.execute("SELECT COUNT(*) FROM symbols WHERE name = 'cafe'").fetchone()[0] == 1
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    assert s.skipped.get("too large") == 1 and s.skipped.get("symlink", 0) >= 2
    assert s.skipped.get("binary", 0) >= 2 and s.skipped.get("lockfile") == 1
    if os.geteuid() != 0:  # root reads mode-0 files anyway
        assert "locked.py" not in paths


def test_garbage_cases_file_and_bad_numbers(tmp_path, run_cli):
    root = write_tree(tmp_path / "r", {"a.py": "x = 1\n"})
    (tmp_path / "cases.jsonl").write_text("not json\n")
    _fails_cleanly(run_cli("eval", "run", "--cases", str(tmp_path / "cases.jsonl"), "--root", str(root)), "not a case")
    _fails_cleanly(run_cli("search", "x", "--root", str(root), "--limit", "0"), "limit")
    _fails_cleanly(run_cli("search", "x", "--root", str(root), "--budget", "-5"), "budget")


def test_secrets_never_reach_the_index(tmp_path):
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    root = write_tree(
        tmp_path / "r",
        {
            ".env": f"GITHUB_TOKEN={token}\n",
            "deploy/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n",
            "certs/server.pem": "x",
            ".env.example": "GITHUB_TOKEN=\n",
            "config/app.yaml": f"token: {token}\n",
            "app.py": "def main():\n    return 1\n",
        },
    )
    p = project_for_root(root)
    s = index_project(p)
    con = open_index(p)
    paths = {r[0] for r in con.execute("SELECT path FROM files")}
    con.close()
    assert paths == {".env.example", "config/app.yaml", "app.py"} and s.skipped.get("secret") == 3
    for f in p.index_path().parent.glob(p.index_path().name + "*"):  # the database and its WAL
        assert token.encode() not in f.read_bytes()
    assert (p.index_path().stat().st_mode & 0o777) == 0o600
