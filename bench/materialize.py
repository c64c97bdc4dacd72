#!/usr/bin/env python3
"""Write a commit's tree from a bare git directory into a folder, skipping blobs the snapshot lacks.

`git archive` stops at the first missing blob (fetched snapshots omit files over 4 MiB), so this
lists the tree with `git ls-tree` and streams the blobs through one `git cat-file --batch`.
Usage: python bench/materialize.py GIT_DIR REV DEST
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import benchlib


def materialize(git_dir: str, rev: str, dest: Path) -> tuple[int, int]:
    listing = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "-z", rev], capture_output=True, check=True
    ).stdout.split(b"\0")
    entries = []
    for item in listing:
        if not item:
            continue
        meta, path = item.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode != b"120000":
            entries.append((sha.decode(), path.decode("utf-8", "surrogateescape")))
    proc = subprocess.Popen(
        ["git", f"--git-dir={git_dir}", "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    written = missing = 0
    for sha, path in entries:
        proc.stdin.write(sha.encode() + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            missing += 1
            continue
        size = int(header[2])
        data = proc.stdout.read(size)
        proc.stdout.read(1)
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        written += 1
    proc.stdin.close()
    proc.wait()
    return written, missing


if __name__ == "__main__":
    benchlib.usage(__doc__, 3, 3)
    w, m = materialize(sys.argv[1], sys.argv[2], Path(sys.argv[3]))
    print(f"{w} files written, {m} missing blobs skipped -> {os.path.abspath(sys.argv[3])}")
