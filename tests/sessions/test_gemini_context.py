"""A Gemini CLI chat (JSON lines) read as the session so far (sessions/gemini_context.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cairn.sessions.context import read_session

FIXTURE = Path(__file__).parent.parent / "fixtures" / "transcripts" / "gemini" / "tmp" / "demo-app" / "chats"


def msg(kind: str, id_: str, **fields) -> str:
    return (
        json.dumps({"id": id_, "timestamp": "2026-03-03T14:02:20.511Z", "type": kind, **fields}, separators=(",", ":"))
        + "\n"
    )


def calls(*pairs) -> list[dict]:
    return [
        {"id": f"{name}-{i}", "name": name, "args": args, "status": "success"} for i, (name, args) in enumerate(pairs)
    ]


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
        + user
        + user  # written again when its tokens arrive
        + msg(
            "gemini",
            "g1",
            content="Looking.",
            toolCalls=calls(
                ("read_file", {"absolute_path": "/p/src/retry.ts"}),
                ("read_many_files", {"paths": ["/p/src/a.ts", "src/*.ts"]}),
                ("run_shell_command", {"command": "sed -n '1,40p' src/backoff.ts && npm test -- src/retry.test.ts"}),
                ("glob", {"pattern": "**/*.ts", "path": "/p/src"}),
            ),
        )
        + '{"$set":{"lastUpdated":"2026-03-03T14:02:32.001Z"}}\n'
        + msg(
            "gemini",
            "g2",
            content="Fixing.",
            toolCalls=calls(
                ("replace", {"file_path": "/p/src/retry.ts", "old_string": "a", "new_string": "b"}),
                ("write_file", {"file_path": "/p/src/retry.test.ts", "content": "x"}),
                ("replace", "not a dict"),
            ),
        )
        + msg("user", "u2", content=[{"text": "now the same for the upload"}]),
        encoding="utf-8",
    )
    ctx = read_session(t)
    assert ctx.prompts == ["why does the retry not back off?", "now the same for the upload"] and ctx.steps == 2
    assert {p: f.how for p, f in ctx.files.items()} == {
        "/p/src/retry.ts": "edited",
        "/p/src/a.ts": "read",
        "src/backoff.ts": "read",
        "src/retry.test.ts": "named",
        "/p/src": "named",
        "/p/src/retry.test.ts": "created",
    }


REAL = FIXTURE.parent.parent / "discordbot" / "chats" / "session-2026-04-23T12-52-0ab84937.jsonl"


def test_a_real_chat_gives_what_the_user_typed_and_the_files(tmp_path):
    """The real 2026 chat (gemini/SOURCES.md): `/init` as typed (its `displayContent`), not the
    instructions it expanded into; the CLI's own "System: Please continue." (a displayContent with
    no text) is no prompt; `read_file` names its file by `file_path` in this version."""
    t = tmp_path / "session.jsonl"
    shutil.copy(REAL, t)
    ctx = read_session(t)
    assert ctx.prompts == ["/init", "幫我做一個小修改 請幫我將上面確保執行時要透過 uv run 來執行 避免環境有問題"]
    assert {p: f.how for p, f in ctx.files.items()} == {
        "README.md": "read",
        "pyproject.toml": "read",
        "CLAUDE.md": "read",
        "Makefile": "read",
        "src/discordbot/cli.py": "read",
        "src/discordbot/cogs/gen_reply.py": "read",
        "src/discordbot/typings/config.py": "read",
        "GEMINI.md": "edited",
    }  # written, then replaced in


def test_content_as_parts_with_thoughts_and_function_calls(tmp_path):
    """The shape newer Gemini CLI versions write (seen in a public chat of 2026-06 whose repository
    has no licence, so not copied here): a `gemini` message's `content` is parts, thought parts
    marked `"thought": true` beside the answer and `functionCall` parts; the tool results come back
    as a `user` message of `functionResponse` parts. Neither thoughts nor results are the user's
    words or the model's answer."""
    from cairn.sessions.gemini_turns import extract

    answer = msg(
        "gemini",
        "g1",
        content=[
            {"text": "**Checking the venv** I am looking at requirements.txt.", "thought": True},
            {"text": "Flask is not installed in the venv."},
            {"functionCall": {"id": "read_file_1", "name": "read_file", "args": {"file_path": "requirements.txt"}}},
        ],
        toolCalls=calls(("read_file", {"file_path": "requirements.txt"})),
    )
    results = msg(
        "user",
        "g1_response",
        content=[
            {"functionResponse": {"id": "read_file_1", "name": "read_file", "response": {"output": "flask==3.1.3"}}}
        ],
    )
    t = tmp_path / "session.jsonl"
    t.write_text(
        '{"sessionId":"s","projectHash":"h","startTime":"2026-06-12T04:14:14.031Z","kind":"main"}\n'
        + msg("user", "u1", content=[{"text": "explain the error"}])
        + answer
        + results,
        encoding="utf-8",
    )
    ctx = read_session(t)
    assert ctx.prompts == ["explain the error"] and ctx.files["requirements.txt"].how == "read"
    turns = extract(json.loads(answer), 0, lambda _: None)
    assert [(x.role, x.text) for x in turns][:2] == [
        ("assistant", "Flask is not installed in the venv."),
        ("tool", "read_file requirements.txt"),
    ]
    assert extract(json.loads(results), 0, lambda _: None) == []


DOCUMENT = FIXTURE / "session-2026-03-02T09-14-5f0c6a8e.json"  # a chat kept as one JSON document


def test_a_chat_kept_as_one_json_document_is_read_and_read_again_when_rewritten(tmp_path):
    """`search --transcript chat.json`: the document's messages, as its JSON-lines form would give;
    the CLI rewrites the whole file as the chat grows, and the cached context follows."""
    t = tmp_path / "session-2026-03-02T09-14-5f0c6a8e.json"
    shutil.copy(DOCUMENT, t)
    cache = tmp_path / "ctx-cache.json"
    ctx = read_session(t, cache)
    assert ctx.prompts == [
        "Why does the retry loop in src/fetch.ts never back off? Fix it.",
        "Use exponential backoff with jitter, and run the tests.",
    ]
    assert {p: f.how for p, f in ctx.files.items()} == {"/home/USER/src/demo-app/src/fetch.ts": "edited"}
    doc = json.loads(t.read_text(encoding="utf-8"))
    doc["messages"].append(
        {
            "id": "u9",
            "timestamp": "2026-03-02T09:25:00.000Z",
            "type": "user",
            "content": [{"text": "now the upload \ud83d"}],
        }
    )  # a cut emoji: a lone surrogate
    t.write_text(json.dumps(doc, indent=2), encoding="utf-8")  # rewritten whole, "\ud83d" escaped
    again = read_session(t, cache)
    assert again.prompts[-1] == "now the upload \ufffd" and again.steps == 3
    assert set(again.files) == set(ctx.files)
