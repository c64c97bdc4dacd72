"""Apply and undo `cairn connect AGENT` (plan.py decides what): backups first, idempotent, byte-exact undo.

Why a journal: the first time cairn edits a file for an agent it copies the original bytes (or
notes that the file did not exist) under CAIRN_HOME/connect/, with the hash of what it wrote.
Re-running never overwrites that first backup, so `--undo` always returns to the state before
cairn, byte for byte - but only for files nobody changed since cairn wrote them. A file changed
afterwards is left alone (for instruction files, only cairn's marked block is taken out), so
undo never throws away the user's later edits.

Why keyed by project: `cairn connect codex` run in project A and then in B writes two AGENTS.md;
`--undo` in B must put back B's and leave A's alone. So a file inside a project (AGENTS.md,
.cursor/mcp.json) is recorded under that project's root and only that project's undo touches it.
A file in the user's home (~/.codex/config.toml) is one file whatever the project: it is recorded
once per agent and any project's undo restores it. When that shared entry names a project (the
pinned CAIRN_PROJECT_DIR of Windsurf, Cline, Claude Desktop), each project's connect pushes a
*layer* with the bytes from before it: undo in B puts back exactly what B's connect replaced
(A's entry, or the user's own file), and undo in A while B's entry is on top only forgets A's
layer (the file serves B).

Journal, version 2, CAIRN_HOME/connect/<agent>.json:
  {"version": 2, "user": {path: record}, "projects": {root: {path: record}}}
A record: existed, backup (the original bytes), created_dirs, written (sha256 of cairn's last
write) and, for pinned entries, layers: [{"project", "before": backup or None (= the original),
"written"}]. Version 1 ({"files": {path: record}}, one flat list per agent) is migrated when read:
a file that is one of the agent's project targets goes under the root it was written for, the
rest under "user" without layers, which any project's undo restores, as version 1 did.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from cairn.agents.connectors.plan import END, START, Step
from cairn.home import cairn_home, ensure_private_dir
from cairn.util.atomic import atomic_write_bytes, atomic_write_text

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

    from cairn.agents.connectors.agents import Agent, Target

# ------------------------------------------------------------------ journal

JOURNAL_VERSION = 2
_PROBE_A, _PROBE_B = Path("/cairn-probe-a"), Path("/cairn-probe-b")


def _journal_dir() -> Path:
    return cairn_home() / "connect"


def _journal_path(agent: str) -> Path:
    return _journal_dir() / f"{agent}.json"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _is_user_level(target: Target, home: Path) -> bool:
    """True when the target's file does not depend on the project (it lives in the user's home)."""
    return target.path(home, _PROBE_A) == target.path(home, _PROBE_B)


def _is_pinned(agent: Agent, target: Target, home: Path) -> bool:
    """A shared file whose cairn entry names one project: each project's connect is a layer."""
    return agent.pin_project and target.role == "mcp" and _is_user_level(target, home)


def _empty() -> dict[str, Any]:
    return {"version": JOURNAL_VERSION, "user": {}, "projects": {}}


def _load(agent: Agent, home: Path | None = None) -> dict[str, Any]:
    """The agent's journal in the version 2 shape (a version 1 file is migrated, not rewritten yet)."""
    try:
        data = json.loads(_journal_path(agent.name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return _empty()
    if not isinstance(data, dict):
        return _empty()
    if (
        data.get("version") == JOURNAL_VERSION
        and isinstance(data.get("user"), dict)
        and isinstance(data.get("projects"), dict)
    ):
        return data
    if isinstance(data.get("files"), dict):
        return _migrate(agent, data["files"], home or Path.home())
    return _empty()


def _migrate(agent: Agent, files: dict[str, Any], home: Path) -> dict[str, Any]:
    """Sort a version 1 flat list into user-level and per-project records (see the module doc)."""
    out = _empty()
    for key, record in files.items():
        if not isinstance(record, dict):
            continue
        root = _project_of(agent, Path(key), home)
        if root is None:
            out["user"][key] = record
        else:
            out["projects"].setdefault(str(root), {})[key] = record
    return out


def _project_of(agent: Agent, path: Path, home: Path) -> Path | None:
    """The project root a project-level target of `agent` would have written `path` for, if any."""
    for target in agent.targets:
        if _is_user_level(target, home):
            continue
        for root in path.parents:
            if target.path(home, root) == path:
                return root
    return None


def _save(agent: str, journal: dict[str, Any]) -> None:
    """Write the journal (0600), or remove it once nothing is left to undo."""
    journal["projects"] = {root: files for root, files in journal["projects"].items() if files}
    ensure_private_dir(_journal_dir())
    if journal["user"] or journal["projects"]:
        journal["version"] = JOURNAL_VERSION
        atomic_write_text(_journal_path(agent), json.dumps(journal, indent=1) + "\n", mode=0o600)
    else:
        _journal_path(agent).unlink(missing_ok=True)


def _keep_bytes(agent: str, key: str, name: str, data: bytes) -> str:
    """Store `data` as a private backup named after `key` (a path, or path + project); its path."""
    backup = ensure_private_dir(_journal_dir() / "backups" / agent) / f"{_sha(key.encode())[:12]}-{name}"
    atomic_write_bytes(backup, data, mode=0o600)
    return str(backup)


def _drop_backup(backup: str | None) -> None:
    if backup:
        Path(backup).unlink(missing_ok=True)


def _splice(layers: list[dict[str, Any]], project: str) -> dict[str, Any] | None:
    """Take `project`'s layer out from under later ones, which then restore to its `before`.

    Only for a layer that is not on top: the file holds a later project's entry, so nothing on
    disk changes; the next layer up inherits what this one would have restored.
    """
    idx = next((i for i, layer in enumerate(layers) if layer.get("project") == project), None)
    if idx is None:
        return None
    layer = layers.pop(idx)
    if idx < len(layers):
        _drop_backup(layers[idx].get("before"))
        layers[idx]["before"] = layer.get("before")
    return layer


# ------------------------------------------------------------------ apply and undo


def apply(agent: Agent, steps: list[Step], root: Path, home: Path | None = None) -> list[str]:
    """Carry out the `write` steps for the project at `root` (backup first); one report line each."""
    home = home or Path.home()
    book = _load(agent, home)
    lines: list[str] = []
    for step in steps:
        if step.action != "write":
            continue
        key = str(step.path)
        user_level = _is_user_level(step.target, home)
        files = book["user"] if user_level else book["projects"].setdefault(str(root), {})
        record = files.get(key)
        is_new = record is None
        if record is None:
            record = {"existed": step.path.exists(), "backup": None, "created_dirs": []}
            if record["existed"]:
                record["backup"] = _keep_bytes(agent.name, key, step.path.name, step.path.read_bytes())
            else:
                missing = [d for d in [step.path.parent, *step.path.parent.parents] if not d.exists()]
                record["created_dirs"] = [str(d) for d in missing]
        written = _sha(step.text.encode("utf-8"))
        if user_level and _is_pinned(agent, step.target, home):
            _push_layer(agent.name, record, key, str(root), step.path, written, is_new)
        step.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(step.path, step.text)
        record["written"] = written
        files[key] = record
        _save(agent.name, book)
        lines.append(f"wrote {step.path}" + (f"  (backup: {record['backup']})" if record.get("backup") else ""))
    return lines


def _push_layer(agent: str, record: dict, key: str, project: str, path: Path, written: str, is_new: bool) -> None:
    """Note that `project`'s connect is about to write the shared file `path` (see the module doc).

    Re-connecting the project whose entry is on top keeps that layer's `before`: its undo still
    goes back to the state before the project's first connect, not to its own older entry.
    """
    layers: list[dict] = record.setdefault("layers", [])
    if layers and layers[-1].get("project") == project:
        layers[-1]["written"] = written
        return
    _splice(layers, project)  # an older entry of this project, under another one's: re-stacked on top
    before = None  # a new record: undoing this layer is undoing the whole file
    if not is_new and path.exists():
        before = _keep_bytes(agent, f"{key}\0{project}", path.name, path.read_bytes())
    layers.append({"project": project, "before": before, "written": written})


def undo(agent: Agent, root: Path | None, home: Path | None = None) -> list[str]:
    """Undo what connecting `agent` did for the project at `root`, and the agent's shared files.

    The project's own files are restored to their bytes before cairn (or removed); files of
    other projects are not touched. Shared files in the user's home are restored from any
    project, except an entry pinned to a project, which only that project's undo takes back.
    """
    home = home or Path.home()
    book = _load(agent, home)
    project = str(root) if root is not None else None
    mine = book["projects"].get(project, {}) if project else {}
    others = sorted(r for r in book["projects"] if r != project)
    if not mine and not book["user"]:
        where = f" in {project}" if project else ""
        return [
            f"nothing to undo for {agent.name}{where}"
            + (f" (connected in: {', '.join(others)}; run the undo there)" if others else "")
        ]
    lines: list[str] = []
    for key, record in reversed(list(mine.items())):  # last written, first undone
        line, done = _undo_file(Path(key), record)
        lines.append(line)
        if done:
            del mine[key]
    shared_done = False
    for key, record in reversed(list(book["user"].items())):
        if record.get("layers"):
            line, done = _undo_layer(Path(key), record, project)
        else:
            line, done = _undo_file(Path(key), record)
            shared_done = shared_done or done
        if line:
            lines.append(line)
        if done:
            del book["user"][key]
    _save(agent.name, book)
    if others and shared_done:
        lines.append(
            f"note: {agent.name} stays connected in {', '.join(others)} (its project files); the shared "
            f"files above served every project: run `cairn connect {agent.name}` there to put them back"
        )
    elif others:
        lines.append(f"still connected in: {', '.join(others)} (undo there to remove those)")
    return lines


def _undo_file(path: Path, record: dict) -> tuple[str, bool]:
    """Put one file back as it was before cairn: (report line, whether the record is finished)."""
    try:
        current = path.read_bytes() if path.exists() else None
    except OSError as exc:
        return f"kept {path}: cannot read it ({exc})", False
    if current is not None and _sha(current) != record.get("written"):
        line = _undo_changed(path, current, record)
        if line.startswith("kept"):
            return line, False
    elif record.get("existed"):
        atomic_write_bytes(path, Path(record["backup"]).read_bytes())
        line = f"restored {path}"
    else:
        path.unlink(missing_ok=True)
        for d in record.get("created_dirs", []):
            try:
                os.rmdir(d)
            except OSError:
                break
        line = f"removed {path}"
    _drop_backup(record.get("backup"))
    for layer in record.get("layers", []):
        _drop_backup(layer.get("before"))
    return line, True


def _undo_layer(path: Path, record: dict, project: str | None) -> tuple[str, bool]:
    """Take back one project's entry in a shared file pinned to a project (see the module doc)."""
    layers: list[dict] = record["layers"]
    idx = next((i for i, layer in enumerate(layers) if layer.get("project") == project), None)
    top = layers[-1].get("project")
    if idx is None:
        return f"kept {path}: its cairn entry serves {top}, not this project (undo there)", False
    if idx < len(layers) - 1:
        _splice(layers, project or "")
        return f"kept {path}: it serves {top} now; this project's older entry is forgotten", False
    if layers[idx].get("before") is None:  # the first connect that touched the file: back to the original
        return _undo_file(path, record)
    try:
        current = path.read_bytes() if path.exists() else None
    except OSError as exc:
        return f"kept {path}: cannot read it ({exc})", False
    if current is not None and _sha(current) != record.get("written"):
        return (
            f"kept {path}: changed since `cairn connect`; the original is in {record.get('backup') or '(none)'}",
            False,
        )
    layer = layers.pop()
    data = Path(layer["before"]).read_bytes()
    atomic_write_bytes(path, data)
    _drop_backup(layer["before"])
    record["written"] = _sha(data)
    if not layers:  # under it: cairn's entry from a version 1 journal, which any undo takes back
        return f"restored {path} to cairn's entry from before this project's connect", False
    return f"restored {path} (it serves {layers[-1]['project']} again)", False


def _undo_changed(path: Path, current: bytes, record: dict) -> str:
    """A file edited since cairn wrote it: take out only cairn's marked block, else keep it."""
    text = current.decode("utf-8", errors="replace")
    i, j = text.find(START), text.find(END)
    if i < 0 or j < i:
        return f"kept {path}: changed since `cairn connect`; the original is in {record.get('backup') or '(none)'}"
    before, after = text[:i], text[j + len(END) :]
    new = before.rstrip("\n") + ("\n" if before.strip() else "") + after.lstrip("\n")
    if not new.strip() and not record.get("existed"):
        path.unlink()
        return f"removed {path} (only cairn's block was left)"
    atomic_write_text(path, new)
    return f"removed cairn's block from {path} (the file changed since, so it was not restored from the backup)"
