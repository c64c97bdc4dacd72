"""A Gemini CLI chat (JSON lines) read as the session so far (sessions/gemini_context.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cairn.sessions.context import read_session

FIXTURE = Path(__file__).parent.parent / "fixtures" / "transcripts" / "gemini" / "tmp" / "demo-app" / "chats"


def msg(kind: str, id_: str, **fields) -> str:
    return json.dumps({"id": id_, "timestamp": "2026-03-03T14:02:20.511Z", "type": kind, **fields},
                      separators=(",", ":")) + "\n"


def calls(*pairs) -> list[dict]:
    return [{"id": f"{name}-{i}", "name": name, "args": args, "status": "success"} for i, (name, args) in enumerate(pairs)]


def test_the_real_chat_fixture_gives_its_prompt_and_the_file_written(tmp_path):
    t = tmp_path / "session.jsonl"
    shutil.copy(FIXTURE / "session-2026-03-03T14-02-7d2e9b14.jsonl", t)
    ctx = read_session(t)
    assert ctx.prompts == ["Add a CHANGELOG entry for the backoff fix."]
    assert {p: f.how for p, f in ctx.files.items()} == {"/home/USER/src/demo-app/CHANGELOG.md": "created"}


def test_gemini_tool_calls_by_kind_and_a_message_written_twice(tmp_path):
    t = tmp_path / "session.jsonl"
    user = msg("user", "u1", content=[{"text": "why does the retry not back off?"}])
    t.write_text(
        '{"sessionId":"s","projectHash":"h","startTime":"2026-03-03T14:02:11.004Z","kind":"main"}\n'
        + user + user  # written again when its tokens arrive
        + msg("gemini", "g1", content="Looking.", toolCalls=calls(
            ("read_file", {"absolute_path": "/p/src/retry.ts"}),
            ("read_many_files", {"paths": ["/p/src/a.ts", "src/*.ts"]}),
            ("run_shell_command", {"command": "sed -n '1,40p' src/backoff.ts && npm test -- src/retry.test.ts"}),
            ("glob", {"pattern": "**/*.ts", "path": "/p/src"})))
        + '{"$set":{"lastUpdated":"2026-03-03T14:02:32.001Z"}}\n'
        + msg("gemini", "g2", content="Fixing.", toolCalls=calls(
            ("replace", {"file_path": "/p/src/retry.ts", "old_string": "a", "new_string": "b"}),
            ("write_file", {"file_path": "/p/src/retry.test.ts", "content": "x"}),
            ("replace", "not a dict")))
        + msg("user", "u2", content=[{"text": "now the same for the upload"}]),
        encoding="utf-8")
    ctx = read_session(t)
    assert ctx.prompts == ["why does the retry not back off?", "now the same for the upload"] and ctx.steps == 2
    assert {p: f.how for p, f in ctx.files.items()} == {
        "/p/src/retry.ts": "edited", "/p/src/a.ts": "read", "src/backoff.ts": "read",
        "src/retry.test.ts": "named", "/p/src": "named", "/p/src/retry.test.ts": "created"}
