"""Redaction speed per MB, cold start, and the adversarial inputs that made the old redactor quadratic.

    python bench/redact_speed.py [--runs 5] [--tree DIR] [--also OLD_REDACT_PY]

Texts: cairn's own source (code, few secrets), a transcript-like text (the corpus' secrets and
look-alikes between lines of prose and tool output, ~1 MB), and adversarial inputs: 260 KB of
PEM headers with no END line, one unbroken 20 KB word, 1 MB of `password password ...`, 1 MB of
`key=` pairs. Cold start: a fresh `python -c` that imports cairn.redact and redacts one short
line (what a hook pays), against a bare `python -c pass`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "secrets"))
sys.path.insert(0, str(ROOT / "src"))

import corpus  # noqa: E402

from cairn.redact import redact  # noqa: E402


def texts() -> dict[str, str]:
    code = "\n".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "src" / "cairn").rglob("*.py"))
                     if "gitleaks_rules" not in p.name)
    prose = ("The test failed because the fixture was stale; I re-ran `pytest -q tests/search` and "
             "it passed. Next I will open src/app/api.py around line 120 and look at the retry loop.\n")
    lines = []
    for (_, s, _), (_, look) in zip(corpus.secrets(), corpus.lookalikes(), strict=False):
        lines += [prose, s, "\n", look, "\n", prose * 3]
    transcript = "".join(lines)
    transcript = transcript * max(1, (1 << 20) // len(transcript))
    return {
        "code (cairn src)": code,
        "transcript-like": transcript,
        "adversarial: 260 KB of PEM headers, no END": "-----BEGIN RSA PRIVATE KEY-----\n" * 8000,
        "adversarial: one 20 KB word": "a1" * 10_000,
        "adversarial: 1 MB 'password password ...'": "password " * 116_000,
        "adversarial: 1 MB 'key=key=...'": "key=" * 262_000,
    }


def bench(text: str, runs: int, fn=redact) -> float:
    fn(text[:100])  # compile what this text needs outside the timing
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def cold(cmd: str, runs: int) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # pycs, as installed
    subprocess.run([sys.executable, "-c", cmd], check=True, cwd=ROOT, env=env)  # writes the .pyc files
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", cmd], check=True, cwd=ROOT, env=env)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def text_files(tree: Path) -> Iterator[tuple[Path, bytes, str]]:
    """(path, bytes, text) of each file the indexer would read as text: <= 1 MB, not binary."""
    for p in sorted(tree.rglob("*")):
        if not p.is_file() or p.is_symlink() or ".git" in p.parts or p.stat().st_size > 1_000_000:
            continue
        data = p.read_bytes()
        if b"\x00" not in data[:8192]:
            yield p, data, data.decode("utf-8", "replace")


def tree_cost(tree: Path) -> None:
    """What redacting every indexed text file adds to indexing `tree`."""
    total_bytes, total_s, files, with_secret = 0, 0.0, 0, 0
    for _p, data, text in text_files(tree):
        t = time.perf_counter()
        out = redact(text)
        total_s += time.perf_counter() - t
        total_bytes += len(data)
        files += 1
        with_secret += out != text
    print(f"\ntree {tree}: {files} text files, {total_bytes / 1e6:.1f} MB, redaction {total_s:.2f} s "
          f"({total_bytes / 1e6 / total_s:.1f} MB/s); {with_secret} files had something masked")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tree", type=Path, help="also: what redaction adds to indexing this tree")
    ap.add_argument("--also", type=Path, metavar="FILE", help="also time the `redact` of FILE (an older redactor: "
                    "git show REV:src/cairn/sessions/redact.py > FILE); skips the two slowest adversarial texts")
    args = ap.parse_args()
    other = None
    if args.also:
        import importlib.util

        spec = importlib.util.spec_from_file_location("other_redact", args.also)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        other = mod.redact
    print("| text | size | median s | MB/s |" + (" other s |" if other else "") + "\n|---|---:|---:|---:|"
          + ("---:|" if other else ""))
    for name, text in texts().items():
        dt = bench(text, args.runs)
        mb = len(text.encode()) / 1e6
        extra = ""
        if other is not None:
            extra = " |" if "1 MB" in name else f" {bench(text, 1, other):.3f} |"
        print(f"| {name} | {mb * 1000:.0f} KB | {dt:.3f} | {mb / dt:.1f} |{extra}")
    runs = max(args.runs, 11)
    sample = "from cairn.redact import redact; redact(open('README.md').read()[:3000])"
    floor = cold("pass", runs)
    imp = cold("import cairn.redact", runs)
    one = cold(sample, runs)
    print(f"\ncold start, a fresh process as a hook is (median of {runs}): python -c pass {floor:.1f} ms; "
          f"import cairn.redact {imp:.1f} ms; import + redacting 3 KB (README.md) {one:.1f} ms")
    if other is not None:
        old_cmd = (f"import importlib.util as u; s = u.spec_from_file_location('o', {str(args.also)!r}); "
                   "m = u.module_from_spec(s); s.loader.exec_module(m); m.redact(open('README.md').read()[:3000])")
        print(f"other: import + redacting 3 KB {cold(old_cmd, runs):.1f} ms")
    if args.tree:
        tree_cost(args.tree)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
