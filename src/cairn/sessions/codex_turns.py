"""Turn a Codex CLI rollout record into the searchable turns worth archiving (as turns.py does for Claude Code).

A rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`) holds one JSON record per line:
`session_meta` (session id, cwd, git branch), `turn_context` (cwd, model), `response_item`
(messages, `function_call` / `custom_tool_call` and their outputs, `web_search_call`,
reasoning), `event_msg` (`user_message` as typed, `agent_message`, `token_count`, `error`...)
and `compacted` (the summary that replaced the history). Archived: what the user typed
(`event_msg` `user_message`, or `item_completed` of a `UserMessage` since Codex CLI 0.171, free of
the environment context Codex injects as user messages),
what the agent said (assistant `output_text`), each tool call with its main argument, the head
of each output, errors, compaction summaries. Reasoning is not archived. Records carry no id, so
a turn's key is a hash of the record: the same session copied into two files (a resumed or
forked rollout) holds the same keys and is archived once. All text is redacted here.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable

from cairn.sessions.codex_meta import text as _str
from cairn.sessions.codex_meta import typed_prompt
from cairn.sessions.turns import (
    ARG_MAX,
    RESULT_HEAD,
    TEXT_MAX,
    Turn,
    clean_text,
    command_of,
    cut_between_words,
    redacted_head,
    redacted_output,
)
from cairn.util.jsonl import loads

# The argument that says what a Codex tool call did.
MAIN_ARG = {
    "shell": "command",
    "exec_command": "cmd",
    "local_shell": "command",
    "read_file": "path",
    "view_image": "path",
    "update_plan": "explanation",
    "write_stdin": "chars",
}
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)
_EXIT = re.compile(r"(?:Exit code|Process exited with code):? (\d+)")


def record_key(record: dict) -> str:
    """A stable key for a record that has no id: the same record in two files gets the same key."""
    raw = json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "cx-" + hashlib.sha1(raw.encode("utf-8", "surrogatepass")).hexdigest()[:20]


def _texts(content: object, kinds: tuple[str, ...]) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        b["text"] for b in content if isinstance(b, dict) and b.get("type") in kinds and isinstance(b.get("text"), str)
    )


def main_argument(name: str, raw: object) -> str:
    """The one argument that says what a Codex tool call did: a command, a path, a patched file."""
    if name == "apply_patch" and isinstance(raw, str):
        files = _PATCH_FILE.findall(raw)
        return " ".join(files) if files else raw
    params: object = raw
    if isinstance(raw, str):
        try:
            params = loads(raw)  # the arguments, JSON in a string: a cut emoji in them becomes U+FFFD
        except ValueError:
            return raw
    if not isinstance(params, dict):
        return str(params) if params is not None else ""
    value = params.get(MAIN_ARG.get(name, ""))
    if value is None:
        value = next((v for v in params.values() if isinstance(v, str | list) and v), "")
    if isinstance(value, list):  # shell: ["bash", "-lc", "the command"]
        parts = [str(v) for v in value]
        value = parts[-1] if len(parts) >= 3 and parts[1] in ("-lc", "-c") else " ".join(parts)
    return str(value).strip()


def _output(raw: object) -> tuple[str, bool]:
    """(text, failed) of a tool output: a string, or JSON {"output", "metadata": {"exit_code"}}."""
    if isinstance(raw, dict):
        data: object = raw
    elif isinstance(raw, str):
        data = raw
        if raw.startswith("{"):
            try:
                data = loads(raw)
            except ValueError:
                data = raw
    elif isinstance(raw, list):
        return _texts(raw, ("input_text", "output_text", "text")), False
    else:
        return "", False
    if isinstance(data, dict):
        meta = data.get("metadata")
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        text = data.get("output")
        return (text if isinstance(text, str) else ""), isinstance(code, int) and code != 0
    if not isinstance(data, str):
        return "", False
    m = _EXIT.search(data[:200])
    return data, bool(m and m.group(1) != "0")


def extract(record: dict, offset: int, tool_name: Callable[[str], str | None]) -> list[Turn]:
    """The archivable turns of one rollout record (possibly none); `offset` is unused (the key is
    the record's hash), `tool_name(call_id)` names the call an output belongs to."""
    kind = record.get("type")
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return []
    ts = _str(record.get("timestamp"))
    ptype = payload.get("type")
    if kind == "event_msg":
        typed = typed_prompt(payload)
        if typed is not None:
            text = clean_text(typed)
            return [Turn(record_key(record), 0, "user", ts, redacted_head(text, TEXT_MAX))] if text else []
        if ptype in ("error", "stream_error") and isinstance(payload.get("message"), str):
            return [Turn(record_key(record), 0, "error", ts, redacted_head(payload["message"], TEXT_MAX))]
        return []
    if kind == "compacted":
        text = clean_text(str(payload.get("message") or ""))
        return [Turn(record_key(record), 0, "summary", ts, redacted_head(text, TEXT_MAX))] if text else []
    if kind != "response_item":
        return []
    key = record_key(record)
    if ptype == "message" and payload.get("role") == "assistant":
        text = clean_text(_texts(payload.get("content"), ("output_text", "text")))
        return [Turn(key, 0, "assistant", ts, redacted_head(text, TEXT_MAX))] if text else []
    if ptype in ("function_call", "custom_tool_call", "local_shell_call"):
        name = str(payload.get("name") or ("shell" if ptype == "local_shell_call" else "?"))
        raw = payload.get("arguments") if ptype == "function_call" else payload.get("input")
        if ptype == "local_shell_call":
            action = payload.get("action")
            raw = action if isinstance(action, dict) else {}
        arg = redacted_head(main_argument(name, raw), ARG_MAX)
        return [Turn(key, 0, "tool", ts, f"{name} {arg}".strip(), tool=name, arg=arg, ref=_str(payload.get("call_id")))]
    if ptype == "web_search_call":
        action = payload.get("action")
        query = action.get("query") if isinstance(action, dict) else None
        arg = redacted_head(query, ARG_MAX) if isinstance(query, str) else ""
        return [Turn(key, 0, "tool", ts, f"web_search {arg}".strip(), tool="web_search", arg=arg)]
    if ptype in ("function_call_output", "custom_tool_call_output"):
        ref = _str(payload.get("call_id"))
        text, failed = _output(payload.get("output"))
        text = redacted_output(
            clean_text(cut_between_words(text, RESULT_HEAD * 4)), RESULT_HEAD, command_of(tool_name, ref)
        )
        if not text and not failed:
            return []
        return [
            Turn(key, 0, "error" if failed else "tool_result", ts, text, tool=tool_name(ref) if ref else None, ref=ref)
        ]
    return []


def is_conversation(record: dict) -> bool:
    """Records whose time counts toward the session's span."""
    return record.get("type") in ("response_item", "event_msg")
