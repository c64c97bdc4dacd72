"""An objective digest of a session segment, from the transcript alone (no model call).

What the user asked, which files changed or were read, which commands ran, which errors came
back, and what was registered in the knowledge graph. PreCompact turns it into a session
record, SessionEnd into a daily-journal entry (after `is_trivial` filters out sessions that did
nothing worth a line). Text comes through `sessions.turns.extract`, so it is cleaned of hook
chatter and cairn's own injections, and redacted.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from cairn.agents.hooks.context import relpath
from cairn.agents.hooks.transcript import EDIT_TOOLS, READ_TOOLS, SEARCH_TOOLS

TRIVIAL_COMMANDS = frozenset(
    {
        "ls",
        "pwd",
        "cat",
        "echo",
        "head",
        "tail",
        "which",
        "whoami",
        "date",
        "clear",
        "cd",
        "tree",
        "wc",
        "env",
        "true",
        "git status",
        "git log",
        "git diff",
        "git branch",
        "git show",
    }
)
REMEMBER_TOOL = re.compile(r"^mcp__.*cairn.*__(remember|register)", re.I)
MAX_REQUESTS, MAX_COMMANDS, MAX_ERRORS, MAX_FILES = 15, 30, 10, 40


@dataclass
class Digest:
    requests: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # repo-relative where possible
    read: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    registered: list[str] = field(default_factory=list)
    explored: int = 0  # reads and searches

    @property
    def files(self) -> list[str]:
        return list(dict.fromkeys(self.changed + self.read))


def shorten(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def remember_title(command: str) -> str | None:
    """The title of a `cairn remember "TITLE" ...` command, if that is what it is."""
    if "cairn" not in command or "remember" not in command:
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    for i, w in enumerate(words[:-1]):
        if w == "remember" and i > 0 and words[i - 1].endswith("cairn"):
            rest = [x for x in words[i + 1 :] if not x.startswith("-")]
            return rest[0] if rest else "(facts from JSON)"
    return None


def command_head(command: str) -> str:
    """`git status -s` -> 'git status'; `ls -la` -> 'ls' (what the trivial filter compares)."""
    words = command.strip().split()
    if not words:
        return ""
    return " ".join(words[:2]) if words[0] == "git" and len(words) > 1 else words[0]


def build_digest(records: list[dict], root: Path | None) -> Digest:
    """The digest of transcript `records` (main thread only)."""
    from cairn.sessions.turns import extract

    d = Digest()
    names: dict[str, str] = {}
    changed: dict[str, None] = {}
    read: dict[str, None] = {}
    for i, rec in enumerate(records):
        if rec.get("isSidechain"):
            continue
        for t in extract(rec, i, names.get):
            if t.role == "user" and not t.text.startswith("/"):
                d.requests.append(shorten(t.text, 300))
            elif t.role == "error":
                d.errors.append(shorten(t.text, 200))
            elif t.role == "tool" and t.tool:
                if t.ref:
                    names[t.ref] = t.tool
                arg = t.arg or ""
                path = (relpath(root, arg) if root else None) or arg
                if t.tool in EDIT_TOOLS and arg:
                    changed[path] = None
                elif t.tool in READ_TOOLS and arg:
                    read[path] = None
                if t.tool in SEARCH_TOOLS or "search" in t.tool.lower():
                    d.explored += 1
                if t.tool == "Bash" and arg:
                    d.commands.append(shorten(arg, 160))
                    title = remember_title(arg)
                    if title:
                        d.registered.append(shorten(title, 120))
                elif REMEMBER_TOOL.match(t.tool) and arg:
                    d.registered.append(shorten(arg, 120))
    d.changed = list(changed)[:MAX_FILES]
    d.read = [p for p in read if p not in changed][:MAX_FILES]
    d.requests = d.requests[:MAX_REQUESTS]
    d.commands = d.commands[-MAX_COMMANDS:]
    d.errors = d.errors[-MAX_ERRORS:]
    return d


def is_trivial(d: Digest) -> bool:
    """Nothing worth a journal line: no request, or only short chat and look-around commands."""
    if not d.requests:
        return True
    if d.changed or d.registered or d.errors:
        return False
    if any(command_head(c) not in TRIVIAL_COMMANDS for c in d.commands):
        return False
    return d.explored < 2 and all(len(r) < 15 for r in d.requests)


def render_record(d: Digest, *, title: str) -> str:
    """The markdown body of a session record."""
    out = [f"# {title}", ""]

    def section(head: str, items: list[str], fmt: str = "- {}") -> None:
        if items:
            out.extend([f"## {head}", *(fmt.format(i) for i in items), ""])

    section("Requests", [f"{i + 1}. {r}" for i, r in enumerate(d.requests)], "{}")
    section("Files changed", d.changed, "- `{}`")
    section("Files read", d.read, "- `{}`")
    section("Commands run", d.commands, "- `{}`")
    section("Errors", d.errors)
    section("Registered in the knowledge graph", d.registered)
    return "\n".join(out).rstrip() + "\n"


def journal_entry(d: Digest, *, when: str, session: str, reason: str) -> str:
    """A short daily-journal entry (a `##` heading and a few bullets)."""
    lines = [f"## {when} session {session[:8]}" + (f" ({reason})" if reason else "")]
    if d.requests:
        asked = "; ".join(f'"{shorten(r, 140)}"' for r in d.requests[:3])
        more = f" (+{len(d.requests) - 3} more)" if len(d.requests) > 3 else ""
        lines.append(f"- Asked: {asked}{more}")
    if d.changed:
        more = f" (+{len(d.changed) - 8} more)" if len(d.changed) > 8 else ""
        lines.append("- Changed: " + ", ".join(f"`{p}`" for p in d.changed[:8]) + more)
    if d.registered:
        lines.append("- Registered: " + "; ".join(d.registered[:5]))
    if d.errors:
        lines.append(f"- Errors hit: {len(d.errors)}")
    return "\n".join(lines) + "\n"
