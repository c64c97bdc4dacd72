"""Every test runs with its own empty CAIRN_HOME, so nothing touches the real ~/.cairn."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
FIXTURE_TRANSCRIPTS = SHARED / "fixtures" / "transcripts" / "claude-code"


@pytest.fixture(autouse=True)
def cairn_home(tmp_path_factory, monkeypatch) -> Path:
    home = tmp_path_factory.mktemp("cairn_home")
    monkeypatch.setenv("CAIRN_HOME", str(home))
    return home
