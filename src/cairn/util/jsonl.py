"""Read JSON Lines from a byte offset, tolerating files that are still being written.

Only complete lines (ending in a newline) are consumed, so a reader can remember the offset it
reached and resume there later; a broken line is skipped (and counted), never fatal. A line is
broken when it is not a JSON object, nests deeper than the decoder allows, or its text cannot be
stored: invalid UTF-8 and lone UTF-16 surrogates (JavaScript writes `"\\ud83d"` when it cuts an
emoji in half) become U+FFFD instead, so the rest of the line is kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPES = (
    b"\\ud8",
    b"\\ud9",
    b"\\uda",
    b"\\udb",
    b"\\udc",
    b"\\udd",
    b"\\ude",
    b"\\udf",
    b"\\uD8",
    b"\\uD9",
    b"\\uDA",
    b"\\uDB",
    b"\\uDC",
    b"\\uDD",
    b"\\uDE",
    b"\\uDF",
)


def _clean(text: str) -> str:
    """`text` with lone surrogates replaced by U+FFFD (pairs were already joined by the decoder)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)


def _without_surrogates(obj: Any) -> Any:
    """Every string in a decoded JSON value made encodable; iterative (the value may nest deep)."""
    if isinstance(obj, str):
        return _clean(obj)
    stack = [obj]
    while stack:
        cur = stack.pop()
        items = cur.items() if isinstance(cur, dict) else enumerate(cur)
        fixes: list[tuple[Any, Any, Any]] = []  # (key, new key or None, new value or None)
        for key, val in list(items):
            new_key = _clean(key) if isinstance(key, str) else key
            if isinstance(val, str):
                new_val = _clean(val)
                if new_val is not val or new_key is not key:
                    fixes.append((key, new_key, new_val))
            else:
                if new_key is not key:
                    fixes.append((key, new_key, val))
                if isinstance(val, dict | list):
                    stack.append(val)
        for key, new_key, new_val in fixes:
            if isinstance(cur, dict) and new_key != key:
                del cur[key]
            cur[new_key] = new_val
    return obj


def loads(raw: bytes | str) -> Any:
    """`json.loads`, with invalid UTF-8 and lone surrogates turned into U+FFFD (see the module
    docstring), so every string in the value can be stored. Raises ValueError or RecursionError as
    json.loads does. For JSON kept inside a record's string too (a tool call's arguments)."""
    if isinstance(raw, str):
        text = _clean(raw)
        suspect = "\\u" in text
    else:
        text = raw.decode("utf-8", "replace")
        suspect = b"\\u" in raw and any(e in raw for e in _SURROGATE_ESCAPES)
    obj = json.loads(text)
    return _without_surrogates(obj) if suspect and isinstance(obj, dict | list | str) else obj


def parse_line(raw: bytes | str) -> dict | None:
    """The JSON object on one line, or None when the line is not one (see the module docstring)."""
    try:
        obj = loads(raw)
    except (ValueError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def read_jsonl_from(
    path: Path, offset: int = 0, on_bad: Callable[[int], None] | None = None
) -> Iterator[tuple[int, dict]]:
    """Yield (offset_after_line, record) for each complete, parseable JSON object line.

    The offset yielded is where the next read should start. A trailing line without a newline
    (a file still being written) is left unread. Lines that are not JSON objects are skipped;
    `on_bad(offset_after_line)` hears of each.
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
            obj = parse_line(line)
            if obj is not None:
                yield pos, obj
            elif on_bad is not None:
                on_bad(pos)


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
