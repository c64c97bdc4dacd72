"""Hook settings: defaults here, overridden by `[hooks.*]` tables in config.toml.

The user's and the project's config.toml (see cairn.config) win, so a team can tune thresholds
without touching code.

Example `.cairn/config.toml`:

    [hooks.recall]
    budget = 500
    [hooks.harvest]
    enabled = true
"""

from __future__ import annotations

from pathlib import Path

HOOK_DEFAULTS: dict[str, dict[str, object]] = {
    "session_start": {
        "budget": 2000,  # one hard cap on everything injected at session start (estimated tokens)
        "map_budget": 600,  # the level-0 map's own share
        "refresh_seconds": 1.0,  # inline index refresh; past this it finishes in the background
        "decisions": 5,  # most important live decisions and gotchas
        "tasks": 5,  # open tasks
    },
    "recall": {
        "enabled": True,
        "budget": 700,  # estimated tokens per prompt
        "max_items": 3,
        "min_terms": 2,  # distinctive terms needed when nothing is named
        "min_weight": 0.6,  # term weight (search/query.py, 0.3..~3 by rarity) that counts as distinctive
        "score_floor": 0.02,  # fused rank score of a code hit (one strong channel ~ 0.016)
        "sessions": True,  # also recall past sessions of this project from the archive
        "tracker_files": [".beads/issues.jsonl"],
    },
    "meter": {
        "enabled": True,
        "window": 150_000,  # compaction window; CLAUDE_CODE_AUTO_COMPACT_WINDOW wins when set
        "share": 0.8,
    },
    "harvest": {
        "enabled": False,  # writing after every answer costs more than it saves: opt in
        "min_explore": 10,  # reads/searches in the turn before asking
        "max_per_session": 1,
    },
    "read_guard": {
        "enabled": True,
        "max_lines": 800,
        "max_bytes": 80_000,
    },
    "journal": {"enabled": True},
    "archive": {"enabled": True},  # Stop: archive the transcript's new tail (detached) for session search
    "session_record": {"enabled": True},
}


def _fits(default: object, value: object) -> bool:
    """Whether a configured value can stand in for `default`: a wrong type (`enabled = "no"`,
    `budget = "500"`, a negative number) keeps the default, so a typo never switches a hook off."""
    if isinstance(default, bool):
        return isinstance(value, bool)
    if isinstance(default, int | float):
        return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1e15
    if isinstance(default, list):
        return isinstance(value, list) and all(isinstance(x, str) for x in value)
    return isinstance(value, type(default))


def merge(base: dict, over: dict) -> dict:
    """`over` on top of `base`, one level of tables deep (unknown keys are kept; a value of the
    wrong type for a known key, or a known table that is not a table, keeps the default)."""
    out = {k: dict(v) for k, v in base.items()}
    for key, val in (over if isinstance(over, dict) else {}).items():
        if isinstance(out.get(key), dict):
            if isinstance(val, dict):
                known = out[key]
                out[key].update({k: v for k, v in val.items() if k not in known or _fits(known[k], v)})
        else:
            out[key] = val
    return out


def hook_settings(root: Path | None) -> dict[str, dict[str, object]]:
    """Effective hook settings for a project root; a broken config falls back to the defaults
    (a hook must never fail because of a typo in config.toml; doctor reports the config)."""
    try:
        from cairn.home import cairn_home

        candidates = [cairn_home() / "config.toml"] + ([Path(root) / ".cairn" / "config.toml"] if root else [])
        if not any(p.is_file() for p in candidates):  # the usual case: skip importing the TOML parser
            return merge(HOOK_DEFAULTS, {})
        from cairn.config import load_config

        return merge(HOOK_DEFAULTS, load_config(root).get("hooks", {}) or {})
    except Exception:
        return merge(HOOK_DEFAULTS, {})
