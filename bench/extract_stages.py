#!/usr/bin/env python3
"""CPU of the extraction stages that are not the parse, in one process, over a sample of a tree.

Reads every N-th file the scanner keeps (binary and generated files left out, as the indexer
does), then times, each over all of them after a warm-up: `redact`, `expand_identifiers`,
`document_role` (every file treated as a document; code files skip it in the indexer),
`path_text`, and the whole `extract_file` (parse included). Then, with `--in-place`, one more pass
of `extract_file` with the functions it calls wrapped in CPU timers (`parse_source`, `redact`,
`expand_identifiers`, `visible_text`, `document_role`, `path_text`, `content_hash`, the FTS copy's
`pack`), and its CPU by document role (chat logs or not) and by language (the ten costliest). The
cairn measured is whichever `PYTHONPATH` imports, so two code trees can be compared:

    PYTHONPATH=MAIN/src python bench/extract_stages.py TREE --every 4
    PYTHONPATH=BRANCH/src python bench/extract_stages.py TREE --every 4 [--in-place]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from cpu_timers import time_calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree")
    ap.add_argument("--every", type=int, default=4, help="take every N-th file")
    ap.add_argument("--in-place", action="store_true", help="also time each stage inside extract_file")
    a = ap.parse_args()
    import cairn
    from cairn.codemap.doc_role import document_role
    from cairn.codemap.extract import extract_file
    from cairn.codemap.scan import looks_binary, looks_generated, scan
    from cairn.redact import redact
    from cairn.text.tokens import expand_identifiers, path_text

    root = Path(a.tree).resolve()
    entries = scan(root).entries[:: a.every]
    paths, texts = [], []
    for e in entries:
        data = (root / e.path).read_bytes()
        if looks_binary(data) or looks_generated(data, e.path):
            continue
        paths.append(e.path)
        texts.append(data.decode("utf-8", errors="replace"))
    redact("warm password = 'abc123xyz'")
    expand_identifiers("warmUp x_y")
    extract_file(str(root), entries[0].path, entries[0].size, entries[0].mtime_ns)
    out: dict[str, float] = {}

    def timed(name: str, fn) -> None:
        t = time.process_time()
        fn()
        out[name] = round(time.process_time() - t, 2)

    timed("redact", lambda: [redact(x) for x in texts])
    timed("expand_identifiers", lambda: [expand_identifiers(x) for x in texts])
    timed("document_role", lambda: [document_role(p, "doc", x) for p, x in zip(paths, texts, strict=True)])
    timed("path_text", lambda: [path_text(p) for p in paths])
    timed("extract_file", lambda: [extract_file(str(root), e.path, e.size, e.mtime_ns) for e in entries])
    result = {
        "cairn": str(Path(cairn.__file__).parent),
        "texts": len(texts),
        "files": len(entries),
        "mb": round(sum(map(len, texts)) / 1e6, 1),
        "cpu_s": out,
    }
    if a.in_place:
        result.update(_in_place(str(root), entries))
    print(json.dumps({**result, "load": round(os.getloadavg()[0], 1)}))


def _in_place(root: str, entries: list) -> dict:
    """CPU of each stage as `extract_file` calls it, and of the whole call by the record's role."""
    import importlib

    from cairn.codemap import extract

    spent: dict[str, float] = {}
    for module_name, name in (
        ("cairn.codemap.parse", "parse_source"),
        ("cairn.redact", "redact"),
        ("cairn.codemap.extract", "expand_identifiers"),
        ("cairn.codemap.extract", "visible_text"),
        ("cairn.codemap.extract", "document_role"),
        ("cairn.codemap.extract", "path_text"),
        ("cairn.codemap.extract", "content_hash"),
        ("cairn.codemap.fts_rows", "pack"),
    ):
        time_calls(importlib.import_module(module_name), name, spent)
    by_role: dict[str, float] = {}
    by_lang: dict[str, float] = {}
    total = time.process_time()
    for e in entries:
        t = time.process_time()
        rec = extract.extract_file(root, e.path, e.size, e.mtime_ns)
        spent_here = time.process_time() - t
        role, lang = rec.role or "other", rec.lang or "none"
        by_role[role] = by_role.get(role, 0.0) + spent_here
        by_lang[lang] = by_lang.get(lang, 0.0) + spent_here
    return {
        "in_place_cpu_s": round(time.process_time() - total, 2),
        "in_place": {k: round(v, 2) for k, v in sorted(spent.items(), key=lambda kv: -kv[1])},
        "by_role_cpu_s": {k: round(v, 2) for k, v in by_role.items()},
        "by_language_cpu_s": {k: round(v, 2) for k, v in sorted(by_lang.items(), key=lambda kv: -kv[1])[:10]},
    }


if __name__ == "__main__":
    main()
