"""Builders for small real repositories used by the tests (import as `from helpers import ...`)."""

from __future__ import annotations

from pathlib import Path

# A three-file Python package (tests/search/conftest.py indexes it for the index-cache tests).
LEDGER = {
    "ledger/reconcile.py": 'def reconcile_accounts(book):\n    """Match entries."""\n    return book\n',
    "ledger/export.py": "from ledger.reconcile import reconcile_accounts\n\n\ndef export_csv(book):\n"
    "    return reconcile_accounts(book)\n",
    "ledger/__init__.py": "",
}


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write {relative path: content} under root (parents created)."""
    for rel, content in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")
    return root


def git(root: Path, *args: str) -> str:
    import subprocess

    out = subprocess.run(
        ["git", "-C", str(root), *args],
        capture_output=True,
        text=True,
        check=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com",
            "HOME": str(root),
            "PATH": "/usr/bin:/bin:/usr/local/bin",
        },
    )
    return out.stdout


def make_git_repo(root: Path, files: dict[str, str | bytes], commit: bool = True) -> Path:
    """A real git repository with `files` (committed unless commit=False)."""
    root.mkdir(parents=True, exist_ok=True)
    write_tree(root, files)
    git(root, "init", "-q", "-b", "main")
    if commit:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "initial")
    return root


def indexed_repo(root: Path, files: dict[str, str | bytes]):  # noqa: ANN201 - (sqlite3.Connection, Path)
    """A git repository of `files`, indexed: (its index connection, its root); the caller closes it."""
    from cairn.codemap.index_db import open_index
    from cairn.codemap.indexer import index_project
    from cairn.project import project_for_root

    make_git_repo(root, files)
    project = project_for_root(root)
    index_project(project)
    return open_index(project), root


def search_fresh(root: Path, files: dict[str, str | bytes], text: str):  # noqa: ANN201 - (list[Hit], Query)
    """`text` searched (search_code, the tree at hand) in a fresh indexed repository of `files`."""
    from cairn.search.engine import search_code

    con, root = indexed_repo(root, files)
    try:
        return search_code(con, text, root=root)
    finally:
        con.close()


def indexed_paths(project) -> set[str]:  # noqa: ANN001 - a cairn Project
    """The paths the project's code index holds now."""
    from cairn.codemap.index_db import open_index

    con = open_index(project)
    try:
        return {r[0] for r in con.execute("SELECT path FROM files")}
    finally:
        con.close()


def wait_for(cond, seconds: float = 30.0, step: float = 0.05) -> bool:  # noqa: ANN001 - any callable
    """Poll `cond()` until it is true (True) or `seconds` have passed (False): for detached servers."""
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(step)
    return False


def dump_index(db_path: Path) -> str:
    """Every value of every table of an index, the stored text unpacked: what a secret must not be in."""
    import sqlite3

    from cairn.codemap import fts_rows

    con = sqlite3.connect(db_path)
    texts: list[str] = []
    for (table,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        for row in con.execute(f"SELECT * FROM {table}"):
            for v in row:
                if table == "fts_text" and isinstance(v, bytes):
                    texts.extend(fts_rows.unpack(v))
                else:
                    texts.append(v.decode("latin-1") if isinstance(v, bytes) else str(v))
    con.close()
    return "\n".join(texts)
