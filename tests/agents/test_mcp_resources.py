"""The map, module pages and knowledge notes as MCP resources, read through the SDK's own client.

In process (`mcp.Client(server)`) for what a resource holds and refuses; one real `cairn serve`
over stdio for what a client sees when it asks for a module or note that no longer exists: one
clear error and no traceback, not even on the server's stderr.
"""

from __future__ import annotations

import os
import random
import string
import sys

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

from cairn.agents.mcp.server import build_server
from helpers import make_git_repo

FILES = {
    "app/__init__.py": "",
    "app/billing.py": '"""Billing."""\n\ndef charge_card(amount: int) -> bool:\n    return amount > 0\n',
    "app/api.py": "from app.billing import charge_card\n\n\ndef checkout(total):\n    return charge_card(total)\n",
    "lib/util.py": "def helper():\n    return 1\n",
}
TOKEN = "ghp_" + "".join(random.Random(39).choices(string.ascii_letters + string.digits, k=36))
FACT = {
    "title": "Cards are charged only at checkout",
    "type": "decision",
    "body": f"Never charge before the order is confirmed. The sandbox key was {TOKEN}.",
    "files": ["app/billing.py"],
}


@pytest.fixture
def repo(tmp_path):
    root = make_git_repo(tmp_path / "shop", FILES)
    (root / ".cairn").mkdir()
    return root


def remember(server) -> str:
    async def main():
        async with Client(server) as client:
            result = await client.call_tool("remember", {"facts": [FACT]})
            assert not result.is_error, result
            return result.content[0].text

    import json

    return json.loads(anyio.run(main))["results"][0]["id"]


def read_all(server, uris):
    """Each uri read in one session: its text, or the MCPError's message."""

    async def main():
        out = []
        async with Client(server) as client:
            for uri in uris:
                try:
                    res = await client.read_resource(uri)
                    out.append(("ok", res.contents[0].text))
                except MCPError as exc:
                    out.append(("error", str(exc)))
        return out

    return anyio.run(main)


def test_the_map_a_module_and_notes_are_resources(repo):
    server = build_server(str(repo))
    note_id = remember(server)

    async def main():
        async with Client(server) as client:
            listed = (await client.list_resources()).resources
            templates = (await client.list_resource_templates()).resource_templates
            return listed, templates

    listed, templates = anyio.run(main)
    uris = {str(r.uri) for r in listed}
    assert "cairn://map" in uris
    assert f"cairn://note/{note_id}" in uris  # the live note is listed, with its type and title
    [note] = [r for r in listed if str(r.uri) == f"cairn://note/{note_id}"]
    assert note.title == "decision: Cards are charged only at checkout"
    assert {t.uri_template for t in templates} == {"cairn://module/{+name}", "cairn://note/{id}"}
    assert all(t.description for t in templates)

    (kind_map, the_map), (kind_mod, page), (kind_note, body) = read_all(
        server, ["cairn://map", "cairn://module/app", f"cairn://note/{note_id}"]
    )
    assert kind_map == kind_mod == kind_note == "ok"
    assert "# Map of shop" in the_map and "`app`" in the_map
    assert "Module `app`" in page and "app/billing.py" in page and "charge_card" in page
    assert "Never charge before the order is confirmed" in body and "decision" in body
    assert TOKEN not in body  # redacted like a tool answer


def test_a_missing_module_or_note_is_one_clear_error(repo):
    server = build_server(str(repo))
    note_id = remember(server)
    (repo / ".cairn" / "knowledge").rename(repo / "gone")  # the note's file no longer exists
    results = read_all(
        server,
        [
            "cairn://module/no/such/module",
            f"cairn://note/{note_id}",
            "cairn://module/..%2F..%2Fetc%2Fpasswd",
            "cairn://note/%2Fetc%2Fpasswd",
            "cairn://nothing/here",
            "cairn://map",
        ],
    )
    for kind, message in results[:5]:
        assert kind == "error", message
        assert "\n" not in message.strip() and "Traceback" not in message, message
    assert "no module 'no/such/module'" in results[0][1]
    assert f"no knowledge node {note_id!r}" in results[1][1]
    assert "Unknown resource" in results[2][1]  # the SDK refuses `..` before cairn is asked
    assert "Unknown resource" in results[3][1]
    assert results[5][0] == "ok"  # the server still answers


def test_resources_outside_a_project_say_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for var in ("CAIRN_PROJECT_DIR", "CLAUDE_PROJECT_DIR"):
        monkeypatch.delenv(var, raising=False)
    server = build_server()
    [(kind, message)] = read_all(server, ["cairn://map"])
    assert kind == "error" and "no project" in message and "Traceback" not in message


def test_a_real_server_answers_a_vanished_note_with_one_error_and_no_traceback(tmp_path, cairn_home):
    repo = make_git_repo(tmp_path / "svc", FILES)
    env = {**os.environ, "CAIRN_HOME": str(cairn_home), "CAIRN_PROJECT_DIR": str(repo)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "cairn", "serve"], env=env, cwd=str(tmp_path))
    errlog = tmp_path / "stderr.txt"

    async def main():
        out = []
        with anyio.fail_after(60), open(errlog, "w") as err:
            async with Client(stdio_client(params, errlog=err)) as client:
                for uri in ("cairn://note/decision-that-was-deleted", "cairn://module/gone", "cairn://map"):
                    try:
                        out.append(("ok", (await client.read_resource(uri)).contents[0].text))
                    except MCPError as exc:
                        out.append(("error", str(exc)))
        return out

    (k1, m1), (k2, m2), (k3, m3) = anyio.run(main)
    assert k1 == "error" and "no knowledge node 'decision-that-was-deleted'" in m1, m1
    assert k2 == "error" and "no module 'gone'" in m2, m2
    assert k3 == "ok" and "# Map of svc" in m3
    assert "Traceback" not in errlog.read_text(), errlog.read_text()
