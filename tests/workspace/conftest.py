"""Three small real repositories: an API service in Go, the Go router library it imports, and a project outside the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import make_git_repo

ROUTER = {
    "go.mod": "module github.com/acme/router/v2\n\ngo 1.22\n",
    "mux.go": "package router\n\n// Mux dispatches requests to handlers.\ntype Mux struct{}\n\n"
    "func NewMux() *Mux { return &Mux{} }\n",
    "middleware/throttle.go": "package middleware\n\n// Throttle limits concurrent requests.\n"
    "func Throttle(limit int) int { return limit }\n",
}
SERVICE = {
    "go.mod": "module github.com/acme/billing\n\ngo 1.22\n\nrequire github.com/acme/router/v2 v2.0.0\n",
    "server.go": 'package main\n\nimport (\n\t"github.com/acme/router/v2"\n\t"github.com/acme/router/v2/middleware"\n'
    '\t"github.com/acme/billing/invoice"\n)\n\nfunc main() {\n\t_ = router.NewMux()\n\t_ = middleware.Throttle(4)\n'
    "\t_ = invoice.Total()\n}\n",
    "invoice/total.go": "package invoice\n\n// Total sums the invoice lines.\nfunc Total() int { return 0 }\n",
}
OUTSIDE = {
    "secret_plans.py": "def zanzibar_quokka_protocol():\n    return 'never read through a workspace'\n",
}


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
