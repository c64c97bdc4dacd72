"""`cairn index --publish FILE` and `cairn index --from FILE` (codemap/publish.py, publish_install.py):
the published index answers in a clone, local content always wins, no secret goes out, and every
bad file (another version, repository or tree; truncated; corrupt) is one line with the local
index untouched; a kill -9 during an install leaves a sound index."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

import pytest

from cairn.codemap.publish import MAGIC
from cairn.project import project_for_root
from helpers import dump_index

TOKEN = "ghp_R8xk2PqL5vN9mT3wY7zB4cF6hJ1sD0aE8gK2"
AWS = "AKIAIOSFODNN7EXAMPLF"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def git(root: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env={**os.environ, **GIT_ENV}
    )
    return out.stdout.strip()


def make_repo(root: Path, files: dict[str, str], remote: str = "git@github.com:acme/app.git") -> Path:
    root.mkdir(parents=True)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    git(root, "remote", "add", "origin", remote)
    return root


def clone(src: Path, dest: Path, remote: str = "git@github.com:acme/app.git") -> Path:
    subprocess.run(["git", "clone", "-q", str(src), str(dest)], check=True, capture_output=True)
    git(dest, "remote", "set-url", "origin", remote)
    return dest


CODE = {
    "billing/invoice.py": "def render_invoice(order):\n    return order.total\n",
    "billing/coupon.py": "from billing.invoice import render_invoice\n\ndef apply_coupon(order):\n    return render_invoice(order)\n",
    "docs/guide.md": "# Guide\n\nHow invoices are rendered.\n",
    **{f"pkg/mod{i}.py": f"def helper_{i}():\n    return {i}\n" for i in range(8)},
}


@pytest.fixture
def published(tmp_path, run_cli):
    """A repository indexed and published to a file; (repo, file)."""
    repo = make_repo(tmp_path / "ci", CODE)
    out = tmp_path / "index.cidx"
    r = run_cli("index", "--publish", str(out), cwd=repo)
    assert r.returncode == 0, r.stderr
    assert "published the index of" in r.stdout
    return repo, out


def _index_of(root: Path) -> Path:
    return project_for_root(root).index_path()


def _rows(path: Path, sql: str) -> list:
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _snapshot(path: Path) -> tuple:
    """What the local index holds (its files and their hashes), to show it was left as it was."""
    return tuple(_rows(path, "SELECT path, hash FROM files ORDER BY path"))


def _split(out: Path) -> tuple[bytes, int, int]:
    """(the file's bytes, where its manifest starts, the manifest's length)."""
    data = out.read_bytes()
    head = data.index(b"\n", len(MAGIC))
    return data, head + 1, int(data[len(MAGIC) : head])


def test_a_clone_installs_the_published_index_and_refreshes_only_what_differs(tmp_path, published, run_cli):
    repo, out = published
    here = clone(repo, tmp_path / "clone")
    (here / "billing/invoice.py").write_text("def render_invoice(order):\n    return localonlyword\n")
    (here / "billing/new_local.py").write_text("def brand_new():\n    pass\n")
    (here / "pkg/mod3.py").unlink()
    r = run_cli("index", "--from", str(out), "--json", cwd=here)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["files"] == len(CODE) and data["same"] == len(CODE) - 2  # invoice.py differs, mod3.py is gone
    assert data["changed"] == 2 and data["deleted"] == 1  # only the two files that differ are read again
    hits = run_cli("search", "localonlyword", "--json", cwd=here)
    assert "billing/invoice.py" in hits.stdout  # the local content, not the published one
    files = {p for (p, _h) in _snapshot(_index_of(here))}
    assert "billing/new_local.py" in files and "pkg/mod3.py" not in files


def test_the_published_file_holds_no_secret_the_redactor_would_stop(tmp_path, run_cli):
    files = {
        "app.py": f'GITHUB_TOKEN = "{TOKEN}"\ndef connect(token="{TOKEN}", marker="plainmarkerword"):\n'
        f"    return token\nclass {TOKEN}:\n    pass\n",
        "notes.md": f"# Setup {TOKEN}\nUse the key {AWS}\n## Heading {AWS}\n",
        "main.go": f'package main\nimport "github.com/user:{TOKEN}@example.com/x"\nfunc main() {{}}\n',
    }
    repo = make_repo(tmp_path / "sec", files)
    out = tmp_path / "sec.cidx"
    assert run_cli("index", "--publish", str(out), cwd=repo).returncode == 0
    data, start, size = _split(out)
    db = tmp_path / "payload.db"
    db.write_bytes(zlib.decompress(data[start + size :]))
    dump = dump_index(db)
    assert "plainmarkerword" in dump and "Setup" in dump  # the dump does read the text
    raw = db.read_bytes().lower()
    for secret in (TOKEN, AWS):
        assert secret not in dump and secret.lower().encode() not in raw
        assert secret.lower()[4:16] not in dump.lower()  # nor its lower-cased, expanded pieces
        assert secret.encode() not in data


def test_another_index_format_is_refused_and_the_local_index_kept(tmp_path, published, run_cli):
    repo, out = published
    here = clone(repo, tmp_path / "clone")
    assert run_cli("index", cwd=here).returncode == 0
    before = _snapshot(_index_of(here))
    data, start, size = _split(out)
    manifest = json.loads(data[start : start + size])
    for field, value in (("index_format", "1"), ("graph_version", "0"), ("publish_format", 99)):
        changed = dict(manifest, **{field: value})
        body = json.dumps(changed).encode()
        bad = tmp_path / f"{field}.cidx"
        bad.write_bytes(MAGIC + f"{len(body)}\n".encode() + body + data[start + size :])
        r = run_cli("index", "--from", str(bad), cwd=here)
        assert r.returncode == 2, (field, r.stdout, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
        assert "format" in r.stderr or "graph" in r.stderr
        assert _snapshot(_index_of(here)) == before


def test_another_repository_or_tree_is_refused(tmp_path, published, run_cli):
    repo, out = published
    other_remote = clone(repo, tmp_path / "fork", remote="git@github.com:someone/else.git")
    r = run_cli("index", "--from", str(out), cwd=other_remote)
    assert r.returncode == 2 and "another repository" in r.stderr, r.stderr
    assert not _index_of(other_remote).exists()
    unrelated = make_repo(tmp_path / "unrelated", {"a.py": "x = 1\n", "pkg/mod1.py": "y = 2\n"})
    r = run_cli("index", "--from", str(out), cwd=unrelated)
    assert r.returncode == 2 and "another tree" in r.stderr, r.stderr
    assert not _index_of(unrelated).exists()


def test_a_manifest_naming_a_path_outside_the_project_is_refused(tmp_path, published, run_cli):
    repo, out = published
    here = clone(repo, tmp_path / "clone")
    data, start, size = _split(out)
    manifest = json.loads(data[start : start + size])
    for path in ("../outside.txt", "/etc/hostname", ".git/config", "sub/.git/config", "a//b"):
        body = json.dumps(dict(manifest, files={**manifest["files"], path: "0" * 32})).encode()
        bad = tmp_path / "bad.cidx"
        bad.write_bytes(MAGIC + f"{len(body)}\n".encode() + body + data[start + size :])
        r = run_cli("index", "--from", str(bad), cwd=here)
        assert r.returncode == 2 and "outside the project" in r.stderr, (path, r.stderr)
    assert not _index_of(here).exists()


@pytest.mark.parametrize("table", ["files", "skipped"])
def test_a_manifest_path_that_is_no_utf8_is_one_line(tmp_path, published, run_cli, table):
    repo, out = published
    here = clone(repo, tmp_path / "clone")
    data, start, size = _split(out)
    manifest = json.loads(data[start : start + size])
    body = json.dumps(dict(manifest, **{table: {**manifest[table], "d\ud800/a.py": "0" * 32}})).encode()
    bad = tmp_path / "bad.cidx"
    bad.write_bytes(MAGIC + f"{len(body)}\n".encode() + body + data[start + size :])
    r = run_cli("index", "--from", str(bad), cwd=here)
    assert r.returncode == 2 and "not UTF-8" in r.stderr, r.stderr
    assert not _index_of(here).exists()


@pytest.mark.parametrize("field, value", [("payload_bytes", "x"), ("db_bytes", None), ("commit", 5), ("shallow", 1)])
def test_a_manifest_field_of_the_wrong_type_is_one_line(tmp_path, published, run_cli, field, value):
    repo, out = published
    here = clone(repo, tmp_path / "clone")
    data, start, size = _split(out)
    body = json.dumps(dict(json.loads(data[start : start + size]), **{field: value})).encode()
    bad = tmp_path / "bad.cidx"
    bad.write_bytes(MAGIC + f"{len(body)}\n".encode() + body + data[start + size :])
    r = run_cli("index", "--from", str(bad), cwd=here)
    assert r.returncode == 2 and f"corrupt: its manifest's {field}" in r.stderr, r.stderr
    assert not _index_of(here).exists()


@pytest.mark.parametrize("cut", ["header", "manifest", "payload", "flipped", "not-ours"])
def test_a_truncated_or_corrupt_file_is_one_line_and_nothing_changes(tmp_path, published, run_cli, cut):
    repo, out = published
    here = clone(repo, tmp_path / "clone")
    assert run_cli("index", cwd=here).returncode == 0
    before = _snapshot(_index_of(here))
    data, start, size = _split(out)
    bad = {
        "header": data[:10],
        "manifest": data[: start + size // 2],
        "payload": data[: start + size + (len(data) - start - size) // 2],
        "flipped": data[:-100] + bytes([data[-100] ^ 0xFF]) + data[-99:],
        "not-ours": b"PK\x03\x04 a zip file",
    }[cut]
    path = tmp_path / "bad.cidx"
    path.write_bytes(bad)
    r = run_cli("index", "--from", str(path), cwd=here)
    assert r.returncode == 2, r.stderr
    line = r.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    assert any(w in line for w in ("truncated", "corrupt", "not a published")), line
    assert _snapshot(_index_of(here)) == before
    leftovers = [p.name for p in _index_of(here).parent.iterdir() if ".fetch-" in p.name]
    assert leftovers == []


def test_publish_refuses_uncommitted_content(tmp_path, run_cli):
    repo = make_repo(tmp_path / "dirty", CODE)
    (repo / "billing/invoice.py").write_text("def render_invoice(order):\n    return 'uncommitted'\n")
    (repo / "scratch_notes.md").write_text("# private scratch\n")
    out = tmp_path / "x.cidx"
    r = run_cli("index", "--publish", str(out), cwd=repo)
    assert r.returncode == 1 and "cannot publish: 2 indexed files" in r.stderr, r.stderr
    assert not out.exists()
    plain = tmp_path / "nogit"
    plain.mkdir()
    (plain / "a.py").write_text("x = 1\n")
    (plain / ".cairn").mkdir()
    r = run_cli("index", "--publish", str(out), cwd=plain)
    assert r.returncode == 1 and "needs a git repository" in r.stderr


@pytest.mark.parametrize("flag", ["--skip-worktree", "--assume-unchanged"])
def test_publish_refuses_local_content_git_status_is_told_to_ignore(tmp_path, run_cli, flag):
    """A tracked config file with local credentials, kept out of `git status` by a flag (a common
    recipe), is still local content: its text would leave the machine."""
    repo = make_repo(tmp_path / "flagged", {**CODE, "config.yml": "db:\n  password: changeme\n"})
    git(repo, "update-index", flag, "config.yml")
    (repo / "config.yml").write_text("db:\n  password: localonlysecretword\n")
    out = tmp_path / "x.cidx"
    r = run_cli("index", "--publish", str(out), cwd=repo)
    assert r.returncode == 1 and "cannot publish: 1 indexed files" in r.stderr and "config.yml" in r.stderr, r.stderr
    assert not out.exists()


def test_kill_during_an_install_leaves_a_sound_index(tmp_path, run_cli, cairn_home):
    files = {f"src/m{i}.py": f"def fn_{i}(x):\n    return x + {i}\n" + "# filler line\n" * 200 for i in range(300)}
    repo = make_repo(tmp_path / "big", files)
    out = tmp_path / "big.cidx"
    assert run_cli("index", "--publish", str(out), cwd=repo).returncode == 0
    here = clone(repo, tmp_path / "clone")
    assert run_cli("index", cwd=here).returncode == 0
    index = _index_of(here)
    env = {**os.environ, "CAIRN_HOME": str(cairn_home)}
    for delay in (0.05, 0.15, 0.3, 0.5, 0.8):
        proc = subprocess.Popen(
            [sys.executable, "-m", "cairn", "index", "--from", str(out), "-q"],
            cwd=here,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        con = sqlite3.connect(index)
        try:
            assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert con.execute("SELECT COUNT(*) FROM files").fetchone()[0] == len(files)
        finally:
            con.close()
    r = run_cli("index", "--from", str(out), "--json", cwd=here)  # a later install sweeps what the kills left
    assert r.returncode == 0 and json.loads(r.stdout)["same"] == len(files)
    assert [p.name for p in index.parent.iterdir() if ".fetch-" in p.name] == []


def test_an_opted_in_clone_writes_its_maps_after_an_install(tmp_path, run_cli):
    repo = make_repo(tmp_path / "ci", CODE)
    assert run_cli("init", cwd=repo).returncode == 0  # the CI checkout is opted in: its maps are written
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "opt in")
    out = tmp_path / "x.cidx"
    assert run_cli("index", "--publish", str(out), cwd=repo).returncode == 0
    here = clone(repo, tmp_path / "clone")
    assert (here / ".cairn").is_dir() and not (here / ".cairn/map.md").exists()  # generated maps are not committed
    r = run_cli("index", "--from", str(out), cwd=here)
    assert r.returncode == 0, r.stderr
    assert (here / ".cairn/map.md").is_file()


def test_a_shallow_checkout_publishes_no_history_and_the_clone_mines_its_own(tmp_path, run_cli):
    repo = make_repo(tmp_path / "full", CODE)
    for i in range(3):
        (repo / "billing/invoice.py").write_text(f"def render_invoice(order):\n    return order.total + {i}\n")
        (repo / "billing/coupon.py").write_text(f"def apply_coupon(order):\n    return {i}\n")
        git(repo, "commit", "-qam", f"change {i}")
    ci = tmp_path / "ci"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(ci)], check=True, capture_output=True)
    git(ci, "remote", "set-url", "origin", "git@github.com:acme/app.git")
    out = tmp_path / "shallow.cidx"
    assert run_cli("index", "--publish", str(out), cwd=ci).returncode == 0
    data, start, size = _split(out)
    assert json.loads(data[start : start + size])["shallow"] is True
    db = tmp_path / "payload.db"
    db.write_bytes(zlib.decompress(data[start + size :]))
    assert _rows(db, "SELECT COUNT(*) FROM commits") == [(0,)]
    here = clone(repo, tmp_path / "clone")
    assert run_cli("index", "--from", str(out), cwd=here).returncode == 0
    assert _rows(_index_of(here), "SELECT COUNT(*) FROM commits") == [(4,)]  # the clone's own history, mined


def _edges(root: Path) -> set:
    sql = "SELECT s.path, d.path, e.kind FROM edges e JOIN files s ON s.id = e.src JOIN files d ON d.id = e.dst"
    return set(_rows(_index_of(root), sql))


def test_a_clone_ahead_updates_the_graph_in_place_with_the_edges_a_rebuild_makes(tmp_path, published, run_cli):
    repo, out = published
    here = clone(repo, tmp_path / "clone")
    (here / "pkg/mod2.py").write_text("from billing.invoice import render_invoice\n\ndef helper_2():\n    return 2\n")
    git(here, "commit", "-qam", "mod2 imports the invoice")
    r = run_cli("index", "--from", str(out), "--json", cwd=here)
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["changed"] == 1 and data["graph_updated"] and not data["graph_rebuilt"]
    in_place = _edges(here)
    assert ("pkg/mod2.py", "billing/invoice.py", "import") in in_place
    assert run_cli("index", "--full", cwd=here).returncode == 0
    assert _edges(here) == in_place


def test_the_install_hashes_files_as_the_extractor_does(tmp_path):
    from cairn.codemap.extract import content_hash
    from cairn.codemap.publish import file_hash

    path = tmp_path / "f.bin"
    path.write_bytes(b"\x00\x01 some bytes \xff" * 100)
    assert file_hash(path) == content_hash(path.read_bytes())
    assert file_hash(tmp_path / "absent") is None


def test_a_publish_file_that_cannot_be_written_is_one_line(tmp_path, published, run_cli):
    repo, _out = published
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    r = run_cli("index", "--publish", str(blocker / "index.cidx"), cwd=repo)
    assert r.returncode == 1 and "cannot write it" in r.stderr and "internal error" not in r.stderr, r.stderr


def _repack(out: Path, dest: Path, change, **fields) -> Path:
    """`out` with its payload database changed by `change(con)`, its manifest's size and sha256 made to
    match: a file crafted by whoever publishes, which every check of its integrity passes."""
    import hashlib

    data, start, size = _split(out)
    manifest = json.loads(data[start : start + size])
    db = dest.with_suffix(".db")
    db.write_bytes(zlib.decompress(data[start + size :]))
    con = sqlite3.connect(db, isolation_level=None)
    try:
        change(con)
    finally:
        con.close()
    raw = db.read_bytes()
    payload = zlib.compress(raw)
    manifest.update(db_bytes=len(raw), payload_bytes=len(payload), payload_sha256=hashlib.sha256(payload).hexdigest())
    manifest.update(fields)
    body = json.dumps(manifest).encode()
    dest.write_bytes(MAGIC + f"{len(body)}\n".encode() + body + payload)
    return dest


@pytest.mark.parametrize(
    "sql",
    [
        "CREATE TRIGGER planted AFTER UPDATE OF hash ON files BEGIN UPDATE meta SET value = 'x'; END",
        "CREATE VIEW planted AS SELECT path FROM files",
    ],
)
def test_a_payload_with_a_trigger_or_view_cairn_never_made_is_refused(tmp_path, published, run_cli, sql):
    """A trigger in the payload would run on this machine's every later write to the index (the
    install's own UPDATE first); cairn's schema is known, so anything beyond it is refused."""
    repo, out = published
    here = clone(repo, tmp_path / "clone")
    bad = _repack(out, tmp_path / "bad.cidx", lambda con: con.execute(sql))
    r = run_cli("index", "--from", str(bad), cwd=here)
    assert r.returncode == 2 and "corrupt" in r.stderr, (r.stdout, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert not _index_of(here).exists()
    assert [p.name for p in _index_of(here).parent.iterdir() if ".fetch-" in p.name] == []


def test_a_payload_whose_tables_are_not_cairns_is_one_line(tmp_path, published, run_cli):
    repo, out = published
    here = clone(repo, tmp_path / "clone")
    bad = _repack(out, tmp_path / "bad.cidx", lambda con: con.execute("ALTER TABLE files RENAME COLUMN hash TO h"))
    r = run_cli("index", "--from", str(bad), cwd=here)
    assert r.returncode == 2 and "corrupt" in r.stderr and "internal error" not in r.stderr, r.stderr
    assert not _index_of(here).exists()
    assert [p.name for p in _index_of(here).parent.iterdir() if ".fetch-" in p.name] == []


def test_a_fifo_as_the_file_is_one_line_not_a_hang(tmp_path, published, cairn_home):
    repo, _out = published
    fifo = tmp_path / "index.fifo"
    os.mkfifo(fifo)
    env = {**os.environ, "CAIRN_HOME": str(cairn_home)}
    cmd = [sys.executable, "-m", "cairn", "index", "--from", str(fifo)]
    r = subprocess.run(cmd, cwd=repo, env=env, capture_output=True, text=True, timeout=20)
    assert r.returncode == 2 and "not a regular file" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_the_install_reads_no_file_through_a_symlink_or_a_special_file(tmp_path, monkeypatch):
    """A clone's committed symlink (a file's or a folder's) must not make the install read outside the
    project, nor a FIFO (or a device) stall it: the walk skips them, the install's hashing does too."""
    from cairn.codemap import publish_install

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("someone else's file\n")
    root = tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    (root / "plain.py").write_text("x = 1\n")
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "dirlink").symlink_to(outside)
    os.mkfifo(root / "sub" / "pipe")
    opened: list[str] = []
    real = publish_install.file_hash
    monkeypatch.setattr(publish_install, "file_hash", lambda p: opened.append(str(p)) or real(p))
    paths = ["plain.py", "link.txt", "dirlink/secret.txt", "sub/pipe"]
    got: dict = {}
    worker = threading.Thread(target=lambda: got.update(publish_install.local_hashes(root, paths)), daemon=True)
    worker.start()
    worker.join(20)
    assert not worker.is_alive(), f"the install's hashing blocked (on the FIFO) after opening {opened}"
    assert got["plain.py"] is not None
    assert {p: got[p] for p in paths[1:]} == dict.fromkeys(paths[1:])
    assert not any("outside" in p or "link" in p or "pipe" in p for p in opened), opened


def _dead_pid() -> int:
    """The pid of a process that ran and was reaped (what a kill -9 leaves behind)."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_a_publish_and_an_install_remove_what_killed_ones_left_and_keep_a_running_ones(
    tmp_path, published, run_cli_process
):
    """A kill -9 mid-publish leaves `.FILE.PID.db|z|tmp` beside FILE, mid-team-publish `INDEX.publish-PID`
    (and its `.db`) beside the index: the next publish (install) removes those of a process gone, and
    never a running one's (this test's own pid)."""
    repo, out = published
    dead, live = _dead_pid(), os.getpid()
    beside_out = [f".{out.name}.{pid}.{ext}" for pid in (dead, live) for ext in ("db", "db-journal", "z", "tmp")]
    for name in beside_out:
        (out.parent / name).write_bytes(b"left by a killed publish")
    r = run_cli_process("index", "--publish", str(out), cwd=repo)
    assert r.returncode == 0, r.stderr
    left = sorted(p.name for p in out.parent.iterdir() if p.name.startswith(f".{out.name}."))
    assert left == sorted(n for n in beside_out if f".{live}." in n)

    here = clone(repo, tmp_path / "clone")
    index = _index_of(here)
    index.parent.mkdir(parents=True, exist_ok=True)
    beside_index = [
        name
        for pid in (dead, live)
        for name in (
            f"{index.name}.publish-{pid}",
            f".{index.name}.publish-{pid}.{pid}.db",
            f"{index.name}.fetch-{pid}",
        )
    ]
    for name in beside_index:
        (index.parent / name).write_bytes(b"left by a killed team publish or install")
    r = run_cli_process("index", "--from", str(out), cwd=here)
    assert r.returncode == 0, r.stderr
    left = sorted(p.name for p in index.parent.iterdir() if ".publish-" in p.name or ".fetch-" in p.name)
    assert left == sorted(n for n in beside_index if n.endswith(f"-{live}") or f"-{live}." in n)


def test_sigterm_during_a_publish_removes_its_temporary_files(tmp_path, published, cairn_home):
    """SIGTERM (a cancelled CI job) is handled like Ctrl-C: the publish's finally blocks run."""
    repo, out = published
    target = tmp_path / "term.cidx"
    script = (
        "import os, signal, sys, time\n"
        "from cairn.codemap import publish\n"
        "def write(manifest, db, out):\n"
        "    assert db.exists()\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    time.sleep(30)\n"
        "publish._write = write\n"
        "from cairn.cli.main import main\n"
        "sys.exit(main(['index', '--publish', sys.argv[1]]))\n"
    )
    env = {**os.environ, "CAIRN_HOME": str(cairn_home)}
    r = subprocess.run(
        [sys.executable, "-c", script, str(target)], cwd=repo, env=env, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 130 and "interrupted" in r.stderr, (r.returncode, r.stderr)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".term.cidx.")] == []
    assert not target.exists()


def test_a_manifest_listing_no_files_is_refused_where_the_tree_has_files(tmp_path, published, run_cli):
    """`files: {}` leaves the share of same files nothing to count: a payload emptied of its files (size
    and sha256 made to match) must not pass for this tree's index."""
    repo, out = published
    here = clone(repo, tmp_path / "clone")
    assert run_cli("index", cwd=here).returncode == 0
    before = _snapshot(_index_of(here))
    bad = _repack(out, tmp_path / "bad.cidx", lambda con: con.execute("DELETE FROM files"), files={})
    r = run_cli("index", "--from", str(bad), cwd=here)
    assert r.returncode == 2 and "another tree" in r.stderr, (r.stdout, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert _snapshot(_index_of(here)) == before
    assert [p.name for p in _index_of(here).parent.iterdir() if ".fetch-" in p.name] == []


def _bomb(out: Path, dest: Path, inflated: int, stated: int | None = None) -> Path:
    """`out` with a payload of `inflated` zero bytes (zlib: ~1000x smaller) whose manifest states
    `stated` bytes (default: the truth) with payload size and sha256 to match."""
    import hashlib

    data, start, size = _split(out)
    manifest = json.loads(data[start : start + size])
    payload = zlib.compress(bytes(inflated))
    manifest.update(
        db_bytes=inflated if stated is None else stated,
        payload_bytes=len(payload),
        payload_sha256=hashlib.sha256(payload).hexdigest(),
    )
    body = json.dumps(manifest).encode()
    dest.write_bytes(MAGIC + f"{len(body)}\n".encode() + body + payload)
    return dest


def test_a_payload_stating_a_size_no_index_has_is_refused_before_inflating(tmp_path, published, cairn_home):
    """64 MiB of zeros deflate to ~64 KB: a size and sha256 that match do not make it an index. It is
    refused before a byte is written (the child may write at most 32 MiB to any file)."""
    import resource

    repo, out = published
    here = clone(repo, tmp_path / "clone")
    bad = _bomb(out, tmp_path / "bomb.cidx", 64 * 2**20)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (32 * 2**20, 32 * 2**20))

    env = {**os.environ, "CAIRN_HOME": str(cairn_home)}
    cmd = [sys.executable, "-m", "cairn", "index", "--from", str(bad)]
    r = subprocess.run(cmd, cwd=here, env=env, capture_output=True, text=True, timeout=60, preexec_fn=limit)
    assert r.returncode == 2 and "more than 50x" in r.stderr, (r.returncode, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert not _index_of(here).exists()
    assert [p.name for p in _index_of(here).parent.iterdir() if ".fetch-" in p.name] == []


def test_an_index_larger_than_the_free_space_is_refused_before_inflating(tmp_path, published, run_cli, monkeypatch):
    import shutil

    repo, out = published
    here = clone(repo, tmp_path / "clone")
    real = shutil.disk_usage
    monkeypatch.setattr(shutil, "disk_usage", lambda p: real(p)._replace(free=10 * 2**20))
    r = run_cli("index", "--from", str(out), cwd=here)
    assert r.returncode == 2 and "MB free" in r.stderr, (r.stdout, r.stderr)
    assert len(r.stderr.strip().splitlines()) == 1
    assert not _index_of(here).exists()
    assert [p.name for p in _index_of(here).parent.iterdir() if ".fetch-" in p.name] == []


def test_a_payload_inflating_past_its_stated_size_stops_within_a_chunk(tmp_path, published):
    """A payload whose stated size passes (FLOOR) but which inflates to 128 MiB: the inflation stops
    at the stated size, never holding the rest in memory (one `decompress` of the whole block did)."""
    import tracemalloc

    from cairn.codemap.publish import read_manifest
    from cairn.codemap.publish_install import _inflate

    _repo, out = published
    bad = _bomb(out, tmp_path / "bomb.cidx", 128 * 2**20, stated=2**20)
    dest = tmp_path / "inflated.db"
    with open(bad, "rb") as fh:
        m = read_manifest(fh, "bomb")
        tracemalloc.start()
        try:
            with pytest.raises(Exception, match="inflates past its stated size"):
                _inflate(fh, m, dest, "bomb")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peak < 16 * 2**20, peak
    assert dest.stat().st_size <= 2**20
