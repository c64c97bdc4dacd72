"""A cut emoji in a transcript: JavaScript writes a lone UTF-16 surrogate (`"\\ud83d"`) when it cuts
an emoji in half. JSON allows it, UTF-8 (SQLite, a terminal) cannot hold it, orjson refuses it. Every
reader turns it into U+FFFD (util/jsonl.py), so one character is lost, never a line, a chat or a command."""

from __future__ import annotations

import json

from cairn.sessions.context import read_session
from cairn.sessions.prices import load_prices
from cairn.sessions.usage import load_transcripts
from cairn.sessions.xray import analyze
from helpers import make_git_repo

SID = "11111111-2222-3333-4444-555555555555"


def _line(rec: dict) -> str:
    return json.dumps(rec, separators=(",", ":")) + "\n"  # json.dumps writes a lone surrogate as "\ud83d"


def test_search_with_a_claude_code_transcript_holding_a_cut_emoji(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "shop", {"src/cart.py": "def add_item(cart, item):\n    cart.append(item)\n"})
    t = tmp_path / f"{SID}.jsonl"
    t.write_text(
        _line(
            {
                "type": "user",
                "timestamp": "2026-01-01T00:00:00Z",
                "message": {"role": "user", "content": "the cart breaks on \ud83d in names"},
            }
        )
        + _line(
            {
                "type": "assistant",
                "timestamp": "2026-01-01T00:00:01Z",
                "message": {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "a",
                            "name": "Read",
                            "input": {"file_path": str(root / "src/cart.py")},
                        },
                        {"type": "tool_use", "id": "b", "name": "Read", "input": {"file_path": "/tmp/\udc00.py"}},
                    ],
                },
            }
        ),
        encoding="utf-8",
    )
    ctx = read_session(t, tmp_path / "cache.json")
    assert ctx.prompts == ["the cart breaks on \ufffd in names"] and "/tmp/\ufffd.py" in ctx.files
    r = run_cli("search", "--root", str(root), "--json", "--transcript", str(t), "add an item")
    assert r.returncode == 0, r.stderr  # was: internal error, UnicodeEncodeError
    assert json.loads(r.stdout)["results"][0]["path"] == "src/cart.py"


def test_the_xray_counts_the_tokens_of_a_line_holding_a_cut_emoji(tmp_path):
    """orjson refuses a lone surrogate: the line was skipped as bad and its tokens went uncounted
    (ccusage, in JavaScript, counts them)."""
    claude = tmp_path / "claude" / "projects" / "-tmp-x" / f"{SID}.jsonl"
    claude.parent.mkdir(parents=True)

    def answer(i: int, text: str) -> str:
        return _line(
            {
                "type": "assistant",
                "sessionId": SID,
                "cwd": "/tmp/x",
                "uuid": f"u{i}",
                "requestId": f"r{i}",
                "timestamp": f"2026-02-23T11:40:3{i}.000Z",
                "message": {
                    "id": f"m{i}",
                    "model": "claude-sonnet-4-5",
                    "role": "assistant",
                    "content": [{"type": "text", "text": text}],
                    "usage": {
                        "input_tokens": 100,
                        "output_tokens": 10,
                        "cache_read_input_tokens": 0,
                        "cache_creation_input_tokens": 0,
                    },
                },
            }
        )

    claude.write_text(answer(1, "fine") + answer(2, "cut \ud83d"), encoding="utf-8")
    gemini = tmp_path / "gemini" / "tmp" / "demo" / "chats" / "session-2026-03-03T14-02-7d2e9b15.jsonl"
    gemini.parent.mkdir(parents=True)
    gemini.write_text(
        _line({"sessionId": "g-1", "projectHash": "h", "startTime": "2026-03-03T14:02:11.004Z"})
        + _line(
            {
                "id": "g1",
                "timestamp": "2026-03-03T14:02:20.511Z",
                "type": "gemini",
                "content": "cut \ud83d",
                "model": "gemini-2.5-pro",
                "tokens": {"input": 50, "output": 5, "cached": 0, "thoughts": 0, "tool": 0, "total": 55},
            }
        ),
        encoding="utf-8",
    )
    ds = load_transcripts([claude, gemini])
    report = analyze(ds, load_prices({}))
    assert ds.bad_lines == 0
    assert (report["totals"]["input_tokens"], report["totals"]["output_tokens"]) == (250, 25)
