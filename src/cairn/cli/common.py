"""Options and output helpers shared by the command modules (same flags, same shapes everywhere)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from cairn.project import Project


def add_root(p: argparse.ArgumentParser) -> None:
    p.add_argument("--root", metavar="DIR", help="project root (default: the project of the current directory)")


def add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object for programs")


def print_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


def resolve(args: argparse.Namespace, *, need_root: bool = True) -> Project:
    """The Project for a command's --root / cwd; a clear error when it has no tree to work on."""
    from cairn.errors import CairnError
    from cairn.project import resolve_project

    project = resolve_project(root=getattr(args, "root", None))
    if need_root and project.root is None:  # callers with need_root may rely on project.root
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
