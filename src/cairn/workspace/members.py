"""The workspace's projects as a query sees them: each entry's project, its name, and whether it can answer.

A query in a workspace reads each member's own index (one per project, no merged database) and
labels what it found with the member's name. A member that cannot answer is not an error for the
others: a folder that is gone, or one not indexed yet, is one clear line (`Workspace.notes`) while
the rest answer. A project outside the workspace is never opened here: the members come from the
user's workspace file alone (registry.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cairn.errors import CairnError
from cairn.project import Project, project_for_root

OK, MISSING, UNINDEXED = "ok", "missing", "unindexed"


@dataclass
class Member:
    """One workspace entry: its label in results, its folder, its project (None when gone) and state."""

    name: str
    root: Path
    project: Project | None
    state: str

    def as_json(self) -> dict:
        return {"name": self.name, "root": str(self.root), "state": self.state}


@dataclass
class Workspace:
    """The members, the one the command runs in (`home`, None outside them) and lines about the rest."""

    members: list[Member] = field(default_factory=list)
    home: Member | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def answering(self) -> list[Member]:
        return [m for m in self.members if m.state == OK]

    def named(self, name: str) -> Member | None:
        return next((m for m in self.members if m.name == name), None)


def _names(roots: list[Path]) -> list[str]:
    """A short, unique label per folder: its name, with its parent's where two share a name."""
    names = [r.name or str(r) for r in roots]
    for i, root in enumerate(roots):
        if names.count(root.name) > 1:
            names[i] = f"{root.parent.name}/{root.name}"
    return names


def _member(name: str, root: Path) -> Member:
    if not root.is_dir():
        return Member(name, root, None, MISSING)
    try:
        project = project_for_root(root)
    except CairnError:
        return Member(name, root, None, MISSING)
    state = OK if project.index_path().exists() else UNINDEXED
    return Member(name, root, project, state)


def load(current: Project | None = None) -> Workspace:
    """The user's workspace, each member checked; `current` (the command's project) marks `home`."""
    from cairn.workspace.registry import read_entries

    entries = read_entries()
    ws = Workspace(notes=list(entries.problems))
    for name, root in zip(_names(entries.roots), entries.roots, strict=True):
        m = _member(name, root)
        ws.members.append(m)
        if m.state == MISSING:
            ws.notes.append(f"workspace: {name} ({root}) is gone: skipped (`cairn workspace remove {root}`)")
        elif m.state == UNINDEXED:
            ws.notes.append(
                f"workspace: {name} is not indexed yet: skipped (`cairn workspace index` or `cairn index --root {root}`)"
            )
        if current is not None and current.root is not None and m.project is not None and m.root == current.root:
            ws.home = m
    return ws


def workspace_of(project: Project | None) -> Workspace | None:
    """The workspace when `project` is one of its members (the automatic case), else None. Costs
    a stat (and the user's config.toml, read as settings read it) when the user has no workspace."""
    from cairn.workspace.registry import configured, workspace_file

    if project is None or project.root is None or not (workspace_file().is_file() or configured()):
        return None
    ws = load(project)
    return ws if ws.home is not None and len(ws.members) > 1 else None
