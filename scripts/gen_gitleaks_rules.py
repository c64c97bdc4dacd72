"""Generate src/cairn/redact/gitleaks_rules.json from gitleaks' maintained rule file (MIT).

    git --git-dir /work/.mirror/gitleaks+gitleaks/repo show HEAD:config/gitleaks.toml > /tmp/gitleaks.toml
    python scripts/gen_gitleaks_rules.py /tmp/gitleaks.toml --commit $(git --git-dir ... rev-parse HEAD)

The table is data, copied rule for rule: id, regex (Go RE2 syntax, compiled by google-re2 at run
time), secret group, entropy threshold, keywords and allowlists. What cairn cannot use is left
out and listed in the generated file (`skipped`): path-only rules and rules bound to a file path (cairn
redacts text whose file name it does not know), and allowlists that only name paths or commits.
Regenerate it when gitleaks' file moves; never edit the output by hand. The data is JSON, read
by `cairn/redact/gitleaks_rules.py` (a data file, not a 2,600-line module of literals).
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "src" / "cairn" / "redact" / "gitleaks_rules.json"
SOURCE = "https://github.com/gitleaks/gitleaks/blob/{commit}/config/gitleaks.toml"
LICENCE = "MIT License, Copyright (c) 2019 Zachary Rice (https://github.com/gitleaks/gitleaks/blob/master/LICENSE)"


def _allowlists(entries: list[dict]) -> tuple[list[tuple], list[str]]:
    """(target, regexes, stopwords) for each allowlist cairn can apply; notes on the ones it cannot."""
    out, notes = [], []
    for a in entries:
        target = a.get("regexTarget", "secret")
        regexes = tuple(a.get("regexes", ()))
        stopwords = tuple(w.lower() for w in a.get("stopwords", ()))
        if a.get("condition", "OR").upper() == "AND" and (a.get("paths") or a.get("commits")):
            notes.append("an allowlist that needs a path AND a match (no path here: never applies)")
            continue
        if not regexes and not stopwords:
            notes.append("an allowlist of paths or commits only")
            continue
        out.append((target, regexes, stopwords))
    return out, notes


def convert(data: dict) -> tuple[list[tuple], dict, list[str]]:
    rules, skipped = [], []
    for r in data["rules"]:
        if not r.get("regex"):
            skipped.append(f"{r['id']}: path-only rule")
            continue
        if r.get("path"):
            skipped.append(f"{r['id']}: bound to file paths {r['path']}")
            continue
        allow, notes = _allowlists(r.get("allowlists", []))
        skipped += [f"{r['id']}: {n}" for n in notes]
        rules.append(
            (
                r["id"],
                r["regex"],
                int(r.get("secretGroup", 0)),
                float(r.get("entropy", 0.0)),
                tuple(k.lower() for k in r.get("keywords", ())),
                tuple(allow),
            )
        )
    g = data.get("allowlist", {})
    global_allow = {
        "regexes": tuple(g.get("regexes", ())),
        "stopwords": tuple(w.lower() for w in g.get("stopwords", ())),
    }
    return rules, global_allow, skipped


def render(rules: list[tuple], global_allow: dict, skipped: list[str], commit: str, version: str) -> str:
    """The JSON the loader reads: one rule per line, so a regeneration diffs rule by rule."""
    head = {
        "source": SOURCE.format(commit=commit),
        "commit": commit,
        "min_version": version,
        "licence": LICENCE,
        "rows": "(id, regex in RE2 syntax, secret group (0 = first non-empty), entropy threshold (0 = none), "
        "lower-case keywords, allowlists as (target: secret|match|line, regexes, stopwords))",
        "skipped": skipped,
        "global_regexes": list(global_allow["regexes"]),
        "global_stopwords": list(global_allow["stopwords"]),
    }
    text = json.dumps(head, indent=1, ensure_ascii=False)[:-2]  # reopen the object for "rules"
    body = ",\n".join("  " + json.dumps(r, ensure_ascii=False) for r in rules)
    return f'{text},\n "rules": [\n{body}\n ]\n}}\n'


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("toml", type=Path, help="gitleaks' config/gitleaks.toml")
    ap.add_argument("--commit", required=True, help="the gitleaks commit the file was taken from")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    data = tomllib.loads(args.toml.read_text(encoding="utf-8"))
    rules, global_allow, skipped = convert(data)
    args.out.write_text(
        render(rules, global_allow, skipped, args.commit, data.get("minVersion", "?")), encoding="utf-8"
    )
    print(f"{len(rules)} rules written to {args.out} ({len(skipped)} notes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
