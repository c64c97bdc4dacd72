"""Every MCP answer is bounded, and a cut answer says so in one shape: a last line
`[truncated: SHOWN of TOTAL UNIT shown (WHY); more: HOW]` (a JSON answer: a `truncated` object),
while an answer that holds everything has neither. Driven through the SDK's in-process client.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio
import pytest
from mcp import Client

from cairn.agents.mcp.server import build_server
from helpers import make_git_repo

CUT = re.compile(r"^\[truncated: ([\d,]+) of ([\d,]+\+?) (\w+) shown \((.+)\); more: (.+)\]$")


def run(server, calls):
    async def main():
        async with Client(server) as client:
            out = []
            for name, args in calls:
                result = await client.call_tool(name, args)
                text = "\n".join(c.text for c in result.content if getattr(c, "text", None))
                assert not result.is_error, (name, args, text)
                out.append(text)
            return out

    return anyio.run(main)


def last_line(text: str) -> str:
    return text.rstrip("\n").rsplit("\n", 1)[-1]


def cut_of(text: str) -> tuple[str, ...] | None:
    """The truncation line's parts, None when the answer says it is whole."""
    m = CUT.match(last_line(text))
    assert ("[truncated" in text) == (m is not None), text[-300:]  # one shape, always last
    return m.groups() if m else None


@pytest.fixture
def shop(tmp_path):
    files = {
        f"billing/charge_{i:02d}.py": f"def charge_card_{i}(amount):\n    return amount * {i}\n" for i in range(45)
    }
    files["billing/__init__.py"] = ""
    files["app/api.py"] = (
        "from billing.charge_00 import charge_card_0\n\n\ndef checkout(t):\n    return charge_card_0(t)\n"
    )
    files["big.txt"] = "\n".join(f"line {i}" for i in range(5000)) + "\n"
    files["wide.txt"] = "\n".join("x" * 1500 for _ in range(300)) + "\n"
    root = make_git_repo(tmp_path / "shop", files)
    (root / ".cairn").mkdir()
    return root


def test_search_answers_say_when_the_budget_or_the_limit_cut_them(shop):
    server = build_server(str(shop))
    by_budget, by_limit, whole = run(
        server,
        [
            ("search_code", {"query": "charge card amount", "limit": 30, "budget": 120}),
            ("search_code", {"query": "charge card amount", "limit": 3}),
            ("search_code", {"query": "checkout", "limit": 50}),
        ],
    )
    shown, total, unit, why, more = cut_of(by_budget)
    assert unit == "results" and why == "budget 120 tokens" and more == "budget up to 12000"
    assert int(shown) < int(total) <= 30
    assert by_budget.count("\n## ") + by_budget.count("billing/charge_") >= int(shown)
    assert cut_of(by_limit) == ("3", "3+", "results", "limit 3", "limit up to 50")
    assert cut_of(whole) is None  # all it found fits: no truncation line


def test_map_module_page_and_explain_say_what_the_budget_left_out(shop):
    server = build_server(str(shop))
    overview, roomy, page, small, full = run(
        server,
        [
            ("map", {"budget": 100}),
            ("map", {"budget": 4000}),
            ("map", {"module": "billing"}),
            ("explain", {"target": "billing/charge_00.py", "budget": 40}),
            ("explain", {"target": "billing/charge_00.py", "budget": 12000}),
        ],
    )
    shown, total, unit, why, more = cut_of(overview)
    assert unit == "tokens" and why == "budget 100" and int(shown) < int(total)
    assert more == "budget up to 4000, or map(module=...)"
    assert cut_of(roomy) is None
    assert cut_of(page) == ("40", "46", "files", "40 per page", "search_code or explain")
    shown, total, unit, why, more = cut_of(small)
    assert unit == "tokens" and why == "budget 40" and int(shown) < int(total) and more == "budget up to 12000"
    assert cut_of(full) is None


def test_read_says_which_bound_cut_the_region_and_where_to_go_on(shop):
    server = build_server(str(shop))
    lines, asked, chars, to_end = run(
        server,
        [
            ("read", {"path": "big.txt", "end_line": 10**9}),
            ("read", {"path": "big.txt", "start_line": 3, "end_line": 4}),
            ("read", {"path": "wide.txt"}),
            ("read", {"path": "big.txt", "start_line": 4990}),
        ],
    )
    assert cut_of(lines) == ("400", "5,000", "lines", "400 lines per call", "read(path='big.txt', start_line=401)")
    assert cut_of(asked) is None  # lines 3-4 were asked and shown: nothing was cut
    shown, total, unit, why, more = cut_of(chars)
    assert unit == "lines" and total == "300" and why == "40,000 characters"
    assert more == f"read(path='wide.txt', start_line={int(shown) + 1})"
    assert cut_of(to_end) is None


def test_a_huge_note_and_a_huge_handoff_are_cut_and_say_so(shop):
    server = build_server(str(shop))
    fact = {"title": "Charging rounds down", "type": "gotcha", "body": "Amounts are integers."}
    [created] = run(server, [("remember", {"facts": [fact]})])
    note_id = json.loads(created)["results"][0]["id"]
    [note_file] = (shop / ".cairn" / "knowledge").rglob("*.md")
    note_file.write_text(note_file.read_text() + "\n" + "a long hand-written paragraph. " * 3000)
    [saved] = run(server, [("handoff_save", {"body": "Where we are."})])
    handoff_file = Path(re.search(r"\((.+\.md)\)$", saved)[1])  # a hand-edited handoff can be any size
    handoff_file = handoff_file if handoff_file.is_absolute() else shop / handoff_file
    handoff_file.write_text(handoff_file.read_text() + "step done and checked.\n" * 2500)
    note, handoff = run(server, [("read", {"id": note_id}), ("handoff_last", {})])
    shown, total, unit, why, more = cut_of(note)
    assert unit == "characters" and why == "40,000 characters per answer" and int(shown.replace(",", "")) <= 40_000
    assert more.startswith("read(path='.cairn/knowledge/") and note_id in more
    shown, total, unit, why, more = cut_of(handoff)
    assert unit == "characters" and int(total.replace(",", "")) > 50_000 and more.startswith("read(path=")


def test_projects_are_bounded_with_the_current_one_first(shop, cairn_home):
    for i in range(60):
        (Path(cairn_home) / "projects" / f"aaa-{i:02d}").mkdir(parents=True)
    server = build_server(str(shop))
    [answer] = run(server, [("projects", {})])
    data = json.loads(answer)
    assert len(data["projects"]) == 50 and data["projects"][0]["current"] is True
    assert data["truncated"] == {
        "shown": 50,
        "total": 61,
        "unit": "projects",
        "why": "50 per answer",
        "more": "the folders of CAIRN_HOME/projects/",
    }
