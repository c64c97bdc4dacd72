"""Fixtures of the agent-integration tests."""

from __future__ import annotations

import os
import signal

import pytest


@pytest.fixture
def warm_env(cairn_home):
    """CAIRN_WARM on for the hook subprocesses; any server they start is stopped afterwards."""
    yield {"CAIRN_WARM": "1"}
    run = cairn_home / "run"
    for pid_file in run.glob("*.pid") if run.is_dir() else []:  # the hook server, and an MCP zygote
        try:
            os.kill(int(pid_file.read_text()), signal.SIGTERM)
        except (OSError, ValueError):
            pass
