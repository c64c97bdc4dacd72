"""Every span cairn would mask in a tree's text files, one line each: kind, file, the line it starts on.

    python bench/redact_scan.py TREE [| sort | uniq]

How the false positives on real code in docs/benchmarks.md were looked for (files <= 1 MB, not
binary, as the indexer reads them).
"""

from __future__ import annotations

import sys
from pathlib import Path

from cairn.redact import find


def main() -> int:
    tree = Path(sys.argv[1])
    n = 0
    for p in sorted(tree.rglob("*")):
        if not p.is_file() or p.is_symlink() or ".git" in p.parts or p.stat().st_size > 1_000_000:
            continue
        data = p.read_bytes()
        if b"\x00" in data[:8192]:
            continue
        text = data.decode("utf-8", "replace")
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
