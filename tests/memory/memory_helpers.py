"""Small real projects for the memory tests: a git repository that opted in with `.cairn/`."""

from __future__ import annotations

from pathlib import Path

from cairn.project import resolve_project
from helpers import make_git_repo

CHECKOUT = """def total(order):
    return sum(line.price for line in order.lines)


def apply_coupon(order, coupon):
    order.discount = coupon.amount
    return order
"""


def make_project(root: Path, *, opted_in: bool = True, files: dict | None = None):
    tree = {"src/checkout.py": CHECKOUT, "README.md": "# shop\n", **(files or {})}
    make_git_repo(root, tree)
    if opted_in:
        (root / ".cairn").mkdir()
    return resolve_project(root)


def knowledge_files(root: Path) -> list[Path]:
    return sorted((root / ".cairn" / "knowledge").glob("*.md"))
