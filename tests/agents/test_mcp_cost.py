"""What a client loads from cairn every session: tools that say when to use them, right annotations,
compact schemas, and a token budget CI holds (bench/mcp_tool_cost.py measures the same payload).
"""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import Client

from cairn.agents.mcp.cost import as_text, session_cost, session_payload
from cairn.agents.mcp.server import build_server
from helpers import make_git_repo

# Estimated tokens (cairn.text.budget) of instructions + tools/list + resource templates, measured by
# `python bench/mcp_tool_cost.py`: 3,627 after the trimming of issue 39 (main before it: 5,484; the
# legacy Claude tokenizer counts 2,663, was 4,046). A little headroom; raising it needs a reason.
SESSION_BUDGET = 3_800
READ_ONLY = {"context", "search_code", "search_knowledge", "map", "explain", "path", "read", "handoff_last", "projects"}


@pytest.fixture
def server(tmp_path):
    return build_server(str(make_git_repo(tmp_path / "shop", {"app/core.py": "def run():\n    return 1\n"})))


def test_the_session_payload_stays_under_its_token_budget(server):
    payload = session_payload(server)
    cost = session_cost(payload)
    assert cost["total"] <= SESSION_BUDGET, cost
    assert len(payload["tools"]) == 12 and len(payload["resource_templates"]) == 2
    listed = as_text(payload["tools"])
    assert '"title":"Query"' not in listed and '{"type":"null"}' not in listed and "maxLength" not in listed


def test_descriptions_say_when_to_use_a_tool_and_when_not(server):
    tools = {t["name"]: t for t in session_payload(server)["tools"]}
    for name, tool in tools.items():
        description = tool["description"]
        assert len(description) <= 260, (name, len(description))  # paid in every session
        assert "Use " in description or "Rarely needed" in description, name
    knowledge = tools["search_knowledge"]["description"]
    assert "didn't we fix this before?" in knowledge and "why is it built this way?" in knowledge
    assert "not to list directories" in tools["read"]["description"]
    assert "instead of listing directories" in tools["map"]["description"]
    assert "Not for" in tools["search_code"]["description"] and "not for" in tools["remember"]["description"]


def test_annotations_match_what_each_tool_does(server):
    tools = {t["name"]: t["annotations"] for t in session_payload(server)["tools"]}
    for name, hints in tools.items():
        assert hints["openWorldHint"] is False, name  # nothing leaves the machine
        if name in READ_ONLY:
            assert hints == {"readOnlyHint": True, "openWorldHint": False}, name
    # write_summary replaces the summary it names: destructive, and twice the same is once
    assert tools["write_summary"] == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    for name in ("remember", "handoff_save"):  # each call adds (or merges): nothing is lost
        assert tools[name]["destructiveHint"] is False and tools[name]["idempotentHint"] is False, name


def test_compact_schemas_do_not_loosen_what_a_call_may_pass(server):
    tools = {t["name"]: t for t in session_payload(server)["tools"]}
    listed = tools["search_code"]["inputSchema"]["properties"]
    assert listed["root"] == {"type": "string", "description": "Another worktree of this project."}
    assert listed["query"] == {"type": "string", "description": "What you look for, in words."}

    async def main():
        async with Client(server) as client:
            calls = [
                ("search_code", {"query": "run", "root": None, "budget": None}),  # null still means the default
                ("search_code", {"query": "x" * 2001}),  # the length limit is not listed but still checked
                ("handoff_save", {"next": ["a"] * 51}),
                ("remember", {"facts": [{"title": "t", "colour": "red"}]}),
            ]
            return [await client.call_tool(name, args) for name, args in calls]

    ok, long_query, many, extra = anyio.run(main)
    assert not ok.is_error
    for result in (long_query, many, extra):
        assert result.is_error and "Traceback" not in result.content[0].text
    assert "2000" in long_query.content[0].text and "50" in many.content[0].text
    assert "colour" in json.dumps(extra.content[0].text)
