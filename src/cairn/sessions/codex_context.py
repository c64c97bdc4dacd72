"""Fold a Codex CLI rollout into the session context, as context.py does for Claude Code.

`cairn search --transcript ~/.codex/sessions/.../rollout-*.jsonl` and the MCP `context` tool's
`transcript_path` take a Codex session as well: the same reader, the same SessionContext. What a
rollout says (sessions/codex_turns.py describes its records):
- the prompts: `event_msg` `user_message` (since Codex CLI 0.171, `item_completed` of a
  `UserMessage`), the text as typed (the environment context Codex sends as user messages is not in it);
- edited and created files: the `*** Update File:` / `*** Add File:` / `*** Move to:` lines of an
  `apply_patch` call (a custom tool call, a function call, or a shell command holding the patch);
  since Codex CLI 0.171 (tools called from the model's `exec` JavaScript), the `item_completed`
  records of each `FileChange` and `CommandExecution`;
- read files: Codex reads through the shell (`sed -n '1,200p' src/a.py`, `cat`, `nl -ba`), so a file
  word of a reading command counts as read, and one of any other command as only named;
- the working folder: `session_meta` / `turn_context` `cwd`, and a call's `workdir`, against which
  a relative path is made absolute (the search side maps it onto the index).
Stdlib only (the prompt hook's path).
"""

from __future__ import annotations

import os
import re

from cairn.sessions.codex_meta import typed_prompt
from cairn.sessions.context import PROMPT_CHARS, SHELL_WORD, SessionContext, prompt_text
from cairn.util.jsonl import loads

SHELL_TOOLS = frozenset({"shell", "exec_command", "local_shell", "container.exec", "shell_command"})
READ_TOOLS = frozenset({"read_file", "view_file"})
# Commands whose file arguments are read, not just named.
READERS = frozenset({"cat", "sed", "nl", "head", "tail", "less", "more", "bat", "batcat", "awk", "view", "wc"})
_PATCH = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.M)
_SEGMENT = re.compile(r"&&|\|\||[;|\n]")
_FILE_WORD = re.compile(  # as context.py's, but a bare `README.md` too: Codex reads with `cat`
    r"^(?:[\w.@~+-]{1,40}/)*[\w@~+-][\w.@~+-]{0,39}\.[A-Za-z][A-Za-z0-9]{0,7}$"
)


def is_codex(rec: dict) -> bool:
    """A rollout record (`payload` under a Codex record type), not a Claude Code one."""
    return isinstance(rec.get("payload"), dict) and rec.get("type") in (
        "response_item",
        "event_msg",
        "session_meta",
        "turn_context",
    )


def apply_codex_record(ctx: SessionContext, rec: dict, when: float) -> None:
    """Fold one rollout record (`is_codex`) into `ctx`; `when` is its time (epoch seconds)."""
    payload = rec["payload"]
    kind, ptype = rec.get("type"), payload.get("type")
    if kind in ("session_meta", "turn_context"):
        if isinstance(payload.get("cwd"), str) and payload["cwd"]:
            ctx.cwd = payload["cwd"]
        return
    if kind == "event_msg":
        typed = typed_prompt(payload)
        if typed is not None:
            text = prompt_text(typed)
            if text and not (ptype == "item_completed" and ctx.prompts and ctx.prompts[-1] == text[:PROMPT_CHARS]):
                ctx.add_prompt(text)  # (a rollout with both records of one prompt counts it once)
        elif ptype == "item_completed" and isinstance(payload.get("item"), dict):
            _completed_item(ctx, payload["item"], when)
        return
    if ptype == "custom_tool_call" and payload.get("name") == "apply_patch":
        _patched(ctx, payload.get("input"), ctx.cwd, when)
    elif ptype == "function_call":
        name = str(payload.get("name") or "")
        args = _arguments(payload.get("arguments"))
        workdir = _text(args.get("workdir")) or ctx.cwd
        if name == "apply_patch":
            _patched(ctx, args.get("input") or args.get("patch"), workdir, when)
        elif name in READ_TOOLS and isinstance(args.get("path"), str):
            ctx.touch(_absolute(args["path"], workdir), "read", when)
        elif name in SHELL_TOOLS:
            _shell(ctx, args.get("cmd") if "cmd" in args else args.get("command"), workdir, when)
    elif ptype == "local_shell_call":
        action = payload.get("action")
        if isinstance(action, dict):
            workdir = _text(action.get("working_directory")) or ctx.cwd
            _shell(ctx, action.get("command"), workdir, when)


def _completed_item(ctx: SessionContext, item: dict, when: float) -> None:
    """Codex CLI 0.171 (code mode: the model's `exec` JavaScript calls the tools) records what each
    tool did as an `item_completed`: a `CommandExecution` (the command and its `cwd`, a `file://`
    URL) read as any shell call, a `FileChange` (absolute paths: `add`, `update`, `delete`, and a
    `move_path`) as a patch's files. Only the items of tools called from a script (ids `exec-...`):
    a tool the model called directly also has its `function_call` record, read already (the item's
    id is then that call's `call_...` id)."""
    if not _text(item.get("id")).startswith("exec-"):
        return
    kind = item.get("type")
    if kind == "CommandExecution":
        cwd = _text(item.get("cwd"))
        workdir = cwd[len("file://") :] if cwd.startswith("file://") else cwd
        _shell(ctx, item.get("command"), workdir or ctx.cwd, when)
    elif kind == "FileChange" and isinstance(item.get("changes"), dict):
        for path, change in list(item["changes"].items())[:200]:
            if not isinstance(path, str) or not isinstance(change, dict):
                continue
            moved = _text(change.get("move_path"))
            if moved:
                ctx.touch(_absolute(moved, ctx.cwd), "created", when)
            elif change.get("type") in ("add", "update"):
                ctx.touch(_absolute(path, ctx.cwd), "created" if change["type"] == "add" else "edited", when)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _arguments(raw: object) -> dict:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str):
        try:
            data = loads(raw)  # JSON in a string: a cut emoji in it becomes U+FFFD
        except (ValueError, RecursionError):
            return {}
        return data if isinstance(data, dict) else {}
    return {}


def _absolute(path: str, workdir: str) -> str:
    if workdir and os.path.isabs(workdir) and not os.path.isabs(path) and not path.startswith("~"):
        return os.path.normpath(os.path.join(workdir, path))
    return path


def _patched(ctx: SessionContext, patch: object, workdir: str, when: float) -> None:
    """The files an apply_patch text adds, updates or moves to (a deleted file is no longer in play)."""
    if not isinstance(patch, str):
        return
    files: list[tuple[str, str]] = []  # (how, path) in patch order
    for verb, path, moved in _PATCH.findall(patch[:2_000_000]):
        if moved:  # the file just updated now lives here
            if files and files[-1][0] == "edited":
                files.pop()
            files.append(("created", moved))
        elif verb in ("Add", "Update") and path:
            files.append(("created" if verb == "Add" else "edited", path))
    for how, path in files:
        ctx.touch(_absolute(path, workdir), how, when)


def _shell(ctx: SessionContext, command: object, workdir: str, when: float) -> None:
    """A shell call: a patch it carries, the files its reading commands read, the files it names."""
    if isinstance(command, list):
        parts = [str(c) for c in command]
        command = parts[-1] if len(parts) >= 3 and parts[1] in ("-lc", "-c") else " ".join(parts)
    if not isinstance(command, str) or not command:
        return
    if "*** Begin Patch" in command:
        _patched(ctx, command, workdir, when)
        return
    for how, word in shell_files(command):
        ctx.touch(_absolute(word, workdir), how, when)


def shell_files(command: str) -> list[tuple[str, str]]:
    """(how, path as written) for the file words of a shell command: "read" after a reading command
    (`sed -n '1,80p' a.py`, `cat`, `nl -ba`), "named" after any other."""
    out = []
    for segment in _SEGMENT.split(command[:4000])[:20]:
        words = SHELL_WORD.findall(segment)
        if not words:
            continue
        how = "read" if os.path.basename(words[0]) in READERS else "named"
        out += [(how, w) for w in words[1:40] if 2 < len(w) < 300 and _FILE_WORD.match(w) and not w.startswith("-")]
    return out
