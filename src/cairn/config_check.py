"""Check config.toml values against the shape cairn reads: a wrong value is named, never a crash.

A hand-edited config can hold anything TOML can say: `max_file_bytes = "big"`, `index = 5`,
`adr_globs = "docs/*"`. Reading stays lenient (`sanitize` drops such a value, so its default
applies and no command or hook breaks on it), and the command line says what is wrong in one
line (`problems`, raised by `cairn.config.check_config`), like git's "bad config value".
Stdlib only: hooks read settings through here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Check = tuple[str, Callable[[Any], bool]]  # (what it must be, the test)


def _int(lo: int) -> Check:
    return (f"a whole number >= {lo}", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= lo)


_BOOL: Check = ("true or false", lambda v: isinstance(v, bool))
_STRS: Check = ("a list of strings", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v))
_TABLE: Check = ("a table", lambda v: isinstance(v, dict))
_STR: Check = ("a string", lambda v: isinstance(v, str))


def _route(v: Any) -> bool:
    return (
        isinstance(v, dict)
        and isinstance(v.get("slug"), str)
        and bool(v["slug"].strip())
        and _STRS[1](v.get("prefixes", []))
        and all("\x00" not in p for p in v.get("prefixes", []))
    )


_ROUTES: Check = (
    "a list of [[routes]] tables with a `slug` string and `prefixes` strings",
    lambda v: isinstance(v, list) and all(_route(r) for r in v),
)

TABLES_OF_TABLES = ("prices", "hooks")
# section -> key -> check; a section's own check under the key None.
SCHEMA: dict[str, dict[str | None, Check]] = {
    "index": {None: _TABLE, "max_file_bytes": _int(1), "workers": _int(0), "history": _BOOL},
    "search": {None: _TABLE, "rrf_k": _int(1), "budget": _int(1), "limit": _int(1)},
    "memory": {None: _TABLE, "adr_globs": _STRS, "adr_exclude": _STRS},
    "sessions": {None: _TABLE, "backup_keep": _int(1)},
    "prices": {None: _TABLE},  # each entry a table: TABLES_OF_TABLES
    "hooks": {None: _TABLE},
    "routes": {None: _ROUTES},
    "workspace": {None: _TABLE, "roots": _STRS},
    "team": {None: _TABLE, "database": _STR, "user": _STR, "machine": _STR, "push_on_stop": _BOOL},
}


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def sanitize(data: Any, where: str) -> tuple[dict, list[str]]:
    """(`data` without the values cairn cannot use, one line per value dropped naming `where`)."""
    if not isinstance(data, dict):
        return {}, [f"config {where}: not a table of settings"]
    out = dict(data)
    problems: list[str] = []
    for section, checks in SCHEMA.items():
        if section not in out:
            continue
        what, ok = checks[None]
        if not ok(out[section]):
            problems.append(f"config {where}: `{section}` must be {what}, got {_show(out[section])}")
            del out[section]
            continue
        if not isinstance(out[section], dict):
            continue
        table = dict(out[section])
        if section in TABLES_OF_TABLES:
            for key in [k for k, v in table.items() if not isinstance(v, dict)]:
                problems.append(f"config {where}: [{section}] {key} must be a table, got {_show(table[key])}")
                del table[key]
        for key, (what, ok) in checks.items():
            if key is not None and key in table and not ok(table[key]):
                problems.append(f"config {where}: [{section}] {key} must be {what}, got {_show(table[key])}")
                del table[key]
        out[section] = table
    return out, problems
