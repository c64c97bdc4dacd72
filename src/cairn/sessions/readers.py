"""The per-agent reader the archive uses for a transcript: turns, meta, session id, conversation times.

One `Reader` per agent (Claude Code, Codex CLI, Gemini CLI), so archive.py ingests every agent's
files the same way: incremental by byte offset for JSON lines, the whole document for a Gemini
`.json` chat (rewritten in place as it grows; its messages keep their ids, so re-reading adds
only the new ones).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from cairn.sessions import codex_turns, gemini_turns, turns
from cairn.sessions.codex_meta import UUID, id_from_name, record_meta
from cairn.sessions.transcript import CLAUDE, CODEX, GEMINI, agent_of, is_subagent_file, session_id_for
from cairn.sessions.turns import Turn


@dataclass(frozen=True)
class Reader:
    agent: str
    extract: Callable[[dict, int, Callable[[str], str | None]], list[Turn]]
    record_meta: Callable[[dict], tuple[str | None, str | None, str | None]]
    is_conversation: Callable[[dict], bool]
    whole_document: bool = False  # read as one JSON document, not JSON lines from an offset

    def session_id(self, path: Path, first_records: list[dict]) -> str:
        """The session a file belongs to: the id its records give, else one from its name."""
        if self.agent == CLAUDE:
            sid = session_id_for(path)
            if is_subagent_file(path) or UUID.fullmatch(sid):
                return sid
            return next((r["sessionId"] for r in first_records if isinstance(r.get("sessionId"), str)), sid)
        recorded = next((m[2] for m in map(self.record_meta, first_records) if m[2]), None)
        return recorded or id_from_name(path)

    def cwd_hint(self, path: Path, known_roots: Callable[[], Iterable[str]] | None = None) -> str | None:
        """A working folder known from outside the records: Gemini's `.project_root`, else the folder
        among `known_roots()` (e.g. other sessions' folders) whose hash names the chat's folder."""
        if self.agent != GEMINI:
            return None
        root = gemini_turns.project_root(path)
        if root or known_roots is None:
            return root
        digest = gemini_turns.project_hash(path)
        return gemini_turns.root_for_hash(digest, known_roots()) if digest else None


def _claude_conversation(record: dict) -> bool:
    return record.get("type") in ("user", "assistant")


CLAUDE_READER = Reader(CLAUDE, turns.extract, turns.record_meta, _claude_conversation)
CODEX_READER = Reader(CODEX, codex_turns.extract, record_meta, codex_turns.is_conversation)
GEMINI_LINES_READER = Reader(GEMINI, gemini_turns.extract, gemini_turns.record_meta, gemini_turns.is_conversation)
GEMINI_DOC_READER = Reader(
    GEMINI, gemini_turns.extract, gemini_turns.record_meta, gemini_turns.is_conversation, whole_document=True
)


def reader_for(path: Path) -> Reader:
    agent = agent_of(path)
    if agent == CODEX:
        return CODEX_READER
    if agent == GEMINI:
        return GEMINI_DOC_READER if Path(path).suffix == ".json" else GEMINI_LINES_READER
    return CLAUDE_READER
