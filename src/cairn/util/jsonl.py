"""Read JSON Lines from a byte offset, tolerating files that are still being written.

Only complete lines (ending in a newline) are consumed, so a reader can remember the offset it
reached and resume there later; a broken line is skipped, never fatal.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path


def read_jsonl_from(path: Path, offset: int = 0) -> Iterator[tuple[int, dict]]:
    """Yield (offset_after_line, record) for each complete, parseable JSON object line.

    The offset yielded is where the next read should start. A trailing line without a newline
    (a file still being written) is left unread. Lines that are not JSON objects are skipped.
    """
    with open(path, "rb") as fh:
        fh.seek(offset)
        pos = offset
        for raw in fh:
            if not raw.endswith(b"\n"):
                break  # partial last line: wait for the writer to finish it
            pos += len(raw)
            line = raw.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except (ValueError, UnicodeDecodeError):
                continue
            if isinstance(obj, dict):
                yield pos, obj


def read_tail_lines(path: Path, max_bytes: int = 262_144) -> list[bytes]:
    """The complete lines in the last `max_bytes` of a file, oldest first (seek from the end)."""
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        size = fh.tell()
        start = max(0, size - max_bytes)
        fh.seek(start)
        data = fh.read()
    lines = data.split(b"\n")
    if start > 0 and lines:
        lines = lines[1:]  # the first piece is probably a partial line
    return [ln for ln in lines if ln.strip()]
