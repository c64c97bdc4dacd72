"""Generated tokens after weak names (key, token, auth): how many cairn leaves, by alphabet and length.

    python bench/redact_weak_names.py [--seed 3] [--per 200] [--src DIR]

A weak name only holds generated values, so a value after it is masked when it looks generated
and not like code (shape.is_secret_value). Random values in the alphabets providers use, in five
layouts (`Using Key=V`, `token: V`, `api_token = "V"`, `X-Auth-Token: V`, `{"key": "V"}`); a
value counts as left when 12 of its characters are still in the output. `--src` measures
another checkout's `src` (the code before a change).
"""

from __future__ import annotations

import argparse
import random
import string
import sys
from pathlib import Path

ALPHABETS = {
    "lower+digit+dash": string.ascii_lowercase + string.digits + "-",
    "mixed case+digit": string.ascii_letters + string.digits,
}
LENGTHS = (16, 20, 24, 32, 40)
LAYOUTS = ("Using Key={v}", "token: {v}", 'api_token = "{v}"', "X-Auth-Token: {v}", '{{"key": "{v}"}}')


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--per", type=int, default=200, help="values per alphabet and length")
    ap.add_argument("--src", type=Path, default=Path(__file__).resolve().parents[1] / "src")
    args = ap.parse_args()
    sys.path.insert(0, str(args.src))
    from cairn.redact import redact

    rng = random.Random(args.seed)
    print(f"values left out of {args.per * len(LAYOUTS)} per cell ({args.src})")
    print("| alphabet | " + " | ".join(f"n={n}" for n in LENGTHS) + " |")
    print("|---|" + "---:|" * len(LENGTHS))
    for name, alphabet in ALPHABETS.items():
        cells = []
        for n in LENGTHS:
            left = 0
            for _ in range(args.per):
                v = "".join(rng.choice(alphabet) for _ in range(n))
                left += sum(v[2:14] in redact(layout.format(v=v)) for layout in LAYOUTS)
            cells.append(str(left))
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
