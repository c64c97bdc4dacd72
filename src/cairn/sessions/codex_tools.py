"""The tool output of a Codex CLI rollout entering the context: each output's size, named by its call.

Each `response_item` of type `function_call_output` / `custom_tool_call_output` is one tool
output; its size is the length of its `output` text as written (a string; for a list of content
items, the lengths of their texts), named by the `function_call` / `custom_tool_call` /
`local_shell_call` (`shell`) of the same `call_id` last written before it in the file (else
`unknown`); an output equal in (timestamp, call_id) to one already seen in another file (a copied
or forked rollout) is counted once, as codex_usage.py counts the usage events.

Calls and outputs are read in one walk over the buffer, in file order: every line holding
`_call` (the markers `_call"` of the call types and `_call_output"` of the output types share it)
is read once; a call line's name is noted under its call_id, so an output's name is a dictionary
look-up. The far more numerous other lines are never looked at in Python.
"""

from __future__ import annotations

from collections.abc import Callable, Container
from datetime import datetime

import orjson

from cairn.sessions.usage import Dataset, ToolResult, parse_timestamp
from cairn.util.jsonl import parse_line

_HIT = b"_call"
_OUTPUT = b'_call_output"'  # function_call_output, custom_tool_call_output
_CALL = b'_call"'  # function_call, custom_tool_call, local_shell_call: their type values end so
_OUTPUT_KINDS = ("function_call_output", "custom_tool_call_output")
_CALL_KINDS = ("function_call", "custom_tool_call", "local_shell_call")
_QUOTE, _UNDERSCORE = 34, 95  # '"', '_'
from_iso = datetime.fromisoformat


def output_chars(output: object) -> int:
    """Characters of a tool output's text: a string, or the texts of a list of content items
    (an image counts nothing), or the `content` / `output` of an object holding either."""
    if isinstance(output, str):
        return len(output)
    if isinstance(output, list):
        return sum(len(b["text"]) for b in output if isinstance(b, dict) and isinstance(b.get("text"), str))
    if isinstance(output, dict):
        inner = output.get("content", output.get("output"))
        return 0 if isinstance(inner, dict) else output_chars(inner)
    return 0


def call_name(payload: dict) -> str:
    """The tool name of a call's payload (its type one of the call kinds)."""
    name = payload.get("name")
    if type(name) is str and name:
        return name
    return "shell" if payload.get("type") == "local_shell_call" else "?"


def tool_outputs(
    data: bytes,
    sid: str,
    ds: Dataset,
    seen: set[tuple],
    usage_lines: Container[int] | None = None,
    rows: list[tuple] | None = None,
) -> None:
    """Append to ds.tool_results the size of each tool output of a rollout, named by its call.

    `seen` holds the ("tool", timestamp, call_id) of the outputs already counted (this file's are
    added). A line holding the output marker that fails to parse counts as bad here unless it is
    one of `usage_lines` (the usage pass counts it). Given `rows`, each output goes there as a plain
    (session_id, ts, tool, chars) tuple instead (scan_pool.py sends them to another process). When
    `ds.tool_rows` is False, each is only counted in ds.tool_totals by tool, its time not parsed."""
    find, rfind = data.find, data.rfind
    loads = orjson.loads
    size = len(data)
    append: Callable[..., None] = ds.tool_results.append if rows is None else rows.append
    plain = rows is not None
    totals = None if ds.tool_rows else ds.tool_totals
    names: dict[str, str] = {}  # call_id -> tool name, from the call lines read so far
    i = find(_HIT)
    while i != -1:
        start = rfind(b"\n", 0, i) + 1
        end = find(b"\n", i)
        if end == -1:
            end = size
        at, i = i, find(_HIT, end)
        # which marker the line holds: the byte after its first `_call` says so in the usual case
        after = data[at + 5] if at + 5 < end else 0
        if after == _QUOTE:
            is_call, is_out = True, None  # None: not looked for (yet)
        elif after == _UNDERSCORE and data[at + 5 : at + 13] == b'_output"':
            is_call, is_out = None, True
        else:
            is_out = find(_OUTPUT, at, end) != -1
            is_call = find(_CALL, at, end) != -1
            if not (is_out or is_call):
                continue
        try:
            rec = loads(data[start:end])
        except (ValueError, UnicodeDecodeError, RecursionError):
            rec = parse_line(data[start:end])  # a cut emoji (lone surrogate): U+FFFD, the line still counts
        if rec is None:
            if is_out is None:
                is_out = find(_OUTPUT, at, end) != -1
            if is_out and (usage_lines is None or start not in usage_lines):
                ds.bad_lines += 1
            continue
        try:
            if rec["type"] != "response_item":
                continue
            payload = rec["payload"]
            kind = payload["type"]
        except (KeyError, TypeError, IndexError):  # not a dict, no such key, a list...
            continue
        if type(rec) is not dict or type(payload) is not dict:
            continue
        if kind in _OUTPUT_KINDS:
            if is_out is None:
                is_out = find(_OUTPUT, at, end) != -1
            if not is_out:
                continue  # its type written with escapes: not one of the lines the marker finds
            cid = payload.get("call_id")
            stamp = rec.get("timestamp")
            if type(cid) is str:
                if type(stamp) is str:
                    key = ("tool", stamp, cid)
                    if key in seen:
                        continue
                    seen.add(key)
                name = names.get(cid, "unknown")
            else:
                name = "unknown"
            if totals is not None:
                output = payload.get("output")
                chars = len(output) if type(output) is str else output_chars(output)
                have = totals.get(name)
                if have is None:
                    totals[name] = [1, chars]
                else:
                    have[0] += 1
                    have[1] += chars
                continue
            if type(stamp) is str and stamp.find("Z") == len(stamp) - 1:
                try:  # parse_timestamp's usual case, inlined: this runs once per output
                    when = from_iso(stamp)
                    ts = when.timestamp() if when.tzinfo is not None else 0.0
                except ValueError:
                    ts = 0.0
            else:
                ts = parse_timestamp(stamp) or 0.0
            output = payload.get("output")
            chars = len(output) if type(output) is str else output_chars(output)
            append((sid, ts, name, chars) if plain else ToolResult(sid, ts, name, chars))
        elif kind in _CALL_KINDS:
            if is_call is None:
                is_call = find(_CALL, at, end) != -1
            if not is_call:
                continue
            cid = payload.get("call_id")
            if type(cid) is str:
                given = payload.get("name")
                names[cid] = given if type(given) is str and given else call_name(payload)
