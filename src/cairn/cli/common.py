"""Options and output helpers shared by the command modules (same flags, same shapes everywhere)."""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from cairn.project import Project


class FreeTextParser(argparse.ArgumentParser):
    """An argument that starts with a dash but names no option is text, not an unknown option:
    `cairn search "-v flag ignored"` searches for it (misspelled options still fail, as extras)."""

    def _parse_optional(self, arg_string: str) -> Any:
        found = super()._parse_optional(arg_string)
        first = found[0] if isinstance(found, list) and found else found
        if isinstance(first, tuple) and first[0] is None and arg_string not in self._option_string_actions:
            return None  # no such option: a positional value
        return found


def add_root(p: argparse.ArgumentParser) -> None:
    p.add_argument("--root", metavar="DIR", help="project root (default: the project of the current directory)")


def add_workspace(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-workspace",
        action="store_true",
        help="this project only, also when it is in your workspace (`cairn workspace`)",
    )


def workspace_for(args: argparse.Namespace, project: Project) -> Any:
    """The workspace (workspace/members.Workspace) the command answers across: the user's, when
    `project` is one of its members and --no-workspace is not given; else None."""
    if getattr(args, "no_workspace", False):
        return None
    from cairn.errors import CairnError
    from cairn.workspace.members import workspace_of

    try:
        ws = workspace_of(project)
    except CairnError as exc:  # a broken workspace file never stops a search of this project
        print(f"cairn: {exc} (this project only)", file=sys.stderr)
        return None
    if ws is not None:
        for line in ws.notes:  # a member gone or not indexed: said once, the others still answer
            print(f"cairn: {line}", file=sys.stderr)
        ws.notes.clear()
    return ws


def add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object for programs")


def json_text(obj: Any) -> str:
    """`obj` as the one-line JSON text every `--json` output is made of."""
    import json  # here: a command printing text never needs it

    # dumps, not dump: only the one-shot encoder is C (json.dump encodes in Python, in small pieces)
    return json.dumps(obj, ensure_ascii=False, indent=None, separators=(",", ":"))


def print_json(obj: Any, encoded: dict[str, str] | None = None) -> None:
    """Print `obj` as one line of JSON. `encoded`: the `json_text` of some of its top-level values,
    made earlier (the X-ray encodes its sessions while it waits for another process); the line is
    the same text, since an object's JSON is `{` + its `"key":value` texts joined by `,` + `}`."""
    if not encoded or type(obj) is not dict or not all(type(k) is str for k in obj):
        sys.stdout.write(json_text(obj) + "\n")
        return
    sys.stdout.write(
        "{" + ",".join(f"{json_text(k)}:{encoded[k] if k in encoded else json_text(v)}" for k, v in obj.items()) + "}\n"
    )


def resolve(args: argparse.Namespace, *, need_root: bool = True) -> Project:
    """The Project for a command's --root / cwd; a clear error when it has no tree to work on."""
    from cairn.errors import CairnError
    from cairn.project import resolve_project

    project = resolve_project(root=getattr(args, "root", None))
    from cairn.config import check_config

    check_config(project.root)  # a wrong value in config.toml is one line here, not a crash later
    if need_root and project.root is None:
        raise CairnError(
            "not inside a project (no git repository, no .cairn/ folder, no route matches); "
            "pass --root DIR or run `cairn init` in the project folder"
        )
    return project


def resolve_root(args: argparse.Namespace) -> tuple[Project, Path]:
    """`resolve(args)` and its root, for commands that work on a tree."""
    project = resolve(args)
    assert project.root is not None  # resolve() refused a project without a tree
    return project, project.root
