"""cairn's redactor on gitleaks' own rule test cases: the literal true and false positives.

    python bench/redact_gitleaks_cases.py GITLEAKS_GIT_DIR [--rev HEAD] [--show N] [--json]

gitleaks checks each rule, when it generates its config, against `tps` (strings the rule must
find) and `fps` (strings it must not) written in `cmd/generate/config/rules/*.go`. Many of them
are generated at run time (`secrets.NewSecret(...)`); this reads only the elements that are Go
string literals, from the repository's git objects (no work tree needed:
`fetch github:gitleaks/gitleaks` gives one). Read for measuring only; nothing of it is copied.

For each true positive, the secret is what cairn's port of the same rule (RuleSet over
cairn/redact/gitleaks_rules.json) finds in it: caught when `cairn.redact.redact` leaves no
12-character piece of it (the whole secret, if shorter). A case the port of its own rule does not
find (a rule cairn leaves out, or one whose case needs a file path) is counted apart, with
whether cairn masks anything in it. A false positive is damaged when cairn's output differs from
its input at all (some are secrets by another rule's measure; --show lists them to read).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from cairn.redact import gitleaks_rules as g  # noqa: E402
from cairn.redact import redact  # noqa: E402
from cairn.redact.providers import RuleSet  # noqa: E402

RULES_DIR = "cmd/generate/config/rules/"
_FUNC = re.compile(r"^func \w+\(", re.M)
_RULE_ID = re.compile(r'RuleID:\s*"([^"]+)"')
_LIST = re.compile(r"\b(tps|fps)\s*(?::=|=)\s*(?:append\(\s*\1\s*,|\[\]string\s*\{)")


def _go_string(src: str, i: int) -> tuple[str | None, int]:
    """The Go string literal starting at src[i] (raw or interpreted) and the index after it."""
    if src[i] == "`":
        end = src.index("`", i + 1)
        return src[i + 1:end], end + 1
    j, out = i + 1, []
    while src[j] != '"':
        if src[j] == "\\":
            j += 1
            c = src[j]
            simple = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'"}
            if c in simple:
                out.append(simple[c])
            elif c == "x":
                out.append(chr(int(src[j + 1:j + 3], 16)))
                j += 2
            elif c == "u":
                out.append(chr(int(src[j + 1:j + 5], 16)))
                j += 4
            else:
                return None, j + 1  # an escape this reader does not decode: skip the element
        else:
            out.append(src[j])
        j += 1
    return "".join(out), j + 1


def _elements(src: str, i: int) -> list[str]:
    """The literal elements of the list whose body starts at src[i], up to its closing bracket.

    An element that is not one literal (a call, a concatenation with one) is left out."""
    depth, out, parts, literal_only = 1, [], [], True
    while depth:
        c = src[i]
        if c in "`\"":
            text, i = _go_string(src, i)
            if text is None:
                literal_only = False
            else:
                parts.append(text)
            continue
        if src.startswith("//", i):
            i = src.index("\n", i)
            continue
        if c in "({[":
            depth += 1
            literal_only = literal_only and depth == 1
        elif c in ")}]":
            depth -= 1
        elif c == "," and depth == 1:
            if parts and literal_only:
                out.append("".join(parts))
            parts, literal_only = [], True
            i += 1
            continue
        elif c == "+" or c.isspace():
            pass
        else:
            literal_only = False
        i += 1
    if parts and literal_only:
        out.append("".join(parts))
    return out


def cases(git_dir: Path, rev: str) -> list[tuple[str, str, str, str]]:
    """(rule id, 'tp'|'fp', text, file) for every literal case in gitleaks' rule generators."""
    names = subprocess.run(["git", "--git-dir", str(git_dir), "ls-tree", "-r", "--name-only", rev, RULES_DIR],
                           capture_output=True, text=True, check=True).stdout.split()
    out = []
    for name in names:
        if not name.endswith(".go") or name.endswith("_test.go"):
            continue
        src = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{rev}:{name}"],
                             capture_output=True, text=True, check=True).stdout
        starts = [m.start() for m in _FUNC.finditer(src)] + [len(src)]
        for a, b in zip(starts, starts[1:], strict=False):
            body = src[a:b]
            rid = _RULE_ID.search(body)
            if not rid:
                continue
            for m in _LIST.finditer(body):
                kind = "tp" if m.group(1) == "tps" else "fp"
                for text in _elements(body, m.end()):
                    out.append((rid.group(1), kind, text, name.rsplit("/", 1)[-1]))
    return out


def pieces(value: str, n: int = 12) -> list[str]:
    return [value] if len(value) <= n else [value[i:i + n] for i in range(len(value) - n + 1)]


def score(all_cases: list[tuple[str, str, str, str]]) -> dict:
    by_id = {row[0]: row for row in g.RULES}
    ports: dict[str, RuleSet] = {}
    tally: Counter = Counter()
    missed, damaged, unported = [], [], []
    for rid, kind, text, name in all_cases:
        out = redact(text)
        if kind == "fp":
            tally["fp"] += 1
            if out != text:
                tally["fp_damaged"] += 1
                damaged.append({"rule": rid, "file": name, "text": text, "out": out})
            continue
        tally["tp"] += 1
        if rid not in ports:
            ports[rid] = RuleSet([by_id[rid]] if rid in by_id else [], g.GLOBAL_REGEXES, g.GLOBAL_STOPWORDS)
        data = text.encode("utf-8", "surrogatepass")
        secrets = [data[s:e].decode("utf-8", "replace") for s, e, _ in ports[rid].findings(data)]
        if not secrets:
            tally["tp_unported"] += 1
            tally["tp_unported_masked"] += out != text
            unported.append({"rule": rid, "file": name, "text": text, "out": out})
            continue
        tally["tp_scored"] += 1
        if any(p in out for s in secrets for p in pieces(s)):
            missed.append({"rule": rid, "file": name, "text": text, "out": out, "secrets": secrets})
        else:
            tally["tp_caught"] += 1
    return {"counts": dict(tally), "missed": missed, "damaged": damaged, "unported": unported,
            "rules_with_cases": len({c[0] for c in all_cases})}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("git_dir", type=Path, help="gitleaks' git directory (a bare clone or a fetched snapshot)")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--show", type=int, default=10, help="how many misses, damages and unported cases to print")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    result = score(cases(args.git_dir, args.rev))
    if args.json:
        print(json.dumps(result, indent=1))
        return
    c = result["counts"]
    print(f"{result['rules_with_cases']} rules with literal cases (cairn's table: gitleaks {g.COMMIT[:8]})")
    print(f"true positives the port finds: {c.get('tp_caught', 0)}/{c.get('tp_scored', 0)} caught by cairn")
    print(f"true positives the port does not find: {c.get('tp_unported', 0)} "
          f"({c.get('tp_unported_masked', 0)} of them masked by cairn all the same)")
    print(f"false positives damaged: {c.get('fp_damaged', 0)}/{c.get('fp', 0)}")
    for title, rows in (("missed", result["missed"]), ("damaged", result["damaged"]),
                        ("not found by the port", result["unported"])):
        if rows and args.show:
            print(f"\n## {title} ({len(rows)})")
            for r in rows[:args.show]:
                print(f"- {r['rule']} ({r['file']}): {r['text'][:160]!r}\n    -> {r['out'][:160]!r}")


if __name__ == "__main__":
    main()
