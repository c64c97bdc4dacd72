"""Staleness by content: editing or deleting a cited file marks the note; symbols narrow it."""

from __future__ import annotations

import subprocess

from memory_helpers import make_project

from cairn.memory import stale_files
from cairn.memory.facts import Fact
from cairn.memory.staleness import head_commit, make_cites
from cairn.memory.vault import Vault
from helpers import git


def _symbol_range_from_text(root):
    """A tiny stand-in for the code index: the lines of a top-level `def NAME` block."""

    def symbol_range(path: str, symbol: str):
        lines = (root / path).read_text().split("\n")
        for i, line in enumerate(lines):
            if line.startswith(f"def {symbol}("):
                end = i + 1
                while end < len(lines) and (not lines[end].strip() or lines[end].startswith(" ")):
                    end += 1
                while not lines[end - 1].strip():
                    end -= 1
                return i + 1, end
        return None

    return symbol_range


def _note(project):
    vault = Vault.for_project(project)
    [res] = vault.remember([Fact("Coupon is applied twice", type="gotcha", files=["src/checkout.py"])])
    return vault.find(res.id)


def test_fresh_note_is_not_stale_and_edit_makes_it_stale(tmp_path) -> None:
    project = make_project(tmp_path / "p")
    node = _note(project)
    assert stale_files(node, project.root) == []
    path = project.root / "src/checkout.py"
    path.write_text(path.read_text() + "\n# a comment, then blank lines and indentation\n\n")
    assert stale_files(node, project.root) == []  # the code is as it was
    path.write_text(path.read_text() + "\nTAX = 0.2\n")
    assert stale_files(node, project.root) == ["src/checkout.py"]


def test_deleted_file_is_stale(tmp_path) -> None:
    project = make_project(tmp_path / "p")
    node = _note(project)
    (project.root / "src/checkout.py").unlink()
    assert stale_files(node, project.root) == ["src/checkout.py"]


def test_symbol_hash_ignores_edits_elsewhere_in_the_file(tmp_path) -> None:
    project = make_project(tmp_path / "p")
    rng = _symbol_range_from_text(project.root)
    vault = Vault.for_project(project)
    [res] = vault.remember(
        [Fact("Coupon is applied twice", type="gotcha", files=["src/checkout.py"], symbols=["apply_coupon"])],
        symbol_range=rng,
    )
    node = vault.find(res.id)
    assert set(node.cites[0].symbols) == {"apply_coupon"}
    path = project.root / "src/checkout.py"
    text = path.read_text()
    path.write_text(
        text.replace(
            "return sum(line.price for line in order.lines)",
            "return sum(line.price * line.qty for line in order.lines)",
        )
    )
    assert stale_files(node, project.root, rng) == []  # total() changed, apply_coupon did not
    assert stale_files(node, project.root) == ["src/checkout.py"]  # without the index: whole file
    path.write_text(path.read_text().replace("order.discount = coupon.amount", "order.discount += coupon.amount"))
    assert stale_files(node, project.root, rng) == ["src/checkout.py"]


def test_symbol_gone_is_stale(tmp_path) -> None:
    project = make_project(tmp_path / "p")
    rng = _symbol_range_from_text(project.root)
    [cite] = make_cites(project.root, ["src/checkout.py"], ["apply_coupon"], rng, None)
    from cairn.codemap.knowledge.node import Node

    node = Node(id="n", type="gotcha", title="t", cites=[cite])
    path = project.root / "src/checkout.py"
    path.write_text(path.read_text().replace("def apply_coupon(", "def use_coupon("))
    assert stale_files(node, project.root, rng) == ["src/checkout.py"]


def test_missing_cited_file_is_not_cited_and_noted(tmp_path) -> None:
    project = make_project(tmp_path / "p")
    [res] = Vault.for_project(project).remember([Fact("x", files=["src/nope.py"])])
    assert res.notes == ["cited file not found: src/nope.py"]
    assert Vault.for_project(project).find(res.id).cites == []


def test_head_commit_read_from_disk_matches_git(tmp_path) -> None:
    project = make_project(tmp_path / "p")
    want = git(project.root, "rev-parse", "HEAD").strip()
    assert head_commit(project.root) == want
    git(project.root, "pack-refs", "--all")  # refs only in packed-refs now
    assert head_commit(project.root) == want
    git(project.root, "checkout", "-q", "--detach")
    assert head_commit(project.root) == want


def test_head_commit_of_a_worktree_and_of_no_repo(tmp_path) -> None:
    project = make_project(tmp_path / "p")
    wt = tmp_path / "wt"
    git(project.root, "worktree", "add", "-q", "-b", "side", str(wt))
    (wt / "f.txt").write_text("x")
    git(wt, "add", "f.txt")
    git(wt, "commit", "-q", "-m", "side")
    want = subprocess.run(["git", "-C", str(wt), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    assert head_commit(wt) == want != head_commit(project.root)
    assert head_commit(tmp_path) is None
