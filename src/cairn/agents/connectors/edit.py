"""Pure text edits of agent config files: old text in, new text out, nothing else touched.

Why text in/text out: the caller decides about backups, dry runs and undo; these functions only
have to be right, and each one refuses (raises `NeedsManual`) whenever it cannot edit without
risk (comments in JSON, cairn's table defined in an unusual TOML form, a lone marker), so the
connector prints a snippet for the user instead of guessing. Running an edit on its own output
gives the same text back: that is what makes `cairn connect` idempotent.
"""

from __future__ import annotations

import json
import tomllib

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import Table
from tomlkit.toml_document import TOMLDocument

from cairn.text.marked import MarkerError, marked, splice_block

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any


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
            raise NeedsManual(
                f"not plain JSON (comments or trailing commas?): {exc.msg} at line {exc.lineno}"
            ) from None
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


def hooks_json_set(
    text: str | None, commands: dict[str, tuple[str | None, str]], marker: str, timeout: int = 10
) -> str:
    """Claude-style hooks JSON (event -> [matcher group]): replace cairn's groups, keep the user's.

    `commands` maps event -> (matcher or None, command line); a group is cairn's when one of
    its commands contains `marker`.
    """
    try:
        doc: Any = json.loads(text) if text and text.strip() else {}
    except json.JSONDecodeError as exc:
        raise NeedsManual(f"not plain JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(doc, dict) or not isinstance(doc.setdefault("hooks", {}), dict):
        raise NeedsManual('expected {"hooks": {EVENT: [...]}}')
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
        isinstance(h, dict) and marker in str(h.get("command", "")) for h in group.get("hooks", []) or []
    )


# ------------------------------------------------------------------ TOML
#
# Edited with tomlkit, which keeps every comment, blank line and the user's own formatting; the
# result is then parsed again with tomllib and must hold exactly what was asked (the re-parse
# check), so a form tomlkit would mangle is refused (NeedsManual), never written.


def _tk_value(value: Any) -> Any:
    """A tomlkit item for `value`; a dict becomes an inline table (`env = { KEY = "v" }`)."""
    if isinstance(value, dict):
        table = tomlkit.inline_table()
        for k, v in value.items():
            table.append(k, _tk_value(v))
        return table
    return tomlkit.item(value)


def _insert(table: Table, index: int, key: str, value: Any) -> None:
    """Put `key = value` at `index` among the table's own lines (0: right under its header), so it
    lands above the comments and blank lines that end the table (they belong to the next one)."""
    if index < len(table.value.body):
        table.value._insert_at(index, key, _tk_value(value))
    else:
        table.append(key, _tk_value(value))


def _table_at(doc: TOMLDocument, keys: tuple[str, ...]) -> Table:
    """The tomlkit table written `[a.b]` (with a header of its own), else NeedsManual."""
    node: Any = doc
    for key in keys:
        node = node[key]
    if not isinstance(node, Table) or node.is_super_table():
        raise NeedsManual(f"[{'.'.join(keys)}] is defined in a form cairn does not edit (inline or dotted keys)")
    return node


def _parse(text: str) -> tuple[dict[str, Any], TOMLDocument]:
    try:
        return tomllib.loads(text), tomlkit.parse(text)
    except (tomllib.TOMLDecodeError, TOMLKitError) as exc:
        raise NeedsManual(f"the file does not parse as TOML: {exc}") from None


def _dumps(doc: TOMLDocument, was_empty: bool) -> str:
    new = tomlkit.dumps(doc)
    return new.lstrip("\n") if was_empty else new


def toml_set_table(text: str | None, table: tuple[str, ...], entry: dict[str, Any]) -> str:
    """Replace (or append) the table `[a.b]`, keeping every comment and every other setting.

    A new table is appended at the end of the file; an existing one keeps its place, its keys
    replaced by `entry` (the comment and blank lines after it stay). The result is parsed again
    and must hold exactly `entry` at `table` and nothing else changed; anything else (the table
    defined inline or with dotted keys, a broken file) raises NeedsManual.
    """
    text = text or ""
    if text and not text.endswith("\n"):
        text += "\n"
    before, doc = _parse(text)
    dotted = ".".join(table)
    node: Any = before
    for key in table:
        node = node.get(key) if isinstance(node, dict) else None
    try:
        if node is None:
            new_table = tomlkit.table()
            for k, v in entry.items():
                new_table.append(k, _tk_value(v))
            for key in reversed(table[1:]):
                parent = tomlkit.table(is_super_table=True)
                parent.append(key, new_table)
                new_table = parent
            doc.append(table[0], new_table)
        else:
            own = _table_at(doc, table)
            for key in list(own.keys()):
                del own[key]
            for index, (k, v) in enumerate(entry.items()):
                _insert(own, index, k, v)
        new = _dumps(doc, not text.strip())
    except NeedsManual:
        raise
    except (TOMLKitError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise NeedsManual(f"cairn's table could not be placed safely ({exc})") from None
    try:
        parsed = tomllib.loads(new)
    except tomllib.TOMLDecodeError as exc:
        raise NeedsManual(f"cairn's table could not be placed safely ({exc})") from None
    node = parsed
    for key in table:
        node = node.get(key) if isinstance(node, dict) else None
    if node != entry:
        raise NeedsManual(f"[{dotted}] is defined in a form cairn does not edit (inline or dotted keys)")
    if _without(parsed, table) != _without(before, table):
        raise NeedsManual("editing cairn's table would change other settings; not touching the file")
    return new


def toml_set_true(text: str | None, table: str, key: str, old_names: tuple[str, ...] = ()) -> str:
    """Make `[table] key = true` hold by adding one line of cairn's own, never rewriting the user's.

    Already true: the text comes back unchanged. No `table` anywhere: `[table]` and the key are
    appended. A `[table]` with a header: the key goes on the line after it, the table's other
    keys and comments untouched. Anything else (the key, or one of its `old_names`, set to another
    value; the table inline or dotted) raises NeedsManual. The result must parse to the old
    document plus that one key.
    """
    text = text or ""
    before, _ = _parse(text)
    current = before.get(table)
    if isinstance(current, dict) and current.get(key) is True:
        return text
    if current is not None and not isinstance(current, dict):
        raise NeedsManual(f"`{table}` is not a table")
    if isinstance(current, dict) and key in current:
        shown = tomlkit.item(current[key]).as_string()
        raise NeedsManual(f"{table}.{key} is set to {shown}; cairn does not overrule it")
    for old in old_names:
        if isinstance(current, dict) and old in current and current[old] is not True:
            shown = tomlkit.item(current[old]).as_string()
            raise NeedsManual(f"{table}.{old} (the older name of {key}) is set to {shown}; cairn does not overrule it")
    if text and not text.endswith("\n"):
        text += "\n"
    _, doc = _parse(text)
    try:
        if current is None:
            new_table = tomlkit.table()
            new_table.append(key, True)
            doc.append(table, new_table)
        else:
            _insert(_table_at(doc, (table,)), 0, key, True)
        new = _dumps(doc, not text.strip())
    except NeedsManual:
        raise
    except (TOMLKitError, ValueError, TypeError, KeyError, AttributeError) as exc:
        raise NeedsManual(f"{key} could not be added to [{table}] safely ({exc})") from None
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


# ------------------------------------------------------------------ marked blocks


def block_set(text: str | None, body: str, start: str, end: str) -> str:
    """Put `body` between `start` and `end` markers: replace the old block or append one
    (`cairn.text.marked`; a lone marker is NeedsManual)."""
    try:
        return splice_block(text, marked(body, start, end), start, end)
    except MarkerError as exc:
        raise NeedsManual(str(exc)) from None
