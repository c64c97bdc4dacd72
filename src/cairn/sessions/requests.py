"""What a session asked and what each request led to: its counted prompts and the files touched after each.

One reading of an archived session for everything that learns from the past (the request log of
history_store.py, `cairn eval sessions`), by the rules of the shared benchmark: a counted prompt is
the person's own words, at least MIN_WORDS words and not a bare "continue"; a slash command ends a
request's window, a short reply ("yes", "commit it") does not; a request leads to the files the
agent then read or changed (Read/Edit/MultiEdit/Write/NotebookEdit; Codex CLI's apply_patch and the
files its shell reads with `sed -n` or `cat`; Gemini CLI's read_file, write_file and replace) before
the next counted prompt. Grep, Glob and other shell words never count: they name files the agent
did not necessarily look at.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from cairn.sessions.codex_context import SHELL_TOOLS as CODEX_SHELL_TOOLS
from cairn.sessions.codex_context import shell_files
from cairn.sessions.context import EDIT_TOOLS, READ_TOOLS
from cairn.sessions.gemini_context import EDITS as GEMINI_EDITS

MIN_WORDS = 5
_TRIVIAL = frozenset({"continue", "go on", "go ahead", "keep going", "proceed"})

# One archived turn as the readers need it: (role, text, tool, arg, ts), oldest first.
TurnRow = tuple[str, str, str | None, str | None, str | None]


class Request:
    """One counted prompt and the files it led to (project paths, first touch first: path -> how)."""

    __slots__ = ("index", "prompt", "ts", "files")

    def __init__(self, index: int, prompt: str, ts: str | None) -> None:
        self.index, self.prompt, self.ts = index, prompt, ts
        self.files: dict[str, str] = {}

    def touch(self, path: str, how: str) -> None:
        if how == "edited" or path not in self.files:
            self.files[path] = how


def counted(text: str) -> bool:
    """A prompt that is a request of its own (see the module doc)."""
    words = text.split()
    return len(words) >= MIN_WORDS and " ".join(words).lower().strip(".!") not in _TRIVIAL


def touches(tool: str, arg: str) -> list[tuple[str, str]]:
    """(how, path) a tool call read or changed: Claude Code's Read/Edit/Write; Codex CLI's
    apply_patch (its archived argument lists the patched files) and the files its shell reads
    (`sed -n`, `cat`: Codex has no read tool); Gemini CLI's read_file, write_file, replace and
    shell reads. Other shell words, Grep and Glob never count."""
    if tool in READ_TOOLS:
        return [("read", arg)]
    if tool in EDIT_TOOLS:
        return [("created" if tool == "Write" else "edited", arg)]
    if tool == "apply_patch":
        return [("edited", p) for p in arg.split()]
    if tool in GEMINI_EDITS:
        return [(GEMINI_EDITS[tool], arg)]
    if tool == "read_file":
        return [("read", arg)]
    if tool in CODEX_SHELL_TOOLS or tool == "run_shell_command":
        return [(how, p) for how, p in shell_files(arg) if how == "read"]
    return []


def requests_of(turns: Iterable[TurnRow], to_project: Callable[[str], str | None]) -> list[Request]:
    """The session's requests, each with the files it led to (`to_project` maps a path as the agent
    wrote it to a project path, None for a file outside the project). Requests that led to no file
    are kept: the session's order of requests stays whole."""
    out: list[Request] = []
    current: Request | None = None
    for role, text, tool, arg, ts in turns:
        if role == "user":
            text = (text or "").strip()
            if text.startswith("/"):
                current = None
            elif counted(text):
                current = Request(len(out), text, ts)
                out.append(current)
            continue
        if current is None or role != "tool" or not tool or not arg:
            continue
        for how, raw in touches(tool, arg):
            rel = to_project(raw)
            if rel is not None:
                current.touch(rel, "edited" if how == "created" else how)
    return out


def project_paths(root: str | None, cwd: str | None) -> Callable[[str], str | None]:
    """A path as an agent wrote it (absolute, or relative to the session's folder) -> the path in the
    project whose root is `root` ('/'-separated), None outside it."""
    base = os.path.normpath(root) if root else None
    here = cwd or base

    def to_project(raw: str) -> str | None:
        p = raw.strip()
        if not p or base is None or "\n" in p or "\x00" in p:
            return None
        if not os.path.isabs(p):
            if here is None:
                return None
            p = os.path.join(here, p)
        rel = os.path.relpath(os.path.normpath(p), base)
        if rel == "." or rel.startswith(".."):
            return None
        return rel.replace(os.sep, "/")

    return to_project
