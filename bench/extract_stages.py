#!/usr/bin/env python3
"""CPU of the extraction stages that are not the parse, in one process, over a sample of a tree.

Reads every N-th file the scanner keeps (binary and generated files left out, as the indexer
does), then times, each over all of them after a warm-up: `redact`, `expand_identifiers`,
`document_role` (every file treated as a document; code files skip it in the indexer),
`path_text`, and the whole `extract_file` (parse included). The cairn measured is whichever
`PYTHONPATH` imports, so two code trees can be compared:

    PYTHONPATH=MAIN/src python bench/extract_stages.py TREE --every 4
    PYTHONPATH=BRANCH/src python bench/extract_stages.py TREE --every 4
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree")
    ap.add_argument("--every", type=int, default=4, help="take every N-th file")
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
    print(json.dumps({"cairn": str(Path(cairn.__file__).parent), "texts": len(texts), "files": len(entries),
                      "mb": round(sum(map(len, texts)) / 1e6, 1), "cpu_s": out,
                      "load": round(os.getloadavg()[0], 1)}))


if __name__ == "__main__":
    main()
