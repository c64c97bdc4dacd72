"""SessionStart: golden output for a small opted-in project, the hard cap, and the
compact -> handoff restore round trip."""

from __future__ import annotations

from test_hook_support import context_of, make_project, payload, run_hook, tool_call, user, write_transcript

GOLDEN = """<!-- cairn:recall -->
cairn: project memory for shop (auto-injected; `cairn search`, `cairn map MODULE`, `cairn handoff last`).

## Key decisions and gotchas
- [gotcha] Coupons are applied before tax (files: src/shop/coupons.py) `{gotcha}`
- [decision] Invoices are rendered as PDF (files: src/shop/invoice.py) `{decision}`

## Open tasks
- [task] Add a coupon expiry date `{task}`

## Map
{map}

## Latest journal entry
({day}) ## 10:00 session abcdef12
- Asked: "add coupons"
<!-- /cairn:recall -->"""


def _node_id(run_cli, root, title):
    import json

    out = json.loads(run_cli("memory", "list", "--json", cwd=root).stdout)
    items = out["nodes"] if isinstance(out, dict) else out
    return next(n["id"] for n in items if n["title"] == title)


def test_golden_startup_context(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    for args in (
        [
            "Invoices are rendered as PDF",
            "--type",
            "decision",
            "--body",
            "Customers print them.",
            "--file",
            "src/shop/invoice.py",
        ],
        [
            "Coupons are applied before tax",
            "--type",
            "gotcha",
            "--body",
            "Tax is on the discounted total.",
            "--file",
            "src/shop/coupons.py",
        ],
        ["Add a coupon expiry date", "--type", "task", "--body", "Coupons never expire today."],
    ):
        assert run_cli("remember", *args, cwd=root).returncode == 0
    (root / ".cairn" / "journal").mkdir()
    (root / ".cairn" / "journal" / "2026-01-02.md").write_text(
        '# Journal 2026-01-02\n\n## 09:00 session 11111111\n- Asked: "old"\n\n## 10:00 session abcdef12\n'
        '- Asked: "add coupons"\n'
    )
    assert run_cli("index", "-q", cwd=root).returncode == 0
    text = context_of(
        run_hook("SessionStart", payload("SessionStart", root, source="startup"), home=cairn_home, cwd=root),
        "SessionStart",
    )
    map_text = run_cli("map", cwd=root).stdout.strip().splitlines()[1:]
    assert any(ln.startswith("## Key decisions") for ln in map_text)  # the map lists them too ...
    sections = "\n".join(map_text).split("\n## ")
    map_text = "\n## ".join(s for s in sections if not s.startswith("Key decisions")).splitlines()
    map_lines = "\n".join("#" + ln if ln.startswith("## ") else ln for ln in map_text if ln.strip())
    expected = GOLDEN.format(
        gotcha=_node_id(run_cli, root, "Coupons are applied before tax"),
        decision=_node_id(run_cli, root, "Invoices are rendered as PDF"),
        task=_node_id(run_cli, root, "Add a coupon expiry date"),
        map=map_lines,
        day="2026-01-02",
    )
    assert text == expected
    assert text.count("Coupons are applied before tax") == 1  # ... SessionStart shows the list once


def test_startup_ranks_key_decisions_by_importance(tmp_path, run_cli, cairn_home):
    import json

    root = make_project(tmp_path / "shop", run_cli)

    def remember(*args):
        r = run_cli("remember", *args, "--json", cwd=root)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)["results"][0]["id"]

    remember("A note on logging format", "--type", "gotcha", "--body", "x")
    hub = remember("Money is integer cents", "--type", "decision", "--body", "Never floats.")
    for i, title in enumerate(["Invoices round per line", "Coupons round down", "Tax rounds half even"]):
        remember(title, "--type", "note", "--body", f"n{i}", "--link", f"relates-to:{hub}")
    pinned = remember("Zero downtime deploys", "--type", "decision", "--body", "y", "--tag", "pinned")
    assert run_cli("index", "-q", cwd=root).returncode == 0
    text = context_of(
        run_hook("SessionStart", payload("SessionStart", root, source="startup"), home=cairn_home, cwd=root),
        "SessionStart",
    )
    leaf = text.split("## Key decisions and gotchas\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert [ln.rsplit("`", 2)[1] for ln in leaf][:2] == [pinned, hub]  # pinned, then the most linked
    assert text.count("Money is integer cents") == 1


def test_startup_cap_and_other_project_isolation(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    other = make_project(tmp_path / "bank", run_cli, files={"ledger.py": "def post_entry():\n    pass\n"})
    assert (
        run_cli("remember", "Ledger entries are immutable", "--type", "decision", "--body", "x", cwd=other).returncode
        == 0
    )
    (root / ".cairn" / "config.toml").write_text("[hooks.session_start]\nbudget = 120\n")
    text = context_of(
        run_hook("SessionStart", payload("SessionStart", root, source="startup"), home=cairn_home, cwd=root),
        "SessionStart",
    )
    assert len(text) <= 120 * 3.5 + 60
    assert "Ledger" not in text and "bank" not in text


def test_no_project_no_output(tmp_path, cairn_home):
    proc = run_hook("SessionStart", payload("SessionStart", tmp_path, source="startup"), home=cairn_home, cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_compact_restores_handoff_and_session_record(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    coupons = root / "src/shop/coupons.py"
    transcript = write_transcript(
        tmp_path / "sess-9.jsonl",
        [
            user("make coupons expire after 30 days"),
            tool_call("Read", "a1", file_path=str(coupons)),
            tool_call("Edit", "a2", file_path=str(coupons), old_string="a", new_string="b"),
            tool_call("Bash", "a3", command="python -m pytest tests/test_coupons.py"),
        ],
    )
    r = run_cli(
        "handoff",
        "save",
        "--goal",
        "coupon expiry",
        "--where",
        "expiry check written, tests pending",
        "--file",
        str(coupons),
        "--next",
        "write the expiry tests",
        cwd=root,
    )
    assert r.returncode == 0, r.stderr
    pre = run_hook(
        "PreCompact",
        payload("PreCompact", root, session="sess-9", transcript=transcript, trigger="auto", custom_instructions=""),
        home=cairn_home,
        cwd=root,
    )
    assert (pre.returncode, pre.stdout) == (0, "")
    records = list((root / ".cairn" / "sessions").glob("*.md"))
    assert len(records) == 1
    record = records[0].read_text()
    assert '"src/shop/coupons.py"' in record and "python -m pytest" in record
    text = context_of(
        run_hook(
            "SessionStart",
            payload("SessionStart", root, session="sess-9", source="compact", transcript=transcript),
            home=cairn_home,
            cwd=root,
        ),
        "SessionStart",
    )
    assert "Restored after compact" in text
    assert "expiry check written, tests pending" in text and "write the expiry tests" in text
    assert "make coupons expire after 30 days" in text and "`src/shop/coupons.py`" in text
    assert text.index("Latest handoff") < text.index("What this session did before compaction")
    assert "## Map" not in text  # compact restores the thread, not the overview


def test_clear_without_anything_saved_is_silent(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    proc = run_hook("SessionStart", payload("SessionStart", root, source="clear"), home=cairn_home, cwd=root)
    assert (proc.returncode, proc.stdout) == (0, "")


def _wait_for(check, seconds: float = 60) -> bool:
    import time

    deadline = time.time() + seconds
    while time.time() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return False


def _indexed(root, rel: str) -> bool:
    """Whether the project's index lists `rel` (read as it is: `cairn search` would refresh it)."""
    import sqlite3

    from cairn.project import resolve_project

    index = resolve_project(root).index_path()
    if not index.exists():
        return False
    try:
        con = sqlite3.connect(f"file:{index}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT 1 FROM files WHERE path = ?", (rel,)).fetchone() is not None
        finally:
            con.close()
    except sqlite3.Error:  # still being created
        return False


def test_first_session_builds_the_index_in_the_background(tmp_path, run_cli, cairn_home):
    import time

    from cairn.project import resolve_project

    root = make_project(tmp_path / "shop", run_cli, init=False)  # never indexed
    index = resolve_project(root).index_path()
    assert not index.exists()
    started = time.monotonic()
    text = context_of(
        run_hook("SessionStart", payload("SessionStart", root, source="startup"), home=cairn_home, cwd=root),
        "SessionStart",
    )
    assert time.monotonic() - started < 8  # the hook's own bound; building is left to the detached run
    assert "being built in the background" in text
    assert _wait_for(lambda: _indexed(root, "src/shop/coupons.py"))  # the detached `_refresh` built it
    later = context_of(
        run_hook("SessionStart", payload("SessionStart", root, source="startup"), home=cairn_home, cwd=root),
        "SessionStart",
    )
    assert "## Map" in later and "being built" not in later


def test_refresh_past_its_bound_finishes_in_the_background(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    (root / ".cairn" / "config.toml").write_text("[hooks.session_start]\nrefresh_seconds = 0.001\n")
    for i in range(150):  # far more than a millisecond of indexing
        (root / "src" / "shop" / f"report_{i}.py").write_text(
            f'def quarterly_report_{i}(rows):\n    """Sum the rows of report {i}."""\n    return sum(rows)\n'
        )
    proc = run_hook("SessionStart", payload("SessionStart", root, source="startup"), home=cairn_home, cwd=root)
    text = context_of(proc, "SessionStart")
    assert "## Map" in text  # the current index served this session
    assert _wait_for(lambda: all(_indexed(root, f"src/shop/report_{i}.py") for i in (0, 149)))


def test_compact_restores_this_sessions_handoff_never_another_sessions(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    transcript = write_transcript(
        tmp_path / "sess-9.jsonl",
        [{**user("make coupons expire after 30 days"), "timestamp": "2026-11-30T10:00:00.000Z"}],
    )
    for session, where in (
        ("sess-9", "expiry check written, tests pending"),
        ("sess-other", "someone else's invoice work"),
    ):
        r = run_cli("handoff", "save", "--goal", "g", "--where", where, "--session", session, cwd=root)
        assert r.returncode == 0, r.stderr
    text = context_of(
        run_hook(
            "SessionStart",
            payload("SessionStart", root, session="sess-9", source="compact", transcript=transcript),
            home=cairn_home,
            cwd=root,
        ),
        "SessionStart",
    )
    assert "expiry check written, tests pending" in text and "invoice" not in text
    # another session after compaction: only another session's handoff exists -> none is restored
    other = run_hook(
        "SessionStart",
        payload("SessionStart", root, session="sess-3", source="compact", transcript=transcript),
        home=cairn_home,
        cwd=root,
    )
    assert "expiry check" not in other.stdout and "invoice" not in other.stdout


def test_compact_skips_an_unsessioned_handoff_older_than_the_session(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    assert run_cli("handoff", "save", "--goal", "g", "--where", "a teammate's old note", cwd=root).returncode == 0
    later = write_transcript(tmp_path / "s.jsonl", [{**user("hi"), "timestamp": "2099-01-01T00:00:00.000Z"}])
    out = run_hook(
        "SessionStart",
        payload("SessionStart", root, session="s", source="compact", transcript=later),
        home=cairn_home,
        cwd=root,
    )
    assert "teammate" not in out.stdout
