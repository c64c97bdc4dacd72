"""Settings: defaults in one place, overridden by ~/.cairn/config.toml, then <repo>/.cairn/config.toml.

Stdlib only (tomllib) so hooks can read settings without paying for imports.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from cairn.errors import CairnError
from cairn.home import cairn_home

DEFAULTS: dict[str, Any] = {
    "index": {
        "max_file_bytes": 1_000_000,  # larger files are skipped and counted
        "workers": 0,  # 0 = one per core when the cold index is large enough to pay
        "history": True,  # mine git history (co-change, churn) for recall; false skips `git log`
    },
    "search": {
        "rrf_k": 60,
        "budget": 2000,
        "limit": 10,
    },
}


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, val in over.items():
        if isinstance(val, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], val)
        else:
            out[key] = val
    return out


def read_toml(path: Path) -> dict:
    """Parse a TOML file; a missing file is empty, a broken one is a clear CairnError."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        return {}
    except (tomllib.TOMLDecodeError, OSError, ValueError) as exc:  # ValueError: not UTF-8
        raise CairnError(f"cannot read config {path}: {exc}") from None


def _checked(path: Path, problems: list[str] | None = None) -> dict:
    """A config file's settings, values of the wrong shape dropped (their defaults apply)."""
    from cairn.config_check import sanitize

    data, found = sanitize(read_toml(path), str(path))
    if problems is not None:
        problems += found
    return data


def _files(root: Path | None) -> list[Path]:
    files = [cairn_home() / "config.toml"]
    if root is not None:
        from cairn.safepath import memory_member_ok

        path = Path(root) / ".cairn" / "config.toml"
        if memory_member_ok(path.parent, path):  # a link out of .cairn/ is not the project's config
            files.append(path)
    return files


def user_config() -> dict:
    """The user's own ~/.cairn/config.toml (routes, personal settings)."""
    return _checked(cairn_home() / "config.toml")


def load_config(root: Path | None = None) -> dict:
    """Effective settings for a project root (defaults < user < project)."""
    cfg = DEFAULTS
    for path in _files(root):
        cfg = _merge(cfg, _checked(path))
    return cfg


def check_config(root: Path | None = None) -> None:
    """Raise a one-line CairnError naming the first unreadable file or wrong value (CLI use)."""
    problems: list[str] = []
    for path in _files(root):
        _checked(path, problems)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise CairnError(problems[0] + more)
