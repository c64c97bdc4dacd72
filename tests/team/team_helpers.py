"""Builders for the team tests and bench/team_scale.py: a repository with a git remote, and Claude
Code transcripts of generated sessions whose `cwd` is that repository."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

WORDS = (
    "migration schema index query lock timeout retry webhook payload cache token session archive "
    "deploy rollback branch merge conflict test fixture parser import module config secret rotate "
    "postgres sqlite vacuum replica backup restore queue worker thread async await handler router "
    "render template budget ranking search snippet error failure traceback crash leak memory"
).split()


def make_repo(root: Path, remote: str = "git@github.com:acme/app.git") -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "app.py").write_text("def main():\n    return 0\n")
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "HOME": str(root),
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    for args in (
        ["init", "-q", "-b", "main"],
        ["add", "-A"],
        ["commit", "-q", "-m", "init"],
        ["remote", "add", "origin", remote],
    ):
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)
    return root


def sentence(rng: random.Random, n: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def write_transcripts(
    folder: Path,
    cwd: Path,
    *,
    sessions: int,
    turns: int,
    prefix: str,
    seed: int = 0,
    texts: dict[tuple[int, int], str] | None = None,
    day: int = 1,
) -> Path:
    """`sessions` transcripts of `turns` user/assistant turns each (alternating), session ids
    `<prefix>-<n>`; `texts` replaces the text of (session, turn)."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for s in range(sessions):
        sid = f"{prefix}-{s:05d}"
        lines = []
        for i in range(turns):
            role = "user" if i % 2 == 0 else "assistant"
            text = (texts or {}).get((s, i)) or sentence(rng)
            rec: dict = {
                "type": role,
                "uuid": f"{sid}-u{i}",
                "sessionId": sid,
                "cwd": str(cwd),
                "gitBranch": "main",
                "timestamp": f"2026-11-{(day + s) % 28 + 1:02d}T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z",
            }
            if role == "user":
                rec["message"] = {"role": "user", "content": text}
            else:
                rec["message"] = {"role": "assistant", "content": [{"type": "text", "text": text}]}
            lines.append(json.dumps(rec))
        (folder / f"{sid}.jsonl").write_text("\n".join(lines) + "\n")
    return folder
