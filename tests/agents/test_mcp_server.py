"""The MCP server driven in-process by the SDK's own client: every tool, and hostile calls.

Each test builds a small git repository, starts `build_server(root)` and talks to it through
`mcp.Client(server)` exactly as an agent would (schemas, annotations, tool errors).
"""

from __future__ import annotations

import json
import os
import subprocess

import anyio
import pytest
from mcp import Client

from cairn.agents.mcp.server import build_server
from helpers import git, make_git_repo

FILES = {
    "app/__init__.py": "",
    "app/billing.py": '"""Billing."""\n\ndef charge_card(amount: int) -> bool:\n    """Charge the card."""\n'
    "    return amount > 0\n\n\nclass Invoice:\n    total = 0\n",
    "app/api.py": "from app.billing import charge_card\n\n\ndef checkout(total):\n    return charge_card(total)\n",
    "README.md": "# Shop\n\nA small shop.\n",
}
ALL_TOOLS = {
    "context",
    "search_code",
    "search_knowledge",
    "map",
    "explain",
    "path",
    "read",
    "remember",
    "write_summary",
    "handoff_save",
    "handoff_last",
    "projects",
}


@pytest.fixture
def repo(tmp_path):
    root = make_git_repo(tmp_path / "shop", FILES)
    (root / ".cairn").mkdir()
    return root


def run(server, calls):
    """Call each (tool, args) in one session; return the CallToolResults."""

    async def main():
        async with Client(server) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(main)


def text(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "text", None))


def test_lists_every_tool_with_schema_annotations_and_instructions(repo):
    server = build_server(str(repo))

    async def main():
        async with Client(server) as client:
            return client.instructions, (await client.list_tools()).tools

    instructions, tools = anyio.run(main)
    assert "map" in instructions and "remember" in instructions and "context" in instructions
    by_name = {t.name: t for t in tools}
    assert set(by_name) == ALL_TOOLS
    for name in (
        "context",
        "search_code",
        "search_knowledge",
        "map",
        "explain",
        "path",
        "read",
        "handoff_last",
        "projects",
    ):
        assert by_name[name].annotations.read_only_hint is True, name
    for name in ("remember", "write_summary", "handoff_save"):
        assert by_name[name].annotations.read_only_hint is False, name
    for tool in tools:
        assert len(tool.description) > 60, tool.name
        assert tool.input_schema["type"] == "object"
    assert by_name["context"].input_schema["required"] == ["query"]
    assert by_name["read"].input_schema["properties"]["start_line"]["type"] == "integer"


def test_every_tool_answers(repo):
    server = build_server(str(repo))
    fact = {
        "title": "Cards are charged only at checkout",
        "type": "decision",
        "body": "Never charge before the order is confirmed.",
        "files": ["app/billing.py"],
        "symbols": ["charge_card"],
    }
    res = run(
        server,
        [
            ("map", {}),
            ("map", {"module": "app"}),
            ("search_code", {"query": "charge card", "terms": ["billing"]}),
            ("context", {"query": "where do we charge the card"}),
            ("read", {"path": "app/billing.py", "start_line": 3, "end_line": 4}),
            ("remember", {"facts": [fact]}),
            ("write_summary", {"text": "The shop's checkout and billing."}),
            ("map", {}),
            ("handoff_save", {"goal": "ship checkout", "next": ["add refunds"], "files": ["app/api.py"]}),
            ("handoff_last", {}),
            ("projects", {}),
        ],
    )
    for r in res:
        assert not r.is_error, text(r)
    assert "app/billing.py" in text(res[0]) or "app" in text(res[0])
    assert "Module `app`" in text(res[1])
    assert "app/billing.py" in text(res[2]) and "charge_card" in text(res[2])
    assert "app/billing.py" in text(res[3])
    assert "3| def charge_card" in text(res[4]) and "L3-4 of" in text(res[4])
    created = json.loads(text(res[5]))["results"][0]
    assert created["action"] == "created", created
    assert (repo / ".cairn" / "knowledge").is_dir()
    assert "checkout and billing" in text(res[7])
    assert "saved handoff" in text(res[8])
    assert "add refunds" in text(res[9])
    assert '"current": true' in text(res[10])
    # the node just registered reads back by id
    [r] = run(server, [("read", {"id": created["id"]})])
    assert not r.is_error and "Never charge before" in text(r) and "decision" in text(r)


def test_search_knowledge_and_context_see_registered_facts(repo):
    server = build_server(str(repo))
    fact = {"title": "Refund webhook retries twice", "type": "gotcha", "body": "The payment provider retries."}
    res = run(
        server,
        [
            ("remember", {"facts": [fact]}),
            ("search_knowledge", {"query": "refund webhook retries"}),
            ("context", {"query": "refund webhook retries"}),
        ],
    )
    assert not res[0].is_error, text(res[0])
    for r in res[1:]:
        assert not r.is_error, text(r)
        assert "Refund webhook retries twice" in text(r)


HOSTILE = [
    ("read", {"path": "../outside.txt"}, "'..' is not allowed"),
    ("read", {"path": "app/../../outside.txt"}, "'..' is not allowed"),
    ("read", {"path": "/etc/passwd"}, "outside the project"),
    ("read", {"path": "link_out.txt"}, "outside the project"),
    ("read", {"path": "linkdir/outside.txt"}, "outside the project"),
    ("read", {"path": ".git/config"}, "git internals"),
    ("read", {"path": "app/billing.py\x00.txt"}, "NUL"),
    ("read", {"path": "missing.py"}, "no such file"),
    ("read", {}, "exactly one of"),
    ("read", {"id": "x", "path": "README.md"}, "exactly one of"),
    ("remember", {"facts": [{"title": "t", "files": ["../../etc/passwd"]}]}, "'..' is not allowed"),
    ("remember", {"facts": [{"title": "t", "files": ["/etc/passwd"]}]}, "outside the project"),
    ("remember", {"facts": [{"title": "t", "bogus": 1}]}, "validation error"),
    ("remember", {"facts": []}, "validation error"),
    ("map", {"budget": "500"}, "validation error"),
    ("explain", {"target": "../outside.txt"}, "'..' is not allowed"),
    ("explain", {"target": "/etc/passwd"}, "outside the project"),
    ("explain", {"target": "/etc/passwd:root"}, "outside the project"),
    ("explain", {"target": ".git/config"}, "git internals"),
    ("explain", {"target": "link_out.txt/x"}, "outside the project"),
    ("explain", {"target": "charge_card\x00"}, "NUL"),
    ("explain", {"target": "no_such_thing_anywhere"}, "no file, symbol or knowledge node"),
    ("explain", {"target": ""}, "validation error"),
    ("explain", {"target": "app/billing.py", "budget": "9"}, "validation error"),
    ("path", {"a": "app/api.py", "b": "../../etc/passwd"}, "'..' is not allowed"),
    ("path", {"a": "app/api.py"}, "validation error"),
    ("map", {"module": "no/such/module"}, "no module"),
    ("search_code", {"query": 42}, "validation error"),
    ("search_code", {"query": "x", "limit": 0}, "validation error"),
    ("search_code", {"query": "x", "terms": "billing"}, "validation error"),
    ("context", {"query": ""}, "validation error"),
    ("read", {"path": "README.md", "start_line": -3}, "validation error"),
    ("read", {"path": "README.md", "start_line": 99}, "past the end"),
    ("search_code", {"query": "x", "root": "/"}, "not a worktree of this server's project"),
    ("write_summary", {"text": "x" * 9000}, "validation error"),
]


def test_hostile_arguments_come_back_as_tool_errors(repo, tmp_path):
    secret = tmp_path / "outside.txt"
    secret.write_text("SECRET\n")
    (repo / "link_out.txt").symlink_to(secret)
    (repo / "linkdir").symlink_to(tmp_path)
    server = build_server(str(repo))
    results = run(server, [(name, args) for name, args, _ in HOSTILE] + [("map", {})])
    for (name, args, expected), r in zip(HOSTILE, results, strict=False):
        assert r.is_error, (name, args, text(r))
        assert expected in text(r), (name, args, text(r))
        assert "SECRET" not in text(r)
        assert "Traceback" not in text(r)
    assert not results[-1].is_error  # the server is still alive and answering


def test_explain_and_path(repo):
    server = build_server(str(repo))
    res = run(
        server,
        [
            ("explain", {"target": "app/billing.py"}),
            ("explain", {"target": "charge_card", "budget": 10**9}),
            ("explain", {"target": str(repo / "app" / "api.py"), "budget": 40}),
            ("path", {"a": "app/api.py", "b": "app/billing.py:charge_card"}),
            ("path", {"a": "app/billing.py", "b": "./app/api.py"}),
        ],
    )
    for r in res:
        assert not r.is_error, text(r)
    assert "Used by, importing it (1):" in text(res[0]) and "app/api.py  x1: charge_card" in text(res[0])
    assert "def charge_card(amount: int) -> bool" in text(res[1])
    assert text(res[2]).startswith("app/api.py") and "tokens)" in text(res[2])
    assert "--imports--> app/billing.py  (via charge_card)" in text(res[3])
    assert "app/billing.py does not depend on app/api.py" in text(res[4])


def test_symlink_inside_the_project_and_absolute_inside_paths_are_fine(repo):
    (repo / "alias.py").symlink_to(repo / "app" / "billing.py")
    server = build_server(str(repo))
    res = run(server, [("read", {"path": "alias.py", "end_line": 1}), ("read", {"path": str(repo / "README.md")})])
    assert not res[0].is_error and '"""Billing."""' in text(res[0])
    assert not res[1].is_error and "A small shop." in text(res[1])


def test_huge_budgets_and_ranges_are_clamped(repo):
    big = "\n".join(f"line {i}" for i in range(5000)) + "\n"
    (repo / "big.txt").write_text(big)
    server = build_server(str(repo))
    res = run(
        server,
        [
            ("context", {"query": "charge", "budget": 10**12, "limit": 10**9}),
            ("map", {"budget": 10**9}),
            ("read", {"path": "big.txt", "end_line": 10**9}),
        ],
    )
    for r in res:
        assert not r.is_error, text(r)
    assert text(res[1]).count("\n") < 400
    assert "L1-400 of 5000" in text(res[2]) and "continue with start_line=401" in text(res[2])


def test_root_may_name_another_worktree_of_the_same_project(repo, tmp_path):
    wt = tmp_path / "shop-wt"
    git(repo, "worktree", "add", "-q", str(wt))
    (wt / "app" / "only_here.py").write_text("def only_in_worktree():\n    return 1\n")
    other = make_git_repo(tmp_path / "other", {"x.py": "def x():\n    pass\n"})
    server = build_server(str(repo))
    res = run(
        server,
        [
            ("read", {"path": "app/only_here.py", "root": str(wt)}),
            ("read", {"path": "app/only_here.py"}),
            ("read", {"path": "x.py", "root": str(other)}),
        ],
    )
    assert not res[0].is_error and "only_in_worktree" in text(res[0])
    assert res[1].is_error
    assert res[2].is_error and "not a worktree" in text(res[2])


def test_two_clients_at_once(repo):
    server = build_server(str(repo))
    out: dict[int, list] = {}

    async def one(i: int):
        async with Client(server) as client:
            out[i] = [
                await client.call_tool("search_code", {"query": "charge card"}),
                await client.call_tool("remember", {"facts": [{"title": f"Concurrent fact {i}"}]}),
                await client.call_tool("read", {"path": "app/api.py"}),
            ]

    async def main():
        async with anyio.create_task_group() as tg:
            tg.start_soon(one, 1)
            tg.start_soon(one, 2)

    anyio.run(main)
    for i in (1, 2):
        assert all(not r.is_error for r in out[i]), [text(r) for r in out[i]]
        assert "app/billing.py" in text(out[i][0])
    titles = sorted(p.read_text() for p in (repo / ".cairn" / "knowledge").rglob("*.md"))
    assert any("Concurrent fact 1" in t for t in titles) and any("Concurrent fact 2" in t for t in titles)


def test_project_from_env_and_remember_needs_opt_in(tmp_path, monkeypatch):
    root = make_git_repo(tmp_path / "plain", FILES)  # no .cairn/: the vault is not writable
    monkeypatch.setenv("CAIRN_PROJECT_DIR", str(root))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    server = build_server()
    res = run(server, [("read", {"path": "README.md"}), ("remember", {"facts": [{"title": "x"}]})])
    assert not res[0].is_error
    assert res[1].is_error and "cairn init" in text(res[1])


def test_server_outside_any_project_refuses_file_access(tmp_path, monkeypatch):
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "notes.txt").write_text("hello\n")
    for var in ("CAIRN_PROJECT_DIR", "CLAUDE_PROJECT_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(lone)
    if subprocess.run(["git", "-C", str(lone), "rev-parse"], capture_output=True).returncode == 0:
        pytest.skip("tmp dir is inside a git repository")
    server = build_server()
    res = run(server, [("read", {"path": "notes.txt"}), ("map", {}), ("projects", {})])
    assert res[0].is_error and "no project" in text(res[0])
    assert res[1].is_error
    assert not res[2].is_error
    assert os.getcwd() == str(lone)


def test_long_lines_are_cut_and_the_personal_vault_is_readable(repo, cairn_home):
    (repo / "min.js").write_text("var a=1;" * 100_000 + "\nsecond();\n")
    server = build_server(str(repo))
    res = run(
        server,
        [
            ("read", {"path": "min.js"}),
            ("remember", {"facts": [{"title": "Prefer tabs", "type": "preference", "personal": True}]}),
        ],
    )
    assert not res[0].is_error
    assert "more characters]" in text(res[0]) and "2| second();" in text(res[0]) and len(text(res[0])) < 5000
    personal = json.loads(text(res[1]))["results"][0]["path"]
    assert personal.startswith(str(cairn_home))
    [r] = run(server, [("read", {"path": personal})])
    assert not r.is_error and "Prefer tabs" in text(r)


def test_cairn_project_dir_wins_over_claude_project_dir(tmp_path, monkeypatch):
    a = make_git_repo(tmp_path / "a", {"a.txt": "A\n"})
    b = make_git_repo(tmp_path / "b", {"b.txt": "B\n"})
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", str(b))
    monkeypatch.setenv("CAIRN_PROJECT_DIR", str(a))
    res = run(build_server(), [("read", {"path": "a.txt"}), ("read", {"path": "b.txt"})])
    assert not res[0].is_error and res[1].is_error
    monkeypatch.delenv("CAIRN_PROJECT_DIR")
    res = run(build_server(), [("read", {"path": "b.txt"})])
    assert not res[0].is_error


def test_a_bug_in_a_tool_is_a_one_line_tool_error_and_logged(repo, monkeypatch, cairn_home):
    import cairn.search.service

    def boom(*args, **kwargs):
        raise ValueError("boom")

    monkeypatch.setattr(cairn.search.service, "search", boom)
    server = build_server(str(repo))
    res = run(server, [("search_code", {"query": "x"}), ("read", {"path": "README.md"})])
    assert res[0].is_error
    assert "internal error in search_code: ValueError: boom" in text(res[0]) and "Traceback" not in text(res[0])
    assert "Traceback" in (cairn_home / "logs" / "mcp.log").read_text()
    assert not res[1].is_error


def test_the_log_and_the_tool_error_hold_no_token(repo, monkeypatch, cairn_home):
    import random
    import string

    import cairn.search.service

    token = "ghp_" + "".join(random.Random(8).choices(string.ascii_letters + string.digits, k=36))

    def leak(*args, **kwargs):
        raise RuntimeError(f"push failed with GITHUB_TOKEN {token} for origin")

    monkeypatch.setattr(cairn.search.service, "search", leak)
    res = run(build_server(str(repo)), [("search_code", {"query": "x"})])
    assert res[0].is_error and token not in text(res[0])
    log = (cairn_home / "logs" / "mcp.log").read_text()
    assert "Traceback" in log and "push failed" in log and "[REDACTED:" in log
    assert token not in log and token[4:] not in log


def test_context_takes_the_session_transcript_and_refuses_other_files(repo, tmp_path):
    transcript = repo / ".claude-session.jsonl"
    transcript.write_text(
        json.dumps({"type": "user", "message": {"role": "user", "content": "look at billing"}})
        + "\n"
        + json.dumps(
            {
                "type": "assistant",
                "timestamp": "2100-01-01T00:00:00Z",
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "t",
                            "name": "Edit",
                            "input": {"file_path": str(repo / "app/api.py")},
                        }
                    ],
                },
            }
        )
        + "\n"
    )
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_text(transcript.read_text())
    server = build_server(str(repo))
    ok, missing, foreign = run(
        server,
        [
            ("context", {"query": "what else calls it", "transcript_path": str(transcript)}),
            ("context", {"query": "checkout", "transcript_path": str(repo / "nope.jsonl")}),
            ("context", {"query": "checkout", "transcript_path": str(outside)}),
        ],
    )
    assert not ok.is_error and "app/api.py" in text(ok) and "edited in this session" in text(ok)
    assert missing.is_error and "no such file" in text(missing)
    assert foreign.is_error and "not a session transcript" in text(foreign)


def test_prewarm_search_leaves_the_per_index_facts_built(repo):
    """`cairn serve` searches once in its warm-up thread: the first real call finds the index's facts ready."""
    from cairn.agents.mcp.guard import Scope
    from cairn.agents.mcp.server import _first_search
    from cairn.codemap.indexer import open_fresh
    from cairn.search import index_cache

    project = Scope(str(repo)).project
    open_fresh(project).close()  # indexed, as prewarm's refresh leaves it
    index_cache.clear()
    try:
        _first_search(project)
        con = open_fresh(project, refresh=False)
        try:
            cache = index_cache.for_index(con)
            built = set(cache.values) | set(cache.stable)  # facts of the file list live in `stable`
        finally:
            con.close()
        assert {"path_blob", "prose_share"} <= built
        assert cache.stable["path_blob"].lists is not None  # the path channel's lists, ready for any word
    finally:
        index_cache.clear()


def test_prewarm_searches_only_when_no_call_came_first(repo, monkeypatch):
    import threading

    from cairn.agents.mcp import server as srv
    from cairn.agents.mcp.guard import Scope
    from cairn.codemap.indexer import open_fresh
    from cairn.search import index_cache

    scope = Scope(str(repo))
    open_fresh(scope.project).close()
    monkeypatch.setattr(srv, "PREWARM_DELAY_S", 0.0)
    searched = []
    monkeypatch.setattr(srv, "_first_search", lambda project: searched.append(project))
    try:
        for called in (True, False):
            srv.CALLED.set() if called else srv.CALLED.clear()
            srv.prewarm(scope)
            for t in [t for t in threading.enumerate() if t.name == "cairn-prewarm"]:
                t.join(30)
        assert searched == [scope.project]  # only the run no call came before
    finally:
        srv.CALLED.clear()
        index_cache.keep_open(False)
        index_cache.clear()
