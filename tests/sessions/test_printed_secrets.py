"""A secret a shell command printed is masked in the archive (issue 35, item 10: `echo $TOKEN`).

Alone on its line, a generated token reads as any word; the archive now judges a shell call's
output with the command before it, as a terminal shows them, also when the call was archived by
an earlier ingest (the Stop hook archives a turn at a time) and for Codex rollouts.
"""

from __future__ import annotations

import json
from pathlib import Path

from cairn.sessions.archive import ingest_file, open_archive

TOKEN = "q8Zr2LmX9vKp4TsY7wNc3HbQ"


def _claude(path: Path, records: list[dict]) -> None:
    with path.open("a", encoding="utf-8") as fh:
        for r in records:
            fh.write(
                json.dumps(
                    {"sessionId": "s-printed", "cwd": str(path.parent), "timestamp": "2026-12-01T10:00:00Z", **r}
                )
                + "\n"
            )


def _call(uuid: str, ref: str, command: str) -> dict:
    return {
        "type": "assistant",
        "uuid": uuid,
        "message": {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": ref, "name": "Bash", "input": {"command": command}}],
        },
    }


def _result(uuid: str, ref: str, output: str) -> dict:
    return {
        "type": "user",
        "uuid": uuid,
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": ref, "content": output}]},
    }


def _texts() -> str:
    con = open_archive()
    try:
        return "\n".join(r[0] for r in con.execute("SELECT text FROM turns"))
    finally:
        con.close()


def test_a_token_printed_by_echo_or_a_cli_is_masked_in_the_archive(tmp_path: Path, cairn_home: Path):
    path = tmp_path / "s-printed.jsonl"
    _claude(
        path,
        [
            _call("a1", "t1", "echo $GITHUB_TOKEN"),
            _result("u1", "t1", TOKEN + "\n"),
            _call("a2", "t2", "gh auth token"),
            _result("u2", "t2", "gho_" + TOKEN[::-1] + "\n"),
            _call("a3", "t3", "ls src"),
            _result("u3", "t3", "main.py\nutil.py\n"),
        ],
    )
    ingest_file(path)
    texts = _texts()
    assert TOKEN not in texts and TOKEN[::-1] not in texts
    assert "main.py" in texts and "echo $GITHUB_TOKEN" in texts  # the rest is kept


def test_the_command_of_a_call_archived_by_an_earlier_ingest_still_counts(tmp_path: Path, cairn_home: Path):
    path = tmp_path / "s-printed.jsonl"
    _claude(path, [_call("a1", "t1", "printenv API_TOKEN")])
    ingest_file(path)  # the Stop hook archived the call's turn; its output comes a turn later
    _claude(path, [_result("u1", "t1", TOKEN + "\n")])
    ingest_file(path)
    assert TOKEN not in _texts()
