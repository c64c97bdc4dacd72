"""Fold a Gemini CLI chat (its JSON-lines form) into the session context, as context.py does for Claude Code.

A chat line is a message (sessions/gemini_turns.py describes the format): `user` with `content`
(the words typed; when the CLI expanded them, e.g. `/init` into its long instructions, or wrote a
message itself, e.g. "System: Please continue." after a tool, `displayContent` holds what the user
saw: its text parts are the words typed, none means the user typed nothing), `gemini` with
`toolCalls` (`name`, `args`). A message can be written again when
its tokens arrive (same `id`); a tool call is then counted once more, which only adds to its count.
What counts: `write_file` creates, `replace` edits, `read_file` / `read_many_files` read, the file
words of `run_shell_command` are read or named as for Codex (codex_context.shell_files), `glob`,
`list_directory` and `search_file_content` name their path. Stdlib only.
"""

from __future__ import annotations

from cairn.sessions.codex_context import shell_files
from cairn.sessions.context import PROMPT_CHARS, SessionContext, prompt_text

EDITS = {"write_file": "created", "replace": "edited", "edit": "edited"}
READS = frozenset({"read_file", "read_many_files"})
NAMES = frozenset({"glob", "list_directory", "search_file_content", "grep"})
PATH_KEYS = ("file_path", "absolute_path", "path")


def is_gemini(rec: dict) -> bool:
    """A Gemini CLI chat message (`user` / `gemini` with top-level `content`), not a Claude Code record."""
    return rec.get("type") in ("user", "gemini") and "message" not in rec and "content" in rec


def typed_content(rec: dict) -> object:
    """What the user typed in a `user` message: its `displayContent` when the CLI wrote one (the
    `/init` typed, not the instructions it expanded into; no text parts when the CLI wrote the
    message itself), else its `content`."""
    shown = rec.get("displayContent")
    if isinstance(shown, list):
        return [p for p in shown if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return shown if isinstance(shown, str) else rec.get("content")


def apply_gemini_record(ctx: SessionContext, rec: dict, when: float) -> None:
    """Fold one chat message (`is_gemini`) into `ctx`; `when` is its time (epoch seconds)."""
    if rec["type"] == "user":
        content = typed_content(rec)
        if isinstance(content, list):  # Gemini's parts, as the Claude Code text blocks prompt_text reads
            content = [{"type": "text", **b} for b in content if isinstance(b, dict)]
        text = prompt_text(content)
        if text and (not ctx.prompts or ctx.prompts[-1] != text[:PROMPT_CHARS]):  # a line written twice is one prompt
            ctx.add_prompt(text)
        return
    calls = rec.get("toolCalls")
    if not isinstance(calls, list):
        return
    for call in calls:
        if not isinstance(call, dict) or not isinstance(call.get("args"), dict):
            continue
        name, args = str(call.get("name") or ""), call["args"]
        path = next((args[k] for k in PATH_KEYS if isinstance(args.get(k), str) and args[k]), None)
        if name in EDITS and path:
            ctx.touch(path, EDITS[name], when)
        elif name in READS:
            paths = args.get("paths") if name == "read_many_files" else [path]
            for p in paths if isinstance(paths, list) else []:
                if isinstance(p, str) and p and "*" not in p:
                    ctx.touch(p, "read", when)
        elif name == "run_shell_command" and isinstance(args.get("command"), str):
            for how, word in shell_files(args["command"]):
                ctx.touch(word, how, when)
        elif name in NAMES and path:
            ctx.touch(path, "named", when)
