"""Scan many transcript files on every core, with the same result as one process reading them in order.

The X-ray reads every line of every transcript; on 100 MB that is about a second of Python.
Files are split into contiguous runs of the sorted list (balanced by size), each run but the
first is scanned in a forked process that sends its part back through a pipe as marshal bytes of
plain tuples (the 26k entries of 100 MB of Codex rollouts: 0.10 s there and back, pickled
0.31 s), and the parts are merged in file order: Claude Code's usage entries are concatenated
before deduplication, side facts are appended, first-seen cwd and folder per session kept, and
Codex / Gemini entries deduplicated again across runs by their keys, first run first. The Codex
tool outputs are read apart, in file order, by the last process once its part is sent (through a
temporary file, so it never waits for this one): this process merges and analyzes meanwhile and
takes them when the report needs them (`Dataset.late`); that process gets about 0.4 times the usage bytes of
another (LATE_SHARE). Several processes above MIN_BYTES, on every usable core unless
CAIRN_XRAY_WORKERS says otherwise (see `workers`), where fork is safe (not macOS); otherwise one
process does it all.
"""

from __future__ import annotations

import io
import marshal
import os
import signal
import sys
import tempfile
from collections.abc import Callable
from itertools import compress
from operator import attrgetter, not_
from pathlib import Path

from cairn.errors import CairnError
from cairn.sessions.transcript import CODEX, GEMINI, agent_of
from cairn.sessions.usage import Compaction, Dataset, ToolResult, Turn, add_tool_totals, scan_file

MIN_BYTES = 16_000_000  # below this, starting a second process costs more than it saves
MAX_WORKERS = 4
LATE_SHARE = 0.4  # the usage bytes of the process that also reads the Codex tool outputs, against another's (bench/xray_balance.py, docs/benchmarks.md#xray)

TYPE_CHECKING = False  # not typing's: importing typing costs the X-ray's start ~3 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import BinaryIO

Part = tuple[Dataset, list[Turn], list[Turn], list[tuple], list[str]]


def scan_run(files: list[Path], *, keyed: bool = True, codex_tools: bool = True, tool_rows: bool = True) -> Part:
    """(side facts, Claude usage entries before dedup, Codex/Gemini entries, their keys, the Codex
    rollouts whose tool outputs are left out) of a run of files; `keyed=False` (a run that is merged
    with no other) collects no keys; `codex_tools=False` leaves the Codex tool outputs out (read
    apart: `_codex_tools`, `_LateTools`); `tool_rows=False` counts them by tool (Dataset.tool_totals)."""
    ds = Dataset(tool_rows=tool_rows)
    claude: list[Turn] = []
    other: list[Turn] = []
    keys: list[tuple] = []
    codex: list[str] = []
    keys_to = keys if keyed else None
    seen: dict[str, set] = {CODEX: set(), GEMINI: set()}
    for f in files:
        agent = agent_of(f)
        try:
            if agent == CODEX:
                from cairn.sessions.codex_usage import scan_codex_file

                scan_codex_file(f, ds, other, seen[CODEX], keys_to, tools=codex_tools)
                if not codex_tools:
                    codex.append(str(f))
            elif agent == GEMINI:
                from cairn.sessions.gemini_usage import scan_gemini_file

                scan_gemini_file(f, ds, other, seen[GEMINI], keys_to)
            else:
                scan_file(f, ds, claude)
        except OSError as exc:
            raise CairnError(f"cannot read {f}: {exc.strerror or exc}") from None
    return ds, claude, other, keys, codex


def _runs(files: list[Path], sizes: list[int], n: int, last_share: float = 1.0) -> list[list[Path]]:
    """`files` cut into at most `n` contiguous runs of about equal bytes, the last one `last_share`
    times the others' (the process that also reads every Codex tool output takes less usage)."""
    total = sum(sizes)
    weights = [1.0] * (n - 1) + [last_share]
    ends = [total * sum(weights[: k + 1]) / sum(weights) for k in range(n)]  # where each run's bytes end
    runs: list[list[Path]] = [[]]
    acc = 0
    for f, size in zip(files, sizes, strict=True):
        if acc >= ends[len(runs) - 1] and len(runs) < n and runs[-1]:
            runs.append([])
        runs[-1].append(f)
        acc += size
    return runs


def _can_fork() -> bool:
    return hasattr(os, "fork") and sys.platform != "darwin"  # macOS: fork after some imports is unsafe


def workers() -> int:
    """Processes to use: CAIRN_XRAY_WORKERS (a number, or `auto`), else the usable cores, at most 4.

    Every core by default, as ccusage does. On the 2-core machine of docs/benchmarks.md#xray
    (its log), idle: 100 MB of Claude Code transcripts 0.46 s against 0.58 s in one process,
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
_AGENT = attrgetter("agent")


def _encode(part: Part) -> bytes:
    """A run's result as marshal bytes: plain tuples, which cross a pipe far faster than pickled objects."""
    ds, claude, other, keys, codex = part
    get = attrgetter(*_FIELDS)
    return marshal.dumps(
        (
            [(r.session_id, r.ts, r.tool, r.chars) for r in ds.tool_results],
            ds.tool_totals,
            [(c.session_id, c.ts, c.trigger, c.pre_tokens, c.is_subagent) for c in ds.compactions],
            ds.session_cwd,
            ds.session_dir,
            ds.bad_lines,
            [get(t) for t in claude],
            [get(t) for t in other],
            keys,
            codex,
        )
    )


def _decode(data: bytes) -> Part:
    tools, totals, comps, cwd, folders, bad, claude, other, keys, codex = marshal.loads(data)
    ds = Dataset(
        tool_results=[ToolResult(*r) for r in tools],
        compactions=[Compaction(*c) for c in comps],
        session_cwd=cwd,
        session_dir=folders,
        bad_lines=bad,
        tool_totals=totals,
    )
    return ds, [Turn(*t) for t in claude], [Turn(*t) for t in other], keys, codex


def _codex_tools(files: list[Path], ds: Dataset, rows: list[tuple] | None = None) -> None:
    """Every Codex tool output of `files` (the Codex rollouts among them) into ds (or `rows`, as
    plain tuples), read in order as one process reads them."""
    from cairn.sessions.codex_usage import scan_codex_tools

    seen: set[tuple] = set()
    for f in files:
        if agent_of(f) != CODEX:
            continue
        try:
            scan_codex_tools(f, ds, seen, rows)
        except OSError as exc:
            raise CairnError(f"cannot read {f}: {exc.strerror or exc}") from None


def _late_rows(files: list[Path], tool_rows: bool = True) -> bytes:
    """The Codex tool outputs of `files` as marshal bytes of four columns (session ids, times, tools,
    characters), their counts by tool and the bad line count: read as plain tuples, not ToolResults,
    and sent as columns, which cross faster than rows and become ToolResults in one `map`
    (docs/benchmarks.md#xray). `tool_rows=False`: only the counts by tool, no column."""
    ds = Dataset(tool_rows=tool_rows)
    rows: list[tuple] = []
    _codex_tools(files, ds, rows)
    columns = tuple(zip(*rows, strict=True)) if rows else ((), (), (), ())
    return marshal.dumps((*columns, ds.tool_totals, ds.bad_lines))


def _message(make: Callable[[], bytes]) -> bytes:
    """Status byte (0 = done, 1 = a CairnError's message follows), 8-byte length, then the body."""
    try:
        status, body = b"\0", make()
    except CairnError as exc:
        status, body = b"\1", str(exc).encode("utf-8", "surrogatepass")
    return status + len(body).to_bytes(8, "little") + body


def _read_message(fh: BinaryIO) -> bytes:
    head = fh.read(9)
    body = fh.read(int.from_bytes(head[1:], "little")) if len(head) == 9 else b""
    if len(head) < 9 or head[:1] not in (b"\0", b"\1") or len(body) != int.from_bytes(head[1:], "little"):
        raise CairnError("a transcript-scanning process failed (set CAIRN_XRAY_WORKERS=1 to scan in one)")
    if head[:1] == b"\1":
        raise CairnError(body.decode("utf-8", "surrogatepass"))
    return body


def _scan_in_child(
    files: list[Path], tool_files: list[Path] | None = None, spill: BinaryIO | None = None, tool_rows: bool = True
) -> tuple[int, int]:
    """(pid, read end of a pipe) of a forked process scanning `files` without their Codex tool
    outputs; it writes that part as a message (`_message`) to the pipe, or, given `spill` (a
    temporary file), to that file and a byte to the pipe, so that it never waits for the reader;
    then, given `tool_files`, their Codex tool outputs (`_codex_tools`) as a second message to the
    pipe; then it exits."""
    r, w = os.pipe()
    pid = os.fork()
    if pid:
        os.close(w)
        return pid, r
    code = 0
    try:  # the child: never returns into the caller's code
        os.close(r)
        with os.fdopen(w, "wb") as fh:
            first = _message(lambda: _encode(scan_run(files, codex_tools=False)))
            if spill is not None:
                spill.write(first)
                spill.flush()
                fh.write(b"\0")  # "the part is in the file"
            else:
                fh.write(first)
            fh.flush()  # the parent merges it while this process reads the tool outputs
            if tool_files is not None and first[:1] == b"\0":
                fh.write(_message(lambda: _late_rows(tool_files, tool_rows)))
    except BaseException:  # noqa: BLE001 - the parent reports a child that wrote nothing
        code = 1
    finally:
        os._exit(code)


def _spill_file() -> BinaryIO | None:
    """A temporary file (deleted on close) for a child's part, or None if none can be made (then the pipe)."""
    try:
        return tempfile.TemporaryFile()
    except OSError:
        return None


def _collect(pid: int, fd: int) -> Part:
    with os.fdopen(fd, "rb") as fh:
        data = _read_message(fh)
    os.waitpid(pid, 0)
    return _decode(data)


class _LateTools:
    """The Codex tool outputs a forked process reads while this one merges and analyzes: called,
    (their ToolResults, their counts by tool, the lines they found bad), read once. Dropped unread
    (an error before the report), the process is stopped and reaped."""

    def __init__(self, pid: int, fh: BinaryIO) -> None:
        self._pid: int | None = pid
        self._fh = fh
        self._got: tuple[list[ToolResult], dict[str, list[int]], int] | None = None

    def __call__(self) -> tuple[list[ToolResult], dict[str, list[int]], int]:
        if self._got is None:
            if self._pid is None:
                raise CairnError("a transcript-scanning process failed (set CAIRN_XRAY_WORKERS=1 to scan in one)")
            try:
                *columns, totals, bad = marshal.loads(_read_message(self._fh))
            finally:
                self._reap()
            self._got = (list(map(ToolResult, *columns)), totals, bad)  # the parent waits here: no Python loop
        return self._got

    def _reap(self, stop: bool = False) -> None:
        if self._pid is None:
            return
        pid, self._pid = self._pid, None
        if stop:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        self._fh.close()
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass

    def __del__(self) -> None:
        try:
            self._reap(stop=True)
        except Exception:  # noqa: BLE001 - at interpreter exit there is nothing left to tell
            pass


def scan_all(files: list[Path], ds: Dataset) -> tuple[list[Turn], list[Turn]]:
    """Scan `files` (sorted) into `ds`; returns (Claude entries before dedup, deduplicated Codex/Gemini entries).

    On several processes, the last one reads every Codex tool output after its part of the usage,
    while this process merges and goes on: `ds.late` gives them (Dataset.complete)."""
    n = workers()
    sizes = [] if n < 2 else [_size(f) for f in files]
    if n < 2 or sum(sizes) < MIN_BYTES or len(files) < 2 or not _can_fork():
        part, lone_claude, lone_other, _, _ = scan_run(
            files, keyed=False, tool_rows=ds.tool_rows
        )  # one run: its Codex / Gemini entries are unique
        _merge_side_facts(ds, part)
        return lone_claude, lone_other
    # Codex rollouts are named so (agent_of opens no file for them); the process reading their tool
    # outputs late finds them among all files with agent_of. No such name (Claude Code, Gemini CLI,
    # or a Codex rollout named otherwise): the runs say which files are Codex's and this process reads
    # their tool outputs after the merge.
    late = any(f.name.startswith("rollout-") for f in files)
    runs = _runs(files, sizes, n, LATE_SHARE if late else 1.0)
    late = late and len(runs) > 1
    spill = _spill_file() if late else None
    children = [
        _scan_in_child(run, files, spill, ds.tool_rows) if late and k == len(runs) - 1 else _scan_in_child(run)
        for k, run in enumerate(runs[1:], 1)
    ]
    late_tools: _LateTools | None = None
    try:
        parts = [scan_run(runs[0], codex_tools=False)]  # this process takes the first run
    finally:  # collected even when this run fails, so no child is left behind
        results = []
        error: CairnError | None = None
        for k, (pid, fd) in enumerate(children, 1):
            try:
                if late and k == len(runs) - 1:
                    fh = os.fdopen(fd, "rb")
                    late_tools = _LateTools(pid, fh)  # reaped even if its first message fails
                    if spill is not None:
                        if fh.read(1) != b"\0":
                            _read_message(io.BytesIO())  # the process failed: its error
                        spill.seek(0)
                    results.append(_decode(_read_message(spill or fh)))
                else:
                    results.append(_collect(pid, fd))
            except CairnError as exc:
                error = error or exc
        if spill is not None:
            spill.close()
    if error is not None:
        raise error
    parts += results
    claude: list[Turn] = []
    other: list[Turn] = []
    seen: set[tuple] = set()
    for part, c, o, keys, _ in parts:
        claude.extend(c)
        tags = list(zip(map(_AGENT, o), keys, strict=True))  # unique within a run: scan_run drops its own copies
        other.extend(compress(o, map(not_, map(seen.__contains__, tags))) if seen else o)  # in C, no loop
        seen.update(tags)
        _merge_side_facts(ds, part)
    if late:
        ds.late = late_tools
    else:
        _codex_tools([Path(p) for *_, codex in parts for p in codex], ds)
    return claude, other


def _merge_side_facts(ds: Dataset, part: Dataset) -> None:
    ds.tool_results.extend(part.tool_results)
    add_tool_totals(ds.tool_totals, part.tool_totals)
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
