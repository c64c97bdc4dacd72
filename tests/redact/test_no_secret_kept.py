"""No secret kept: the same secrets planted through every way in; no file cairn wrote holds a piece of any.

Ways in: a transcript (user text, tool input, tool output) archived by `sessions ingest` and by the
Stop hook, a note body (`remember`, CLI and MCP), a handoff, a summary, a source file and a config
file of the project (index, module pages), the prompt of a recall hook, the journal (SessionEnd)
and the session record (PreCompact) built from that transcript, `memory-md`, a backup, and what
the CLI and the MCP server print. Then every file under CAIRN_HOME and the project's `.cairn/`
(SQLite files, their WAL and SHM included) and CLAUDE.md is searched for any 12-character piece
of any planted secret.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures" / "secrets"))

import corpus  # noqa: E402

from agents.test_hook_support import payload, run_hook  # noqa: E402
from helpers import make_git_repo  # noqa: E402

SESSION = "7d2c4f1e-0b7a-4c55-9e61-3f1d2a9b8c70"


def _planted() -> list[tuple[str, str, str]]:
    """One secret of each of 35+ kinds, single-line contexts first (they fit every way in)."""
    seen, out = set(), []
    for kind, text, value in corpus.secrets(corpus.SEED + 7):
        if kind in seen:
            continue
        seen.add(kind)
        out.append((kind, text, value))
    return out


SECRETS = _planted()


def _pieces(value: str, n: int = 12) -> set[str]:
    return {value} if len(value) <= n else {value[i : i + n] for i in range(len(value) - n + 1)}


def _transcript(path: Path, cwd: Path) -> Path:
    recs, t = [], 0

    def rec(kind: str, content, **extra) -> None:
        nonlocal t
        t += 1
        recs.append(
            {
                "type": kind,
                "uuid": f"u{t:04d}",
                "sessionId": SESSION,
                "cwd": str(cwd),
                "timestamp": f"2026-12-01T10:{t // 60:02d}:{t % 60:02d}Z",
                "message": {"role": kind, "content": content},
                **extra,
            }
        )

    for i, (_, text, _) in enumerate(SECRETS):
        rec("user", f"please use this for the deploy step {i}: {text}")
        rec(
            "assistant",
            [
                {"type": "text", "text": f"Running step {i} now."},
                {
                    "type": "tool_use",
                    "id": f"t{i}",
                    "name": "Bash",
                    "input": {"command": f"echo '{text}' > /tmp/step{i}.txt", "description": text},
                },
            ],
        )
        rec("user", [{"type": "tool_result", "tool_use_id": f"t{i}", "content": f"wrote step {i}:\n{text}\n"}])
        rec("assistant", [{"type": "text", "text": f"Done with step {i}; I edited src/app/config.py."}])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n", encoding="utf-8")
    return path


def _files_written(home: Path, root: Path) -> list[Path]:
    out = [p for p in home.rglob("*") if p.is_file()]
    out += [p for p in (root / ".cairn").rglob("*") if p.is_file()]
    out += [root / "CLAUDE.md"]
    return out


def test_no_file_cairn_wrote_holds_a_piece_of_any_secret(tmp_path, run_cli, cairn_home):
    assert len(SECRETS) >= 30 and len({k for k, _, _ in SECRETS}) >= 30
    secret_lines = "\n".join(text for _, text, _ in SECRETS)
    root = make_git_repo(
        tmp_path / "app",
        {
            "src/app/config.py": "".join(f"SECRET_{i} = {json.dumps(text)}\n" for i, (_, text, _) in enumerate(SECRETS))
            + "GITHUB_TOKEN = "
            + json.dumps(SECRETS[0][2])
            + "\n\ndef load():\n    return SECRET_0\n",
            "src/app/main.py": "from app.config import load\n\ndef main():\n    return load()\n",
            "deploy/.env": secret_lines + "\n",
            "config/settings.yaml": "app:\n" + "".join(f"  # {text}\n" for _, text, _ in SECRETS if "\n" not in text),
            "docs/notes.md": "# Ops notes\n\n" + secret_lines + "\n",
        },
    )
    assert run_cli("init", cwd=root).returncode == 0
    transcript = _transcript(tmp_path / "transcripts" / f"{SESSION}.jsonl", root)

    # the archive: CLI ingest, then the Stop hook on the same transcript
    r = run_cli("sessions", "ingest", str(transcript))
    assert r.returncode == 0, r.stderr
    assert (
        run_hook(
            "Stop",
            payload("Stop", root, session=SESSION, transcript=transcript),
            home=cairn_home,
            inline=True,
            cwd=root,
        ).returncode
        == 0
    )
    # a note, a handoff, a summary, memory-md
    for i, (_, text, _) in enumerate(SECRETS[:12]):
        r = run_cli("remember", f"deploy credential {i}", "--type", "gotcha", "--body", text, cwd=root)
        assert r.returncode == 0, r.stderr
    r = run_cli("handoff", "save", "--goal", SECRETS[1][1], "--where", SECRETS[2][1], "--next", SECRETS[3][1], cwd=root)
    assert r.returncode == 0, r.stderr
    assert run_cli("summary", "set", SECRETS[4][1], cwd=root).returncode == 0
    assert run_cli("memory-md", cwd=root).returncode == 0
    # hooks built from the transcript: recall (the prompt quotes a secret), session record, journal
    for event, extra in (
        ("UserPromptSubmit", {"prompt": f"deploy with {SECRETS[5][1]} and fix config.py"}),
        ("PreCompact", {"trigger": "auto"}),
        ("SessionEnd", {"reason": "exit"}),
        ("PostToolUse", {"tool_name": "Bash", "tool_input": {"command": SECRETS[6][1]}}),
    ):
        out = run_hook(
            event,
            payload(event, root, session=SESSION, transcript=transcript, **extra),
            home=cairn_home,
            inline=True,
            cwd=root,
        )
        assert out.returncode == 0, out.stderr
        for _, _, value in SECRETS:
            assert not any(p in out.stdout for p in _pieces(value)), (event, value)
    # what the CLI prints
    shown = [
        run_cli("sessions", "search", "deploy", "step", cwd=root),
        run_cli("sessions", "show", SESSION[:8], "--full"),
        run_cli("search", "deploy credential config", cwd=root),
        run_cli("map", cwd=root),
        run_cli("read", "deploy credential 1", cwd=root),
        run_cli("handoff", "last", cwd=root),
    ]
    # the MCP server's tools, in process
    from cairn.agents.mcp.guard import Scope
    from cairn.agents.mcp.server import _guarded
    from cairn.agents.mcp.tools import CairnTools, FactIn

    tools = CairnTools(Scope(str(root)))
    answers = [
        _guarded("read", tools.read)(path="src/app/config.py"),
        _guarded("read", tools.read)(path="deploy/.env"),
        _guarded("remember", tools.remember)(facts=[FactIn(title="mcp note", body=SECRETS[8][1])]),
        _guarded("handoff_save", tools.handoff_save)(goal=SECRETS[9][1]),
        _guarded("context", tools.context)(query="deploy credential config"),
    ]
    assert run_cli("backup").returncode == 0

    texts = [p.stdout + p.stderr for p in shown] + [json.dumps(a) if not isinstance(a, str) else a for a in answers]
    files = _files_written(cairn_home, root)
    assert any(p.name.endswith("-wal") or p.suffix == ".db" for p in files)
    assert any("backups" in p.parts for p in files)
    leaks = []
    for kind, _, value in SECRETS:
        pieces = _pieces(value)
        for i, t in enumerate(texts):
            hit = next((p for p in pieces if p in t), None)
            if hit:
                leaks.append((kind, f"output {i}: ...{t[max(0, t.find(hit) - 80) : t.find(hit) + 40]}..."))
        for f in files:
            data = f.read_bytes()
            if any(p.encode() in data for p in pieces):
                leaks.append((kind, str(f)))
    if leaks:
        print("LEAKS", sorted(set((k, w if w.startswith("output") else Path(w).name) for k, w in leaks)))
    assert not leaks
