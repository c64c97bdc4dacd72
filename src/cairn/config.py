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
    except (tomllib.TOMLDecodeError, OSError) as exc:
        raise CairnError(f"cannot read config {path}: {exc}") from None


def user_config() -> dict:
    """The user's own ~/.cairn/config.toml (routes, personal settings)."""
    return read_toml(cairn_home() / "config.toml")


def load_config(root: Path | None = None) -> dict:
    """Effective settings for a project root (defaults < user < project)."""
    cfg = _merge(DEFAULTS, user_config())
    if root is not None:
        from cairn.safepath import memory_member_ok

        path = Path(root) / ".cairn" / "config.toml"
        if memory_member_ok(path.parent, path):  # a link out of .cairn/ is not the project's config
            cfg = _merge(cfg, read_toml(path))
    return cfg
