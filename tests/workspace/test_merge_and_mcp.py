"""The merge across members (coverage, selection, rank) and the MCP tools (search, explain, path) answering across the workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from cairn.errors import CairnError
from cairn.search.hit import Hit
from cairn.search.query import Query, Term


def _q(n_files: int, dfs: dict[str, int]) -> Query:
    return Query("q", terms=[Term(t, df, 1.0) for t, df in dfs.items()], n_files=n_files)


def _hits(n: int, prefix: str) -> list[Hit]:
    return [Hit(i, f"{prefix}{i}.go", 1.0 / i, "code") for i in range(1, n + 1)]


def test_the_member_the_request_is_about_comes_first():
    from cairn.workspace.fanout import merge
    from cairn.workspace.members import Member
    from cairn.workspace.selection import scores

    router = Member("router", Path("/r"), None, "ok")
    big = Member("big", Path("/b"), None, "ok")
    partial = Member("partial", Path("/p"), None, "ok")
    qs = [
        _q(100, {"router": 60, "middleware": 40}),  # most of its files are about the request
        _q(5000, {"router": 30, "middleware": 20}),  # a few of many
        _q(300, {"router": 10, "middleware": 0}),  # lacks a word
    ]
    sel = scores(qs)
    assert sel[0] == 1.0 and sel[1] < 0.1
    merged = merge(
        [
            (big, qs[1], sel[1], _hits(5, "b")),
            (router, qs[0], sel[0], _hits(5, "r")),
            (partial, qs[2], sel[2], _hits(5, "p")),
        ],
        None,
        6,
    )
    names = [name for name, _ in merged]
    assert names[:3] == ["router", "router", "router"]  # its third hit before the others' first
    assert merged[0][1].path == "router:r1.go"
    assert "partial" not in names[:5]  # half the words missing: coverage squared


def test_mcp_search_code_answers_across_the_workspace(trio):
    from cairn.agents.mcp.guard import Scope
    from cairn.agents.mcp.tools import CairnTools

    tools = CairnTools(Scope(str(trio["billing"])))
    text = tools.search_code("throttle concurrent requests")
    assert "router:middleware/throttle.go" in text
    outside = CairnTools(Scope(str(trio["outside"]))).search_code("throttle concurrent requests")
    assert "router:" not in outside


def test_mcp_explain_and_path_answer_across_the_workspace(trio):
    from cairn.agents.mcp.guard import Scope
    from cairn.agents.mcp.tools import CairnTools

    tools = CairnTools(Scope(str(trio["billing"])))
    text = tools.explain("router:middleware/throttle.go")
    assert text.startswith("[router]") and "used by other projects" in text
    assert "billing:server.go" in text
    hops = tools.path("server.go", "router:middleware/throttle.go")
    assert "across the workspace" in hops and "github.com/acme/router/v2/middleware" in hops
    tight = tools.explain("router:middleware/throttle.go", budget=1)  # clamped up, still labelled
    assert tight.startswith("[router]")
    outside = CairnTools(Scope(str(trio["outside"])))
    with pytest.raises(CairnError):  # a project outside the workspace never reads a member
        outside.explain("router:middleware/throttle.go")
