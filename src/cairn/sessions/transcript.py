"""Where Claude Code transcripts are, which session each file belongs to, and their records.

Shared by the session archive and the token X-ray. Layout, as Claude Code writes it (samples in
tests/fixtures/transcripts/):
`<projects>/<encoded-cwd>/<sessionId>.jsonl` plus `<sessionId>/subagents/agent-<id>.jsonl`;
a subagent file belongs to the session named by its grandparent folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from cairn.util.jsonl import read_jsonl_from


def default_transcript_roots() -> list[Path]:
    """The agents' own transcript folders: CLAUDE_CONFIG_DIR (comma list) or ~/.claude, ~/.config/claude."""
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    bases = [Path(p).expanduser() for p in env.split(",") if p.strip()] if env else [
        Path.home() / ".claude",
        Path.home() / ".config" / "claude",
    ]
    return [b / "projects" for b in bases if (b / "projects").is_dir()]


def find_transcripts(paths: Iterable[str | os.PathLike] | None = None) -> list[Path]:
    """Every `*.jsonl` under the given files/folders (default: the agents' folders), sorted."""
    roots = [Path(p).expanduser() for p in paths] if paths else default_transcript_roots()
    found: set[Path] = set()
    for root in roots:
        if root.is_file() and root.suffix == ".jsonl":
            found.add(root.resolve())
        elif root.is_dir():
            for p in root.rglob("*.jsonl"):
                if p.is_file():
                    found.add(p.resolve())
    return sorted(found)


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


def iter_raw_lines(path: Path) -> Iterator[bytes]:
    """Every non-blank line of a whole file as bytes, the last even without a newline.

    For batch readers (the token X-ray) that filter lines by a byte marker before parsing JSON,
    which is what makes reading hundreds of megabytes of transcripts fast. It reads the file as
    ccusage does, so a final line without a newline still counts when it is complete JSON.
    """
    with open(path, "rb") as fh:
        data = fh.read()
    for line in data.split(b"\n"):
        if line.strip():
            yield line


def project_dir_for(path: Path) -> str:
    """The folder Claude Code named after the session's cwd (`-home-me-repo`), as ccusage reports it."""
    path = Path(path)
    return path.parent.parent.parent.name if is_subagent_file(path) else path.parent.name
