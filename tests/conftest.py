"""Every test runs with its own empty CAIRN_HOME, so nothing touches the real ~/.cairn."""

from __future__ import annotations

from pathlib import Path

import pytest

# Real Claude Code transcripts (MIT, see its SOURCES.md), copied so a fresh clone tests alone.
FIXTURE_TRANSCRIPTS = Path(__file__).resolve().parent / "fixtures" / "transcripts" / "claude-code"


@pytest.fixture(autouse=True)
def cairn_home(tmp_path_factory, monkeypatch) -> Path:
    home = tmp_path_factory.mktemp("cairn_home")
    monkeypatch.setenv("CAIRN_HOME", str(home))
    monkeypatch.setenv("CAIRN_WARM", "0")  # no warm hook server outliving a test (tests/agents/test_warm.py turn it on)
    return home


@pytest.fixture
def run_cli(cairn_home):
    """Run `python -m cairn ARGS` in a subprocess (the real CLI), returning CompletedProcess."""
    import os
    import subprocess
    import sys

    def run(*args: str, cwd: Path | None = None, input: str | None = None, env: dict | None = None):
        full_env = {**os.environ, "CAIRN_HOME": str(cairn_home), **(env or {})}
        return subprocess.run([sys.executable, "-m", "cairn", *args], cwd=cwd, input=input,
                              capture_output=True, text=True, env=full_env, timeout=120)

    return run
