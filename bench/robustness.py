"""The corruption matrix: each kind of SQLite damage applied to each of cairn's three databases.

The damage kinds are the tests' own (tests/robust/damage.py). For every kind, on a fresh copy:

- code index (derived from the files): `cairn index` runs; detected = it says "the code index was
  damaged", repaired = afterwards `quick_check` is ok and every file is indexed, then `search`
  finds the coupon function;
- vault index (derived from the notes): `cairn memory list` runs twice; lost = notes it no longer
  lists; sound = `quick_check` is ok and it holds every note, after those reads and again after a
  `cairn remember` (a write through it) and one more read;
- session archive (the only copy of the turns): `cairn backup` must refuse to rotate it in
  (detected), `cairn restore <last good backup> --yes` must bring back every turn.

Markdown (the notes) is never touched by these kinds: the notes column counts the knowledge files
before and after. Usage:

    .venv/bin/python bench/robustness.py
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import sqlite3
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import benchlib

benchlib.on_path(benchlib.TESTS / "robust", benchlib.TESTS)

FILES = {
    "src/shop/cart.py": "from shop.coupons import apply_coupon\n\n\nclass Cart:\n    def checkout(self, code):\n"
    "        return apply_coupon(self, code)\n",
    "src/shop/coupons.py": 'def apply_coupon(cart, code):\n    """Apply a discount coupon."""\n    return cart\n',
    **{f"src/util/helper_{i}.py": f"def helper_{i}(value):\n    return value + {i}\n" for i in range(6)},
}
# Damage SQLite ignores by design (a WAL whose checksums fail is not replayed) or that reads as a
# new, empty database (tests/robust/test_damage.py's HARMLESS): there is nothing to repair.
HARMLESS = {"stale WAL garbage": "SQLite ignores it", "emptied": "an index reads it as new and empty"}
NOTES = ["Coupon codes are case sensitive", "Checkout retries twice on a timeout", "Invoices round half to even"]


def cli(*args: str) -> tuple[int, str, str]:
    from cairn.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def quick_check(db: Path) -> bool:
    try:
        con = sqlite3.connect(db)
        try:
            return con.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        finally:
            con.close()
    except sqlite3.Error:
        return False


def count(db: Path, sql: str) -> int:
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchone()[0]
    except sqlite3.Error:
        return -1
    finally:
        con.close()


def setup(base: Path) -> tuple[Path, Path]:
    """An opted-in project with notes and an index, and an archive with a good backup."""
    from damage import write_sessions

    from helpers import make_git_repo

    os.environ["CAIRN_HOME"] = str(base / "home")
    root = make_git_repo(base / "shop", FILES)
    assert cli("init", "--root", str(root))[0] == 0
    for title in NOTES:
        assert cli("remember", title, "--type", "gotcha", "--body", title, "--root", str(root))[0] == 0
    assert cli("sessions", "ingest", str(write_sessions(base / "projects")), "--no-backup")[0] == 0
    assert cli("backup")[0] == 0
    return root, base / "home"


def row(kind: str, pristine: Path, work: Path, seed: int) -> list[str]:
    from damage import damage

    from cairn.project import project_for_recorded_cwd, resolve_project
    from cairn.sessions.backup import list_backups
    from cairn.sessions.xray import project_of

    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(pristine, work, symlinks=True)
    os.environ["CAIRN_HOME"] = str(work / "home")
    project_for_recorded_cwd.cache_clear()
    project_of.cache_clear()
    root = work / "shop"
    notes_before = len(list((root / ".cairn" / "knowledge").glob("*.md")))
    # code index
    db = resolve_project(root).index_path()
    files = count(db, "SELECT COUNT(*) FROM files")
    damage(db, kind, seed)
    code, _out, err = cli("index", "--root", str(root))
    said = "code index was damaged" in err
    fixed = code == 0 and quick_check(db) and count(db, "SELECT COUNT(*) FROM files") == files
    code, out, _err = cli("search", "apply coupon discount", "--json", "--no-refresh", "--root", str(root))
    found = code == 0 and "src/shop/coupons.py" in {r.get("path") for r in json.loads(out)["results"]}
    # vault index
    [vdb] = list((root / ".cairn").rglob("vault-index.db"))
    damage(vdb, kind, seed)
    listed = []
    for _ in range(2):
        code, out, _err = cli("memory", "list", "--json", "--root", str(root))
        listed = [n["title"] for n in json.loads(out)["nodes"]] if code == 0 else []
    vlost = len(set(NOTES) - set(listed))
    vread = quick_check(vdb) and count(vdb, "SELECT COUNT(*) FROM notes WHERE node IS NOT NULL") == len(NOTES)
    code = cli("remember", "Refunds settle after the invoice closes", "--type", "decision", "--root", str(root))[0]
    cli("memory", "list", "--json", "--root", str(root))
    vfixed = (
        code == 0
        and quick_check(vdb)
        and count(vdb, "SELECT COUNT(*) FROM notes WHERE node IS NOT NULL") == len(NOTES) + 1
    )
    notes_before += 1
    # session archive
    archive = work / "home" / "sessions.db"
    good = list_backups()
    damage(archive, kind, seed)
    code, _out, err = cli("backup", "--keep", "1")
    refused = code != 0 and "damaged" in err and list_backups() == good
    if refused:
        code, out, _err = cli("restore", str(good[-1]), "--yes")
    turns = count(archive, "SELECT COUNT(*) FROM turns") if code == 0 else 0
    notes_after = len(list((root / ".cairn" / "knowledge").glob("*.md")))

    def yn(flag: bool) -> str:
        return "yes" if flag else "**no**"

    if kind in HARMLESS:
        return [
            f"{kind} ({HARMLESS[kind]})",
            "no (nothing to repair)" if not said else "yes",
            yn(fixed and found),
            yn(vlost == 0) + f" ({len(NOTES) - vlost}/{len(NOTES)})",
            f"{yn(vread)} / {yn(vfixed)}",
            "refused" if refused else "ran (archive sound)",
            f"{turns}/15",
            f"{notes_after}/{notes_before}",
        ]
    return [
        kind,
        yn(said),
        yn(fixed and found),
        yn(vlost == 0) + f" ({len(NOTES) - vlost}/{len(NOTES)})",
        f"{yn(vread)} / {yn(vfixed)}",
        "refused" if refused else "**ran**",
        f"{turns}/15",
        f"{notes_after}/{notes_before}",
    ]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args(argv)
    os.environ["CAIRN_WARM"] = "0"
    from damage import KINDS

    base = Path(tempfile.mkdtemp(prefix="cairn-damage-"))
    try:
        setup(base / "work")  # paths are part of the index's name: every kind runs at the same one
        shutil.copytree(base / "work", base / "pristine", symlinks=True)
        print(
            "| damage | code index: said so | code index: rebuilt, search finds | vault index: notes listed | "
            "vault index: sound after 2 reads / after a `remember` | archive: `backup` | archive: turns after restore | notes kept |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for kind in KINDS:
            print("| " + " | ".join(row(kind, base / "pristine", base / "work", args.seed)) + " |", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
