"""Where the agents' transcripts are, which agent wrote a file, which session it belongs to, its records.

Shared by the session archive and the token X-ray. Layouts (samples in tests/fixtures/transcripts/):
- Claude Code: `<projects>/<encoded-cwd>/<sessionId>.jsonl` plus
  `<sessionId>/subagents/agent-<id>.jsonl`; a subagent file belongs to the session named by its
  grandparent folder.
- Codex CLI: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (and
  `archived_sessions/`), first record `session_meta`.
- Gemini CLI: `~/.gemini/tmp/<project hash or name>/chats/session-*.json` (one JSON document,
  rewritten as the chat grows) or `.jsonl` (header record with `projectHash`, then messages).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from cairn.util.jsonl import read_jsonl_from

CLAUDE, CODEX, GEMINI = "claude-code", "codex", "gemini"
AGENTS = (CLAUDE, CODEX, GEMINI)
_HEAD = 4096  # bytes read to tell which agent wrote a file


def claude_roots() -> list[Path]:
    """Claude Code's transcript folders: CLAUDE_CONFIG_DIR (comma list) or ~/.claude, ~/.config/claude."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    bases = [Path(p).expanduser() for p in env.split(",") if p.strip()] if env else [
        Path.home() / ".claude",
        Path.home() / ".config" / "claude",
    ]
    return [b / "projects" for b in bases if (b / "projects").is_dir()]


def codex_roots() -> list[Path]:
    """Codex CLI's rollout folders: $CODEX_HOME (default ~/.codex)/sessions and /archived_sessions."""
    home = Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()
    return [home / d for d in ("sessions", "archived_sessions") if (home / d).is_dir()]


def gemini_roots() -> list[Path]:
    """Gemini CLI's per-project folders: $GEMINI_CLI_HOME or ~ /.gemini/tmp."""
    base = Path(os.environ.get("GEMINI_CLI_HOME") or Path.home()).expanduser() / ".gemini" / "tmp"
    return [base] if base.is_dir() else []


def default_transcript_roots() -> list[Path]:
    """Every agent's own transcript folders that exist here."""
    return claude_roots() + codex_roots() + gemini_roots()


def _is_gemini_chat(p: Path) -> bool:
    return p.suffix == ".json" and p.parent.name == "chats"


def find_transcripts(paths: Iterable[str | os.PathLike] | None = None) -> list[Path]:
    """Every transcript under the given files/folders (default: the agents' folders), sorted:
    `*.jsonl` of any agent, and Gemini's `chats/*.json`."""
    roots = [Path(p).expanduser() for p in paths] if paths else default_transcript_roots()
    found: set[Path] = set()
    real_dirs: dict[Path, Path] = {}
    for root in roots:
        if root.is_file() and (root.suffix == ".jsonl" or root.suffix == ".json"):
            found.add(root.resolve())
        elif root.is_dir():
            for p in _named_json(root):
                if (p.suffix == ".jsonl" or _is_gemini_chat(p)) and p.is_file():
                    found.add(_resolved(p, real_dirs))
    return sorted(found)


def _named_json(root: Path) -> Iterator[Path]:
    """What `root.rglob("*.json*")` yields (entries named `*.json*` in every folder below, links to
    folders not followed), by os.walk: find_transcripts on 912 rollouts took 0.073 s with rglob,
    0.035 s so."""
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            if ".json" in name:
                yield Path(folder, name)


def _resolved(p: Path, real_dirs: dict[Path, Path]) -> Path:
    """`p.resolve()`, with each folder resolved once (one lstat per file instead of one per part)."""
    if p.is_symlink():
        return p.resolve()
    folder = p.parent
    real = real_dirs.get(folder)
    if real is None:
        real = real_dirs[folder] = folder.resolve()
    return real / p.name


def agent_of(path: Path) -> str:
    """Which agent wrote a transcript file, from its name and first bytes."""
    path = Path(path)
    if path.suffix == ".json":
        return GEMINI
    if path.name.startswith("rollout-"):  # by name alone: no need to open the file
        return CODEX
    try:
        with open(path, "rb") as fh:
            head = fh.read(_HEAD)
    except OSError:
        head = b""
    first = head.split(b"\n", 1)[0]
    if path.name.startswith("rollout-") or b'"type":"session_meta"' in first:
        return CODEX
    if b'"projectHash"' in first:
        return GEMINI
    return CLAUDE


def is_subagent_file(path: Path) -> bool:
    return Path(path).parent.name == "subagents"


def session_id_for(path: Path) -> str:
    """The session a transcript file counts toward, as Claude Code (and ccusage) name it."""
    path = Path(path)
    if is_subagent_file(path):
        return path.parent.parent.name
    return path.stem


def iter_records(path: Path, offset: int = 0,
                 on_bad: Callable[[int], None] | None = None) -> Iterator[tuple[int, dict]]:
    """(offset_after_line, record) for each complete JSON line from `offset` on; see util.jsonl
    (`on_bad` hears of each line skipped as broken)."""
    return read_jsonl_from(path, offset, on_bad)


def marked_spans(data: bytes, markers: tuple[bytes, ...]) -> dict[int, int]:
    """{start: end} of the lines of `data` holding any of `markers`, found by searching the whole
    buffer (no Python loop over the lines that hold none: most of a transcript)."""
    find, rfind = data.find, data.rfind
    size = len(data)
    ends: dict[int, int] = {}  # line start -> line end
    for m in markers:
        i = find(m)
        while i != -1:
            end = find(b"\n", i)
            if end == -1:
                end = size
            ends[rfind(b"\n", 0, i) + 1] = end
            i = find(m, end)
    return ends


def project_dir_for(path: Path) -> str:
    """The folder Claude Code named after the session's cwd (`-home-me-repo`), as ccusage reports it."""
    path = Path(path)
    return path.parent.parent.parent.name if is_subagent_file(path) else path.parent.name
