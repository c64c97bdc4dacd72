"""Fixtures for the memory tests (builders live in memory_helpers)."""

from __future__ import annotations

import pytest
from memory_helpers import make_project

from cairn.memory.vault import Vault


@pytest.fixture
def project(tmp_path):
    return make_project(tmp_path / "shop")


@pytest.fixture
def vault(project) -> Vault:
    return Vault.for_project(project)
