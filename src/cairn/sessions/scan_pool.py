"""Scan many transcript files on every core, with the same result as one process reading them in order.

The X-ray reads every line of every transcript; on 100 MB that is about a second of Python.
Files are split into contiguous runs of the sorted list (balanced by size), each run but the
first is scanned in a forked process that sends its part back through a pipe as marshal bytes of
plain tuples (the 26k entries of 100 MB of Codex rollouts: 0.10 s there and back, pickled
0.31 s), and the parts are merged in file order: Claude Code's usage entries are concatenated
before deduplication, side facts are appended, first-seen cwd and folder per session kept, and
Codex / Gemini entries and Codex tool outputs deduplicated again across runs by their keys, first run first. Several
processes above MIN_BYTES, on every usable core unless CAIRN_XRAY_WORKERS says otherwise (see
`workers`), where fork is safe (not macOS); otherwise one process does it all.
"""

from __future__ import annotations

import marshal
import os
import sys
from operator import attrgetter
from pathlib import Path

from cairn.errors import CairnError
from cairn.sessions.transcript import CODEX, GEMINI, agent_of
from cairn.sessions.usage import Compaction, Dataset, ToolResult, Turn, scan_file

MIN_BYTES = 16_000_000  # below this, starting a second process costs more than it saves
MAX_WORKERS = 4

Part = tuple[Dataset, list[Turn], list[Turn], list[tuple], list[tuple]]


def scan_run(files: list[Path], *, keyed: bool = True) -> Part:
    """(side facts, Claude usage entries before dedup, Codex/Gemini entries, their keys, and
    (position in the side facts' tool_results, key) of each Codex tool output) of a run of files;
    `keyed=False` (a run that is merged with no other) collects no keys."""
    ds = Dataset()
    claude: list[Turn] = []
    other: list[Turn] = []
    keys: list[tuple] = []
    tool_keys: list[tuple] = []
    keys_to, tool_keys_to = (keys, tool_keys) if keyed else (None, None)
    seen: dict[str, set] = {CODEX: set(), GEMINI: set()}
    for f in files:
        agent = agent_of(f)
        try:
            if agent == CODEX:
                from cairn.sessions.codex_usage import scan_codex_file

                scan_codex_file(f, ds, other, seen[CODEX], keys_to, tool_keys_to)
            elif agent == GEMINI:
                from cairn.sessions.gemini_usage import scan_gemini_file

                scan_gemini_file(f, ds, other, seen[GEMINI], keys_to)
            else:
                scan_file(f, ds, claude)
        except OSError as exc:
            raise CairnError(f"cannot read {f}: {exc.strerror or exc}") from None
    return ds, claude, other, keys, tool_keys


def _runs(files: list[Path], sizes: list[int], n: int) -> list[list[Path]]:
    total = sum(sizes)
    runs: list[list[Path]] = [[]]
    acc = 0
    for f, size in zip(files, sizes, strict=True):
        if acc >= total * len(runs) / n and len(runs) < n and runs[-1]:
            runs.append([])
        runs[-1].append(f)
        acc += size
    return runs


def _can_fork() -> bool:
    return hasattr(os, "fork") and sys.platform != "darwin"  # macOS: fork after some imports is unsafe


def workers() -> int:
    """Processes to use: CAIRN_XRAY_WORKERS (a number, or `auto`), else the usable cores, at most 4.

    Every core by default, as ccusage does. On the 2-core machine of docs/benchmarks.md
    (section 16), idle: 100 MB of Claude Code transcripts 0.46 s against 0.58 s in one process,
    Codex 0.92 s against 1.11 s; under the load of other agents it was about even. `1` scans in
    this process alone.
    """
    env = os.environ.get("CAIRN_XRAY_WORKERS", "").strip().lower()
    if env.isdigit() and int(env) > 0:
        return min(int(env), MAX_WORKERS)
    try:
        return max(1, min(len(os.sched_getaffinity(0)), MAX_WORKERS))
    except AttributeError:  # not Linux
        return max(1, min(os.cpu_count() or 1, MAX_WORKERS))


_FIELDS = tuple(Turn.__slots__)


def _encode(part: Part) -> bytes:
    """A run's result as marshal bytes: plain tuples, which cross a pipe far faster than pickled objects."""
    ds, claude, other, keys, tool_keys = part
    get = attrgetter(*_FIELDS)
    return marshal.dumps((
        [(r.session_id, r.ts, r.tool, r.chars) for r in ds.tool_results],
        [(c.session_id, c.ts, c.trigger, c.pre_tokens, c.is_subagent) for c in ds.compactions],
        ds.session_cwd, ds.session_dir, ds.bad_lines,
        [get(t) for t in claude], [get(t) for t in other], keys, tool_keys,
    ))


def _decode(data: bytes) -> Part:
    tools, comps, cwd, folders, bad, claude, other, keys, tool_keys = marshal.loads(data)
    ds = Dataset(tool_results=[ToolResult(*r) for r in tools], compactions=[Compaction(*c) for c in comps],
                 session_cwd=cwd, session_dir=folders, bad_lines=bad)
    return ds, [Turn(*t) for t in claude], [Turn(*t) for t in other], keys, tool_keys


def _scan_in_child(files: list[Path]) -> tuple[int, int]:
    """(pid, read end of a pipe) of a forked process scanning `files`; it writes a status byte
    (0 = done, 1 = a CairnError's message follows) and the encoded result, then exits."""
    r, w = os.pipe()
    pid = os.fork()
    if pid:
        os.close(w)
        return pid, r
    code = 0
    try:  # the child: never returns into the caller's code
        os.close(r)
        try:
            out = b"\0" + _encode(scan_run(files))
        except CairnError as exc:
            out = b"\1" + str(exc).encode("utf-8", "surrogatepass")
        with os.fdopen(w, "wb") as fh:
            fh.write(out)
    except BaseException:  # noqa: BLE001 - the parent reports a child that wrote nothing
        code = 1
    finally:
        os._exit(code)


def _collect(pid: int, fd: int) -> Part:
    with os.fdopen(fd, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    if data[:1] == b"\1":
        raise CairnError(data[1:].decode("utf-8", "surrogatepass"))
    if data[:1] != b"\0":
        raise CairnError("a transcript-scanning process failed (set CAIRN_XRAY_WORKERS=1 to scan in one)")
    return _decode(data[1:])


def scan_all(files: list[Path], ds: Dataset) -> tuple[list[Turn], list[Turn]]:
    """Scan `files` (sorted) into `ds`; returns (Claude entries before dedup, deduplicated Codex/Gemini entries)."""
    n = workers()
    sizes = [] if n < 2 else [_size(f) for f in files]
    if n < 2 or sum(sizes) < MIN_BYTES or len(files) < 2 or not _can_fork():
        part, lone_claude, lone_other, _, _ = scan_run(files, keyed=False)  # one run: its Codex / Gemini entries are unique
        _merge_side_facts(ds, part)
        return lone_claude, lone_other
    else:
        runs = _runs(files, sizes, n)
        children = [_scan_in_child(run) for run in runs[1:]]
        try:
            parts = [scan_run(runs[0])]  # this process takes the first run
        finally:  # collected even when this run fails, so no child is left behind
            results = []
            error: CairnError | None = None
            for pid, fd in children:
                try:
                    results.append(_collect(pid, fd))
                except CairnError as exc:
                    error = error or exc
        if error is not None:
            raise error
        parts += results
    claude: list[Turn] = []
    other: list[Turn] = []
    seen: set[tuple] = set()
    for part, c, o, keys, tool_keys in parts:
        claude.extend(c)
        for turn, key in zip(o, keys, strict=True):
            if (turn.agent, key) not in seen:
                seen.add((turn.agent, key))
                other.append(turn)
        copies = set()  # Codex tool outputs already counted from an earlier run
        for at, key in tool_keys:
            if key in seen:
                copies.add(at)
            seen.add(key)
        if copies:
            part.tool_results = [r for i, r in enumerate(part.tool_results) if i not in copies]
        _merge_side_facts(ds, part)
    return claude, other


def _merge_side_facts(ds: Dataset, part: Dataset) -> None:
    ds.tool_results.extend(part.tool_results)
    ds.compactions.extend(part.compactions)
    for sid, cwd in part.session_cwd.items():
        ds.session_cwd.setdefault(sid, cwd)
    for sid, folder in part.session_dir.items():
        ds.session_dir.setdefault(sid, folder)
    ds.bad_lines += part.bad_lines


def _size(f: Path) -> int:
    try:
        return f.stat().st_size
    except OSError:
        return 0
