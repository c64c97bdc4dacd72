"""Session archive speed: full ingest MB/s, and the Stop hook's tail ingest per appended turn.

1. Full ingest: the shared fixtures (about 6.6 MB, 9 files) copied into a temp folder and
   ingested into an empty archive (`ingest_paths`, no backup), --runs times; MB/s of transcript
   bytes, best and median. Also a larger set: the fixtures replicated --copies times with new
   session ids, to show throughput does not fall with volume.
2. Tail ingest: each ~3 MB fixture session is replayed into a fresh file one turn at a time (a
   turn = one user/assistant record plus the progress/system lines written before it) and
   `ingest_file(path)` is timed after every append, opening its own connection as the hook
   does. Reported: median and p95 per call, and the median over the first and the last 10% of
   appends (flat cost means these are close while the file grows from 0 to 3 MB).
3. Hook process cost: `python -c "import cairn.sessions.archive"` wall time (median of 5).
4. Disk sync latency right before each tail run: median of 20 `os.fsync` calls after a 4 KiB
   write in the temp folder. Closing the archive checkpoints its WAL, which syncs, so the tail
   numbers move with this on a shared disk.

Usage: python bench/archive_speed.py [--runs 3] [--copies 8]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib

FIXTURES = benchlib.SHARED_TRANSCRIPTS / "claude-code"
BIG = ["258c7280-ae70-4798-800f-63464d01a85d.jsonl", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"]


def _fresh_home(tmp: Path, name: str) -> None:
    home = tmp / name
    home.mkdir()
    os.environ["CAIRN_HOME"] = str(home)


def _copy_fixtures(dest: Path, copies: int = 1) -> int:
    """Fixture transcripts under dest (copy k > 0 gets new session ids); returns total bytes."""
    total = 0
    for k in range(copies):
        root = dest / f"copy-{k}"
        shutil.copytree(FIXTURES, root, ignore=shutil.ignore_patterns("*.md", "*.json", "LICENSE*"))
        if k:
            for p in sorted(root.rglob("*"), key=lambda p: -len(p.parts)):
                if len(p.stem) == 36 and p.stem[8] == "-":
                    p.rename(p.with_name(f"{k:08x}{p.name[8:]}"))
        total += sum(p.stat().st_size for p in root.rglob("*.jsonl"))
    return total


def bench_full(tmp: Path, runs: int, copies: int) -> dict:
    from cairn.sessions.archive import ingest_paths, project_for_cwd

    out = {}
    for label, n in [("fixtures", 1)] + ([(f"fixtures x{copies}", copies)] if copies > 1 else []):
        src = tmp / f"src-{n}"
        size = _copy_fixtures(src, n)
        times = []
        for r in range(runs):
            _fresh_home(tmp, f"full-{n}-{r}")
            project_for_cwd.cache_clear()
            t0 = time.perf_counter()
            stats = ingest_paths([src])
            times.append(time.perf_counter() - t0)
        out[label] = {
            "mb": size / 1e6,
            "turns": stats.turns,
            "files": stats.files,
            "best_s": min(times),
            "median_s": statistics.median(times),
            "best_mb_s": size / 1e6 / min(times),
            "median_mb_s": size / 1e6 / statistics.median(times),
        }
    return out


def _turn_chunks(path: Path) -> list[bytes]:
    chunks, cur = [], []
    for line in path.read_bytes().splitlines(keepends=True):
        cur.append(line)
        try:
            kind = json.loads(line).get("type")
        except ValueError:
            kind = None
        if kind in ("user", "assistant"):
            chunks.append(b"".join(cur))
            cur = []
    if cur:
        chunks.append(b"".join(cur))
    return chunks


def fsync_ms(tmp: Path, n: int = 20) -> float:
    times = []
    with open(tmp / "fsync.probe", "wb") as fh:
        for _ in range(n):
            fh.write(os.urandom(4096))
            fh.flush()
            t0 = time.perf_counter()
            os.fsync(fh.fileno())
            times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def bench_tail(tmp: Path) -> dict:
    from cairn.sessions.archive import ingest_file

    out = {}
    for name in BIG:
        sync = fsync_ms(tmp)
        _fresh_home(tmp, f"tail-{name[:8]}")
        live = tmp / f"live-{name}"
        live.write_bytes(b"")
        chunks = _turn_chunks(FIXTURES / name)
        times = []
        for chunk in chunks:
            with open(live, "ab") as fh:
                fh.write(chunk)
            t0 = time.perf_counter()
            ingest_file(live)
            times.append(time.perf_counter() - t0)
        tenth = max(1, len(times) // 10)
        ordered = sorted(times)
        out[name[:8]] = {
            "mb": live.stat().st_size / 1e6,
            "appends": len(times),
            "fsync_ms_before": sync,
            "median_ms": statistics.median(times) * 1e3,
            "p95_ms": ordered[int(0.95 * (len(ordered) - 1))] * 1e3,
            "first10pct_median_ms": statistics.median(times[:tenth]) * 1e3,
            "last10pct_median_ms": statistics.median(times[-tenth:]) * 1e3,
        }
    return out


def bench_import() -> float:
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import cairn.sessions.archive"], check=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e3


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--copies", type=int, default=8)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        result = {
            "full_ingest": bench_full(tmp, args.runs, args.copies),
            "tail_ingest": bench_tail(tmp),
            "import_ms": bench_import(),
        }
    for label, r in result["full_ingest"].items():
        print(
            f"full ingest {label}: {r['mb']:.1f} MB, {r['files']} files, {r['turns']} turns: "
            f"best {r['best_s']:.2f} s ({r['best_mb_s']:.1f} MB/s), median {r['median_s']:.2f} s "
            f"({r['median_mb_s']:.1f} MB/s)"
        )
    for name, r in result["tail_ingest"].items():
        print(
            f"tail ingest {name} ({r['mb']:.1f} MB, {r['appends']} appends): median {r['median_ms']:.2f} ms, "
            f"p95 {r['p95_ms']:.2f} ms; first 10% {r['first10pct_median_ms']:.2f} ms, "
            f"last 10% {r['last10pct_median_ms']:.2f} ms; fsync before: {r['fsync_ms_before']:.2f} ms"
        )
    print(f"python -c 'import cairn.sessions.archive': {result['import_ms']:.0f} ms (median of 5)")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
