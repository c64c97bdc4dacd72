"""One typed settings object: defaults once, parsed once, a configured 0 stays 0, typos never break."""

from __future__ import annotations

import pytest

from cairn.config import RecallSettings, settings
from cairn.errors import CairnError


def _project(tmp_path, text: str):
    (tmp_path / ".cairn").mkdir()
    (tmp_path / ".cairn" / "config.toml").write_text(text, encoding="utf-8")
    return tmp_path


def test_defaults_without_any_config(tmp_path):
    s = settings(tmp_path)
    assert (s.hooks.recall.budget, s.hooks.harvest.max_per_session, s.index.max_file_bytes) == (700, 1, 1_000_000)
    assert s.hooks.recall.tracker_files == (".beads/issues.jsonl",)


def test_a_configured_zero_stays_zero(tmp_path):
    root = _project(
        tmp_path,
        "[hooks.harvest]\nenabled = true\nmax_per_session = 0\n"
        "[hooks.recall]\nscore_floor = 0\nmin_terms = 0\n[index]\nworkers = 0\n",
    )
    s = settings(root)
    assert s.hooks.harvest.max_per_session == 0  # was silently 1: `int(cfg.get(x) or 1)`
    assert s.hooks.recall.score_floor == 0.0 and s.hooks.recall.min_terms == 0
    assert s.hooks.harvest.enabled is True


def test_wrong_types_fall_back_to_the_default_and_user_config_is_below_the_project(tmp_path, cairn_home):
    (cairn_home / "config.toml").write_text("[hooks.recall]\nbudget = 900\nmax_items = 5\n", encoding="utf-8")
    root = _project(
        tmp_path, '[hooks.recall]\nbudget = "lots"\nenabled = "yes"\nmax_items = 4\ntracker_files = "tasks.jsonl"\n'
    )
    r = settings(root).hooks.recall
    assert (r.budget, r.enabled, r.max_items, r.tracker_files) == (700, True, 4, ("tasks.jsonl",))
    assert settings(None).hooks.recall.budget == 900


def test_a_broken_file_gives_defaults_to_hooks_and_a_clear_error_to_strict_readers(tmp_path):
    root = _project(tmp_path, "[hooks.recall\nbudget = \n")
    assert settings(root).hooks.recall.budget == 700
    with pytest.raises(CairnError, match="cannot read config"):
        settings(root, strict=True)


def test_tables_read_by_key_name():
    r = RecallSettings({"budget": 50})
    assert r["budget"] == r.budget == 50 and "max_items" in list(r)
    with pytest.raises(KeyError):
        r["nope"]
