"""A session `cairn otel serve` received usage for but whose transcript is gone (Claude Code deletes
old transcripts) is shown in the X-ray as known only from telemetry, instead of vanishing; it is
kept out of the transcript totals (which stay equal to ccusage's) and out of an X-ray of a chosen
PATH or project (a session missing there may simply be elsewhere)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from cairn.otel.decode import RequestRow
from cairn.otel.store import store
from cairn.sessions.archive_schema import open_archive

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"
KEPT = "4d5611e5-241a-462a-8d15-5122611a9569"  # a fixture session whose transcript is still there
GONE = "0f0e0d0c-dead-4bee-8000-000000000001"


def _xray(tmp_path: Path, cairn_home: Path, *args: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "CAIRN_HOME": str(cairn_home),
        "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude"),
        "CODEX_HOME": str(tmp_path / "codex"),
    }
    cmd = [sys.executable, "-m", "cairn", "xray", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)


def _setup(tmp_path: Path) -> None:
    project = tmp_path / "claude" / "projects" / "-home-me-spotter"
    project.mkdir(parents=True)
    shutil.copy(FIXTURES / f"{KEPT}.jsonl", project)
    (tmp_path / "home").mkdir()
    con = open_archive()
    row = dict(cost_usd=0.5, duration_ms=900.0, service="claude-code")
    store(
        con,
        requests=[
            RequestRow(GONE, "claude-opus-4-6", "2026-01-05T09:00:00.000Z", 100, 2000, 50_000, 4000, **row),
            RequestRow(GONE, "claude-haiku-4-5", "2026-01-05T09:30:00.000Z", 10, 300, 0, 1000, **row),
            RequestRow(KEPT, "claude-opus-4-6", "2026-02-12T16:10:00.000Z", 1, 1, 1, 1, **row),
        ],
    )
    con.close()


def test_a_session_whose_transcript_is_gone_is_shown_from_telemetry(tmp_path, cairn_home):
    _setup(tmp_path)
    res = _xray(tmp_path, cairn_home, "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert [s["session_id"] for s in out["sessions"]] == [KEPT]
    (only,) = out["telemetry"]["telemetry_only"]
    assert only == {
        "session_id": GONE,
        "source": "api_request events",
        "requests": 2,
        "input_tokens": 110,
        "output_tokens": 2300,
        "cache_read_tokens": 50_000,
        "cache_creation_tokens": 5000,
        "total_tokens": 57_410,
        "cost_usd": 1.0,
        "first_activity": "2026-01-05T09:00:00.000Z",
        "last_activity": "2026-01-05T09:30:00.000Z",
        "models": ["claude-haiku-4-5", "claude-opus-4-6"],
    }
    # the transcript totals are the transcript's alone
    alone = json.loads(_xray(tmp_path, cairn_home, str(tmp_path / "claude" / "projects"), "--json").stdout)
    assert out["totals"] == alone["totals"] and alone["telemetry"]["telemetry_only"] == []
    assert (
        "1 session(s) known only from OpenTelemetry (their transcripts are gone): $1.00 and 57,410 tokens "
        "by its count, not in the totals above." in out["findings"]
    )
    text = _xray(tmp_path, cairn_home).stdout
    assert "Sessions known only from OpenTelemetry" in text and GONE[:8] in text and "2026-01-05 09:00" in text
    recent = json.loads(_xray(tmp_path, cairn_home, "--days", "1", "--json").stdout)  # it ended long ago
    assert recent["telemetry"]["telemetry_only"] == []
    project = json.loads(_xray(tmp_path, cairn_home, "--project=-home-me-spotter", "--json").stdout)
    assert project["telemetry"]["telemetry_only"] == []
