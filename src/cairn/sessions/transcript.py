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


def claude_roots(env: str | None = None, home: str | None = None) -> list[Path]:
    """Claude Code's transcript folders: CLAUDE_CONFIG_DIR (comma list) or ~/.claude, ~/.config/claude
    (`env`, `home`: another process's CLAUDE_CONFIG_DIR and HOME instead of this one's)."""
    env = os.environ.get("CLAUDE_CONFIG_DIR") if env is None else env
    user = Path(home) if home else Path.home()
    bases = (
        [Path(p).expanduser() for p in env.split(",") if p.strip()]
        if env
        else [
            user / ".claude",
            user / ".config" / "claude",
        ]
    )
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


def find_transcripts(paths: Iterable[str | os.PathLike] | None = None) -> list[Path]:
    """Every transcript under the given files/folders (default: the agents' folders), sorted:
    `*.jsonl` of any agent, and Gemini's `chats/*.json`.

    Resolved paths, found as text and made Paths once at the end: a folder below a root is reached
    without following links, so its real path is the root's plus its own name (one `realpath` per
    root, not one per folder; 912 rollouts in 685 folders: 18.7 -> ~8 ms, docs/benchmarks.md#xray)."""
    roots = [Path(p).expanduser() for p in paths] if paths else default_transcript_roots()
    found: set[str] = set()
    for root in roots:
        if root.is_file() and (root.suffix == ".jsonl" or root.suffix == ".json"):
            found.add(str(root.resolve()))
        elif root.is_dir():
            top = str(root)
            real_top = os.path.realpath(top)
            real_dirs: dict[str, str] = {}
            for folder, entry in _named_json(top):
                suffix = _suffix(entry.name)
                if (
                    suffix == ".jsonl" or (suffix == ".json" and os.path.basename(folder) == "chats")
                ) and entry.is_file():
                    found.add(_resolved(top, real_top, folder, entry, real_dirs))
    return [Path(p) for p in sorted(found, key=_parts)]


def _parts(path: str) -> list[str]:
    """The sort key of a resolved (absolute, normalized) path: its parts, as PosixPath orders them."""
    return path.split("/")


def _suffix(name: str) -> str:
    """`Path(name).suffix`."""
    i = name.rfind(".")
    return name[i:] if 0 < i < len(name) - 1 else ""


def _named_json(root: str) -> Iterator[tuple[str, os.DirEntry]]:
    """(folder, entry) of what `root.rglob("*.json*")` yields (entries named `*.json*` in every
    folder below, links to folders not followed), by os.scandir: the entries' types come with the
    listing, so a file costs no stat of its own (find_transcripts on 912 rollouts: 0.073 s with
    rglob, 0.035 s with os.walk and Path objects, docs/benchmarks.md#xray for this)."""
    folders = [root]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:  # as os.walk: an unreadable folder is passed over
            continue
        for entry in entries:
            if ".json" in entry.name:
                yield folder, entry
            try:
                if entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
            except OSError:
                pass


def _resolved(top: str, real_top: str, folder: str, entry: os.DirEntry, real_dirs: dict[str, str]) -> str:
    """`str(Path(entry.path).resolve())` for an entry of `folder`, a folder reached from `top`
    (whose real path is `real_top`) through folders that are not links."""
    if entry.is_symlink():
        return os.path.realpath(entry.path)
    real = real_dirs.get(folder)
    if real is None:
        rel = folder[len(top) :].lstrip("/")
        real = real_dirs[folder] = os.path.join(real_top, rel) if rel else real_top
    return os.path.join(real, entry.name)


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


def iter_records(
    path: Path, offset: int = 0, on_bad: Callable[[int], None] | None = None
) -> Iterator[tuple[int, dict]]:
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
