"""A Codex CLI rollout read as the session so far (sessions/codex_context.py): prompts as typed,
files patched, read through the shell or only named, paths made absolute against the workdir."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from cairn.sessions.context import read_session
from helpers import make_git_repo

ROOT = "/w/shop"


def line(kind: str, payload: dict, ts: str = "2026-02-23T11:40:29.275Z") -> str:
    """One rollout line as Codex writes it: compact JSON, `timestamp` first."""
    return json.dumps({"timestamp": ts, "type": kind, "payload": payload}, separators=(",", ":")) + "\n"


def call(name: str, arguments: dict, call_id: str = "c1") -> str:
    return line(
        "response_item", {"type": "function_call", "name": name, "arguments": json.dumps(arguments), "call_id": call_id}
    )


PATCH = (
    "*** Begin Patch\n*** Update File: src/export.py\n@@\n-    return rows\n+    return list(rows)\n"
    "*** Add File: tests/test_export.py\n+def test_export():\n+    pass\n"
    "*** Delete File: src/old.py\n*** End Patch\n"
)


def rollout(root: str = ROOT) -> str:
    return "".join(
        [
            line("session_meta", {"id": "019c", "cwd": root, "originator": "codex_cli_rs"}),
            line("turn_context", {"cwd": root, "model": "gpt-5"}),
            line(
                "response_item",
                {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {
                            "type": "input_text",
                            "text": "<environment_context>\n  <cwd>/w/shop</cwd>\n</environment_context>",
                        }
                    ],
                },
            ),
            line("event_msg", {"type": "user_message", "message": "the csv export drops the totals", "images": []}),
            call(
                "exec_command", {"cmd": "sed -n '1,80p' src/export.py && rg -n total src/invoice.py", "workdir": root}
            ),
            line(
                "response_item",
                {"type": "function_call_output", "call_id": "c1", "output": "def export_csv(rows): ... src/cart.py"},
            ),
            call("shell", {"command": ["bash", "-lc", "cat README.md | head -20"], "workdir": root}, "c2"),
            line(
                "response_item",
                {
                    "type": "custom_tool_call",
                    "status": "completed",
                    "call_id": "c3",
                    "name": "apply_patch",
                    "input": PATCH,
                },
            ),
            line("event_msg", {"type": "token_count", "info": None}),
            line("event_msg", {"type": "user_message", "message": "now do the same for the invoice"}),
        ]
    )


def test_a_codex_rollout_gives_prompts_and_files_by_how_they_were_touched(tmp_path):
    t = tmp_path / "rollout-2026-02-23T12-40-23-019c.jsonl"
    t.write_text(rollout(), encoding="utf-8")
    ctx = read_session(t)
    assert ctx.prompts == ["the csv export drops the totals", "now do the same for the invoice"]
    assert ctx.steps == 2 and ctx.cwd == ROOT
    how = {p: f.how for p, f in ctx.files.items()}
    assert how == {
        f"{ROOT}/src/export.py": "edited",
        f"{ROOT}/src/invoice.py": "named",
        f"{ROOT}/README.md": "read",
        f"{ROOT}/tests/test_export.py": "created",
    }
    assert "src/cart.py" not in str(how)  # a tool's output names files the agent never asked for
    assert ctx.recent_files()[0] == f"{ROOT}/tests/test_export.py"


def test_a_patch_sent_through_the_shell_and_a_moved_file(tmp_path):
    t = tmp_path / "r.jsonl"
    t.write_text(
        line("session_meta", {"cwd": ROOT})
        + call(
            "shell",
            {
                "command": [
                    "apply_patch",
                    "*** Begin Patch\n*** Update File: src/cart.py\n*** Move to: src/basket.py\n@@\n*** End Patch",
                ]
            },
        ),
        encoding="utf-8",
    )
    how = {p: f.how for p, f in read_session(t).files.items()}
    assert how == {f"{ROOT}/src/basket.py": "created"}


def test_broken_codex_lines_are_skipped(tmp_path):
    t = tmp_path / "r.jsonl"
    t.write_text(
        line("session_meta", {"cwd": ROOT})
        + '{"timestamp":"x","type":"response_item","payload":{"type":"function_call","name":"shell",\n'
        + call("exec_command", {"cmd": 42})
        + call("exec_command", "not a dict")  # type: ignore[arg-type]
        + line("response_item", {"type": "function_call", "name": "exec_command", "arguments": "{bad json"})
        + line("event_msg", {"type": "user_message", "message": ["not", "text"]})
        + call("exec_command", {"cmd": "cat src/a.py"}),
        encoding="utf-8",
    )
    ctx = read_session(t)
    assert set(ctx.files) == {f"{ROOT}/src/a.py"} and ctx.prompts == []


def test_search_with_a_codex_rollout_cli(tmp_path, cairn_home):
    """`cairn search --transcript <rollout>`: the files the Codex session patched, and the topic of its
    last prompt, lead a vague follow-up."""
    root = make_git_repo(
        tmp_path / "shop",
        {
            "src/export.py": "def export_csv(rows):\n    return rows\n",
            "src/invoice.py": "def render_invoice(cart):\n    return 'pdf'\n",
            "src/cart.py": "class Cart:\n    pass\n",
            "tests/test_export.py": "def test_export():\n    pass\n",
            "README.md": "# shop\n",
        },
    )
    t = tmp_path / "rollout.jsonl"
    t.write_text(rollout(str(root)), encoding="utf-8")
    env = {**os.environ, "CAIRN_HOME": str(cairn_home)}
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "cairn",
            "search",
            "--root",
            str(root),
            "--json",
            "--transcript",
            str(t),
            "ok run it again please",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    results = json.loads(r.stdout)["results"]
    top = [x["path"] for x in results]
    assert set(top[:3]) == {"src/export.py", "tests/test_export.py", "src/invoice.py"}  # patched; the last topic
    why = {x["path"]: " ".join(x["why"]) for x in results}
    assert "edited in this session" in why["src/export.py"] and "edited in this session" in why["tests/test_export.py"]


def test_eval_sessions_replays_a_codex_session(tmp_path, cairn_home):
    """`cairn eval sessions` cuts cases from an archived Codex rollout: gold is what apply_patch changed
    and what a reading shell command read (`sed -n`), not what another command only named (`rg`)."""
    root = make_git_repo(
        tmp_path / "shop",
        {
            "src/export.py": 'def export_csv(rows):\n    """Export the rows as CSV with totals."""\n    return rows\n',
            "src/invoice.py": 'def render_invoice(cart):\n    """Render a PDF invoice."""\n    return \'pdf\'\n',
            "src/cart.py": "class Cart:\n    pass\n",
            "tests/test_export.py": "def test_export():\n    pass\n",
            "README.md": "# shop\n",
        },
    )
    folder = tmp_path / "codex" / "sessions" / "2026" / "02" / "23"
    folder.mkdir(parents=True)
    t = folder / "rollout-2026-02-23T12-40-23-019c.jsonl"
    t.write_text(
        rollout(str(root)).replace(
            '"message":"the csv export drops the totals"',
            '"message":"the csv export drops the invoice totals, please fix it"',
        ),
        encoding="utf-8",
    )
    env = {**os.environ, "CAIRN_HOME": str(cairn_home)}

    def run(*a):
        return subprocess.run([sys.executable, "-m", "cairn", *a], capture_output=True, text=True, env=env, timeout=120)

    assert run("sessions", "ingest", str(t)).returncode == 0
    r = run("eval", "sessions", "--root", str(root), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["cases"] == 1  # the second prompt is followed by nothing
    # gold is three files (export.py patched, test_export.py added, README.md read by `cat`; invoice.py
    # only named by `rg`), so a third is all one file can move
    assert out["systems"]["cairn"]["files@5"] in (0.667, 1.0)


def test_codex_touches_for_eval():
    from cairn.sessions.requests import touches as _touches

    assert _touches("apply_patch", "src/a.py src/b.py") == [("edited", "src/a.py"), ("edited", "src/b.py")]
    assert _touches("exec_command", "sed -n '1,80p' src/c.py && rg -n foo src/d.py") == [("read", "src/c.py")]
    assert _touches("Bash", "cat src/c.py") == [] and _touches("Read", "/r/a.py") == [("read", "/r/a.py")]


def test_gemini_touches_for_eval():
    from cairn.sessions.requests import touches as _touches

    assert _touches("replace", "/p/a.ts") == [("edited", "/p/a.ts")]
    assert _touches("write_file", "/p/b.ts") == [("created", "/p/b.ts")]
    assert _touches("run_shell_command", "cat src/c.ts | head") == [("read", "src/c.ts")]


CODEX_0171_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "codex-0171"
CODEX_0171 = sorted((CODEX_0171_DIR / "sessions").rglob("*.jsonl"))  # [0]: the prompt only (no model answer)


def test_codex_0171_writes_the_typed_prompt_as_an_item_completed_record(tmp_path):
    """Codex CLI 0.171 has no `user_message` event: the prompt is an `item_completed` of a
    `UserMessage` (a real rollout of that version); a rollout holding both records of one prompt
    counts it once."""
    from cairn.sessions.context import read_session

    ctx = read_session(CODEX_0171[0])
    assert ctx.prompts == ["where is the print statement"] and ctx.cwd == "/tmp/codex-home2/proj"
    lines = CODEX_0171[0].read_bytes().splitlines()
    both = tmp_path / CODEX_0171[0].name
    old = (
        b'{"timestamp":"2026-12-02T10:14:10.513Z","type":"event_msg","payload":{"type":"user_message",'
        b'"message":"where is the print statement"}}'
    )
    both.write_bytes(b"\n".join(lines[:5] + [old] + lines[5:]) + b"\n")
    assert read_session(both).prompts == ["where is the print statement"]


def test_codex_0171_prompt_is_archived(tmp_path, monkeypatch):
    from cairn.sessions.archive import ingest_paths, open_archive
    from cairn.sessions.archive_search import search

    ingest_paths([CODEX_0171[0]])
    con = open_archive()
    hits = search(con, "print statement", project_ids=None)
    assert [(h.role, h.session_id) for h in hits] == [("user", "01a2363f-51d6-71b2-8d82-e00e8a88ce0b")]
    assert "print" in hits[0].snippet
    con.close()


def test_codex_0171_files_in_play_from_completed_items():
    """Code mode (the model's `exec` JavaScript calls the tools): the files come from the
    `item_completed` CommandExecution / FileChange records; called directly, from the function call
    (its item, which repeats it, is not counted twice)."""
    from cairn.sessions.context import read_session

    code_mode = read_session(next(p for p in CODEX_0171 if "10-18-11" in p.name))
    assert code_mode.prompts == ["where is the print statement"]
    assert {p: (t.how, t.count) for p, t in code_mode.files.items()} == {"/tmp/codex-home3/proj/a.py": ("edited", 2)}
    direct = read_session(next(p for p in CODEX_0171 if "10-18-44" in p.name))
    assert {p: (t.how, t.count) for p, t in direct.files.items()} == {"/tmp/codex-home3/proj/a.py": ("read", 1)}


def test_codex_0171_usage_equals_ccusage_to_the_token():
    from cairn.sessions.prices import load_prices
    from cairn.sessions.usage import load_transcripts
    from cairn.sessions.xray import analyze

    expected = json.loads((CODEX_0171_DIR / "expected.ccusage-codex-session.json").read_text())["sessions"]
    mine = {s["session_id"]: s for s in analyze(load_transcripts([CODEX_0171_DIR]), load_prices({}))["sessions"]}
    assert len(mine) == len(expected) == 4
    for e in expected:
        s = mine[e["sessionFile"][-36:]]
        assert (s["input_tokens"], s["cache_read_tokens"], s["output_tokens"], s["total_tokens"]) == (
            e["inputTokens"],
            e["cacheReadTokens"],
            e["outputTokens"],
            e["totalTokens"],
        ), e["sessionFile"]
