"""Logs under CAIRN_HOME/logs: one redacted, size-rotated append for every writer (hooks, MCP, CLI).

`append(name, text)` adds text to `logs/<name>`, moving a file past MAX_LOG_BYTES to `<name>.1`
first (one generation kept); `log_exception(name, headline)` appends a stamped entry with the
current traceback. Secrets are masked (`cairn.redact`) unless the caller writes only numbers
and names (hook timings: `redacted=False`, so the hot path does not load the redactor). Nothing
here ever raises: a log that cannot be written must not break what was being logged.
Stdlib only (the redactor is imported when a text is redacted).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

MAX_LOG_BYTES = 2_000_000


def append(name: str, text: str, *, redacted: bool = True) -> Path | None:
    """Append `text` to CAIRN_HOME/logs/<name> (rotated past MAX_LOG_BYTES); the path, or None."""
    try:
        from cairn.home import logs_dir

        if redacted:
            from cairn.redact import redact

            text = redact(text)
        path = logs_dir() / name
        try:
            if path.stat().st_size > MAX_LOG_BYTES:
                os.replace(path, path.with_name(path.name + ".1"))
        except OSError:
            pass
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)
        return path
    except Exception:
        return None


def log_exception(name: str, headline: str, *, with_traceback: bool = True) -> Path | None:
    """`--- <time> <headline>` and the current traceback (when there is one), redacted, into `name`."""
    try:
        import traceback

        body = traceback.format_exc() if with_traceback else ""
        body = "" if body.strip() == "NoneType: None" else body
        body = body if body.endswith("\n") or not body else body + "\n"
        return append(name, f"--- {time.strftime('%Y-%m-%dT%H:%M:%S')} {headline}\n{body}")
    except Exception:
        return None
