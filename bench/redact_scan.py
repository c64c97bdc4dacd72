"""Every span cairn would mask in a tree's text files, one line each: kind, file, the line it starts on.

    python bench/redact_scan.py TREE [| sort | uniq]

How the false positives on real code in docs/benchmarks.md were looked for (files <= 1 MB, not
binary, as the indexer reads them).
"""

from __future__ import annotations

import sys
from pathlib import Path

from redact_speed import text_files  # bench/ is on sys.path when this script runs

from cairn.redact import find


def main() -> int:
    tree = Path(sys.argv[1])
    n = 0
    for p, _data, text in text_files(tree):
        d = text.encode()
        for s, _e, kind in find(text):
            start = d.rfind(b"\n", 0, s) + 1
            end = d.find(b"\n", s)
            line = d[start:end if end != -1 else len(d)][:160].decode("utf-8", "replace")
            print(f"{kind:22s} {str(p.relative_to(tree))[:50]:50s} {line.strip()[:110]}")
            n += 1
    print(f"{n} spans", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
