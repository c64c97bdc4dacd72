"""Pure text edits of agent config files: old text in, new text out, nothing else touched.

Why text in/text out: the caller decides about backups, dry runs and undo; these functions only
have to be right, and each one refuses (raises `NeedsManual`) whenever it cannot edit without
risk (comments in JSON, cairn's table defined in an unusual TOML form, a lone marker), so the
connector prints a snippet for the user instead of guessing. Running an edit on its own output
gives the same text back: that is what makes `cairn connect` idempotent.
"""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from cairn.text.marked import MarkerError, marked, splice_block


class NeedsManual(Exception):
    """This file cannot be edited safely; show the user what to paste instead."""


# ------------------------------------------------------------------ JSON


def json_set(text: str | None, keypath: tuple[str, ...], name: str, entry: dict[str, Any]) -> str:
    """Set obj[keypath...][name] = entry in a strict-JSON document, keeping every other entry."""
    if text is None or not text.strip():
        doc: Any = {}
    else:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise NeedsManual(f"not plain JSON (comments or trailing commas?): {exc.msg} at line {exc.lineno}") from None
    if not isinstance(doc, dict):
        raise NeedsManual("the top level is not a JSON object")
    node = doc
    for key in keypath:
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            raise NeedsManual(f"`{key}` is not a JSON object")
        node = child
    node[name] = entry
    return json.dumps(doc, indent=_indent_of(text), ensure_ascii=False) + "\n"


def _indent_of(text: str | None) -> int:
    """Keep the file's own indentation width (2 when new or unclear)."""
    for line in (text or "").splitlines()[1:]:
        stripped = line.lstrip(" ")
        if stripped and len(line) > len(stripped):
            return min(8, len(line) - len(stripped))
    return 2


def hooks_json_set(text: str | None, commands: dict[str, tuple[str | None, str]], marker: str,
                   timeout: int = 10) -> str:
    """Claude-style hooks JSON (event -> [matcher group]): replace cairn's groups, keep the user's.

    `commands` maps event -> (matcher or None, command line); a group is cairn's when one of
    its commands contains `marker`.
    """
    try:
        doc: Any = json.loads(text) if text and text.strip() else {}
    except json.JSONDecodeError as exc:
        raise NeedsManual(f"not plain JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(doc, dict) or not isinstance(doc.setdefault("hooks", {}), dict):
        raise NeedsManual("expected {\"hooks\": {EVENT: [...]}}")
    hooks = doc["hooks"]
    for event, (matcher, command) in commands.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise NeedsManual(f"hooks.{event} is not a list")
        groups[:] = [g for g in groups if not _is_ours(g, marker)]
        group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, "timeout": timeout}]}
        if matcher:
            group = {"matcher": matcher, **group}
        groups.append(group)
    return json.dumps(doc, indent=_indent_of(text), ensure_ascii=False) + "\n"


def _is_ours(group: Any, marker: str) -> bool:
    return isinstance(group, dict) and any(
        isinstance(h, dict) and marker in str(h.get("command", "")) for h in group.get("hooks", []) or [])


# ------------------------------------------------------------------ TOML


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def _toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def toml_set_table(text: str | None, table: tuple[str, ...], entry: dict[str, Any]) -> str:
    """Replace (or append) the table `[a.b]` and its sub-tables, leaving every other byte alone.

    The result is parsed again and must hold exactly `entry` at `table`; anything else (the table
    defined inline or with dotted keys elsewhere, a broken file) raises NeedsManual.
    """
    text = text or ""
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise NeedsManual(f"the file does not parse as TOML: {exc}") from None
    header = "[" + ".".join(_toml_key(k) for k in table) + "]"
    block = header + "\n" + "".join(f"{_toml_key(k)} = {_toml_value(v)}\n" for k, v in entry.items())
    lines = text.splitlines(keepends=True)
    dotted = ".".join(table)
    own = re.compile(r"^\s*\[\s*" + re.escape(dotted).replace(r"\.", r"\s*\.\s*") + r"\s*(\]|\.)")
    any_header = re.compile(r"^\s*\[")
    out: list[str] = []
    skipped: list[str] = []
    inserted = skipping = False
    for line in lines:
        if any_header.match(line):
            was_skipping, skipping = skipping, bool(own.match(line))
            if was_skipping and not skipping:
                out.extend(_trailing_comments(skipped))
            if skipping and not inserted:
                out.append(block)
                inserted = True
            skipped = []
        if skipping:
            skipped.append(line)
        else:
            out.append(line)
    new = "".join(out)
    if not inserted:
        if new and not new.endswith("\n"):
            new += "\n"
        new += ("\n" if new.strip() else "") + block
    try:
        parsed = tomllib.loads(new)
    except tomllib.TOMLDecodeError as exc:
        raise NeedsManual(f"cairn's table could not be placed safely ({exc})") from None
    node: Any = parsed
    for key in table:
        node = node.get(key) if isinstance(node, dict) else None
    if node != entry:
        raise NeedsManual(f"[{dotted}] is defined in a form cairn does not edit (inline or dotted keys)")
    if _without(parsed, table) != _without(before, table):
        raise NeedsManual("editing cairn's table would change other settings; not touching the file")
    return new


def toml_set_true(text: str | None, table: str, key: str) -> str:
    """Make `[table] key = true` hold by adding one line of cairn's own, never rewriting the user's.

    Already true: the text comes back unchanged. No `table` anywhere: `[table]` and the key are
    appended. One plain `[table]` header: the key goes on the line after it, the table's other
    keys untouched. Anything else (the key set to another value, the table inline, dotted or
    repeated) raises NeedsManual. The result must parse to the old document plus that one key.
    """
    text = text or ""
    try:
        before = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise NeedsManual(f"the file does not parse as TOML: {exc}") from None
    current = before.get(table)
    if isinstance(current, dict) and current.get(key) is True:
        return text
    if current is not None and not isinstance(current, dict):
        raise NeedsManual(f"`{table}` is not a table")
    if isinstance(current, dict) and key in current:
        raise NeedsManual(f"{table}.{key} is set to {_toml_value(current[key])}; cairn does not overrule it")
    line = f"{_toml_key(key)} = true\n"
    if current is None:
        new = text + ("\n" if text and not text.endswith("\n") else "")
        new += ("\n" if new.strip() else "") + f"[{_toml_key(table)}]\n" + line
    else:
        header = re.compile(r"^\s*\[\s*" + re.escape(table) + r"\s*\]\s*(#.*)?$")
        lines = text.splitlines(keepends=True)
        at = [i for i, raw in enumerate(lines) if header.match(raw.rstrip("\r\n"))]
        if len(at) != 1:
            raise NeedsManual(f"[{table}] is defined in a form cairn does not edit (inline or dotted keys)")
        head = lines[at[0]]
        lines[at[0]] = head if head.endswith("\n") else head + "\n"
        lines.insert(at[0] + 1, line)
        new = "".join(lines)
    expected = {**before, table: {**(current or {}), key: True}}
    try:
        if tomllib.loads(new) != expected:
            raise NeedsManual(f"adding {key} to [{table}] would change other settings")
    except tomllib.TOMLDecodeError as exc:
        raise NeedsManual(f"{key} could not be added to [{table}] safely ({exc})") from None
    return new


def _without(doc: dict[str, Any], table: tuple[str, ...]) -> dict[str, Any]:
    """`doc` with the table at `table` removed (and parents left empty by that removed too)."""
    if not table or not isinstance(doc, dict):
        return doc
    out = dict(doc)
    head, rest = table[0], table[1:]
    if head in out:
        if rest:
            out[head] = _without(out[head], rest)
            if out[head] == {}:
                del out[head]
        else:
            del out[head]
    return out


def _trailing_comments(skipped: list[str]) -> list[str]:
    """The blank and comment lines that end a replaced table: they belong to the next table.

    cairn's own tables hold neither, so these are the user's; at least one blank line is kept
    between cairn's table and the next.
    """
    tail: list[str] = []
    for line in reversed(skipped):
        if line.strip() and not line.lstrip().startswith("#"):
            break
        tail.insert(0, line if line.endswith("\n") else line + "\n")
    return tail or ["\n"]


# ------------------------------------------------------------------ marked blocks


def block_set(text: str | None, body: str, start: str, end: str) -> str:
    """Put `body` between `start` and `end` markers: replace the old block or append one
    (`cairn.text.marked`; a lone marker is NeedsManual)."""
    try:
        return splice_block(text, marked(body, start, end), start, end)
    except MarkerError as exc:
        raise NeedsManual(str(exc)) from None
