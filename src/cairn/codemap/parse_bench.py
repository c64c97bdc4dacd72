"""Measure parser throughput on a real tree: `python -m cairn.codemap.parse_bench DIR... [--jobs N]`.

Kept in the package so the number quoted in docs can be reproduced on any machine. Reports
per-language files/s in CPU time (robust to other load on the box) and, with --jobs, the
wall-clock rate of a process pool running parse_file_task like the indexer does.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from collections import defaultdict
from multiprocessing import get_context
from pathlib import Path

from cairn.codemap.languages import CODE_LANGUAGES, language_for_path
from cairn.codemap.parse import parse_file_task, parse_source

_SKIP_DIRS = {".git", "node_modules", ".venv", "__pycache__", "target", "dist", "build"}


def collect(roots: list[str]) -> list[tuple[str, str, bytes]]:
    """(path, lang, bytes) of every parseable file under the roots."""
    items = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in _SKIP_DIRS]
            for name in filenames:
                path = os.path.join(dirpath, name)
                try:
                    data = Path(path).read_bytes()
                except OSError:
                    continue
                lang = language_for_path(path, data[:8192])
                if lang in CODE_LANGUAGES:
                    items.append((path, lang, data))
    return items


def _chunk(task: list[tuple[str, bytes, str]]) -> int:
    return sum(len(parse_file_task(t)[1].defs) for t in task)


def main(argv: list[str] | None = None) -> None:
    """Print per-language and overall throughput."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("roots", nargs="+")
    ap.add_argument("--jobs", type=int, default=0, help="also time a process pool of this size")
    args = ap.parse_args(argv)
    items = collect(args.roots)
    for lang in {lang for _, lang, _ in items}:
        parse_source(lang, b"")  # compile queries outside the timing
    per_lang: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0])
    cpu0 = time.process_time()
    for path, lang, data in items:
        t = time.process_time()
        parse_source(lang, data, path)
        stats = per_lang[lang]
        stats[0] += 1
        stats[1] += len(data)
        stats[2] += time.process_time() - t
    cpu = time.process_time() - cpu0
    for lang, (n, size, secs) in sorted(per_lang.items()):
        print(f"  {lang:11} {n:6d} files  avg {size / n / 1024:6.1f} KB  {n / max(secs, 1e-9):7.0f} files/s")
    total_mb = sum(len(d) for *_, d in items) / 1e6
    print(f"1 process: {len(items)} files, {total_mb:.1f} MB, {len(items) / cpu:.0f} files/s (CPU time)")
    if args.jobs:
        tasks = [(path, data, lang) for path, lang, data in items]
        chunks = [tasks[i : i + 64] for i in range(0, len(tasks), 64)]
        pool = get_context("spawn").Pool(args.jobs)
        pool.map(_chunk, [[t] for t in tasks[: args.jobs * 4]])  # warm workers
        t = time.perf_counter()
        pool.map(_chunk, chunks)
        wall = time.perf_counter() - t
        pool.close()
        pool.join()  # children's CPU time is only accounted once they exit
        child_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        worker_cpu = child_cpu.ru_utime + child_cpu.ru_stime
        print(
            f"{args.jobs} processes: {len(items) / wall:.0f} files/s wall clock (includes pickling and any "
            f"other load on the machine); workers used {worker_cpu:.1f} CPU-s incl. startup"
        )


if __name__ == "__main__":
    main()
