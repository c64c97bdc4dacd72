"""The redactor measured on every set: one command per set, and the rules with the sets that measure them.

    python bench/redact_bench.py [--src DIR] eval [--seed 13] [--held-out] [--markdown] [--show-misses] [--also FILE]
    python bench/redact_bench.py [--src DIR] gitleaks GITLEAKS_GIT_DIR [--rev HEAD] [--show N] [--json]
    python bench/redact_bench.py [--src DIR] trufflehog TRUFFLEHOG_GIT_DIR [--rev HEAD] [--show N]
    python bench/redact_bench.py [--src DIR] scan TREE [| sort | uniq]
    python bench/redact_bench.py [--src DIR] speed [--runs 5] [--tree DIR] [--also OLD_REDACT_PY]
    python bench/redact_bench.py [--src DIR] weak-names [--seed 3] [--per 200]
    python bench/redact_bench.py rules [--gitleaks GIT_DIR] [--trufflehog GIT_DIR]

`--src` measures another checkout's `src` (the code before a change). The sets:
- eval: the generated corpus (tests/fixtures/secrets/corpus.py; `--held-out`, the set written after
  tuning). A secret is caught when no 12-character piece of it (the whole value, if shorter) is
  left; a look-alike is damaged when the output differs at all. "gitleaks" beside cairn is gitleaks'
  default rule file alone (every rule, generic-api-key included), run as gitleaks runs it.
- gitleaks: gitleaks' own rule tests, the Go string literals of `tps` and `fps` in
  `cmd/generate/config/rules/*.go`, read from its git objects (`fetch github:gitleaks/gitleaks`). A
  true positive counts when the port of its own rule finds the secret; a false positive is damaged
  when cairn changes it at all (some are secrets by another rule's measure: --show lists them).
- trufflehog: trufflehog's detector pattern tests (`pkg/detectors/*/*_test.go`, integration tests
  left out): a case counts when a wanted string of 8+ characters is written in its input as is.
  Read the misses before concluding: many inputs are trufflehog's own synthetic layouts.
- scan: every span cairn masks in a tree's text files (<= 1 MB, not binary, as the indexer reads
  them), one line each: how false positives on real code are looked for.
- speed: MB/s on cairn's source, a transcript-like text and the inputs that once made redaction
  quadratic; cold start of a fresh process (what a hook pays).
- weak-names: random values in providers' alphabets after weak names (key, token, auth), in five
  layouts: how many are left (12 of their characters still in the output).
- rules: every rule (cairn.redact.rulebook), the case that brought it in, the sets it names, and
  how often the layouts and formats fire on the secrets and look-alikes of each set.
Outside sets are read for measuring only; nothing of them is copied.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import string
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "fixtures" / "secrets"))


def pieces(value: str, n: int = 12) -> list[str]:
    return [value] if len(value) <= n else [value[i : i + n] for i in range(len(value) - n + 1)]


def leaked(values: list[str], out: str) -> bool:
    return any(p in out for v in values for p in pieces(v))


def _load_redact(path: Path) -> Callable[[str], str]:
    """The `redact` function of a single-file redactor (git show REV:src/cairn/sessions/redact.py > FILE)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("other_redact", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.redact


def text_files(tree: Path) -> Iterator[tuple[Path, bytes, str]]:
    """(path, bytes, text) of each file the indexer would read as text: <= 1 MB, not binary."""
    for p in sorted(tree.rglob("*")):
        if not p.is_file() or p.is_symlink() or ".git" in p.parts or p.stat().st_size > 1_000_000:
            continue
        data = p.read_bytes()
        if b"\x00" not in data[:8192]:
            yield p, data, data.decode("utf-8", "replace")


# ------------------------------------------------------------------------------------------- eval


def _gitleaks_alone(text: str, rules) -> str:
    data = text.encode()
    parts, last = [], 0
    for s, e, kind in sorted(rules.findings(data)):
        s = max(s, last)
        if e > s:
            parts += [data[last:s], f"[REDACTED:{kind}]".encode()]
            last = e
    parts.append(data[last:])
    return b"".join(parts).decode("utf-8", "replace")


def cmd_eval(args: argparse.Namespace) -> None:
    import corpus

    from cairn.redact import gitleaks_rules as g
    from cairn.redact import redact
    from cairn.redact.providers import RuleSet

    gl = RuleSet(g.RULES, g.GLOBAL_REGEXES, g.GLOBAL_STOPWORDS)
    systems: dict[str, Callable[[str], str]] = {"cairn": redact, "gitleaks": lambda t: _gitleaks_alone(t, gl)}
    if args.also:
        systems["other"] = _load_redact(args.also)
    sec, look = corpus.heldout() if args.held_out else (corpus.secrets(args.seed), corpus.lookalikes(args.seed))
    res: dict = {
        name: {"secrets": defaultdict(lambda: [0, 0]), "look": defaultdict(lambda: [0, 0])} for name in systems
    }
    for kind, text, value in sec:
        for name, fn in systems.items():
            out = fn(text)
            caught = not leaked([value], out)
            res[name]["secrets"][kind][0] += caught
            res[name]["secrets"][kind][1] += 1
            if args.show_misses and name == "cairn" and not caught:
                print(f"MISS {kind}: {text!r} -> {out!r}")
    for kind, text in look:
        for name, fn in systems.items():
            out = fn(text)
            res[name]["look"][kind][0] += out != text
            res[name]["look"][kind][1] += 1
            if args.show_misses and name == "cairn" and out != text:
                print(f"DAMAGED {kind}: {text!r} -> {out!r}")
    for name in res:
        c, n = (sum(v[i] for v in res[name]["secrets"].values()) for i in (0, 1))
        d, m = (sum(v[i] for v in res[name]["look"].values()) for i in (0, 1))
        print(f"{name:9s} recall {c}/{n} = {c / n:.3f}   look-alikes damaged {d}/{m} = {d / m:.3f}")
    if args.markdown:
        extra = "other" in res
        for part, title, col in (("secrets", "secret kind", "caught"), ("look", "look-alike kind", "damaged")):
            head = " | before" if extra else ""
            print(
                f"\n| {title} | n | cairn {col} | gitleaks {col}{head} |\n|---|---:|---:|---:|"
                + ("---:|" if extra else "")
            )
            for kind, (c, n) in sorted(res["cairn"][part].items()):
                more = f" {res['other'][part][kind][0]} |" if extra else ""
                print(f"| {kind} | {n} | {c} | {res['gitleaks'][part][kind][0]} |{more}")


# ------------------------------------------------------------------ gitleaks' and trufflehog's tests


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True, text=True, check=True).stdout


_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'"}


def go_string(src: str, i: int) -> tuple[str | None, int]:
    """The Go string literal starting at src[i] (raw or interpreted) and the index after it."""
    if src[i] == "`":
        end = src.index("`", i + 1)
        return src[i + 1 : end], end + 1
    j, out = i + 1, []
    while src[j] != '"':
        if src[j] == "\\":
            j += 1
            c = src[j]
            if c in _SIMPLE_ESCAPES:
                out.append(_SIMPLE_ESCAPES[c])
            elif c in "xu":
                width = 2 if c == "x" else 4
                out.append(chr(int(src[j + 1 : j + 1 + width], 16)))
                j += width
            else:
                return None, j + 1  # an escape this reader does not decode: skip the element
        else:
            out.append(src[j])
        j += 1
    return "".join(out), j + 1


def _elements(src: str, i: int) -> list[str]:
    """The literal elements of the list whose body starts at src[i]; an element that is not one literal
    (a call, a concatenation with one) is left out."""
    depth, out, parts, literal_only = 1, [], [], True
    while depth:
        c = src[i]
        if c in '`"':
            text, i = go_string(src, i)
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
        elif not (c == "+" or c.isspace()):
            literal_only = False
        i += 1
    if parts and literal_only:
        out.append("".join(parts))
    return out


_FUNC = re.compile(r"^func \w+\(", re.M)
_RULE_ID = re.compile(r'RuleID:\s*"([^"]+)"')
_LIST = re.compile(r"\b(tps|fps)\s*(?::=|=)\s*(?:append\(\s*\1\s*,|\[\]string\s*\{)")


def gitleaks_cases(git_dir: Path, rev: str) -> list[tuple[str, str, str, str]]:
    """(rule id, 'tp'|'fp', text, file) for every literal case in gitleaks' rule generators."""
    out = []
    for name in _git(git_dir, "ls-tree", "-r", "--name-only", rev, "cmd/generate/config/rules/").split():
        if not name.endswith(".go") or name.endswith("_test.go"):
            continue
        src = _git(git_dir, "show", f"{rev}:{name}")
        starts = [m.start() for m in _FUNC.finditer(src)] + [len(src)]
        for a, b in zip(starts, starts[1:], strict=False):
            body = src[a:b]
            rid = _RULE_ID.search(body)
            for m in _LIST.finditer(body) if rid else ():
                for text in _elements(body, m.end()):
                    out.append((rid.group(1), "tp" if m.group(1) == "tps" else "fp", text, name.rsplit("/", 1)[-1]))
    return out


def cmd_gitleaks(args: argparse.Namespace) -> None:
    from cairn.redact import gitleaks_rules as g
    from cairn.redact import redact
    from cairn.redact.providers import RuleSet

    all_cases = gitleaks_cases(args.git_dir, args.rev)
    by_id = {row[0]: row for row in g.RULES}
    ports: dict[str, RuleSet] = {}
    tally: Counter = Counter()
    rows: dict[str, list] = {"missed": [], "damaged": [], "unported": []}
    for rid, kind, text, name in all_cases:
        out = redact(text)
        case = {"rule": rid, "file": name, "text": text, "out": out}
        tally[kind] += 1
        if kind == "fp":
            tally["fp_damaged"] += out != text
            rows["damaged"] += [case] if out != text else []
            continue
        if rid not in ports:
            ports[rid] = RuleSet([by_id[rid]] if rid in by_id else [], g.GLOBAL_REGEXES, g.GLOBAL_STOPWORDS)
        data = text.encode("utf-8", "surrogatepass")
        secrets = [data[s:e].decode("utf-8", "replace") for s, e, _ in ports[rid].findings(data)]
        if not secrets:
            tally["tp_unported"] += 1
            tally["tp_unported_masked"] += out != text
            rows["unported"].append(case)
        elif leaked(secrets, out):
            rows["missed"].append({**case, "secrets": secrets})
        tally["tp_scored"] += bool(secrets)
        tally["tp_caught"] += bool(secrets) and not leaked(secrets, out)
    if args.json:
        print(json.dumps({"counts": dict(tally), **rows, "rules_with_cases": len({c[0] for c in all_cases})}, indent=1))
        return
    print(f"{len({c[0] for c in all_cases})} rules with literal cases (cairn's table: gitleaks {g.COMMIT[:8]})")
    print(f"true positives the port finds: {tally['tp_caught']}/{tally['tp_scored']} caught by cairn")
    print(
        f"true positives the port does not find: {tally['tp_unported']} "
        f"({tally['tp_unported_masked']} of them masked by cairn all the same)"
    )
    print(f"false positives damaged: {tally['fp_damaged']}/{tally['fp']}")
    for key, found in rows.items():
        title = "not found by the port" if key == "unported" else key
        if found and args.show:
            print(f"\n## {title} ({len(found)})")
            for r in found[: args.show]:
                print(f"- {r['rule']} ({r['file']}): {r['text'][:160]!r}\n    -> {r['out'][:160]!r}")


_VAR = re.compile(r"^\s*(\w+)\s*(?::=|=)\s*(?=[`\"])", re.M)
_INPUT = re.compile(r"input:\s*(\w+|`|\")")
_WANT = re.compile(r"want:\s*(?:\[\]string\{|nil|\[\]string\(nil\))")


def _wanted(src: str, at: int, names: dict[str, str]) -> list[str]:
    """The strings of the `want: []string{...}` list starting at `at` (literals and named ones)."""
    out = []
    while src[at] != "}":
        if src[at] in '`"':
            text, at = go_string(src, at)
            out += [text] if text else []
            continue
        word = re.match(r"\w+", src[at:])
        if word:
            out += [names[word.group(0)]] if word.group(0) in names else []
            at += len(word.group(0))
            continue
        at += 1
    return out


def trufflehog_cases(git_dir: Path, rev: str) -> list[tuple[str, str, list[str]]]:
    """(detector, input, wanted strings) for every pattern test case with a literal input."""
    out = []
    for name in _git(git_dir, "ls-tree", "-r", "--name-only", rev, "pkg/detectors").split():
        if not name.endswith("_test.go") or "integration" in name:
            continue
        src = _git(git_dir, "show", f"{rev}:{name}")
        if "want:" not in src:
            continue
        names = {m.group(1): text for m in _VAR.finditer(src) if (text := go_string(src, m.end())[0]) is not None}
        for m in _INPUT.finditer(src):
            start = m.start(1)
            given, end = go_string(src, start) if src[start] in '`"' else (names.get(m.group(1)), m.end())
            want = _WANT.search(src, end, end + 3000) if given else None
            if want is None or not want.group(0).endswith("{"):
                continue  # no input, or a case that must find nothing
            wanted = _wanted(src, want.end(), names)
            if wanted and given:
                out.append((name.split("/")[2], given, wanted))
    return out


def cmd_trufflehog(args: argparse.Namespace) -> None:
    from cairn.redact import redact

    all_cases = trufflehog_cases(args.git_dir, args.rev)
    scored = masked = 0
    missed: list[tuple[str, str, str]] = []
    for detector, given, wanted in all_cases:
        secrets = [w for w in wanted if len(w) >= 8 and w in given]
        if not secrets:
            continue
        scored += 1
        if leaked(secrets, redact(given)):
            missed.append((detector, secrets[0], given))
        else:
            masked += 1
    layouts = Counter("jenkins <secret>{...}" if "StringCredentialsImpl" in g else "other" for _, _, g in missed)
    print(
        f"{len(all_cases)} cases of {len({c[0] for c in all_cases})} detectors; {scored} with a wanted string "
        f"written in the input: {masked} masked, {scored - masked} left ({dict(layouts)})"
    )
    for detector, secret, given in missed[: args.show]:
        print(f"- {detector}: {secret[:60]!r} in {given.strip()[:140]!r}")


# -------------------------------------------------------------------------------------------- scan


def cmd_scan(args: argparse.Namespace) -> None:
    from cairn.redact import find

    n = 0
    for p, _data, text in text_files(args.tree):
        d = text.encode()
        for s, _e, kind in find(text):
            start, end = d.rfind(b"\n", 0, s) + 1, d.find(b"\n", s)
            line = d[start : end if end != -1 else len(d)][:160].decode("utf-8", "replace")
            print(f"{kind:22s} {str(p.relative_to(args.tree))[:50]:50s} {line.strip()[:110]}")
            n += 1
    print(f"{n} spans", file=sys.stderr)


# ------------------------------------------------------------------------------------------- speed


def speed_texts() -> dict[str, str]:
    import corpus

    code = "\n".join(
        p.read_text(encoding="utf-8")
        for p in sorted((ROOT / "src" / "cairn").rglob("*.py"))
        if "gitleaks_rules" not in p.name
    )
    prose = (
        "The test failed because the fixture was stale; I re-ran `pytest -q tests/search` and "
        "it passed. Next I will open src/app/api.py around line 120 and look at the retry loop.\n"
    )
    lines = []
    for (_, s, _), (_, look) in zip(corpus.secrets(), corpus.lookalikes(), strict=False):
        lines += [prose, s, "\n", look, "\n", prose * 3]
    transcript = "".join(lines)
    return {
        "code (cairn src)": code,
        "transcript-like": transcript * max(1, (1 << 20) // len(transcript)),
        "adversarial: 260 KB of PEM headers, no END": "-----BEGIN RSA PRIVATE KEY-----\n" * 8000,
        "adversarial: one 20 KB word": "a1" * 10_000,
        "adversarial: 1 MB 'password password ...'": "password " * 116_000,
        "adversarial: 1 MB 'key=key=...'": "key=" * 262_000,
    }


def _median_time(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _cold_ms(cmd: str, runs: int) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # pycs, as installed
    src = str(Path(sys.modules["cairn"].__file__ or "").parents[1])
    env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
    run = lambda: subprocess.run([sys.executable, "-c", cmd], check=True, cwd=ROOT, env=env)  # noqa: E731
    run()  # writes the .pyc files
    return _median_time(run, runs) * 1000


def cmd_speed(args: argparse.Namespace) -> None:
    from cairn.redact import redact

    other = _load_redact(args.also) if args.also else None
    print(
        "| text | size | median s | MB/s |"
        + (" other s |" if other else "")
        + "\n|---|---:|---:|---:|"
        + ("---:|" if other else "")
    )
    for name, text in speed_texts().items():
        redact(text[:100])  # compile what this text needs outside the timing
        dt = _median_time(lambda t=text: redact(t), args.runs)
        mb = len(text.encode()) / 1e6
        extra = (
            "" if other is None else " |" if "1 MB" in name else f" {_median_time(lambda t=text: other(t), 1):.3f} |"
        )
        print(f"| {name} | {mb * 1000:.0f} KB | {dt:.3f} | {mb / dt:.1f} |{extra}")
    runs = max(args.runs, 11)
    floor, imp = _cold_ms("pass", runs), _cold_ms("import cairn.redact", runs)
    one = _cold_ms("from cairn.redact import redact; redact(open('README.md').read()[:3000])", runs)
    print(
        f"\ncold start, a fresh process as a hook is (median of {runs}): python -c pass {floor:.1f} ms; "
        f"import cairn.redact {imp:.1f} ms; import + redacting 3 KB (README.md) {one:.1f} ms"
    )
    if args.also:
        old_cmd = (
            f"import importlib.util as u; s = u.spec_from_file_location('o', {str(args.also)!r}); "
            "m = u.module_from_spec(s); s.loader.exec_module(m); m.redact(open('README.md').read()[:3000])"
        )
        print(f"other: import + redacting 3 KB {_cold_ms(old_cmd, runs):.1f} ms")
    if args.tree:
        total_bytes, total_s, files, with_secret = 0, 0.0, 0, 0
        for _p, data, text in text_files(args.tree):
            t = time.perf_counter()
            out = redact(text)
            total_s += time.perf_counter() - t
            total_bytes, files, with_secret = total_bytes + len(data), files + 1, with_secret + (out != text)
        print(
            f"\ntree {args.tree}: {files} text files, {total_bytes / 1e6:.1f} MB, redaction {total_s:.2f} s "
            f"({total_bytes / 1e6 / total_s:.1f} MB/s); {with_secret} files had something masked"
        )


# -------------------------------------------------------------------------------------- weak names

ALPHABETS = {
    "lower+digit+dash": string.ascii_lowercase + string.digits + "-",
    "mixed case+digit": string.ascii_letters + string.digits,
}
LENGTHS = (16, 20, 24, 32, 40)
WEAK_LAYOUTS = ("Using Key={v}", "token: {v}", 'api_token = "{v}"', "X-Auth-Token: {v}", '{{"key": "{v}"}}')


def cmd_weak_names(args: argparse.Namespace) -> None:
    import random

    from cairn.redact import redact

    rng = random.Random(args.seed)
    print(
        f"values left out of {args.per * len(WEAK_LAYOUTS)} per cell ({Path(sys.modules['cairn'].__file__ or '').parents[1]})"
    )
    print("| alphabet | " + " | ".join(f"n={n}" for n in LENGTHS) + " |\n|---|" + "---:|" * len(LENGTHS))
    for name, alphabet in ALPHABETS.items():
        cells = []
        for n in LENGTHS:
            left = 0
            for _ in range(args.per):
                v = "".join(rng.choice(alphabet) for _ in range(n))
                left += sum(v[2:14] in redact(layout.format(v=v)) for layout in WEAK_LAYOUTS)
            cells.append(str(left))
        print(f"| {name} | " + " | ".join(cells) + " |")


# ------------------------------------------------------------------------------------------- rules


def cmd_rules(args: argparse.Namespace) -> None:
    import corpus

    from cairn.redact.rulebook import SETS, fires, rules

    sets = {"corpus": [t for _, t, _ in corpus.secrets()], "held-out": [t for _, t, _ in corpus.heldout()[0]]}
    if args.gitleaks:
        sets["gitleaks-cases"] = [t for _, k, t, _ in gitleaks_cases(args.gitleaks, "HEAD") if k == "tp"]
    if args.trufflehog:
        sets["trufflehog-cases"] = [g for _, g, _ in trufflehog_cases(args.trufflehog, "HEAD")]
    looks = [t for _, t in corpus.lookalikes()] + [t for _, t in corpus.heldout()[1]]
    for s, how in SETS.items():
        print(f"set {s}: {how}")
    disagree = 0
    for r in rules():
        line = (
            f"\n{r.name} [{r.kind}] {r.where}: {r.does}\n    brought by: {r.brought_by}\n    measured by: "
            f"{', '.join(r.measured_by) or 'nothing yet'}"
        )
        if r.kind != "heuristic":
            hits = {s: sum(fires(r, t.encode("utf-8", "surrogatepass")) for t in texts) for s, texts in sets.items()}
            damage = sum(fires(r, t.encode("utf-8", "surrogatepass")) for t in looks)
            wrong = [s for s, n in hits.items() if (n > 0) != (s in r.measured_by)]
            disagree += bool(wrong) or damage > 0
            line += f"\n    fires on: {', '.join(f'{s} {n}' for s, n in hits.items())}; look-alikes {damage}" + (
                f"  DISAGREES: {', '.join(wrong)}" if wrong else ""
            )
        print(line)
    print(f"\n{disagree} table rules whose hits disagree with the sets they name (or that touch a look-alike)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", type=Path, help="measure another checkout's src (the code before a change)")
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("eval", help="the corpus (or the held-out set), cairn beside gitleaks' rules")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--held-out", action="store_true", help="the second set, written after tuning (corpus.heldout)")
    p.add_argument("--markdown", action="store_true", help="per-kind tables")
    p.add_argument("--show-misses", action="store_true")
    p.add_argument("--also", type=Path, metavar="FILE", help="also score the `redact` of a single-file redactor")
    for name, helptext in (("gitleaks", "gitleaks' rule tests"), ("trufflehog", "trufflehog's detector tests")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("git_dir", type=Path, help="the repository's git directory (a bare clone or a fetched snapshot)")
        p.add_argument("--rev", default="HEAD")
        p.add_argument("--show", type=int, default=10 if name == "gitleaks" else 0, help="how many cases to print")
        if name == "gitleaks":
            p.add_argument("--json", action="store_true")
    p = sub.add_parser("scan", help="every span masked in a tree's text files")
    p.add_argument("tree", type=Path)
    p = sub.add_parser("speed", help="MB/s, adversarial inputs, cold start")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--tree", type=Path, help="also: what redaction adds to indexing this tree")
    p.add_argument("--also", type=Path, metavar="FILE", help="also time the `redact` of a single-file redactor")
    p = sub.add_parser("weak-names", help="generated tokens after weak names")
    p.add_argument("--seed", type=int, default=3)
    p.add_argument("--per", type=int, default=200, help="values per alphabet and length")
    p = sub.add_parser("rules", help="every rule, its case and its sets")
    p.add_argument("--gitleaks", type=Path, metavar="GIT_DIR")
    p.add_argument("--trufflehog", type=Path, metavar="GIT_DIR")
    for p in sub.choices.values():  # `--src` after the subcommand too (`trufflehog DIR --src OLD_SRC`)
        p.add_argument("--src", type=Path, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    sys.path.insert(0, str(args.src or ROOT / "src"))
    {
        "eval": cmd_eval,
        "gitleaks": cmd_gitleaks,
        "trufflehog": cmd_trufflehog,
        "scan": cmd_scan,
        "speed": cmd_speed,
        "weak-names": cmd_weak_names,
        "rules": cmd_rules,
    }[args.command](args)


if __name__ == "__main__":
    main()
