"""How fast `cairn graph --html` writes its page and how fast headless Chromium draws it.

    python bench/graph_page_speed.py TREE [--runs N]

For each view (module level as it opens, and `#all`: every file) prints the page's own
measure of its synchronous work (`data-ms`: parse the data, build the elements, place them),
the elements drawn, and the wall time of a headless Chromium run to a screenshot (process
start included). Needs `cairn` on PATH (or CAIRN_BIN) and `chromium`.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("tree")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    cairn = os.environ.get("CAIRN_BIN") or shutil.which("cairn") or "cairn"
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "graph.html"
        t = time.perf_counter()
        out = subprocess.run(
            [cairn, "graph", "--html", str(page), "--root", args.tree, "--no-refresh"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        print(f"write: {time.perf_counter() - t:.2f} s, {page.stat().st_size / 1e6:.1f} MB; {out}")
        for frag in ("", "#all"):
            for run in range(args.runs):
                prof = Path(tmp) / f"profile{run}"
                base = [
                    browser,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                    f"--user-data-dir={prof}",
                ]
                dom = subprocess.run(
                    [*base, "--virtual-time-budget=60000", "--dump-dom", page.as_uri() + frag],
                    capture_output=True,
                    text=True,
                    timeout=600,
                ).stdout
                body = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', re.search(r"<body([^>]*)>", dom).group(1)))
                t = time.perf_counter()
                subprocess.run(
                    [*base, "--window-size=1400,900", f"--screenshot={Path(tmp) / 'shot.png'}", page.as_uri() + frag],
                    capture_output=True,
                    timeout=600,
                )
                wall = time.perf_counter() - t
                print(
                    f"{frag or 'opening view'}: data-ms {body['ms']}, mode {body['mode']}, nodes "
                    f"{body['rendered-nodes']}, edges {body['rendered-edges']}, screenshot wall {wall:.1f} s"
                )


if __name__ == "__main__":
    main()
