"""Run the seeded fuzz cases of fuzzgen.py against cairn, in process, and count the failures.

A failure is a broken contract, never an input refused as such:

- hook: an exception out of the runner, an exit code other than 0 (2 only for a PreToolUse deny),
  output that is not the event's JSON shape or not UTF-8, a handler error or timeout logged;
- transcript: ingest raising, a line after the broken one not archived, or a transcript reader
  (hook tail reader, digest, X-ray) raising;
- note: loading the vault raising, the good note beside it lost, a loaded note that list, doctor,
  read, memory-md or the knowledge index cannot handle;
- config: anything but a one-line config error (CairnError) from the commands that read the
  config (`load_config`, `check_config`, `memory list`, `index` + `search` on a share), or hook
  settings of the wrong type after merging (a wrong type must keep the default, never switch a
  feature off).

Used by tests/fuzz/test_fuzz.py (a CI-sized run) and bench/fuzz.py (the counts in the docs).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

from fuzzgen import config_text, hook_case, note_text, rng_for, transcript_line

FILES = {
    "README.md": "# Shop\n\nA tiny shop: carts, coupons and invoices.\n",
    "src/shop/__init__.py": "",
    "src/shop/cart.py": "from shop.coupons import apply_coupon\n\n\nclass Cart:\n    def total(self, items):\n"
    "        return sum(i.price for i in items)\n\n    def checkout(self, code):\n"
    "        return apply_coupon(self, code)\n",
    "src/shop/coupons.py": 'def apply_coupon(cart, code):\n    """Apply a discount coupon."""\n    return cart\n',
    "docs/big.txt": "a line of a big file\n" * 6000,
    **{f"src/util/helper_{i}.py": f"def helper_{i}(value):\n    return value + {i}\n" for i in range(6)},
}
GOOD_LINE = (
    '{{"type":"user","uuid":"sentinel-{i}","sessionId":"fuzz-{i}","timestamp":"2026-11-01T10:00:00Z",'
    '"cwd":"/p","message":{{"role":"user","content":"sentinel{i}word after the fuzzed line"}}}}'
)


@dataclass
class Outcome:
    kind: str
    cases: int = 0
    failures: list[tuple[int, str]] = field(default_factory=list)
    seconds: float = 0.0

    def line(self) -> str:
        return f"{self.kind}: {len(self.failures)} failures in {self.cases} cases ({self.seconds:.1f} s)"


def _git(root: Path, *args: str) -> None:
    env = {
        "GIT_AUTHOR_NAME": "f",
        "GIT_AUTHOR_EMAIL": "f@x",
        "GIT_COMMITTER_NAME": "f",
        "GIT_COMMITTER_EMAIL": "f@x",
        "HOME": str(root),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


def make_project(base: Path) -> Path:
    """A small opted-in, indexed git project under `base` (CAIRN_HOME must already be set)."""
    root = base / "shop"
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "initial")
    (root / ".cairn" / "knowledge").mkdir(parents=True)
    from cairn.codemap.indexer import index_project
    from cairn.project import resolve_project

    index_project(resolve_project(root))
    return root


def _cli(*args: str) -> tuple[int, str, str]:
    from cairn.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue()


# ------------------------------------------------------------------ hooks


def _hook_output_ok(event: str | None, out: str, err: str, code: int) -> str | None:
    try:
        out.encode("utf-8")
        err.encode("utf-8")
    except UnicodeEncodeError:
        return "output is not UTF-8"
    if code == 2:
        return None if event == "PreToolUse" and err.strip() and not out else f"exit 2 on {event}"
    if code != 0:
        return f"exit {code}"
    if not out:
        return None
    try:
        data = json.loads(out)
    except ValueError:
        return "stdout is not JSON"
    if not isinstance(data, dict) or not set(data) <= {"hookSpecificOutput", "decision", "reason"}:
        return "stdout has the wrong shape"
    spec = data.get("hookSpecificOutput")
    if spec is not None and (spec.get("hookEventName") != event or not isinstance(spec.get("additionalContext"), str)):
        return "hookSpecificOutput names another event"
    return None


def fuzz_hooks(base: Path, n: int, seed: int) -> Outcome:
    from cairn.agents.hooks import background, runner
    from cairn.home import logs_dir

    res = Outcome("hook stdin")
    root = make_project(base / "hooks")
    transcripts = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"
    transcript = base / "hooks" / "t.jsonl"
    shutil.copy(transcripts / "short.jsonl", transcript)
    bad = base / "hooks" / "bad.jsonl"
    bad.write_bytes(b"\n".join(transcript_line(rng_for("hook-transcript", seed, i)) for i in range(200)) + b"\n")
    (base / "hooks" / "empty").mkdir()
    ctx = {
        "project": str(root),
        "subdir": str(root / "src" / "shop"),
        "file": str(root / "src" / "shop" / "cart.py"),
        "big_file": str(root / "docs" / "big.txt"),
        "empty": str(base / "hooks" / "empty"),
        "transcript": str(transcript),
        "bad_transcript": str(bad),
    }
    log = logs_dir() / runner.ERRORS_FILE
    real_spawn = background.spawn_hook
    background.spawn_hook = lambda event, payload: None  # detached work is run inline by some cases instead
    t0 = time.perf_counter()
    try:
        for i in range(n):
            rng = rng_for("hook", seed, i)
            arg, data = hook_case(rng, ctx)
            before = log.stat().st_size if log.exists() else 0
            try:
                payload = runner.parse_payload(data)
                out, err, code, status, _ = runner.run(arg, payload, inline=rng.random() < 0.3)
            except BaseException as exc:  # noqa: BLE001 - the contract is that nothing escapes
                res.failures.append((i, f"raised {type(exc).__name__}: {exc}"[:300]))
                continue
            finally:
                res.cases += 1
            event = runner.canonical_event(arg) or runner.canonical_event(
                payload.get("hook_event_name") if isinstance(payload.get("hook_event_name"), str) else None
            )
            why = _hook_output_ok(event, out, err, code)
            if why is None and status in ("error", "timeout"):
                tail = log.read_bytes()[before:].decode("utf-8", "replace") if log.exists() else ""
                why = f"{status}: {tail.strip().splitlines()[0] if tail.strip() else ''}"[:300]
            if why:
                res.failures.append((i, why))
    finally:
        background.spawn_hook = real_spawn
        res.seconds = time.perf_counter() - t0
    return res


# ------------------------------------------------------------------ transcript lines


def fuzz_transcripts(base: Path, n: int, seed: int) -> Outcome:
    """Case i: a transcript file holding fuzzed line i, then a good sentinel line; all ingested at
    once, then each sentinel looked up; the hook's and the X-ray's readers run on a sample."""
    from cairn.sessions.archive import ingest_paths, open_archive

    res = Outcome("transcript lines")
    folder = base / "transcripts" / "projects" / "-p"
    folder.mkdir(parents=True)
    t0 = time.perf_counter()
    for i in range(n):
        line = transcript_line(rng_for("transcript", seed, i))
        (folder / f"case-{i:05d}.jsonl").write_bytes(line + b"\n" + GOOD_LINE.format(i=i).encode() + b"\n")
    try:
        ingest_paths([folder])
    except BaseException as exc:  # noqa: BLE001
        res.failures.append((-1, f"ingest raised {type(exc).__name__}: {exc}"[:300]))
    con = open_archive()
    try:
        archived = {r[0] for r in con.execute("SELECT uuid FROM turns WHERE uuid LIKE 'sentinel-%'")}
    finally:
        con.close()
    from cairn.agents.digest import build_digest
    from cairn.agents.hooks.transcript import context_tokens, segment_records
    from cairn.sessions.usage import load_transcripts

    for i in range(n):
        res.cases += 1
        if f"sentinel-{i}" not in archived:
            res.failures.append((i, "the good line after it was not archived"))
            continue
        if i % 4:
            continue
        path = folder / f"case-{i:05d}.jsonl"
        try:
            context_tokens(path)
            build_digest(segment_records(path), None)
            load_transcripts([path])
        except BaseException as exc:  # noqa: BLE001
            res.failures.append((i, f"reader raised {type(exc).__name__}: {exc}"[:300]))
    res.seconds = time.perf_counter() - t0
    return res


# ------------------------------------------------------------------ notes


def fuzz_notes(base: Path, n: int, seed: int) -> Outcome:
    """Case i: note file i in one vault beside a good note; the vault is loaded once (every file
    parsed), then every node that loaded goes through what list, read, doctor and memory-md do."""
    from cairn.codemap.indexer import index_project
    from cairn.codemap.knowledge.graph import find
    from cairn.codemap.knowledge.node import parse, render
    from cairn.memory import load_knowledge_with_problems, node_summary
    from cairn.memory.doctor import diagnose
    from cairn.memory.memory_md import render_block
    from cairn.memory.staleness import stale_files
    from cairn.project import resolve_project

    res = Outcome("notes")
    root = make_project(base / "notes")
    project = resolve_project(root)
    folder = root / ".cairn" / "knowledge"
    good = "---\nid: good-note\ntype: decision\ntitle: Keep the good note\n---\n\nIt must survive.\n"
    (folder / "good-note.md").write_text(good)
    t0 = time.perf_counter()
    for i in range(n):
        (folder / f"fuzz-{i:05d}.md").write_bytes(note_text(rng_for("note", seed, i), i))
    try:
        kn = load_knowledge_with_problems(project)
    except BaseException as exc:  # noqa: BLE001 - find the files that break it, one by one
        res.failures.append((-1, f"load raised {type(exc).__name__}: {exc}"[:300]))
        for i in range(n):
            path = folder / f"fuzz-{i:05d}.md"
            try:
                parse(path.read_bytes().decode("utf-8"), str(path))
            except UnicodeDecodeError:
                pass
            except Exception as exc2:  # noqa: BLE001
                if type(exc2).__name__ != "ParseError":
                    res.failures.append((i, f"parse raised {type(exc2).__name__}: {exc2}"[:300]))
        res.cases, res.seconds = n, time.perf_counter() - t0
        return res
    if find(kn.nodes, "good-note") is None:
        res.failures.append((-1, "the good note was lost"))
    by_case: dict[int, object] = {}
    for node in kn.nodes:
        name = (node.path or "").rsplit("/", 1)[-1]
        if name.startswith("fuzz-"):
            by_case.setdefault(int(name[5:10]), node)
    for i in range(n):
        res.cases += 1
        node = by_case.get(i)
        if node is None:
            continue  # reported as a problem (file:line), which is the contract
        try:
            node_summary(node, stale_files(node, root))
            render(node)
            render_block([node], max_bytes=2000, max_lines=20)
            diagnose([node], [], root)
        except BaseException as exc:  # noqa: BLE001
            res.failures.append((i, f"{type(exc).__name__}: {exc}"[:300]))
    try:
        index_project(project)  # the knowledge rows of the search index and the maps
        code, _out, err = _cli("memory", "doctor", "--root", str(root))
        if "internal error" in err:
            res.failures.append((-1, err.strip()[:300]))
    except BaseException as exc:  # noqa: BLE001
        res.failures.append((-1, f"index raised {type(exc).__name__}: {exc}"[:300]))
    res.seconds = time.perf_counter() - t0
    return res


# ------------------------------------------------------------------ configs


def _settings_ok(root: Path) -> str | None:
    """None when every typed setting (`cairn.config.settings(root)`) has its default's type and a
    sane value after merging: a wrong type must keep the default, never switch a feature off."""
    from cairn.config import Settings, Table, settings

    got, defaults = settings(root), Settings()
    tables: list[tuple[str, Table, Table]] = [
        ("index", got.index, defaults.index),
        ("search", got.search, defaults.search),
    ]
    tables += [
        (f"hooks.{name}", getattr(got.hooks, name), getattr(defaults.hooks, name)) for name in defaults.hooks.__slots__
    ]
    for table, have, want in tables:
        for key in want:
            default, value = want[key], have[key]
            if isinstance(default, bool):
                ok = isinstance(value, bool)
            elif isinstance(default, int | float):
                ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1e15
            elif isinstance(default, tuple):
                ok = isinstance(value, tuple) and all(isinstance(x, str) for x in value)
            else:
                ok = isinstance(value, type(default))
            if not ok:
                return f"[{table}] {key} = {value!r} after merging (a feature silently off or broken)"
    return None


def fuzz_configs(base: Path, n: int, seed: int, full_every: int = 25) -> Outcome:
    """Case i: config i as the project's `.cairn/config.toml` (odd cases: also as the user's);
    every case runs the config readers and `memory list`, every `full_every`th also `index` and
    `search`."""
    from cairn.config import check_config, load_config, user_config
    from cairn.errors import CairnError
    from cairn.home import cairn_home

    res = Outcome("configs")
    root = make_project(base / "configs")
    project_cfg = root / ".cairn" / "config.toml"
    user_cfg = cairn_home() / "config.toml"
    t0 = time.perf_counter()
    try:
        for i in range(n):
            res.cases += 1
            data = config_text(rng_for("config", seed, i))
            project_cfg.write_bytes(data)
            if i % 2:
                user_cfg.write_bytes(data)
            else:
                user_cfg.unlink(missing_ok=True)
            why = None
            for fn in (lambda: load_config(root), lambda: check_config(root), user_config):
                try:
                    fn()
                except CairnError as exc:
                    if "\n" in str(exc):
                        why = f"a config error of several lines: {str(exc)[:200]!r}"
                except BaseException as exc:  # noqa: BLE001
                    why = f"{type(exc).__name__}: {exc}"[:300]
            if why is None:
                why = _settings_ok(root)
            if why is None:
                commands = [["memory", "list", "--root", str(root)]]
                if i % full_every == 0:
                    commands += [["index", "--root", str(root)], ["search", "apply coupon", "--root", str(root)]]
                for args in commands:
                    code, _out, err = _cli(*args)
                    if "internal error" in err or (code != 0 and not err.startswith("cairn: error: ")):
                        why = f"{' '.join(args[:2])}: {err.strip()[:250]}"
                        break
                    if code != 0 and err.count("\n") > 1:
                        why = f"{' '.join(args[:2])}: more than one line: {err.strip()[:250]}"
                        break
            if why:
                res.failures.append((i, why))
    finally:
        project_cfg.unlink(missing_ok=True)
        user_cfg.unlink(missing_ok=True)
        res.seconds = time.perf_counter() - t0
    return res


FUZZERS = {"hook": fuzz_hooks, "transcript": fuzz_transcripts, "note": fuzz_notes, "config": fuzz_configs}


def run_all(base: Path, counts: dict[str, int], seed: int) -> list[Outcome]:
    """Every kind with its case count, each in its own folder under `base`."""
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 1000))
    return [FUZZERS[kind](base / kind, n, seed) for kind, n in counts.items()]
