"""`cairn hook EVENT [--inline]`: read the hook JSON on stdin, run the event's handler, answer.

The contract with Claude Code: whatever happens, a hook answers in time with output valid for
its event and exits 0 (the read guard's deliberate deny is the one exit 2). So the runner reads
stdin defensively (a tty, garbage, a non-object: an empty payload), bounds each event with an
alarm, turns every exception into a line in CAIRN_HOME/logs/hooks.log (redacted, never on the
agent's screen), and appends each run's wall time to logs/hook-times.jsonl for `cairn doctor`.
The event comes from the argument, else from `hook_event_name` on stdin.

This module is imported on every prompt and tool call: standard library at the top, the
handler module imported by name only for the event that runs.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import sys
import time

from cairn.agents.hooks.context import HookContext
from cairn.agents.hooks.output import HookResult, render

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import BinaryIO

# event -> handler module (cairn.agents.hooks.<module>.handle(ctx) -> HookResult | None)
HANDLERS = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "prompt_submit",
    "PreToolUse": "pre_tool",
    "PostToolUse": "post_tool",
    "Stop": "stop",
    "PreCompact": "pre_compact",
    "SessionEnd": "session_end",
    "_refresh": "background",  # internal: finish an index refresh SessionStart started
    "_ingest": "background",  # internal: archive a transcript's new tail (started by Stop)
}
# Seconds each event may take before the runner gives up and answers with nothing. Claude Code's
# own limits are far longer (600 s, 30 s for prompts, 1.5 s shared by SessionEnd hooks); ours
# are what an agent should ever wait for cairn.
TIME_LIMITS = {
    "SessionStart": 8.0,
    "UserPromptSubmit": 4.0,
    "PreToolUse": 2.0,
    "PostToolUse": 2.0,
    "Stop": 3.0,
    "PreCompact": 25.0,
    "SessionEnd": 1.2,
    "_refresh": 600.0,
    "_ingest": 600.0,
}
INLINE_LIMITS = {"SessionEnd": 30.0}  # the detached SessionEnd run has time
MAX_STDIN = 32 * 1024 * 1024
TIMES_FILE = "hook-times.jsonl"
ERRORS_FILE = "hooks.log"


class HookTimeout(BaseException):
    """Raised by the alarm; a BaseException so a handler's `except Exception` cannot swallow it."""


def canonical_event(name: str | None) -> str | None:
    """`SessionStart`, `session-start`, `session_start` -> `SessionStart`; None when unknown."""
    if not name:
        return None
    key = name.replace("-", "").replace("_", "").lower()
    for event in HANDLERS:
        if event.replace("_", "").lower() == key:
            return event
    return None


def read_raw(stream: BinaryIO) -> bytes:
    """What is on stdin (bounded), or b"" for a terminal or an unreadable stream."""
    try:
        if stream is None or stream.isatty():
            return b""
        raw = stream.buffer.read(MAX_STDIN) if hasattr(stream, "buffer") else stream.read(MAX_STDIN)
    except (OSError, ValueError):
        return b""
    return raw.encode("utf-8", "replace") if isinstance(raw, str) else raw


def parse_payload(raw: bytes | str) -> dict:
    """The JSON object in `raw`, or {} for nothing, garbage, a non-object or nesting too deep;
    lone surrogates in its strings (`"\\ud83d"`) become U+FFFD, so every field can be written."""
    from cairn.util.jsonl import parse_line

    return parse_line(raw) or {}


def read_payload(stream: BinaryIO) -> dict:
    """The JSON object on stdin, or {} for a terminal, nothing, garbage or a non-object."""
    return parse_payload(read_raw(stream))


def _on_alarm(signum: int, frame: object) -> None:  # noqa: ARG001 - signal handler signature
    raise HookTimeout()


def _bound(seconds: float) -> None:
    if hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)


def _unbound() -> None:
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0)


def log_error(event: str, message: str, *, with_traceback: bool = True) -> None:
    """One redacted entry in CAIRN_HOME/logs/hooks.log (cairn.logs)."""
    from cairn.logs import log_exception

    log_exception(ERRORS_FILE, f"{event}: {message}", with_traceback=with_traceback)


def record_time(event: str, started: float, status: str, project: str | None) -> None:
    from cairn.logs import append

    ms = round((time.perf_counter() - started) * 1000, 1)
    append(
        TIMES_FILE,
        json.dumps({"ts": round(time.time(), 3), "event": event, "ms": ms, "status": status, "project": project})
        + "\n",
        redacted=False,
    )


def run(event: str | None, payload: dict, *, inline: bool = False) -> tuple[str, str, int, str, str | None]:
    """Run one event's handler; (stdout, stderr, exit code, status, project id) where status is
    ok | timeout | error | skipped. Exceptions never escape."""
    event = canonical_event(event) or canonical_event(
        payload.get("hook_event_name") if isinstance(payload.get("hook_event_name"), str) else None
    )
    if event is None:
        return "", "", 0, "skipped", None
    ctx = HookContext(event, payload, inline=inline)
    status = "ok"
    result: HookResult | None = None
    _bound((INLINE_LIMITS.get(event) if inline else None) or TIME_LIMITS.get(event, 5.0))
    try:
        module = importlib.import_module(f"cairn.agents.hooks.{HANDLERS[event]}")
        result = module.handle(ctx)
    except HookTimeout:
        status = "timeout"
        log_error(event, "timed out", with_traceback=False)
    except Exception as exc:  # a hook never breaks the agent: log it, answer with nothing
        status = "error"
        log_error(event, f"{type(exc).__name__}: {exc}")
    finally:
        _unbound()
    try:
        out, err, code = render(event, result)
    except Exception as exc:
        log_error(event, f"render: {type(exc).__name__}: {exc}")
        out, err, code, status = "", "", 0, "error"
    project = ctx.__dict__.get("project")  # only if the handler resolved it: no extra work here
    return out, err, code, status, getattr(project, "id", None)


INLINE_PROCESS = False  # True while `main` answers a hook in this process (codemap/embed.py asks)


def main(argv: list[str] | None = None, raw: bytes | None = None) -> int:
    """Entry point of `cairn hook`; returns the exit code (0, or 2 for a read-guard deny).
    `raw`: stdin, when the hook client (client.py) already read it."""
    global INLINE_PROCESS
    INLINE_PROCESS = True
    try:
        return _main(argv, raw)
    finally:  # not reached when _exit_past_refresh ends the process: the flag holds to the end
        INLINE_PROCESS = False


def _main(argv: list[str] | None, raw: bytes | None) -> int:
    started = time.perf_counter()
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["hook"]:
        args = args[1:]
    inline = "--inline" in args
    names = [a for a in args if not a.startswith("-")]
    if any(a in ("-h", "--help") for a in args):
        sys.stdout.write(
            "usage: cairn hook [EVENT] [--inline] < hook-input.json\n"
            f"events: {', '.join(e for e in HANDLERS if not e.startswith('_'))}\n"
        )
        return 0
    if raw is not None:
        payload = parse_payload(raw)
    else:
        try:
            _bound(5.0)  # a stdin that never closes must not hang the agent
            try:
                payload = read_payload(sys.stdin.buffer)
            finally:
                _unbound()
        except HookTimeout:
            payload = {}
    out, err, code, status, project_id = run(names[0] if names else None, payload, inline=inline)
    from cairn.warm.hook_client import write_answer

    write_answer(out, err)
    if status != "skipped":
        event = canonical_event(names[0] if names else None) or canonical_event(str(payload.get("hook_event_name")))
        record_time(f"{event}{'+inline' if inline else ''}", started, status, project_id)
    _exit_past_refresh(code)
    return code


def _exit_past_refresh(code: int) -> None:
    """If SessionStart's index refresh overran (a detached run is finishing it), exit now rather
    than wait for the thread; everything this process had to say is already written."""
    threads = sys.modules.get("threading")
    if threads is None:
        return
    from cairn.agents.hooks.session_start import REFRESH_THREAD

    if any(t.name == REFRESH_THREAD and t.is_alive() for t in threads.enumerate()):
        os._exit(code)


if __name__ == "__main__":
    raise SystemExit(main())
