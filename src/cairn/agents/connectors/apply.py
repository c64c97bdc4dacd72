"""Plan, apply and undo `cairn connect AGENT`: backups first, idempotent, byte-exact undo.

Why a journal: the first time cairn edits a file for an agent it copies the original bytes (or
notes that the file did not exist) under CAIRN_HOME/connect/, with the hash of what it wrote.
Re-running never overwrites that first backup, so `--undo` always returns to the state before
cairn, byte for byte - but only for files nobody changed since cairn wrote them. A file changed
afterwards is left alone (for instruction files, only cairn's marked block is taken out), so
undo never throws away the user's later edits.
"""

from __future__ import annotations

import hashlib
import json
import os
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
from cairn.home import cairn_home, ensure_private_dir
from cairn.util.atomic import atomic_write_bytes, atomic_write_text

START = "<!-- cairn:agent:start -->"
END = "<!-- cairn:agent:end -->"
MDC_HEAD = ("---\ndescription: cairn project memory - how to use its MCP tools\nglobs:\nalwaysApply: true\n---\n")


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
        return _own_file(target.path(Path.home(), root)) if target.fmt == "file" else \
            edit.block_set(None, USAGE_BLOCK, START, END)
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


def plan(agent: Agent, root: Path, home: Path | None = None) -> list[Step]:
    """What connecting `agent` for the project at `root` would do, file by file (no writes)."""
    home = home or Path.home()
    pending: dict[Path, str | None] = {}
    steps: list[Step] = []
    for target in agent.targets:
        path = target.path(home, root)
        reason = target.note
        if not target.auto:
            steps.append(Step(target, path, "print", _snippet(agent, target, root), reason or "printed"))
            continue
        if target.needs_parent and not path.parent.is_dir():
            steps.append(Step(target, path, "print", _snippet(agent, target, root),
                              f"{path.parent} does not exist (is {agent.title} installed?)"))
            continue
        if target.role == "hooks" and not _hooks_available():
            steps.append(Step(target, path, "print", _snippet(agent, target, root),
                              "`cairn hook` is not available in this install"))
            continue
        try:
            old = pending[path] if path in pending else _read(path)
            new = _render(agent, target, root, old)
        except edit.NeedsManual as exc:
            steps.append(Step(target, path, "print", _snippet(agent, target, root), str(exc)))
            continue
        pending[path] = new
        steps.append(Step(target, path, "same" if new == old else "write", new, reason))
    return steps


# ------------------------------------------------------------------ journal


def _journal_dir() -> Path:
    return cairn_home() / "connect"


def _journal_path(agent: str) -> Path:
    return _journal_dir() / f"{agent}.json"


def _load_journal(agent: str) -> dict:
    try:
        data = json.loads(_journal_path(agent).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) and isinstance(data.get("files"), dict) else {"files": {}}
    except (OSError, ValueError):
        return {"files": {}}


def _save_journal(agent: str, journal: dict) -> None:
    ensure_private_dir(_journal_dir())
    if journal["files"]:
        atomic_write_text(_journal_path(agent), json.dumps(journal, indent=1) + "\n", mode=0o600)
    else:
        _journal_path(agent).unlink(missing_ok=True)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def apply(agent: Agent, steps: list[Step]) -> list[str]:
    """Carry out the `write` steps (backup first); returns one report line per step."""
    journal = _load_journal(agent.name)
    lines: list[str] = []
    for step in steps:
        if step.action != "write":
            continue
        key = str(step.path)
        record = journal["files"].get(key)
        if record is None:
            record = {"existed": step.path.exists(), "backup": None, "created_dirs": []}
            if record["existed"]:
                backup = ensure_private_dir(_journal_dir() / "backups" / agent.name) / \
                    f"{_sha(key.encode())[:12]}-{step.path.name}"
                atomic_write_bytes(backup, step.path.read_bytes(), mode=0o600)
                record["backup"] = str(backup)
            else:
                missing = [d for d in [step.path.parent, *step.path.parent.parents] if not d.exists()]
                record["created_dirs"] = [str(d) for d in missing]
        step.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(step.path, step.text)
        record["written"] = _sha(step.text.encode("utf-8"))
        journal["files"][key] = record
        _save_journal(agent.name, journal)
        lines.append(f"wrote {step.path}" + (f"  (backup: {record['backup']})" if record.get("backup") else ""))
    return lines


def undo(agent: Agent) -> list[str]:
    """Restore every file cairn wrote for `agent` to its bytes before cairn (or remove it)."""
    journal = _load_journal(agent.name)
    if not journal["files"]:
        return [f"nothing to undo for {agent.name}"]
    lines: list[str] = []
    for key, record in reversed(list(journal["files"].items())):  # last written, first undone
        path = Path(key)
        try:
            current = path.read_bytes() if path.exists() else None
        except OSError as exc:
            lines.append(f"kept {path}: cannot read it ({exc})")
            continue
        if current is not None and _sha(current) != record.get("written"):
            lines.append(_undo_changed(path, current, record))
            if lines[-1].startswith("kept"):
                continue
        elif record.get("existed"):
            atomic_write_bytes(path, Path(record["backup"]).read_bytes())
            lines.append(f"restored {path}")
        else:
            path.unlink(missing_ok=True)
            for d in record.get("created_dirs", []):
                try:
                    os.rmdir(d)
                except OSError:
                    break
            lines.append(f"removed {path}")
        if record.get("backup"):
            Path(record["backup"]).unlink(missing_ok=True)
        del journal["files"][key]
    _save_journal(agent.name, journal)
    return lines


def _undo_changed(path: Path, current: bytes, record: dict) -> str:
    """A file edited since cairn wrote it: take out only cairn's marked block, else keep it."""
    text = current.decode("utf-8", errors="replace")
    i, j = text.find(START), text.find(END)
    if i < 0 or j < i:
        return f"kept {path}: changed since `cairn connect`; the original is in {record.get('backup') or '(none)'}"
    before, after = text[:i], text[j + len(END):]
    new = before.rstrip("\n") + ("\n" if before.strip() else "") + after.lstrip("\n")
    if not new.strip() and not record.get("existed"):
        path.unlink()
        return f"removed {path} (only cairn's block was left)"
    atomic_write_text(path, new)
    return f"removed cairn's block from {path} (the file changed since, so it was not restored from the backup)"


def agent_named(name: str) -> Agent:
    agent = AGENTS.get(name.lower().strip())
    if agent is None:
        raise CairnError(f"unknown agent {name!r}; one of: {', '.join(AGENTS)} (see `cairn connect --list`)")
    return agent
