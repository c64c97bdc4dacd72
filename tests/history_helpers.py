"""Claude Code transcripts of made-up sessions, for the tests of the project's past (request log, co-access)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path


def transcript_lines(
    cwd: Path,
    sid: str,
    steps: list[tuple[str, list[tuple[str, str]]]],
    stamp: Callable[[int], str],
    uid_prefix: str = "00000000",
) -> list[str]:
    """The JSON lines of session `sid` run in `cwd`, as Claude Code 2.1 writes them: each step is a
    prompt, then for each (tool, file) a Read or an Edit of that file and its result. `stamp(n)` is the
    n-th record's timestamp. Shared with bench/history_speed.py (a year of made-up sessions)."""
    lines: list[str] = []
    parent = None
    n = 0

    def rec(**kw: object) -> None:
        nonlocal parent, n
        n += 1
        uid = f"{uid_prefix}-0000-4000-8000-{n:012d}"
        lines.append(
            json.dumps(
                {
                    "isSidechain": False,
                    "userType": "external",
                    "cwd": str(cwd),
                    "sessionId": sid,
                    "version": "2.1.39",
                    "gitBranch": "main",
                    "parentUuid": parent,
                    "uuid": uid,
                    "timestamp": stamp(n),
                    **kw,
                }
            )
        )
        parent = uid

    for prompt, touches in steps:
        rec(type="user", message={"role": "user", "content": prompt})
        for tool, f in touches:
            tid = f"toolu_{n:08d}"
            inp = (
                {"file_path": str(cwd / f), "old_string": "a", "new_string": "b"}
                if tool == "Edit"
                else {"file_path": str(cwd / f)}
            )
            rec(
                type="assistant",
                requestId=f"req_{n:08d}",
                message={
                    "model": "claude-sonnet-4-5",
                    "id": f"msg_{n:08d}",
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": tid, "name": tool, "input": inp}],
                    "stop_reason": "tool_use",
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                },
            )
            rec(
                type="user",
                message={
                    "role": "user",
                    "content": [{"tool_use_id": tid, "type": "tool_result", "content": "(file content)"}],
                },
            )
    return lines


def write_session(
    path: Path,
    cwd: Path,
    sid: str,
    steps: list[tuple[str, list[str]]],
    *,
    edited: set[str] = frozenset(),
    day: str = "2026-01-01",
    cut: bool = False,
) -> Path:
    """A transcript of session `sid` run in `cwd`: each step is a prompt, then a Read (or an Edit, for
    files in `edited`) of each file. `cut`: the last line is cut off mid-record, as a session killed
    while writing."""
    touches = [(prompt, [("Edit" if f in edited else "Read", f) for f in files]) for prompt, files in steps]
    lines = transcript_lines(
        cwd, sid, touches, lambda n: f"{day}T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
    )
    text = "\n".join(lines) + "\n"
    if cut:
        text = text[: len(text) - len(lines[-1]) // 2 - 1]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path
