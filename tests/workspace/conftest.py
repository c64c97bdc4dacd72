"""Three small real repositories: an API service in Go, the Go router library it imports, and a project outside the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest
from workspace_trees import OUTSIDE, ROUTER, SERVICE

from helpers import make_git_repo


@pytest.fixture
def trio(tmp_path: Path, run_cli) -> dict[str, Path]:
    """billing (Go service) and router (its library) in the workspace, indexed; outside indexed but not added."""
    out = {
        "billing": make_git_repo(tmp_path / "billing", SERVICE),
        "router": make_git_repo(tmp_path / "router", ROUTER),
        "outside": make_git_repo(tmp_path / "outside", OUTSIDE),
    }
    r = run_cli("index", "--root", str(out["outside"]))
    assert r.returncode == 0, r.stderr
    r = run_cli("workspace", "add", str(out["billing"]), str(out["router"]))
    assert r.returncode == 0, r.stderr
    return out
