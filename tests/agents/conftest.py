"""Fixtures of the agent-integration tests."""

from __future__ import annotations

import os
import signal

import pytest


@pytest.fixture
def warm_env(cairn_home):
    """CAIRN_WARM on for the hook subprocesses; any server they start is stopped afterwards."""
    yield {"CAIRN_WARM": "1"}
    pid_file = cairn_home / "run" / "hooks.pid"
    if pid_file.exists():
        try:
            os.kill(int(pid_file.read_text()), signal.SIGTERM)
        except (OSError, ValueError):
            pass
