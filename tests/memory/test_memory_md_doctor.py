"""memory-md (budget, order, idempotence, only cairn's block) and the memory doctor report."""

from __future__ import annotations

import pytest
from memory_helpers import make_project

from cairn.codemap.knowledge.graph import ranked
from cairn.codemap.knowledge.node import Node
from cairn.errors import CairnError
from cairn.memory import load_knowledge, load_knowledge_with_problems
from cairn.memory.doctor import diagnose
from cairn.memory.facts import Fact, parse_link
from cairn.memory.memory_md import END, START, render_block, write_memory_md
from cairn.memory.vault import Vault


def _many(project, n: int) -> None:
    facts = [
        Fact(f"Gotcha number {i} in module m{i}", type="gotcha", body=f"Detail {i}. " + "word " * 30) for i in range(n)
    ]
    facts += [Fact(f"Loose note {i} on area a{i}", type="note", body="x") for i in range(n)]
    facts.append(Fact("Always run migrations online", type="note", tags=["pinned"], body="Locks hurt."))
    Vault.for_project(project).remember(facts)


def test_block_respects_byte_and_line_budgets(tmp_path) -> None:
    project = make_project(tmp_path / "p")
    _many(project, 80)
    nodes = load_knowledge(project, personal=False)
    block, shown = render_block(nodes, max_bytes=6000, max_lines=60)
    assert len(block.encode()) + 1 <= 6000 and len(block.split("\n")) <= 60
    assert block.startswith(START) and block.endswith(END)
    lines = [ln for ln in block.split("\n") if ln.startswith("- [")]
    assert shown == len(lines) and 0 < shown < 161
    assert lines[0].startswith("- [note] Always run migrations online")  # pinned first
    assert all("[gotcha]" in ln for ln in lines[1:20])  # then by type weight
    assert f"{161 - shown} more" in block
    small, shown_small = render_block(nodes, max_bytes=1000, max_lines=60)
    assert len(small.encode()) + 1 <= 1000 and shown_small < shown


def test_value_prefers_decisions_recent_and_linked() -> None:
    old = Node(id="a", type="note", title="old note", updated="2025-01-01T00:00:00Z")
    new = Node(id="b", type="note", title="new note", updated="2026-01-01T00:00:00Z")
    dec = Node(id="c", type="decision", title="decision", updated="2025-01-01T00:00:00Z")
    hub = Node(id="d", type="note", title="hub", updated="2025-01-01T00:00:00Z")
    sup = Node(id="e", type="decision", title="replaced", status="superseded", updated="2026-01-01T00:00:00Z")
    from cairn.codemap.knowledge.node import Link

    linkers = [
        Node(id=f"l{i}", type="task", title=f"t{i}", status="done", links=[Link("about", "d")]) for i in range(4)
    ]
    order = [n.id for n in ranked([old, new, dec, hub, sup, *linkers])]
    assert order == ["c", "b", "d", "a"]


def test_rerun_is_byte_identical_and_keeps_the_users_text(tmp_path) -> None:
    project = make_project(tmp_path / "p")
    claude = project.root / "CLAUDE.md"
    user_text = "# House rules\n\nUse tabs.\n"
    claude.write_text(user_text)
    Vault.for_project(project).remember([Fact("Coupon applied twice", type="gotcha", body="Guard it.")])
    nodes = load_knowledge(project, personal=False)
    first = write_memory_md(project, nodes)
    assert first.changed and first.backup is not None and first.backup.read_text() == user_text
    text = claude.read_text()
    assert text.startswith(user_text) and START in text and "Coupon applied twice" in text
    second = write_memory_md(project, load_knowledge(project, personal=False))
    assert not second.changed and second.backup is None and claude.read_text() == text
    # the user edits around the block; a new note changes only the block
    claude.write_text("Intro line\n\n" + text + "\nFooter by hand\n")
    Vault.for_project(project).remember([Fact("Use integer cents", type="decision", body="Money.")])
    third = write_memory_md(project, load_knowledge(project, personal=False))
    after = claude.read_text()
    assert third.changed and third.backup is None
    assert after.startswith("Intro line\n\n# House rules") and after.endswith("\nFooter by hand\n")
    assert after.count(START) == 1 and "Use integer cents" in after


def test_memory_md_needs_opt_in_and_whole_markers(tmp_path) -> None:
    plain = make_project(tmp_path / "plain", opted_in=False)
    with pytest.raises(CairnError, match="cairn init"):
        write_memory_md(plain, [])
    project = make_project(tmp_path / "p")
    (project.root / "MEMORY.md").write_text(f"notes\n{START}\nhalf a block\n")
    with pytest.raises(CairnError, match="only one of the markers"):
        write_memory_md(project, [], "MEMORY.md")
    assert (project.root / "MEMORY.md").read_text() == f"notes\n{START}\nhalf a block\n"


def test_doctor_reports_stale_orphaned_broken_and_malformed(tmp_path) -> None:
    project = make_project(tmp_path / "p", files={"src/old.py": "x = 1\n", "src/pay.py": "y = 2\n"})
    vault = Vault.for_project(project)
    res = vault.remember(
        [
            Fact("Coupon applied twice", type="gotcha", files=["src/checkout.py"]),
            Fact("Old module quirk", type="gotcha", files=["src/old.py"]),
            Fact("Payment retries", type="concept", files=["src/pay.py"], links=[parse_link("relates-to:Nonexistent")]),
            Fact("Kept by a link", type="gotcha", files=["src/pay.py"], links=[parse_link("about:Payment retries")]),
        ]
    )
    (project.root / "src/checkout.py").write_text("changed\n")
    (project.root / "src/old.py").unlink()
    (project.root / "src/pay.py").unlink()
    (project.root / ".cairn/knowledge/bad.md").write_text("---\ntitle: [\n---\n")
    kn = load_knowledge_with_problems(project)
    report = diagnose(kn.nodes, kn.problems, project.root)
    # changed or deleted cited files; the two linked notes are stale, not orphaned
    assert {s["id"]: s["files"] for s in report.stale} == {
        res[0].id: ["src/checkout.py"],
        res[2].id: ["src/pay.py"],
        res[3].id: ["src/pay.py"],
    }
    assert [o["id"] for o in report.orphaned] == [res[1].id]  # all cited files gone, no links
    assert [(b["id"], b["target"]) for b in report.broken_links] == [(res[2].id, "Nonexistent")]
    assert [p.path for p in report.malformed] == [".cairn/knowledge/bad.md"]
    assert not report.ok and report.to_dict()["malformed"][0]["line"] >= 2
    assert any(line.startswith("orphaned: ") for line in report.lines())
