"""shape.is_wordy on real identifiers and on random tokens: what the letter-pair test keeps and drops.

    python bench/wordy_names.py [DIR ...] [--seed 1]

Identifiers (6 to 41 characters) with a digit and an inner capital, the kind `is_code` asks
`is_wordy` about, read from the `.py`/`.pyi` files under DIR (default: this venv's site-packages,
a different source from the standard library that redact/bigrams.py is built from). Random tokens:
1,000 of each length 16, 20, 24, 32 and 40 over letters and digits, with a digit and an inner
capital. For each set: how many the part-length test alone calls names (the rule before the
letter pairs), and how many `is_wordy` does now.
"""

from __future__ import annotations

import argparse
import random
import re
import string
import sysconfig
from pathlib import Path

import benchlib

benchlib.checkout_src()

from cairn.redact.shape import _CAMEL_PARTS, _DIGIT, _INNER_CAP, is_wordy  # noqa: E402

_IDENT = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]{5,40}\b")


def part_lengths_only(ident: str) -> bool:
    """The rule before the letter pairs (same parts, same length test)."""
    parts = _CAMEL_PARTS.findall(ident)
    letters = [p for p in parts if not p.isdigit()]
    return bool(letters) and len(parts) - len(letters) <= 2 and sum(map(len, letters)) >= 2.5 * len(letters)


def asked(name: str) -> bool:
    return bool(_DIGIT.search(name) and _INNER_CAP.search(name))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dirs", nargs="*", type=Path)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    dirs = args.dirs or [Path(sysconfig.get_paths()["purelib"])]
    names: set[str] = set()
    for d in dirs:
        for path in d.rglob("*.py*"):
            if path.suffix in (".py", ".pyi"):
                try:
                    names.update(
                        n for n in _IDENT.findall(path.read_text(encoding="utf-8", errors="ignore")) if asked(n)
                    )
                except OSError:
                    continue
    rng = random.Random(args.seed)
    alphabet = string.ascii_letters + string.digits
    tokens = [
        t
        for n in (16, 20, 24, 32, 40)
        for t in ("".join(rng.choice(alphabet) for _ in range(n)) for _ in range(1000))
        if asked(t)
    ]
    for label, items in (("identifiers", sorted(names)), ("random tokens", tokens)):
        before = [x for x in items if part_lengths_only(x)]
        now = [x for x in before if is_wordy(x)]
        print(f"{label}: {len(items)}; names by part lengths alone {len(before)}; by is_wordy now {len(now)}")
        if label == "identifiers":
            print("  no longer names:", ", ".join(sorted(set(before) - set(now))[:40]))


if __name__ == "__main__":
    main()
