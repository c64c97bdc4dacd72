"""SessionStart: golden output for a small opted-in project, the hard cap, and the
compact -> handoff restore round trip."""

from __future__ import annotations

from test_hook_support import context_of, make_project, payload, run_hook, tool_call, user, write_transcript

GOLDEN = """<!-- cairn:recall -->
cairn: project memory for shop (auto-injected; `cairn search`, `cairn map MODULE`, `cairn handoff last`).

## Key decisions and gotchas
- [decision] Invoices are rendered as PDF (files: src/shop/invoice.py) `{decision}`
- [gotcha] Coupons are applied before tax (files: src/shop/coupons.py) `{gotcha}`

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
    for args in (["Invoices are rendered as PDF", "--type", "decision", "--body", "Customers print them.",
                  "--file", "src/shop/invoice.py"],
                 ["Coupons are applied before tax", "--type", "gotcha", "--body", "Tax is on the discounted total.",
                  "--file", "src/shop/coupons.py"],
                 ["Add a coupon expiry date", "--type", "task", "--body", "Coupons never expire today."]):
        assert run_cli("remember", *args, cwd=root).returncode == 0
    (root / ".cairn" / "journal").mkdir()
    (root / ".cairn" / "journal" / "2026-01-02.md").write_text(
        "# Journal 2026-01-02\n\n## 09:00 session 11111111\n- Asked: \"old\"\n\n## 10:00 session abcdef12\n"
        "- Asked: \"add coupons\"\n")
    assert run_cli("index", "-q", cwd=root).returncode == 0
    text = context_of(run_hook("SessionStart", payload("SessionStart", root, source="startup"), home=cairn_home,
                               cwd=root), "SessionStart")
    map_text = run_cli("map", cwd=root).stdout.strip().splitlines()[1:]
    map_lines = "\n".join("#" + ln if ln.startswith("## ") else ln for ln in map_text if ln.strip())
    expected = GOLDEN.format(gotcha=_node_id(run_cli, root, "Coupons are applied before tax"),
                             decision=_node_id(run_cli, root, "Invoices are rendered as PDF"),
                             task=_node_id(run_cli, root, "Add a coupon expiry date"), map=map_lines,
                             day="2026-01-02")
    assert text == expected


def test_startup_cap_and_other_project_isolation(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    other = make_project(tmp_path / "bank", run_cli, files={"ledger.py": "def post_entry():\n    pass\n"})
    assert run_cli("remember", "Ledger entries are immutable", "--type", "decision", "--body", "x",
                   cwd=other).returncode == 0
    (root / ".cairn" / "config.toml").write_text("[hooks.session_start]\nbudget = 120\n")
    text = context_of(run_hook("SessionStart", payload("SessionStart", root, source="startup"), home=cairn_home,
                               cwd=root), "SessionStart")
    assert len(text) <= 120 * 3.5 + 60
    assert "Ledger" not in text and "bank" not in text


def test_no_project_no_output(tmp_path, cairn_home):
    proc = run_hook("SessionStart", payload("SessionStart", tmp_path, source="startup"), home=cairn_home,
                    cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_compact_restores_handoff_and_session_record(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    coupons = root / "src/shop/coupons.py"
    transcript = write_transcript(tmp_path / "sess-9.jsonl", [
        user("make coupons expire after 30 days"),
        tool_call("Read", "a1", file_path=str(coupons)),
        tool_call("Edit", "a2", file_path=str(coupons), old_string="a", new_string="b"),
        tool_call("Bash", "a3", command="python -m pytest tests/test_coupons.py"),
    ])
    r = run_cli("handoff", "save", "--goal", "coupon expiry", "--where", "expiry check written, tests pending",
                "--file", str(coupons), "--next", "write the expiry tests", cwd=root)
    assert r.returncode == 0, r.stderr
    pre = run_hook("PreCompact", payload("PreCompact", root, session="sess-9", transcript=transcript,
                                         trigger="auto", custom_instructions=""), home=cairn_home, cwd=root)
    assert (pre.returncode, pre.stdout) == (0, "")
    records = list((root / ".cairn" / "sessions").glob("*.md"))
    assert len(records) == 1
    record = records[0].read_text()
    assert '"src/shop/coupons.py"' in record and "python -m pytest" in record
    text = context_of(run_hook("SessionStart", payload("SessionStart", root, session="sess-9", source="compact",
                                                       transcript=transcript), home=cairn_home, cwd=root),
                      "SessionStart")
    assert "Restored after compact" in text
    assert "expiry check written, tests pending" in text and "write the expiry tests" in text
    assert "make coupons expire after 30 days" in text and "`src/shop/coupons.py`" in text
    assert text.index("Latest handoff") < text.index("What this session did before compaction")
    assert "## Map" not in text  # compact restores the thread, not the overview


def test_clear_without_anything_saved_is_silent(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    proc = run_hook("SessionStart", payload("SessionStart", root, source="clear"), home=cairn_home, cwd=root)
    assert (proc.returncode, proc.stdout) == (0, "")
