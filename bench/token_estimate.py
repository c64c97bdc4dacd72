#!/usr/bin/env python3
"""How close cairn's token estimate is to a real Claude tokenizer, per language.

The only Claude tokenizer that runs offline is the legacy `tokenizer.json` shipped inside the
`anthropic==0.34.2` wheel; load it with the `tokenizers` package (both only here, in a bench venv):
    pip download --no-deps anthropic==0.34.2 && unzip -o anthropic-0.34.2-*.whl anthropic/tokenizer.json
    pip install tokenizers
    python bench/token_estimate.py anthropic/tokenizer.json FILE_OR_GLOB...
    python bench/token_estimate.py anthropic/tokenizer.json --write-fixture   # tests/fixtures/tokens
"""

from __future__ import annotations

import glob
import json
import sys
from collections import defaultdict
from pathlib import Path

import benchlib

ROOT = benchlib.ROOT
benchlib.checkout_src()  # this script runs in a bench venv that holds `tokenizers`, maybe not cairn

from cairn.text.budget import estimate_tokens  # noqa: E402

# Samples for the unit test: cairn's own files plus short snippets written for this purpose.
SNIPPETS = {
    "go": 'package cart\n\nimport (\n\t"errors"\n\t"fmt"\n)\n\n// ApplyCoupon subtracts the discount once.\nfunc ApplyCoupon(c *Cart, code string) error {\n\tif c.applied[code] {\n\t\treturn errors.New("coupon already applied")\n\t}\n\tc.Total -= c.discounts[code]\n\tc.applied[code] = true\n\tfmt.Println("applied", code, c.Total)\n\treturn nil\n}\n',
    "ts": "export interface Cart { total: number; applied: Set<string> }\n\nexport function applyCoupon(cart: Cart, code: string): Cart {\n  if (cart.applied.has(code)) return cart\n  const discount = lookupDiscount(code) ?? 0\n  return { ...cart, total: cart.total - discount, applied: new Set([...cart.applied, code]) }\n}\n",
    "rust": "pub fn apply_coupon(cart: &mut Cart, code: &str) -> Result<(), CartError> {\n    if cart.applied.contains(code) {\n        return Err(CartError::AlreadyApplied(code.to_string()));\n    }\n    cart.total -= cart.discounts.get(code).copied().unwrap_or(0);\n    cart.applied.insert(code.to_owned());\n    Ok(())\n}\n",
}
OWN = [
    "src/cairn/search/engine.py",
    "src/cairn/codemap/scan.py",
    "src/cairn/project.py",
    "README.md",
    "docs/ARCHITECTURE.md",
]


def main() -> None:
    benchlib.usage(__doc__, 2)
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(sys.argv[1])
    if sys.argv[2] == "--write-fixture":
        samples = [{"name": k, "text": v} for k, v in SNIPPETS.items()]
        for rel in OWN:
            text = (ROOT / rel).read_text(encoding="utf-8")[:4000]
            samples.append({"name": rel, "text": text})
        for s in samples:
            s["tokens"] = len(tok.encode(s["text"]).ids)
        out = ROOT / "tests" / "fixtures" / "tokens" / "samples.json"
        out.write_text(
            json.dumps({"tokenizer": "anthropic==0.34.2 tokenizer.json (legacy Claude)", "samples": samples}, indent=1)
            + "\n",
            encoding="utf-8",
        )
        print(f"wrote {len(samples)} samples to {out}")
        return
    real: dict[str, int] = defaultdict(int)
    est: dict[str, int] = defaultdict(int)
    chars: dict[str, int] = defaultdict(int)
    for pat in sys.argv[2:]:
        for f in glob.glob(pat, recursive=True):
            text = Path(f).read_text(encoding="utf-8", errors="replace")
            ext = f.rsplit(".", 1)[-1]
            real[ext] += len(tok.encode(text).ids)
            est[ext] += estimate_tokens(text)
            chars[ext] += len(text)
    print("| kind | real tokens | estimate / real | chars/3.5 / real |\n|---|---:|---:|---:|")
    for ext in sorted(real):
        print(f"| .{ext} | {real[ext]} | {est[ext] / real[ext]:.2f} | {chars[ext] / 3.5 / real[ext]:.2f} |")


if __name__ == "__main__":
    main()
