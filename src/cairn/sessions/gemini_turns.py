"""Read a Gemini CLI chat (`~/.gemini/tmp/<project>/chats/session-*.json|jsonl`) as records and turns.

Gemini CLI keeps one chat per file: either one JSON document (`sessionId`, `projectHash`,
`startTime`, `lastUpdated`, `messages`), rewritten whole as the chat grows, or, in newer
versions, JSON lines: a header with the same fields, then one line per message (a message can be
written again when its tokens arrive: same `id`, the later line wins) and `{"$set": ...}`
patches. Messages are `user` (`content`; `displayContent` when what the user typed differs from
what the model got: gemini_context.typed_content), `gemini` (text, `toolCalls` with their results,
`thoughts`, `tokens`, `model`; newer versions write `content` as parts, thought parts marked
`"thought": true` and `functionCall` parts beside the text), `error`, `info`, `warning`. Archived:
what the user typed, what the model said, each tool call with its main argument, the head of each
result, errors. Thoughts are not.
The chat names no folder, only the SHA-256 of the project root; newer versions write that root
in `<project folder>/.project_root`, which is how a chat finds its project here; older ones name
the folder by that hash alone, which finds the root among folders known from other sessions
(`root_for_hash`). All text is redacted here.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from cairn.sessions.codex_turns import main_argument as _json_argument
from cairn.sessions.gemini_context import typed_content
from cairn.sessions.turns import (
    ARG_MAX,
    RESULT_HEAD,
    SHELL_TOOLS,
    TEXT_MAX,
    Turn,
    clean_text,
    cut_between_words,
    redacted_head,
    redacted_output,
)
from cairn.util.jsonl import parse_line

MAIN_ARG = {
    "run_shell_command": ("command",),
    "read_file": ("file_path", "absolute_path"),
    "write_file": ("file_path",),
    "replace": ("file_path",),
    "list_directory": ("path",),
    "glob": ("pattern",),
    "search_file_content": ("pattern",),
    "google_web_search": ("query",),
    "web_fetch": ("prompt",),
    "read_many_files": ("paths",),
    "save_memory": ("fact",),
}
FILE_TOOLS = frozenset({"read_file", "write_file", "replace"})


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _text(content: object) -> str:
    """The text of a message's content: a string, or its text parts (thought parts left out)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p["text"]
            for p in content
            if isinstance(p, dict) and isinstance(p.get("text"), str) and p.get("thought") is not True
        )
    return ""


def read_document(path: Path) -> list[dict]:
    """A whole-JSON chat as records: its header (without messages), then each message.
    Raises ValueError when the file is not a JSON object. A cut emoji (a lone surrogate, which
    JavaScript writes as `"\\ud83d"`) or a bad UTF-8 byte becomes U+FFFD: one character, never
    the whole chat, is lost (util/jsonl.py)."""
    with open(path, "rb") as fh:
        doc = parse_line(fh.read())
    if doc is None:
        raise ValueError("not a JSON object")
    messages = doc.get("messages")
    header = {k: v for k, v in doc.items() if k != "messages"}
    return [header] + [m for m in (messages if isinstance(messages, list) else []) if isinstance(m, dict)]


def project_root(path: Path) -> str | None:
    """The project folder a chat ran in, when Gemini CLI wrote it down (`.project_root`)."""
    try:
        text = (Path(path).parent.parent / ".project_root").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeError):
        return None
    return text or None


_HASH = re.compile(r"[0-9a-f]{64}")


def project_hash(path: Path) -> str | None:
    """The project hash an older chat's folder is named by (`tmp/<sha256 of the root>/chats/`)."""
    name = Path(path).parent.parent.name
    return name if is_project_hash(name) else None


def is_project_hash(name: str) -> bool:
    """Whether a chat folder's name is a project hash (64 hex digits), not a project's name."""
    return _HASH.fullmatch(name) is not None


def root_for_hash(digest: str, roots: Iterable[str]) -> str | None:
    """The folder among `roots` whose SHA-256 is `digest` (how Gemini CLI hashes a project root)."""
    return next((r for r in roots if hashlib.sha256(r.encode("utf-8")).hexdigest() == digest), None)


def main_argument(name: str, args: object) -> str:
    if isinstance(args, dict):
        value = next((args[k] for k in MAIN_ARG.get(name, ()) if args.get(k)), None)
        if isinstance(value, list):
            return " ".join(str(v) for v in value)
        if isinstance(value, str):
            return value.strip()
    return _json_argument(name, args if isinstance(args, dict | str) else {})


def model_results(call: dict) -> list[str]:
    """The texts a tool call gave back to the model: each functionResponse's `output` / `error`
    (what entered the context; `resultDisplay` is what the user was shown)."""
    parts: list[str] = []
    results = call.get("result")
    for r in results if isinstance(results, list) else []:
        fr = r.get("functionResponse") if isinstance(r, dict) else None
        resp = fr.get("response") if isinstance(fr, dict) else None
        if isinstance(resp, dict):
            parts.extend(resp[k] for k in ("output", "error") if isinstance(resp.get(k), str))
        elif isinstance(r, str):
            parts.append(r)
    return parts


def _result(call: dict) -> str:
    shown = call.get("resultDisplay")
    if isinstance(shown, str) and shown.strip():
        return shown
    return "\n".join(model_results(call))


def _tool_turns(uuid: str, ts: str | None, calls: list) -> Iterator[Turn]:
    for i, call in enumerate(calls):
        if not isinstance(call, dict):
            continue
        name = str(call.get("name") or "?")
        arg = redacted_head(main_argument(name, call.get("args")), ARG_MAX)
        ref = _str(call.get("id"))
        yield Turn(uuid, 1 + 2 * i, "tool", ts, f"{name} {arg}".strip(), tool=name, arg=arg, ref=ref)
        failed = call.get("status") in ("error", "cancelled")
        command = main_argument(name, call.get("args")) if name in SHELL_TOOLS else None
        text = redacted_output(clean_text(cut_between_words(_result(call), RESULT_HEAD * 4)), RESULT_HEAD, command)
        if text or failed:
            yield Turn(
                uuid,
                2 + 2 * i,
                "error" if failed else "tool_result",
                _str(call.get("timestamp")) or ts,
                text,
                tool=name,
                ref=ref,
            )


def extract(record: dict, offset: int, tool_name: Callable[[str], str | None]) -> list[Turn]:
    """The archivable turns of one chat message (possibly none); keyed by the message id."""
    kind = record.get("type")
    if kind not in ("user", "gemini", "error") or "$set" in record:
        return []
    uuid = str(record.get("id") or f"@{offset}")
    ts = _str(record.get("timestamp"))
    text = clean_text(_text(typed_content(record) if kind == "user" else record.get("content")))
    role = {"user": "user", "gemini": "assistant", "error": "error"}[kind]
    turns = [Turn(uuid, 0, role, ts, redacted_head(text, TEXT_MAX))] if text else []
    calls = record.get("toolCalls")
    if kind == "gemini" and isinstance(calls, list):
        turns.extend(_tool_turns(uuid, ts, calls))
    return turns


def record_meta(record: dict) -> tuple[str | None, str | None, str | None]:
    """(cwd, git branch, session id): a chat records only its session id (in the header)."""
    return None, None, _str(record.get("sessionId"))


def is_conversation(record: dict) -> bool:
    return record.get("type") in ("user", "gemini")
