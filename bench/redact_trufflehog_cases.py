"""cairn's redactor on trufflehog's detector pattern tests: the inputs each detector must find a secret in.

    python bench/redact_trufflehog_cases.py TRUFFLEHOG_GIT_DIR [--rev HEAD] [--show N] [--src DIR]

trufflehog's `pkg/detectors/*/*_test.go` (integration tests left out) give each detector inputs
(`input:` a literal or a variable) and the secrets it must report (`want: []string{...}`). Read
from the repository's git objects (`fetch github:trufflesecurity/trufflehog`), for measuring only.
A case is scored when at least one wanted string of 8 or more characters is written in its input
as is (many detectors report a combination, `id:secret`, that the text never holds); it is masked
when cairn leaves no 12-character piece of any of them. Read the misses before drawing a
conclusion: many inputs are trufflehog's own synthetic layouts (a Jenkins credentials block with
`<secret>{name AQAAABAAA value}</secret>`), placeholders (`shippo_live_aaaa...`) or values with no
name at all (`sheet_id := "..."`), which no redactor that keeps look-alikes can tell from code.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from redact_gitleaks_cases import _go_string, pieces  # bench/ is on sys.path when this script runs

_VAR = re.compile(r"^\s*(\w+)\s*(?::=|=)\s*(?=[`\"])", re.M)
_INPUT = re.compile(r"input:\s*(\w+|`|\")")
_WANT = re.compile(r"want:\s*(?:\[\]string\{|nil|\[\]string\(nil\))")


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True, check=True).stdout


def _wanted(src: str, at: int, names: dict[str, str]) -> list[str]:
    """The strings of the `want: []string{...}` list starting at `at` (literals and named ones)."""
    out = []
    while src[at] != "}":
        if src[at] in "`\"":
            text, at = _go_string(src, at)
            if text:
                out.append(text)
            continue
        word = re.match(r"\w+", src[at:])
        if word:
            if word.group(0) in names:
                out.append(names[word.group(0)])
            at += len(word.group(0))
            continue
        at += 1
    return out


def cases(git_dir: Path, rev: str) -> list[tuple[str, str, list[str]]]:
    """(detector, input, wanted strings) for every pattern test case with a literal input."""
    out = []
    for name in _git(git_dir, "ls-tree", "-r", "--name-only", rev, "pkg/detectors").split():
        if not name.endswith("_test.go") or "integration" in name:
            continue
        src = _git(git_dir, "show", f"{rev}:{name}")
        if "want:" not in src:
            continue
        names = {}
        for m in _VAR.finditer(src):
            text, _ = _go_string(src, m.end())
            if text is not None:
                names[m.group(1)] = text
        for m in _INPUT.finditer(src):
            start = m.start(1)
            if src[start] in "`\"":
                given, end = _go_string(src, start)
            else:
                given, end = names.get(m.group(1)), m.end()
            want = _WANT.search(src, end, end + 3000) if given else None
            if want is None or not want.group(0).endswith("{"):
                continue  # no input, or a case that must find nothing
            wanted = _wanted(src, want.end(), names)
            if wanted:
                out.append((name.split("/")[2], given, wanted))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("git_dir", type=Path)
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--show", type=int, default=0, help="print this many misses")
    ap.add_argument("--src", type=Path, help="measure another checkout's src (the code before a change)")
    args = ap.parse_args()
    if args.src:
        sys.path.insert(0, str(args.src))
        for mod in [m for m in sys.modules if m.startswith("cairn")]:
            del sys.modules[mod]
    from cairn.redact import redact

    all_cases = cases(args.git_dir, args.rev)
    scored = masked = 0
    missed: list[tuple[str, str, str]] = []
    for detector, given, wanted in all_cases:
        secrets = [w for w in wanted if len(w) >= 8 and w in given]
        if not secrets:
            continue
        scored += 1
        out = redact(given)
        if any(p in out for s in secrets for p in pieces(s)):
            missed.append((detector, secrets[0], given))
        else:
            masked += 1
    layouts = Counter("jenkins <secret>{...}" if "StringCredentialsImpl" in g else "other" for _, _, g in missed)
    print(f"{len(all_cases)} cases of {len({c[0] for c in all_cases})} detectors; {scored} with a wanted string "
          f"written in the input: {masked} masked, {scored - masked} left ({dict(layouts)})")
    for detector, secret, given in missed[:args.show]:
        print(f"- {detector}: {secret[:60]!r} in {given.strip()[:140]!r}")


if __name__ == "__main__":
    main()
