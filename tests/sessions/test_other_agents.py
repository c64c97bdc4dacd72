"""Codex CLI rollouts and Gemini CLI chats: archive ingest and X-ray totals equal to ccusage's, to the token."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from cairn.sessions.archive import archive_path, ingest_file, ingest_paths, open_archive, project_for_cwd
from cairn.sessions.archive_browse import list_sessions, session_detail
from cairn.sessions.archive_search import search
from cairn.sessions.prices import load_prices
from cairn.sessions.transcript import CLAUDE, CODEX, GEMINI, agent_of, find_transcripts
from cairn.sessions.usage import load_transcripts, parse_timestamp, select
from cairn.sessions.xray import analyze

ROOT = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
CODEX_DIR = ROOT / "codex"
GEMINI_DIR = ROOT / "gemini"
SMALL = "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"
# Gemini: two real chats (gemini/SOURCES.md) beside the two hand-made ones of demo-app
REAL_JSONL = "0ab84937-9fe7-4284-986a-33c832af0b6a"  # Gemini CLI 2026-04, JSON lines, /init then an edit
REAL_JSON = "eefc44a3-0832-4bc0-ac33-fa668f038213"  # Gemini CLI 2025-10, one JSON document, no .project_root
REAL_JSON_DIR = "ab14fe397f91d5f283525b3178d2314aef552f761131c42172a21b7bf735e73d"  # the project's hash
GEMINI_PROJECTS = {
    REAL_JSONL: "discordbot",
    REAL_JSON: "unknown",
    "5f0c6a8e-2b61-4c1e-9d7a-3f1e2a9b7c10": "demo-app",
    "7d2e9b14-5a3c-4f8e-b1d0-6c9a2e4f8b33": "demo-app",
}


@pytest.fixture
def codex(tmp_path: Path) -> Path:
    """A writable copy of the Codex fixture's sessions folder."""
    dest = tmp_path / "codex-home" / "sessions"
    shutil.copytree(CODEX_DIR / "sessions", dest)
    project_for_cwd.cache_clear()
    return dest


@pytest.fixture
def gemini(tmp_path: Path) -> Path:
    dest = tmp_path / "gemini" / "tmp"
    shutil.copytree(GEMINI_DIR / "tmp", dest)
    project_for_cwd.cache_clear()
    return dest


def _xray(paths: list[Path]) -> dict:
    return analyze(load_transcripts(paths), load_prices({}))


def test_agent_of_each_fixture():
    assert {agent_of(p) for p in find_transcripts([CODEX_DIR])} == {CODEX}
    assert {agent_of(p) for p in find_transcripts([GEMINI_DIR])} == {GEMINI}
    assert {agent_of(p) for p in find_transcripts([ROOT / "claude-code"])} == {CLAUDE}


def test_codex_sessions_equal_ccusage_to_the_token_and_cent():
    expected = json.loads((CODEX_DIR / "expected.ccusage-codex-session.json").read_text())["sessions"]
    mine = {s["session_id"]: s for s in _xray([CODEX_DIR])["sessions"]}
    assert len(mine) == len(expected) == 4
    for e in expected:
        s = mine[e["sessionFile"][-36:]]  # the rollout's file name ends with its session id
        assert (s["input_tokens"], s["cache_read_tokens"], s["output_tokens"], s["total_tokens"]) == (
            e["inputTokens"],
            e["cacheReadTokens"],
            e["outputTokens"],
            e["totalTokens"],
        ), e["sessionFile"]
        assert s["cache_creation_tokens"] == e["cacheCreationTokens"] == 0
        assert s["cost_usd"] == pytest.approx(e["costUSD"], abs=1e-6)  # OpenAI's prices, as ccusage has them
        assert s["models"] == sorted(e["models"])


def test_gemini_sessions_equal_ccusage_to_the_token_and_cent():
    expected = json.loads((GEMINI_DIR / "expected.ccusage-gemini-session.json").read_text())["sessions"]
    mine = {s["session_id"]: s for s in _xray([GEMINI_DIR])["sessions"]}
    assert set(mine) == {e["sessionId"] for e in expected} == set(GEMINI_PROJECTS)
    for e in expected:
        s = mine[e["sessionId"]]
        assert (s["input_tokens"], s["cache_read_tokens"], s["total_tokens"]) == (
            e["inputTokens"],
            e["cacheReadTokens"],
            e["totalTokens"],
        )
        # ccusage lists thinking tokens apart from output; both are billed as output
        assert s["output_tokens"] >= e["outputTokens"]
        assert s["cost_usd"] == pytest.approx(e["totalCost"], abs=1e-6)
        assert s["models"] == sorted(e["modelsUsed"])
        # from the chat folder's .project_root; the 2025 chat's folder is only the project's hash
        assert s["project"] == GEMINI_PROJECTS[e["sessionId"]]
    # the real chats: 2026's written as JSON lines, each message with tools written twice (same id)
    assert (
        mine[REAL_JSONL]["input_tokens"],
        mine[REAL_JSONL]["cache_read_tokens"],
        mine[REAL_JSONL]["total_tokens"],
    ) == (153635, 48951, 206879)
    assert (mine[REAL_JSON]["input_tokens"], mine[REAL_JSON]["cache_read_tokens"], mine[REAL_JSON]["total_tokens"]) == (
        140022,
        326620,
        473586,
    )


def test_a_session_in_two_files_counts_once(codex: Path, tmp_path: Path):
    once = _xray([codex])["totals"]
    copy = tmp_path / "codex-home" / "archived_sessions" / SMALL
    copy.parent.mkdir(parents=True)
    shutil.copy(codex / "2026" / "02" / "23" / SMALL, copy)
    twice = _xray([codex, copy.parent])
    assert twice["totals"]["total_tokens"] == once["total_tokens"] and twice["totals"]["sessions"] == 4
    ingest_paths([codex])
    con = open_archive()
    turns = con.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
    con.close()
    stats = ingest_paths([copy.parent])
    assert stats.turns == 0  # every record of the copy is already archived from the first file
    con = open_archive()
    assert con.execute("SELECT COUNT(*) FROM turns").fetchone()[0] == turns
    assert con.execute("SELECT COUNT(*) FROM sessions").fetchone()[0] == 4
    con.close()


def _oracle(path: Path) -> dict[str, int]:
    """Counts read straight from a rollout, independent of codex_turns.py."""
    n = {"user": 0, "assistant": 0, "tool": 0}
    for line in path.read_text().splitlines():
        rec = json.loads(line)
        p = rec.get("payload") or {}
        if rec["type"] == "event_msg" and p.get("type") == "user_message":
            n["user"] += 1
        elif rec["type"] == "response_item" and p.get("type") == "message" and p.get("role") == "assistant":
            n["assistant"] += 1
        elif rec["type"] == "response_item" and p.get("type") in (
            "function_call",
            "custom_tool_call",
            "web_search_call",
        ):
            n["tool"] += 1
    return n


def test_codex_archive_sessions_turns_agent_project_and_search(codex: Path):
    stats = ingest_paths([codex])
    assert stats.files == 4 and len(stats.sessions) == 4 and not stats.errors and stats.bad_lines == 0
    con = open_archive()
    try:
        rows = list_sessions(con)
        assert {r["agent"] for r in rows} == {"codex"}
        info, turns = session_detail(con, "019c8bfe-ec25-79e0-97d7-bda6a9c575ff")
        assert info["cwd"] == "/redacted/path/ea96e59ed9" and info["git_branch"] == "main"
        assert info["project_name"] == "ea96e59ed9"  # the cwd's own path identity (the folder is gone)
        roles = [t["role"] for t in turns]
        want = _oracle(codex / "2026" / "02" / "23" / SMALL)
        assert (roles.count("user"), roles.count("assistant"), roles.count("tool")) == (
            want["user"],
            want["assistant"],
            want["tool"],
        )
        assert roles.count("tool_result") == 5  # each function_call_output, linked to its call
        assert {t["tool"] for t in turns if t["role"] == "tool_result"} >= {"mcp__cloud-associates__search_workflows"}
        hits = search(con, "search_workflows", project_ids=None)
        assert hits and hits[0].session_id.startswith("019c8bfe")
    finally:
        con.close()


def test_codex_ingest_is_incremental_and_redacts(codex: Path, tmp_path: Path):
    src = codex / "2026" / "02" / "23" / SMALL
    lines = src.read_bytes().splitlines(keepends=True)
    f = tmp_path / "live" / SMALL
    f.parent.mkdir()
    f.write_bytes(b"".join(lines[:20]))
    first = ingest_file(f).turns
    token = "ghp" + "_" + "".join("aB3dE5fG7hJ9kL2mN4pQ6rS8tU1vW0xY5z"[i % 34] for i in range(36))
    secret = {
        "timestamp": "2026-02-23T19:40:00.000Z",
        "type": "event_msg",
        "payload": {"type": "user_message", "message": f"now push with {token}", "images": []},
    }
    f.write_bytes(b"".join(lines) + (json.dumps(secret) + "\n").encode())
    second = ingest_file(f)
    con = open_archive()
    total = con.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
    texts = [r[0] for r in con.execute("SELECT text FROM turns WHERE role = 'user'")]
    con.close()
    assert 0 < second.bytes < f.stat().st_size  # only the new tail was read
    assert first + second.turns == total and first > 0 and second.turns > 0
    assert "now push with [REDACTED:github-pat]" in texts
    for p in archive_path().parent.glob("sessions.db*"):
        assert token.encode() not in p.read_bytes()
    assert ingest_file(f).turns == 0


def test_gemini_archive_json_and_jsonl_and_regrowth(gemini: Path):
    gemini = gemini / "demo-app"  # the hand-made chats
    stats = ingest_paths([gemini])
    assert stats.files == 2 and len(stats.sessions) == 2 and not stats.errors
    con = open_archive()
    info, turns = session_detail(con, "5f0c6a8e-2b61-4c1e-9d7a-3f1e2a9b7c10")
    assert info["agent"] == "gemini" and info["cwd"] == "/home/USER/src/demo-app"
    assert [t["role"] for t in turns].count("user") == 2
    assert any(t["role"] == "error" and "0 occurrences" in t["text"] for t in turns)
    from cairn.sessions.archive_browse import session_digest

    digest = session_digest("5f0c6a8e-2b61-4c1e-9d7a-3f1e2a9b7c10", con)  # the journal's summary
    assert digest["files_changed"] == ["/home/USER/src/demo-app/src/fetch.ts"] and digest["commands"] == ["npm test"]
    assert digest["files_read"] == ["/home/USER/src/demo-app/src/fetch.ts"] and digest["errors"] == 1
    _, jl = session_detail(con, "7d2e9b14-5a3c-4f8e-b1d0-6c9a2e4f8b33")
    assert [t["role"] for t in jl].count("tool") == 1  # the message written twice is archived once
    before = con.execute("SELECT COUNT(*) FROM turns").fetchone()[0]
    con.close()
    chat = next(gemini.rglob("*.json"))
    doc = json.loads(chat.read_text())
    doc["messages"].append(
        {
            "id": "new-1",
            "timestamp": "2026-03-02T09:25:00.000Z",
            "type": "user",
            "content": [{"text": "thanks, zebracanary"}],
        }
    )
    chat.write_text(json.dumps(doc, indent=2))  # Gemini CLI rewrites the whole chat
    again = ingest_paths([gemini])
    assert again.turns == 1
    con = open_archive()
    assert con.execute("SELECT COUNT(*) FROM turns").fetchone()[0] == before + 1
    assert search(con, "zebracanary", project_ids=None)
    con.close()


def test_real_gemini_chats_in_the_archive(gemini: Path):
    """The two real chats: what the user typed (`/init`, not the instructions it expanded into; the
    CLI's own "System: Please continue." is no user turn), each tool call once although its message
    was written twice, project from .project_root, and none for the 2025 chat in a hash-named folder."""
    stats = ingest_paths([gemini / "discordbot", gemini / REAL_JSON_DIR])
    assert stats.files == 2 and stats.sessions == {REAL_JSONL, REAL_JSON} and not stats.errors and not stats.bad_lines
    con = open_archive()
    info, turns = session_detail(con, REAL_JSONL)
    assert (info["agent"], info["cwd"], info["project_name"]) == ("gemini", "/home/wei/repo/discordbot", "discordbot")
    assert info["title"] == "/init"
    assert [t["text"] for t in turns if t["role"] == "user"] == [
        "/init",
        "幫我做一個小修改 請幫我將上面確保執行時要透過 uv run 來執行 避免環境有問題",
    ]
    tools = [t["tool"] for t in turns if t["role"] == "tool"]
    assert {name: tools.count(name) for name in tools} == {
        "update_topic": 3,
        "read_file": 7,
        "write_file": 1,
        "replace": 1,
    }
    assert "read_file src/discordbot/cogs/gen_reply.py" in [t["text"] for t in turns]  # `file_path`, newer versions
    assert sum(t["role"] == "tool_result" for t in turns) == 12
    assert [t["role"] for t in turns].count("assistant") == 2  # two messages with text, each written twice
    assert not any("Analyzing" in (t["text"] or "") for t in turns)  # thoughts are not archived
    from cairn.sessions.archive_browse import session_digest

    digest = session_digest(REAL_JSONL, con)
    assert digest["files_changed"] == ["GEMINI.md"] and len(digest["files_read"]) == 7
    info, turns = session_detail(con, REAL_JSON)
    assert info["project_id"] is None and info["cwd"] is None
    assert [t["role"] for t in turns] == ["user"] + ["assistant"] * 18
    assert turns[0]["text"] == "請幫我檢查一下所有代碼是否足夠簡潔 而不是一堆冗餘代碼"
    assert search(con, "unwrap_or_default", project_ids=None)
    con.close()


def test_an_older_gemini_chat_finds_its_project_by_hash(gemini: Path, tmp_path: Path):
    """The 2025 chat's folder is named only by the SHA-256 of its project root (no .project_root);
    once the archive knows that folder from another session (here a Claude Code one), the chat is
    attributed to it. The hash is the real one: sha256("/home/wei/repo/VibeCodingTracker")."""
    root = "/home/wei/repo/VibeCodingTracker"
    claude = tmp_path / "claude" / "s.jsonl"
    claude.parent.mkdir()
    claude.write_text(
        json.dumps(
            {
                "type": "user",
                "cwd": root,
                "sessionId": "c1",
                "uuid": "u1",
                "timestamp": "2025-10-05T07:00:00.000Z",
                "message": {"role": "user", "content": "hello"},
            }
        )
        + "\n",
        encoding="utf-8",
    )
    assert ingest_file(claude).turns == 1
    ingest_paths([gemini / REAL_JSON_DIR])
    con = open_archive()
    info, _ = session_detail(con, REAL_JSON)
    assert (info["cwd"], info["project_name"]) == (root, "VibeCodingTracker")
    con.close()


def test_the_xray_names_an_older_gemini_chat_by_its_hash(gemini: Path, tmp_path: Path, monkeypatch):
    """In the X-ray too, the hash-named chat goes under its project once a folder hashing to it is
    known: another session's in the same X-ray, the archive's, or the folder cairn runs in."""
    root = "/home/wei/repo/VibeCodingTracker"
    claude = tmp_path / "claude" / "s.jsonl"
    claude.parent.mkdir()
    claude.write_text(
        json.dumps(
            {
                "type": "assistant",
                "cwd": root,
                "sessionId": "c1",
                "uuid": "u1",
                "timestamp": "2025-10-05T07:00:00.000Z",
                "requestId": "r1",
                "message": {
                    "id": "m1",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": "hi",
                    "usage": {"input_tokens": 5, "output_tokens": 1},
                },
            },
            separators=(",", ":"),
        )
        + "\n",
        encoding="utf-8",
    )
    chat = gemini / REAL_JSON_DIR

    def project(paths: list[Path]) -> str:
        return next(s["project"] for s in _xray(paths)["sessions"] if s["session_id"] == REAL_JSON)

    assert project([chat]) == "unknown"
    assert project([chat, claude]) == "VibeCodingTracker"  # another session of the same X-ray ran there
    assert ingest_file(claude).turns == 1
    assert project([chat]) == "VibeCodingTracker"  # the archive knows the folder
    archive_path().unlink()
    here = tmp_path / "proj"
    here.mkdir()
    moved = gemini / hashlib.sha256(str(here).encode()).hexdigest()
    shutil.copytree(chat, moved)
    monkeypatch.chdir(here)
    assert load_transcripts([moved]).session_cwd[REAL_JSON] == str(here)  # cairn runs in the chat's project


def test_xray_breaks_cost_down_by_agent():
    r = _xray([CODEX_DIR, GEMINI_DIR, ROOT / "claude-code" / "short.jsonl"])
    agents = {row["agent"]: row for row in r["by_agent"]}
    assert set(agents) == {"codex", "gemini", "claude-code"}
    assert sum(a["total_tokens"] for a in agents.values()) == r["totals"]["total_tokens"]
    assert {s["agent"] for s in r["sessions"]} == {"codex", "gemini", "claude-code"}


def test_scanning_on_several_processes_gives_the_same_dataset(monkeypatch):
    import cairn.sessions.scan_pool as pool

    paths = [ROOT / "claude-code", CODEX_DIR, GEMINI_DIR]
    one = load_transcripts(paths)
    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", "3")
    assert pool.workers() == 3
    many = load_transcripts(paths)
    key = [(t.session_id, t.ts, t.model, t.input, t.output, t.cache_read, t.cache_write, t.agent) for t in one.turns]
    assert key == [
        (t.session_id, t.ts, t.model, t.input, t.output, t.cache_read, t.cache_write, t.agent) for t in many.turns
    ]
    # on several processes the Codex tool outputs, read by one of them apart, come after the others
    # (their order means nothing to the report: it sums them per tool)
    tools = sorted((r.session_id, r.ts, r.tool, r.chars) for r in one.tool_results)
    assert tools == sorted((r.session_id, r.ts, r.tool, r.chars) for r in many.tool_results)
    assert (one.compactions, one.session_cwd, one.session_dir, one.bad_lines) == (
        many.compactions,
        many.session_cwd,
        many.session_dir,
        many.bad_lines,
    )
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", "1")
    assert pool.workers() == 1
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", "")  # the default: every usable core, at most 4
    assert pool.workers() == max(1, min(len(os.sched_getaffinity(0)), pool.MAX_WORKERS))


def test_gemini_tool_output_enters_the_xray():
    """Each counted message's tool calls: the functionResponse texts the model read back, once per
    message (the .jsonl chat writes its write_file message twice; that call returned no text)."""
    tools = _xray([GEMINI_DIR / "tmp" / "demo-app"])["tools"]
    assert {r["tool"]: (r["calls"], r["chars"]) for r in tools["rows"]} == {
        "read_file": (1, 167),
        "replace": (1, 50),
        "run_shell_command": (1, 57),
        "write_file": (1, 0),
    }
    assert tools["est_tokens"] == int((167 + 50 + 57) / 4) and "Gemini CLI" in tools["method"]
    # the real 2026 chat (its messages with tools written twice, counted once): summed by hand with
    # a json one-liner over the last line of each message id
    real = _xray([GEMINI_DIR / "tmp" / "discordbot"])["tools"]
    assert {r["tool"]: (r["calls"], r["chars"]) for r in real["rows"]} == {
        "read_file": (7, 81891),
        "write_file": (1, 2492),
        "replace": (1, 475),
        "update_topic": (3, 447),
    }


# Codex tool output, by hand from the fixture: each function_call_output / custom_tool_call_output's
# `output` string, named by the call of the same call_id (the fixture's outputs are its sanitizer's
# `[REDACTED_OUTPUT len=... sha=...]` placeholders, so these are the lengths of those texts)
CODEX_TOOLS = {
    "exec_command": (187, 7210),
    "apply_patch": (22, 836),
    "write_stdin": (11, 421),
    "mcp__cloud-associates__execute_workflow": (3, 116),
    "update_plan": (2, 74),
    "[REDACTED_NAME len=43 sha=c186413b]": (1, 40),
    "mcp__cloud-associates__search_workflows": (1, 39),
}
CODEX_TOOL_CHARS = {
    "019c8a4c-ed82-79a1-aa28-7738fc5ab61a": 4008,
    "019c8a4d-8f45-7010-8b5d-7fad920aa6f9": 4533,
    "019c8bfe-ec25-79e0-97d7-bda6a9c575ff": 195,
    "019c8a70-dda7-7f33-98ea-f30553347322": 0,
}


def _tool_rows(report: dict) -> dict[str, tuple[int, int]]:
    return {r["tool"]: (r["calls"], r["chars"]) for r in report["tools"]["rows"]}


def test_codex_tool_output_enters_the_xray():
    ds = load_transcripts([CODEX_DIR])
    report = analyze(ds, load_prices({}))
    assert _tool_rows(report) == CODEX_TOOLS
    assert report["tools"]["est_tokens"] == int(8736 / 4) == 2184 and "Codex CLI" in report["tools"]["method"]
    assert report["tools"]["rows"][0]["est_tokens"] == int(7210 / 4)
    for sid, chars in CODEX_TOOL_CHARS.items():  # per session
        assert sum(r.chars for r in ds.tool_results if r.session_id == sid) == chars
        assert sum(r["chars"] for r in analyze(select(ds, sessions={sid}), load_prices({}))["tools"]["rows"]) == chars
    first = next(r for r in ds.tool_results if r.session_id == "019c8a4c-ed82-79a1-aa28-7738fc5ab61a")
    assert (first.tool, first.chars) == ("exec_command", len("[REDACTED_OUTPUT len=5030 sha=28c2f7e1]"))
    assert first.ts == parse_timestamp("2026-02-23T11:40:42.316Z")
    # the token totals still equal ccusage's (test_codex_sessions_equal_ccusage_to_the_token_and_cent)
    assert report["totals"]["total_tokens"] == 9_340_524


def _line(stamp: str, kind: str, payload: dict) -> dict:
    return {"timestamp": f"2026-03-01T10:00:{stamp}Z", "type": kind, "payload": payload}


def test_codex_tool_output_shapes_names_and_copies(tmp_path: Path, monkeypatch):
    """Every output shape Codex writes, each call kind, an exec event between call and output, an
    output without its call, a call id written with escapes (json.dumps' \\u00e9, not orjson's
    UTF-8: found by reading the calls in order), and the same file twice, also across processes."""
    records = [
        _line("00.000", "session_meta", {"id": "s-tools", "cwd": "/w"}),
        _line(
            "01.000",
            "response_item",
            {"type": "function_call", "name": "exec_command", "arguments": '{"cmd":"ls"}', "call_id": "c1"},
        ),
        _line("01.100", "event_msg", {"type": "exec_command_end", "call_id": "c1", "stdout": "a\nb\n"}),
        _line(
            "01.200", "response_item", {"type": "function_call_output", "call_id": "c1", "output": "a\nb\n\u00e9"}
        ),  # 5 characters, 6 bytes
        _line(
            "02.000",
            "response_item",
            {
                "type": "local_shell_call",
                "call_id": "c2",
                "status": "completed",
                "action": {"type": "exec", "command": ["ls"]},
            },
        ),
        _line(
            "02.500",
            "response_item",
            {
                "type": "function_call_output",
                "call_id": "c2",
                "output": [
                    {"type": "input_text", "text": "1234"},
                    {"type": "input_image", "image_url": "data:x"},
                    {"type": "input_text", "text": "56"},
                ],
            },
        ),
        _line(
            "03.000",
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": "c3",
                "name": "apply_patch",
                "input": "*** Begin Patch",
            },
        ),
        _line(
            "03.500",
            "response_item",
            {
                "type": "custom_tool_call_output",
                "call_id": "c3",
                "output": '{"output":"Done!","metadata":{"exit_code":0}}',
            },
        ),
        _line("04.000", "response_item", {"type": "function_call_output", "call_id": "gone", "output": "xyz"}),
        _line(
            "05.000",
            "response_item",
            {"type": "function_call", "name": "read_file", "arguments": "{}", "call_id": "c\u00e9"},
        ),
        _line(
            "05.500", "response_item", {"type": "function_call_output", "call_id": "c\u00e9", "output": "0123456789"}
        ),
        _line(
            "06.000",
            "event_msg",
            {
                "type": "token_count",
                "info": {
                    "total_token_usage": {
                        "input_tokens": 100,
                        "cached_input_tokens": 0,
                        "output_tokens": 10,
                        "reasoning_output_tokens": 0,
                        "total_tokens": 110,
                    }
                },
            },
        ),
    ]
    rollout = tmp_path / "sessions" / "2026" / "03" / "01" / "rollout-2026-03-01T10-00-00-s-tools.jsonl"
    rollout.parent.mkdir(parents=True)
    rollout.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")  # ensure_ascii
    want = {"exec_command": (1, 5), "shell": (1, 6), "apply_patch": (1, 45), "unknown": (1, 3), "read_file": (1, 10)}
    assert _tool_rows(_xray([rollout])) == want
    copy = tmp_path / "archived_sessions" / rollout.name
    copy.parent.mkdir()
    shutil.copy(rollout, copy)
    assert _tool_rows(_xray([rollout, copy])) == want  # a session in two files: its outputs counted once
    import cairn.sessions.scan_pool as pool

    monkeypatch.setattr(pool, "MIN_BYTES", 0)
    monkeypatch.setenv("CAIRN_XRAY_WORKERS", "2")
    runs = pool._runs(sorted([rollout, copy], key=str), [1, 1], 2)
    assert len(runs) == 2  # each file in its own process
    assert _tool_rows(_xray([rollout, copy])) == want


def test_a_cut_emoji_costs_one_character_never_the_chat(gemini: Path, tmp_path: Path):
    """A lone surrogate (JavaScript writes `"\\ud83d"` when it cuts an emoji in half) in a Gemini
    chat kept as one JSON document, and inside the JSON arguments of a Codex tool call: U+FFFD, the
    rest archived (SQLite cannot store a lone surrogate: the whole file was dropped as unreadable)."""
    chat = next((gemini / "demo-app").rglob("*.json"))
    doc = json.loads(chat.read_text())
    doc["messages"].append(
        {
            "id": "cut-1",
            "timestamp": "2026-03-02T09:25:00.000Z",
            "type": "user",
            "content": [{"text": "the cut \ud83d emoji, zebracanary"}],
        }
    )
    chat.write_text(json.dumps(doc, indent=2))
    sid = "019c8a4c-ed82-79a1-aa28-7738fc5ab61b"
    rollout = tmp_path / "codex-home" / "sessions" / "2026" / "02" / "23" / f"rollout-2026-02-23T12-40-23-{sid}.jsonl"
    rollout.parent.mkdir(parents=True)
    lines = [
        {"timestamp": "2026-02-23T11:40:29.275Z", "type": "session_meta", "payload": {"id": sid, "cwd": "/tmp/x"}},
        {
            "timestamp": "2026-02-23T11:40:42.096Z",
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "exec_command",
                "call_id": "c1",
                "arguments": json.dumps({"cmd": "echo \ud83d quokkafig"}),
            },
        },  # "\\ud83d" inside a string
        {
            "timestamp": "2026-02-23T11:40:42.316Z",
            "type": "response_item",
            "payload": {
                "type": "function_call_output",
                "call_id": "c1",
                "output": json.dumps({"output": "\udc00 done", "metadata": {"exit_code": 0}}),
            },
        },
    ]
    rollout.write_text("".join(json.dumps(x) + "\n" for x in lines))
    stats = ingest_paths([chat, rollout])
    assert not stats.errors and not stats.bad_lines and len(stats.sessions) == 2
    con = open_archive()
    hits = [t["text"] for t in session_detail(con, "5f0c6a8e-2b61-4c1e-9d7a-3f1e2a9b7c10")[1]]
    assert "the cut \ufffd emoji, zebracanary" in hits
    assert [t["text"] for t in session_detail(con, sid)[1]] == ["exec_command echo \ufffd quokkafig", "\ufffd done"]
    con.close()
