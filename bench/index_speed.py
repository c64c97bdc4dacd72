#!/usr/bin/env python3
"""Index speed on real repositories, beside the raw floor measured in the same run.

For each tree: the floor (read every indexable file, then tree-sitter-parse every parseable
one with nothing else; single process), a cold `cairn index` (fresh CAIRN_HOME, in a child
process so peak memory is its own), a no-change re-index, and a one-file-change re-index.

Usage: python bench/index_speed.py TREE [TREE ...]   (trees from bench/materialize.py or git archive)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib

CHILD = r"""
import json, os, resource, sys, time
from pathlib import Path
from cairn.project import project_for_root
from cairn.codemap.indexer import index_project
p = project_for_root(sys.argv[1])
t = time.perf_counter(); s = index_project(p); cold = time.perf_counter() - t
t = time.perf_counter(); index_project(p); noop = time.perf_counter() - t
root = Path(sys.argv[1])
f = next((q for ext in ("py", "rs", "go", "ts", "ex", "hs", "lua", "zig", "sh") for q in root.rglob("*." + ext)), None)
orig = f.read_bytes(); f.write_bytes(orig + b"\n")
t = time.perf_counter(); index_project(p); one = time.perf_counter() - t
f.write_bytes(orig); index_project(p)
print(json.dumps({"files": s.files, "symbols": s.symbols, "edges": s.edges, "cold_s": cold, "noop_s": noop,
                  "one_change_s": one, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "languages": s.languages}))
"""


def floor(tree: Path) -> dict:
    """Read every file the scanner keeps, then parse every one that has a grammar."""
    from cairn.codemap.languages import get_parser, has_grammar, language_for_path
    from cairn.codemap.scan import scan

    entries = scan(tree).entries
    t = time.perf_counter()
    data = []
    for e in entries:
        with open(tree / e.path, "rb") as fh:
            data.append((e.path, fh.read()))
    read_s = time.perf_counter() - t
    t = time.perf_counter()
    parsed = 0
    for path, src in data:
        lang = language_for_path(path, src[:8192])
        if lang and has_grammar(lang):
            get_parser(lang).parse(src)
            parsed += 1
    parse_s = time.perf_counter() - t
    return {"floor_files": len(entries), "floor_parsed": parsed, "read_s": read_s, "parse_s": parse_s}


def main() -> None:
    benchlib.usage(__doc__, 1)
    for arg in sys.argv[1:]:
        tree = Path(arg).resolve()
        fl = floor(tree)
        with tempfile.TemporaryDirectory() as home:
            out = subprocess.run(
                [sys.executable, "-c", CHILD, str(tree)],
                capture_output=True,
                text=True,
                env={**os.environ, "CAIRN_HOME": home},
                check=True,
            )
        r = {**fl, **json.loads(out.stdout.strip().splitlines()[-1])}
        r["floor_s"] = r["read_s"] + r["parse_s"]
        r["cold_files_per_s"] = r["files"] / r["cold_s"]
        r["cold_vs_floor"] = r["cold_s"] / r["floor_s"]
        print(
            f"## {tree.name}: {r['files']} files indexed ({r['floor_parsed']} parsed), {r['symbols']} symbols, "
            f"{r['edges']} edges"
        )
        print(
            f"floor: read {r['read_s']:.2f}s + parse {r['parse_s']:.2f}s = {r['floor_s']:.2f}s | "
            f"cold {r['cold_s']:.2f}s ({r['cold_files_per_s']:.0f} files/s, {r['cold_vs_floor']:.1f}x floor) | "
            f"no-change {r['noop_s']:.3f}s | one change {r['one_change_s']:.2f}s | peak {r['peak_mb']:.0f} MB"
        )
        print(json.dumps(r))


if __name__ == "__main__":
    main()
