"""remember: create vs merge, supersede chains, pending links, hand edits, locking, isolation."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from memory_helpers import knowledge_files, make_project

from cairn.codemap.knowledge.graph import normalize_title, supersede_chain
from cairn.codemap.knowledge.node import parse, render
from cairn.errors import CairnError
from cairn.memory import live_version, load_knowledge
from cairn.memory.facts import Fact, parse_link
from cairn.memory.similar import BODY_JACCARD, TITLE_JACCARD, duplicate_of, jaccard, tokens
from cairn.memory.vault import Vault


def remember_one(vault: Vault, title: str, **kw):
    [res] = vault.remember([Fact(title, **kw)])
    return res


# ------------------------------------------------------------------ create vs merge


def test_create_writes_one_file_named_by_id(vault, project) -> None:
    res = remember_one(
        vault, "Coupon applied twice", type="gotcha", body="Retry re-applies it.", files=["src/checkout.py"]
    )
    assert res.action == "created" and res.id.startswith("coupon-applied-twice-")
    assert res.path == f".cairn/knowledge/{res.id}.md"
    node = parse((project.root / res.path).read_text(), res.path)
    assert node.files == ["src/checkout.py"] and node.cites[0].path == "src/checkout.py"
    assert node.commit and len(node.commit) == 40 and not node.hand_edited


def test_same_type_same_normalized_title_merges(vault) -> None:
    a = remember_one(vault, "Coupon applied twice", type="gotcha", body="Retry re-applies it.")
    b = remember_one(
        vault,
        "coupons applied TWICE!",
        type="gotcha",
        body="Also on page refresh.",
        files=["src/checkout.py"],
        tags=["checkout"],
    )
    assert (b.action, b.id) == ("merged", a.id)
    [node] = vault.load().nodes
    assert "Retry re-applies it." in node.body and "### Update" in node.body and "page refresh" in node.body
    assert node.files == ["src/checkout.py"] and node.tags == ["checkout"]


def test_other_type_or_other_title_creates(vault) -> None:
    a = remember_one(vault, "Coupon applied twice", type="gotcha")
    b = remember_one(vault, "Coupon applied twice", type="bug")
    c = remember_one(vault, "Coupon codes are case sensitive", type="gotcha")
    assert {a.action, b.action, c.action} == {"created"} and len({a.id, b.id, c.id}) == 3


def test_duplicate_rule_thresholds_are_explicit() -> None:
    from cairn.codemap.knowledge.node import Node

    assert normalize_title("The coupon is applied twice") == normalize_title("Coupons applied twice")
    assert TITLE_JACCARD == 0.75 and BODY_JACCARD == 0.8
    body = (
        "When the payment provider times out the retry loop applies the coupon again "
        "because the discount flag is set after the charge succeeds"
    )
    existing = [Node(id="n1", type="gotcha", title="Checkout retry applies coupon twice", body=body)]
    title = existing[0].title
    # title-token Jaccard 4/5 = 0.8 >= 0.75: duplicate
    assert jaccard(tokens("Checkout retry applies coupon"), tokens(title)) == pytest.approx(0.8)
    assert duplicate_of("gotcha", "Checkout retry applies coupon", "", existing) is existing[0]
    # 3/5 = 0.6 < 0.75 and no body: a new node
    assert duplicate_of("gotcha", "retry applies coupon", "", existing) is None
    # 3/6 title overlap (>= 0.3) plus a near-identical body (Jaccard >= 0.8): duplicate by body
    assert duplicate_of("gotcha", "retry applies coupon wrongly", body + " again", existing) is existing[0]
    # same words, other type: never a duplicate
    assert duplicate_of("bug", title, body, existing) is None
    # superseded nodes do not absorb new facts
    existing[0].status = "superseded"
    assert duplicate_of("gotcha", title, "", existing) is None


def test_remembering_the_same_fact_again_writes_nothing(vault, project) -> None:
    a = remember_one(vault, "Use WAL mode", type="decision", body="Readers never block.")
    before = (project.root / a.path).read_bytes()
    b = remember_one(vault, "Use WAL mode", type="decision", body="Readers never block.")
    assert b.action == "merged" and "already known" in b.notes
    assert (project.root / a.path).read_bytes() == before


# ------------------------------------------------------------------ supersede


def test_supersede_chain_a_b_c_followed_to_live(vault, project) -> None:
    a = remember_one(vault, "Store the index in JSON files", type="decision")
    b = remember_one(vault, "Store the index in SQLite", type="decision", supersedes=a.id)
    c = remember_one(vault, "Store the index in DuckDB", type="decision", supersedes="Store the index in SQLite")
    assert (b.action, b.superseded) == ("superseded", a.id)
    assert (c.action, c.superseded) == ("superseded", b.id)
    nodes = vault.load().nodes
    by_id = {n.id: n for n in nodes}
    assert len(nodes) == 3  # nothing deleted
    assert by_id[a.id].status == "superseded" and by_id[a.id].superseded_by == b.id
    assert by_id[b.id].status == "superseded" and by_id[b.id].supersedes == a.id and by_id[b.id].superseded_by == c.id
    assert by_id[c.id].is_live and by_id[c.id].supersedes == b.id
    assert live_version(nodes, a.id).id == c.id
    assert supersede_chain(nodes, b.id) == [a.id, b.id, c.id]
    for res in (a, b, c):  # every file still canonical (cairn's own), both sides rewritten
        assert not parse((project.root / res.path).read_text(), res.path).hand_edited


def test_superseding_an_already_superseded_node_replaces_its_live_version(vault) -> None:
    a = remember_one(vault, "Deploy on Fridays", type="decision")
    b = remember_one(vault, "Deploy Monday to Thursday", type="decision", supersedes=a.id)
    c = remember_one(vault, "Deploy any day with feature flags", type="decision", supersedes=a.id)
    assert c.superseded == b.id and any("already superseded" in n for n in c.notes)
    assert live_version(vault.load().nodes, a.id).id == c.id


def test_supersede_of_unknown_node_is_a_clear_error_and_writes_nothing(vault, project) -> None:
    with pytest.raises(CairnError, match="no node with that id or title"):
        vault.remember([Fact("A", type="decision"), Fact("B", type="decision", supersedes="nope")])
    assert knowledge_files(project.root) == []


# ------------------------------------------------------------------ links


def test_pending_link_is_resolved_by_a_later_write(vault, project) -> None:
    g = remember_one(vault, "Coupon applied twice", type="gotcha", links=[parse_link("caused-by:Checkout retry")])
    node = vault.find(g.id)
    assert node.links[0].pending and node.links[0].target == "Checkout retry"
    text = (project.root / g.path).read_text()
    assert "pending: true" in text and "[[Checkout retry]] (pending)" in text
    c = remember_one(vault, "Checkout retry", type="concept", body="Payment is retried 3 times.")
    text = (project.root / g.path).read_text()
    assert "pending" not in text and f"[[{c.id}]]" in text
    assert not parse(text, g.path).hand_edited


def test_links_within_one_batch_resolve_by_title(vault) -> None:
    res = vault.remember(
        [
            Fact("Coupon applied twice", type="gotcha", links=[parse_link("caused-by:checkout retry")]),
            Fact("Checkout retry", type="concept"),
        ]
    )
    node = vault.find(res[0].id)
    assert node.links[0].target == res[1].id and not node.links[0].pending


# ------------------------------------------------------------------ hand edits


def test_hand_added_and_hand_edited_files_are_picked_up(vault, project) -> None:
    kdir = project.root / ".cairn" / "knowledge"
    kdir.mkdir(parents=True)
    (kdir / "vpn.md").write_text("# Deploys need the VPN\n\nThe registry is internal.\n")
    res = remember_one(vault, "Use WAL mode", type="decision", body="Readers never block.")
    path = project.root / res.path
    path.write_text(path.read_text().replace("Readers never block.", "Readers never block writers."))
    nodes = {n.id: n for n in vault.load().nodes}
    assert nodes["vpn"].title == "Deploys need the VPN"
    assert nodes[res.id].body == "Readers never block writers." and nodes[res.id].hand_edited


def test_merge_into_canonical_hand_edit_keeps_the_edit(vault, project) -> None:
    res = remember_one(vault, "Use WAL mode", type="decision", body="Readers never block.")
    path = project.root / res.path
    path.write_text(path.read_text().replace("Readers never block.", "Readers never block (checked by Ana)."))
    remember_one(vault, "Use WAL mode", type="decision", body="Checkpoint on close.")
    text = path.read_text()
    assert "checked by Ana" in text and "Checkpoint on close." in text
    assert not parse(text, res.path).hand_edited  # cairn re-stamped a structured edit that lost nothing


def test_non_canonical_hand_edit_is_never_rewritten_only_appended(vault, project) -> None:
    res = remember_one(vault, "Use WAL mode", type="decision", body="Readers never block.")
    path = project.root / res.path
    original = path.read_text()
    edited = original.replace("type: decision\n", "type: decision  # agreed in review\n")
    edited = edited.replace("Readers never block.", "Readers never block.\n\n<!-- keep this -->")
    path.write_text(edited)
    out = remember_one(vault, "use WAL mode", type="decision", body="Checkpoint on close.", files=["src/checkout.py"])
    assert out.action == "merged" and any("edited by hand" in n for n in out.notes)
    text = path.read_text()
    assert text.startswith(edited.split("---\n\n", 1)[0])  # frontmatter byte-identical, comment kept
    assert "<!-- keep this -->" in text and "### Update" in text and "Checkpoint on close." in text
    assert "Files: src/checkout.py" in text


def test_supersede_leaves_a_non_canonical_hand_edit_alone(vault, project) -> None:
    res = remember_one(vault, "Use WAL mode", type="decision")
    path = project.root / res.path
    edited = path.read_text().replace("type: decision\n", "type: decision # ours\n")
    path.write_text(edited)
    new = remember_one(vault, "Use rollback journal", type="decision", supersedes=res.id)
    assert path.read_text() == edited
    nodes = vault.load().nodes
    old = next(n for n in nodes if n.id == res.id)
    assert old.state == "superseded" and old.superseded_by == new.id  # reconciled when read


# ------------------------------------------------------------------ malformed, opt-in


def test_malformed_file_is_reported_with_line_and_the_rest_loads(vault, project) -> None:
    remember_one(vault, "Use WAL mode", type="decision")
    kdir = project.root / ".cairn" / "knowledge"
    (kdir / "broken.md").write_text("---\nid: broken\ntitle: x: y\n---\nbody\n")
    (kdir / "binary.md").write_bytes(b"\xff\xfe\x00bad")
    res = vault.load()
    assert [n.title for n in res.nodes] == ["Use WAL mode"]
    problems = {p.path: p for p in res.problems}
    assert problems[".cairn/knowledge/broken.md"].line == 3
    assert str(problems[".cairn/knowledge/broken.md"]).startswith(".cairn/knowledge/broken.md:3: ")
    assert ".cairn/knowledge/binary.md" in problems
    remember_one(vault, "Another", type="note")  # writing still works next to a broken file
    assert len(vault.load().nodes) == 2


def test_remember_without_opt_in_refuses(tmp_path) -> None:
    project = make_project(tmp_path / "plain", opted_in=False)
    with pytest.raises(CairnError, match="cairn init"):
        Vault.for_project(project).remember([Fact("x")])
    assert not (project.root / ".cairn").exists()


def test_state_dir_ignores_itself(vault, project) -> None:
    remember_one(vault, "x")
    assert (project.root / ".cairn" / ".state" / ".gitignore").read_text() == "*\n"


# ------------------------------------------------------------------ concurrency


def _writer(root: str, prefix: str, n: int, home: str) -> None:
    import os

    os.environ["CAIRN_HOME"] = home
    from cairn.memory.facts import Fact
    from cairn.memory.vault import Vault
    from cairn.project import resolve_project

    vault = Vault.for_project(resolve_project(Path(root)))
    for i in range(n):
        vault.remember([Fact(f"{prefix} fact number {i} about topic {prefix}{i}", type="note", body=f"{prefix}-{i}")])
        vault.remember([Fact("Shared gotcha everyone finds", type="gotcha", body=f"seen by {prefix} {i}")])


def test_two_concurrent_writers_lose_nothing(project, cairn_home) -> None:
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(project.root), p, 8, str(cairn_home))) for p in ("alpha", "beta")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    res = Vault.for_project(project).load()
    assert res.problems == []
    notes = [n for n in res.nodes if n.type == "note"]
    assert len(notes) == 16
    [shared] = [n for n in res.nodes if n.type == "gotcha"]
    for p in ("alpha", "beta"):
        for i in range(8):
            assert f"seen by {p} {i}" in shared.body
    assert not any(f.name.startswith(".") and f.suffix == ".tmp" for f in (project.root / ".cairn/knowledge").iterdir())


# ------------------------------------------------------------------ isolation and personal vault


def test_projects_are_isolated_and_personal_is_shared(tmp_path) -> None:
    a = make_project(tmp_path / "a")
    b = make_project(tmp_path / "b")
    Vault.for_project(a).remember([Fact("Secret of project A", type="gotcha")])
    Vault.personal().remember([Fact("Prefer small commits", type="preference")])
    seen_b = {(n.title, n.origin) for n in load_knowledge(b)}
    seen_a = {(n.title, n.origin) for n in load_knowledge(a)}
    assert seen_b == {("Prefer small commits", "personal")}
    assert seen_a == {("Secret of project A", "project"), ("Prefer small commits", "personal")}
    personal = next(n for n in load_knowledge(b) if n.origin == "personal")
    assert Path(personal.path).is_absolute()


def test_render_of_loaded_node_is_stable(vault, project) -> None:
    res = remember_one(vault, "Round trip", type="howto", body="1. a\n2. b", links=[parse_link("x:y")])
    text = (project.root / res.path).read_text()
    assert render(parse(text, res.path)) == text


def test_file_changed_during_the_write_is_refused_not_overwritten(vault, project, monkeypatch) -> None:
    from cairn.memory import vault as vault_mod

    res = remember_one(vault, "Use WAL mode", type="decision", body="Readers never block.")
    path = project.root / res.path
    real_finish = vault_mod.Batch.finish

    def finish_then_someone_saves(self, originals):
        edits = real_finish(self, originals)
        path.write_text(path.read_text() + "\nTyped by a person meanwhile.\n")
        return edits

    monkeypatch.setattr(vault_mod.Batch, "finish", finish_then_someone_saves)
    with pytest.raises(CairnError, match="changed while cairn was writing"):
        remember_one(vault, "Use WAL mode", type="decision", body="Checkpoint on close.")
    assert path.read_text().endswith("Typed by a person meanwhile.\n")


def test_only_refreshed_cites_leave_a_non_canonical_hand_edit_alone(vault, project) -> None:
    res = remember_one(vault, "Use WAL mode", type="decision", files=["src/checkout.py"])
    path = project.root / res.path
    edited = path.read_text().replace("type: decision\n", "type: decision # ours\n")
    path.write_text(edited)
    (project.root / "src/checkout.py").write_text("changed\n")
    out = remember_one(vault, "Use WAL mode", type="decision", files=["src/checkout.py"])
    assert out.action == "merged" and path.read_text() == edited


def test_a_pending_title_never_resolves_by_id_prefix(vault) -> None:
    retry = remember_one(vault, "Checkout retry", type="concept")
    g = remember_one(vault, "Coupon applied twice", type="gotcha", links=[parse_link("part-of:Checkout")])
    link = vault.find(g.id).links[0]
    assert link.pending and link.target == "Checkout"
    assert vault.find("checkout-re").id == retry.id  # a person's unique prefix still works for read


def test_a_writer_waits_for_the_knowledge_lock_then_says_try_again(vault, project, monkeypatch) -> None:
    from cairn.memory import vault as vault_mod
    from cairn.util.filelock import LockBusy, file_lock

    monkeypatch.setattr(vault_mod, "LOCK_TIMEOUT_S", 0.2)
    with vault.lock():
        lock = vault.state_dir / vault_mod.LOCK_NAME
        assert lock.stat().st_mode & 0o777 == 0o600
        with pytest.raises(LockBusy):  # a second descriptor in this process counts as another holder
            with file_lock(lock, timeout=0):
                pass
    with file_lock(vault.state_dir / vault_mod.LOCK_NAME):
        with pytest.raises(CairnError, match="another cairn process holds the knowledge lock; try again"):
            remember_one(vault, "Blocked fact", type="note", body="b")
    remember_one(vault, "Unblocked fact", type="note", body="b")
    assert len(knowledge_files(project.root)) == 1


def test_a_large_vault_hands_the_index_refresh_to_one_detached_lower_priority_run(project, monkeypatch):
    """Above DETACH_REFRESH_NOTES notes a remember returns after its write: the graph rebuild
    (seconds at 10,000 notes) runs once, detached and niced, instead of competing with writers."""
    import subprocess

    from cairn.codemap import indexer
    from cairn.memory import knowledge
    from cairn.memory.facts import Fact

    spawned: list[dict] = []
    monkeypatch.setattr(subprocess, "Popen", lambda args, **kw: spawned.append({"args": args, **kw}))
    monkeypatch.setattr(indexer, "index_project", lambda *a, **k: pytest.fail("indexed inline"))
    monkeypatch.setattr(knowledge, "DETACH_REFRESH_NOTES", 0)
    for i in range(3):
        knowledge.remember_facts(
            project,
            [Fact(type="decision", title=f"Use Postgres for tenant {i} data", body="JSONB and row-level security.")],
        )
    assert len(spawned) == 1  # one pending run covers every later write until it starts scanning
    call = spawned[0]
    assert call["args"][-3:] == ["--quiet", "--root", str(project.root)] and call["start_new_session"]
    assert call["preexec_fn"] is knowledge._lower_priority
    assert len(list((project.root / ".cairn" / "knowledge").glob("*.md"))) == 3
