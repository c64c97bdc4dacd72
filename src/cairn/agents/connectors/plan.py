"""What `cairn connect AGENT` would change, file by file, before anything is written (apply.py writes it).

Each target of an agent (agents.py) becomes a step: `write` the whole new file, `same` when it
already holds cairn's entry, or `print` a snippet for the user to paste when cairn cannot edit
the file safely (edit.py raises NeedsManual), the folder is missing, or the target is manual.

Codex runs hooks only with `[features] hooks = true` in its config.toml, so when cairn
writes Codex hooks it adds that key in the same config.toml edit (one line of its own, checked
by parsing), or prints it when the file cannot take it safely.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from cairn.agents.connectors import edit
from cairn.agents.connectors.agents import (
    AGENTS,
    HOOK_MARKER,
    SERVER_NAME,
    Agent,
    Target,
    hook_commands,
    server_entry,
    yaml_snippet,
)
from cairn.agents.mcp.routine import USAGE_BLOCK
from cairn.errors import CairnError

START = "<!-- cairn:agent:start -->"
END = "<!-- cairn:agent:end -->"
MDC_HEAD = "---\ndescription: cairn project memory - how to use its MCP tools\nglobs:\nalwaysApply: true\n---\n"


@dataclass
class Step:
    target: Target
    path: Path
    action: str  # write | same | print
    text: str = ""  # the new file (write/same) or the snippet to paste (print)
    reason: str = ""


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise edit.NeedsManual(f"cannot read it ({exc})") from None


def _nest(keypath: tuple[str, ...], value: dict) -> dict:
    for key in reversed(keypath):
        value = {key: value}
    return value


def _own_file(path: Path) -> str:
    body = USAGE_BLOCK.rstrip() + "\n"
    return (MDC_HEAD + body) if path.suffix == ".mdc" else body


def _snippet(agent: Agent, target: Target, root: Path) -> str:
    """What the user pastes when cairn does not write the file itself."""
    if target.role == "hooks":
        cmds = hook_commands()
        if agent.name != "codex":
            cmds = {"SessionStart": cmds["SessionStart"]}
        return edit.hooks_json_set(None, cmds, HOOK_MARKER)
    if target.role == "instructions":
        return (
            _own_file(target.path(Path.home(), root))
            if target.fmt == "file"
            else edit.block_set(None, USAGE_BLOCK, START, END)
        )
    if target.fmt == "yaml":
        return yaml_snippet(agent, root)
    if target.fmt == "toml":
        return edit.toml_set_table(None, (*target.keypath, SERVER_NAME), server_entry(agent, root))
    return json.dumps(_nest(target.keypath, {SERVER_NAME: server_entry(agent, root)}), indent=2) + "\n"


def _render(agent: Agent, target: Target, root: Path, old: str | None) -> str:
    """The whole new file for an automatic target (raises NeedsManual when unsafe)."""
    if target.role == "hooks":
        return edit.hooks_json_set(old, hook_commands(), HOOK_MARKER)
    if target.role == "instructions":
        if target.fmt == "file":
            return _own_file(target.path(Path.home(), root))
        return edit.block_set(old, USAGE_BLOCK, START, END)
    entry = server_entry(agent, root)
    if target.fmt == "toml":
        return edit.toml_set_table(old, (*target.keypath, SERVER_NAME), entry)
    return edit.json_set(old, target.keypath, SERVER_NAME, entry)


def _hooks_available() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("cairn.agents.hooks.runner") is not None
    except (ImportError, ValueError):
        return False


def _why_printed(agent: Agent, target: Target, path: Path) -> str | None:
    """Why this target is printed for the user to paste instead of written (None: it is written)."""
    if not target.auto:
        return target.note or "printed"
    if target.needs_parent and not path.parent.is_dir():
        return f"{path.parent} does not exist (is {agent.title} installed?)"
    if target.role == "hooks" and not _hooks_available():
        return "`cairn hook` is not available in this install"
    return None


def plan(agent: Agent, root: Path, home: Path | None = None) -> list[Step]:
    """What connecting `agent` for the project at `root` would do, file by file (no writes)."""
    home = home or Path.home()
    pending: dict[Path, str | None] = {}
    originals: dict[Path, str | None] = {}
    steps: list[Step] = []
    for target in agent.targets:
        path = target.path(home, root)
        printed = _why_printed(agent, target, path)
        if printed:
            steps.append(Step(target, path, "print", _snippet(agent, target, root), printed))
            continue
        try:
            old = pending[path] if path in pending else _read(path)
            originals.setdefault(path, old)
            new = _render(agent, target, root, old)
        except edit.NeedsManual as exc:
            steps.append(Step(target, path, "print", _snippet(agent, target, root), str(exc)))
            continue
        pending[path] = new
        steps.append(Step(target, path, "same" if new == old else "write", new, target.note))
    return steps + _hook_flag(agent, steps, originals)


def _hook_flag(agent: Agent, steps: list[Step], originals: dict[Path, str | None]) -> list[Step]:
    """Turn on the agent's hooks switch (`[features] hooks = true`) in its TOML config.

    Hooks written without it are dead files, so the key goes into the same config.toml edit as
    the MCP table (one undo restores both). When the hooks are only printed, or the TOML file
    cannot take the key safely (a user's `hooks = false` or `codex_hooks = false`, `features` written inline), the
    line is printed instead: returns that extra printed step, or nothing.
    """
    if not agent.hook_flag:
        return []
    hooks = next((s for s in steps if s.target.role == "hooks"), None)
    toml = next((s for s in steps if s.target.fmt == "toml"), None)
    if hooks is None or toml is None:
        return []
    table, key = agent.hook_flag
    reason = f"{agent.title} runs hooks only with this key"
    if hooks.action != "print" and toml.action != "print":
        try:
            new = edit.toml_set_true(toml.text, table, key, agent.hook_flag_old)
        except edit.NeedsManual as exc:
            reason = f"{reason}; not added: {exc}"
        else:
            toml.text = new
            toml.action = "same" if new == originals.get(toml.path) else "write"
            return []
    flag = Target("hooks", toml.target.path, "toml", auto=False)
    return [
        Step(
            flag,
            toml.path,
            "print",
            f"[{table}]\n{key} = true\n",
            f"{reason}; if [{table}] is already there, add the key inside it",
        )
    ]


def agent_named(name: str) -> Agent:
    """The agent `name` names (any case), else a CairnError that lists the known ones."""
    agent = AGENTS.get(name.lower().strip())
    if agent is None:
        raise CairnError(f"unknown agent {name!r}; one of: {', '.join(AGENTS)} (see `cairn connect --list`)")
    return agent
