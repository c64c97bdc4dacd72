"""Redaction quality on the generated corpus: recall and look-alikes damaged, per kind, cairn beside gitleaks.

    python bench/redact_eval.py [--seed 13] [--held-out] [--markdown] [--show-misses] [--also FILE]

A secret counts as caught when no 12-character piece of its value (the whole value, if shorter)
is left in the output. A look-alike is damaged when the output differs from the input at all.
"gitleaks" is gitleaks' default rule file alone (every rule, `generic-api-key` included, no path),
compiled with google-re2 and applied the way gitleaks applies it (keywords, secret group,
entropy, allowlists): cairn.redact.providers.RuleSet over cairn/redact/gitleaks_rules.json, the
table generated from that file.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "secrets"))
sys.path.insert(0, str(ROOT / "src"))

import corpus  # noqa: E402

from cairn.redact import gitleaks_rules as g  # noqa: E402
from cairn.redact import redact  # noqa: E402
from cairn.redact.providers import RuleSet  # noqa: E402


def pieces(value: str, n: int = 12) -> list[str]:
    if len(value) <= n:
        return [value]
    return [value[i:i + n] for i in range(len(value) - n + 1)]


def leaked(value: str, out: str) -> bool:
    return any(p in out for p in pieces(value))


def gitleaks_redact(text: str, rules: RuleSet) -> str:
    data = text.encode()
    spans = sorted(rules.findings(data))
    parts, last = [], 0
    for s, e, kind in spans:
        if s < last:
            s = last
        if e <= s:
            continue
        parts += [data[last:s], f"[REDACTED:{kind}]".encode()]
        last = e
    parts.append(data[last:])
    return b"".join(parts).decode("utf-8", "replace")


def _load(path: Path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("other_redact", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.redact


def evaluate(seed: int, show: bool = False, held_out: bool = False, also: Path | None = None) -> dict:
    gl = RuleSet(g.RULES, g.GLOBAL_REGEXES, g.GLOBAL_STOPWORDS)
    systems = {"cairn": redact, "gitleaks": lambda t: gitleaks_redact(t, gl)}
    if also is not None:
        systems["other"] = _load(also)
    res: dict = {name: {"secrets": defaultdict(lambda: [0, 0]), "look": defaultdict(lambda: [0, 0])} for name in systems}
    if held_out:
        sec, look = corpus.heldout()
    else:
        sec, look = corpus.secrets(seed), corpus.lookalikes(seed)
    for kind, text, value in sec:
        for name, fn in systems.items():
            out = fn(text)
            caught = not leaked(value, out)
            res[name]["secrets"][kind][0] += caught
            res[name]["secrets"][kind][1] += 1
            if show and name == "cairn" and not caught:
                print(f"MISS {kind}: {text!r} -> {out!r}")
    for kind, text in look:
        for name, fn in systems.items():
            out = fn(text)
            damaged = out != text
            res[name]["look"][kind][0] += damaged
            res[name]["look"][kind][1] += 1
            if show and name == "cairn" and damaged:
                print(f"DAMAGED {kind}: {text!r} -> {out!r}")
    return res


def totals(part: dict) -> tuple[int, int]:
    return sum(v[0] for v in part.values()), sum(v[1] for v in part.values())


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=corpus.SEED)
    ap.add_argument("--markdown", action="store_true", help="per-kind tables for docs/benchmarks.md")
    ap.add_argument("--show-misses", action="store_true")
    ap.add_argument("--held-out", action="store_true", help="the second set, written after tuning (corpus.heldout)")
    ap.add_argument("--also", type=Path, metavar="FILE", help="also score the `redact` function of FILE (e.g. an "
                    "older cairn redactor: git show REV:src/cairn/sessions/redact.py > FILE)")
    args = ap.parse_args()
    res = evaluate(args.seed, args.show_misses, args.held_out, args.also)
    for name in res:
        c, n = totals(res[name]["secrets"])
        d, m = totals(res[name]["look"])
        print(f"{name:9s} recall {c}/{n} = {c / n:.3f}   look-alikes damaged {d}/{m} = {d / m:.3f}")
    if args.markdown:
        extra = "other" in res
        head = " | before" if extra else ""
        print(f"\n| secret kind | n | cairn caught | gitleaks caught{head} |\n|---|---:|---:|---:|" + ("---:|" if extra else ""))
        for kind, (c, n) in sorted(res["cairn"]["secrets"].items()):
            more = f" {res['other']['secrets'][kind][0]} |" if extra else ""
            print(f"| {kind} | {n} | {c} | {res['gitleaks']['secrets'][kind][0]} |{more}")
        print(f"\n| look-alike kind | n | cairn damaged | gitleaks damaged{head} |\n|---|---:|---:|---:|"
              + ("---:|" if extra else ""))
        for kind, (d, n) in sorted(res["cairn"]["look"].items()):
            more = f" {res['other']['look'][kind][0]} |" if extra else ""
            print(f"| {kind} | {n} | {d} | {res['gitleaks']['look'][kind][0]} |{more}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
