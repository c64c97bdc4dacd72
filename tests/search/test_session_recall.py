"""Session-aware recall: the transcript reader, git history as evidence, the session channels,
novelty (`seen`), log-like documents, and `cairn search --transcript` / `cairn eval sessions`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from cairn.codemap import history
from cairn.codemap.doc_role import document_role, is_changelog
from cairn.codemap.index_db import open_index
from cairn.codemap.indexer import index_project
from cairn.project import project_for_root
from cairn.search.engine import search_code
from cairn.sessions.context import SessionContext, read_session
from helpers import git, make_git_repo, write_tree


def rec_user(text: str, ts: str = "2026-01-01T00:00:00Z") -> dict:
    return {"type": "user", "timestamp": ts, "message": {"role": "user", "content": text}}


def rec_tool(name: str, ts: str = "2026-01-01T00:00:01Z", **params) -> dict:
    return {
        "type": "assistant",
        "timestamp": ts,
        "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": name, "input": params}]},
    }


def write_jsonl(path, records) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


# ---------------------------------------------------------------- the transcript reader


def test_reader_keeps_files_with_kind_order_and_prompts(tmp_path):
    t = tmp_path / "s.jsonl"
    write_jsonl(
        t,
        [
            rec_user("look at the export"),
            rec_tool("Read", file_path="/r/src/a.py"),
            rec_tool("Grep", pattern="export", path="/r/src/lib"),
            rec_tool("Bash", command="pytest tests/test_b.py -q && cat 'src/c.py'"),
            {
                "type": "user",
                "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]},
            },
            rec_user("<command-name>/clear</command-name>"),
            rec_user("now fix it"),
            rec_tool("Edit", file_path="/r/src/a.py"),
            rec_tool("Write", file_path="/r/src/new.py"),
            {
                "type": "assistant",
                "isSidechain": True,
                "message": {"content": [{"type": "tool_use", "name": "Read", "input": {"file_path": "/r/src/sub.py"}}]},
            },
        ],
    )
    ctx = read_session(t)
    assert ctx.prompts == ["look at the export", "now fix it"] and ctx.steps == 2
    assert ctx.files["/r/src/a.py"].how == "edited" and ctx.files["/r/src/a.py"].count == 2
    assert ctx.files["/r/src/new.py"].how == "created"
    assert ctx.files["/r/src/lib"].how == "named"
    assert ctx.files["tests/test_b.py"].how == "named" and ctx.files["src/c.py"].how == "named"
    assert "/r/src/sub.py" not in ctx.files  # a subagent's reads are its own
    assert ctx.recent_files()[0] == "/r/src/new.py"


def test_reader_resumes_from_its_cached_offset_and_waits_for_partial_lines(tmp_path):
    t, cache = tmp_path / "s.jsonl", tmp_path / "cache.json"
    write_jsonl(t, [rec_user("first prompt here"), rec_tool("Read", file_path="/r/a.py")])
    assert set(read_session(t, cache).files) == {"/r/a.py"}
    with open(t, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec_tool("Read", file_path="/r/b.py")) + "\n")
        fh.write('{"type": "assistant", "message": {"content": [')  # a line still being written
    ctx = read_session(t, cache)
    assert set(ctx.files) == {"/r/a.py", "/r/b.py"} and ctx.prompts == ["first prompt here"]
    offset = json.loads(cache.read_text())["offset"]
    assert offset < t.stat().st_size  # the partial line is left for the next read
    with open(t, "a", encoding="utf-8") as fh:
        fh.write('{"type": "tool_use", "name": "Read", "input": {"file_path": "/r/c.py"}}]}}\n')
    assert "/r/c.py" in read_session(t, cache).files


def test_reader_keeps_the_context_it_saved_while_its_cache_file_is_unchanged(tmp_path):
    """A warm process does not parse its own cache again; a cache rewritten by another process
    (or deleted) is read from disk, and a grown transcript still adds its new lines once."""
    from cairn.sessions import context

    t, cache = tmp_path / "s.jsonl", tmp_path / "cache.json"
    write_jsonl(t, [rec_user("first prompt here"), rec_tool("Read", file_path="/r/a.py")])
    first = read_session(t, cache)
    assert read_session(t, cache) is first  # unchanged: the kept object, no JSON read
    with open(t, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec_tool("Read", file_path="/r/b.py")) + "\n")
    grown = read_session(t, cache)
    assert set(grown.files) == {"/r/a.py", "/r/b.py"} and grown.files["/r/a.py"].count == 1
    assert read_session(t, cache).files["/r/b.py"].count == 1  # folded once, not again from the old offset
    data = json.loads(cache.read_text())
    data["ctx"]["files"] = {}  # another process rewrites the cache: what it says now counts
    context._save_cache(cache, data)
    assert "/r/a.py" not in read_session(t, cache).files
    cache.unlink()
    assert set(read_session(t, cache).files) == {"/r/a.py", "/r/b.py"}  # no cache: read from the start


def test_reader_starts_over_when_the_file_is_replaced(tmp_path):
    t, cache = tmp_path / "s.jsonl", tmp_path / "cache.json"
    write_jsonl(t, [rec_user("one two three four"), rec_tool("Read", file_path="/r/a.py")])
    read_session(t, cache)
    t.unlink()
    write_jsonl(t, [rec_tool("Read", file_path="/r/z.py")])
    assert set(read_session(t, cache).files) == {"/r/z.py"}


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not json at all\n",
        b"\x00\xff\xfe garbage\n",
        b'{"type": "user"}\n',
        b"[1, 2, 3]\n",
        b'{"type":"assistant","message":{"content":"x"}}\n',
        b"[" * 5000 + b"\n",
    ],
)
def test_reader_never_fails_on_bad_transcripts(tmp_path, content):
    t = tmp_path / "bad.jsonl"
    t.write_bytes(content)
    assert read_session(t, tmp_path / "c.json").files == {}
    assert read_session(tmp_path / "missing.jsonl").empty


def test_reader_bounds_a_huge_backlog_to_its_tail(tmp_path):
    t = tmp_path / "big.jsonl"
    recs = [rec_tool("Read", file_path=f"/r/f{i}.py") for i in range(3000)]
    write_jsonl(t, recs)
    ctx = read_session(t, max_bytes=20_000)
    assert "/r/f2999.py" in ctx.files and "/r/f0.py" not in ctx.files


# ---------------------------------------------------------------- git history


def _commit(root, files: dict[str, str], msg: str) -> None:
    write_tree(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", msg)


@pytest.fixture
def coupled_repo(tmp_path):
    root = make_git_repo(
        tmp_path / "repo",
        {"cli.py": "def main():\n    pass\n", "core.py": "x = 1\n", "other.py": "y = 1\n", "CHANGELOG.md": "# log\n"},
    )
    for i in range(6):  # cli.py and parser.py change together; CHANGELOG.md changes with everything
        _commit(
            root,
            {"cli.py": f"def main():\n    return {i}\n", "parser.py": f"P = {i}\n", "CHANGELOG.md": f"# log\n- {i}\n"},
            f"cli {i}",
        )
        _commit(root, {"other.py": f"y = {i}\n", "CHANGELOG.md": f"# log\n- {i}\n- o\n"}, f"other {i}")
    return root


def test_history_cochange_churn_and_together(coupled_repo):
    project = project_for_root(coupled_repo)
    stats = index_project(project)
    assert stats.commits_mined == 13
    con = open_index(project)
    co = history.cochange(con, {"cli.py": 1.0})
    assert max(co, key=co.get) == "parser.py"
    assert co["parser.py"] > co["CHANGELOG.md"]  # normalized: a file every commit touches does not dominate
    assert history.together(con, "parser.py", "cli.py") == (6, 6)
    assert set(list(history.churn(con))[:1]) == {"CHANGELOG.md"}
    con.close()


def test_history_is_incremental_and_survives_rewrites(coupled_repo):
    project = project_for_root(coupled_repo)
    index_project(project)
    _commit(coupled_repo, {"cli.py": "def main():\n    return 99\n", "parser.py": "P = 99\n"}, "more")
    assert index_project(project).commits_mined == 1
    assert index_project(project).commits_mined == 0
    git(coupled_repo, "reset", "-q", "--hard", "HEAD~3")
    _commit(coupled_repo, {"core.py": "x = 2\n"}, "rewritten")
    assert index_project(project).commits_mined == 12  # mined again from scratch
    con = open_index(project)
    n = con.execute("SELECT COUNT(*) FROM commits").fetchone()[0]
    con.close()
    assert n == 12


def test_no_git_empty_and_shallow_histories_never_fail(tmp_path):
    plain = write_tree(tmp_path / "plain", {"a.py": "x = 1\n"})
    assert index_project(project_for_root(plain)).commits_mined == 0
    empty = make_git_repo(tmp_path / "empty", {"a.py": "x = 1\n"}, commit=False)
    assert index_project(project_for_root(empty)).commits_mined == 0
    src = make_git_repo(tmp_path / "src", {"a.py": "x = 1\n"})
    for i in range(3):
        _commit(src, {"a.py": f"x = {i}\n"}, f"c{i}")
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{src}", str(shallow)], check=True, capture_output=True
    )
    assert index_project(project_for_root(shallow)).commits_mined == 1


# ---------------------------------------------------------------- the session channels

SHOP = {
    "src/cart.py": "from src.coupons import apply_coupon\n\nclass Cart:\n    def checkout(self, code):\n"
    "        return apply_coupon(self, code)\n",
    "src/coupons.py": 'def apply_coupon(cart, code):\n    """Apply a discount coupon."""\n    return cart\n',
    "src/invoice.py": 'def render_invoice(cart):\n    """Render a PDF invoice."""\n    return \'pdf\'\n',
    "src/export.py": 'def export_csv(rows):\n    """Export the rows as CSV."""\n    return rows\n',
    "tests/test_cart.py": "from src.cart import Cart\n\ndef test_checkout():\n    assert Cart().checkout('X')\n",
    "src/util/test_helper_3.py": "from src.util.helper_3 import helper_3\n\ndef test_helper():\n    assert helper_3(1)\n",
    "tasks/008-export-totals.md": "# Task 008: export totals\n\nAdd the invoice totals to the CSV export.\n",
    **{f"src/util/helper_{i}.py": f"def helper_{i}(value):\n    return value + {i}\n" for i in range(8)},
}


@pytest.fixture
def shop(tmp_path):
    root = make_git_repo(tmp_path / "shop", SHOP)
    project = project_for_root(root)
    index_project(project)
    con = open_index(project)
    yield root, con
    con.close()


def _ctx(root, steps: list[tuple[str, list[tuple[str, str]]]]) -> SessionContext:
    ctx = SessionContext()
    for prompt, touches in steps:
        ctx.prompts.append(prompt)
        ctx.steps += 1
        for how, rel in touches:
            ctx.touch(str(root / rel), how, 0.0)
    return ctx


def paths(hits) -> list[str]:
    return [h.path for h in hits]


def test_a_vague_follow_up_lands_on_the_files_in_play(shop):
    root, con = shop
    ctx = _ctx(root, [("render the invoice as a PDF", [("read", "src/invoice.py"), ("edited", "src/invoice.py")])])
    hits, _ = search_code(con, "ok now do the same for the other one", root=root, session=ctx)
    assert paths(hits)[0] == "src/invoice.py"
    assert "edited in this session" in hits[0].why


def test_earlier_prompts_carry_the_topic_but_a_new_topic_wins(shop):
    root, con = shop
    ctx = _ctx(root, [("the coupon discount is wrong", [])])
    hits, _ = search_code(con, "where is it applied", root=root, session=ctx)
    assert paths(hits)[0] == "src/coupons.py"
    hits, _ = search_code(con, "now the invoice pdf rendering", root=root, session=ctx)
    assert paths(hits)[0] == "src/invoice.py"


def test_named_paths_and_other_checkouts_are_near_certain(shop):
    root, con = shop
    hits, _ = search_code(con, "compare with ~/tmp/elsewhere/src/export.py and explain", root=root)
    assert paths(hits)[0] == "src/export.py"
    assert any(w.startswith("named in the prompt") for w in hits[0].why) and not hits[0].seen
    # `@path`: Claude Code attaches the file's text to the prompt; ranked as named, marked seen
    hits, _ = search_code(con, "compare with @~/tmp/elsewhere/src/export.py and explain", root=root)
    assert paths(hits)[0] == "src/export.py" and hits[0].seen
    assert "attached to the prompt with @: src/export.py" in hits[0].why
    hits, _ = search_code(con, "start working on task 008", root=root)
    assert "tasks/008-export-totals.md" in paths(hits)[:2]


def test_a_windows_path_in_the_prompt_is_a_mention(shop):
    root, con = shop
    hits, _ = search_code(con, r"In D:\work\shop\src\export.py, the rows come back empty", root=root)
    assert paths(hits)[0] == "src/export.py"
    assert any(w.startswith("named in the prompt") for w in hits[0].why)


def test_a_path_the_prompt_gives_outranks_the_files_in_play(shop):
    """A path written in the prompt (here a Windows one from another checkout) is what the person
    points at: it comes before the files the session was just working on."""
    root, con = shop
    ctx = _ctx(
        root,
        [
            (
                "render the invoice as a PDF",
                [("edited", "src/invoice.py"), ("read", "src/cart.py"), ("read", "src/coupons.py")],
            )
        ],
    )
    hits, _ = search_code(
        con, r"D:\work\shop\src\export.py has the invoice cart coupon bug too", root=root, session=ctx
    )
    assert paths(hits)[0] == "src/export.py"


def test_a_one_digit_item_resolves_only_to_files_named_for_its_word(tmp_path):
    """ "phase 1" is no file called whats-new-1.mdx; "task 1" is tasks/1-setup.md, "#42" notes/42.md,
    "migration 11" the migration numbered 11."""
    from cairn.search.session_signals import tracker_files

    root = make_git_repo(
        tmp_path / "r",
        {
            **SHOP,
            "blog/whats-new-1.md": "# What is new\n",
            "tasks/1-setup.md": "# Task 1: set up\n",
            "notes/42.md": "# 42\n",
            "db/migrations/11_indexes.up.sql": "CREATE INDEX a ON b (c);\n",
        },
    )
    project = project_for_root(root)
    index_project(project)
    con = open_index(project)

    def named(prompt):
        return {
            con.execute("SELECT path FROM files WHERE id = ?", (f,)).fetchone()[0] for f in tracker_files(con, prompt)
        }

    assert named("go ahead with phase 1") == set()
    assert named("start with task 1") == {"tasks/1-setup.md"}
    assert named("see #42 for the background") == {"notes/42.md"}
    assert named("fold the later ones into migration 11") == {"db/migrations/11_indexes.up.sql"}
    con.close()


def test_the_tests_of_the_files_in_play_come_next(shop):
    """The test beside an edited file outranks tests elsewhere; asked about tests, it is near the top."""
    root, con = shop
    ctx = _ctx(root, [("fix the rounding in helper 3", [("edited", "src/util/helper_3.py")])])
    hits, _ = search_code(con, "are the tests still right?", root=root, session=ctx)
    ranked = paths(hits)
    assert "src/util/test_helper_3.py" in ranked[:3]
    hit = hits[ranked.index("src/util/test_helper_3.py")]
    assert "the test (or tested file) of a file in play" in hit.why


def test_a_follow_up_that_says_little_turns_to_the_work_beside_the_files_in_play(shop):
    """'go ahead and apply it to every value': its one word matches every helper alike; the test of
    the edited file is what the next step opens, so it comes right after the file itself."""
    root, con = shop
    ctx = _ctx(root, [("fix the rounding in helper 3", [("edited", "src/util/helper_3.py")])])
    hits, q = search_code(con, "go ahead and apply it to every value", root=root, session=ctx)
    assert q.distinctive <= 1
    ranked = paths(hits)
    assert ranked[:2] == ["src/util/helper_3.py", "src/util/test_helper_3.py"]
    assert "the test (or tested file) of a file in play" in hits[1].why
    # a prompt that says what it wants keeps its own matches ahead of the test
    hits, q = search_code(con, "render the invoice as a PDF with the export totals", root=root, session=ctx)
    ranked = paths(hits)
    assert q.distinctive > 3
    assert ranked.index("src/invoice.py") < ranked.index("src/export.py") < ranked.index("src/util/test_helper_3.py")


def test_a_test_and_a_doc_in_play_keep_their_full_weight(shop, monkeypatch):
    """A test or a doc the session is editing is part of the work: its role does not weigh it down
    below source files the session only glanced at."""
    from cairn.search.ranking import DEFAULT_RANKING, override

    root, con = shop
    ctx = _ctx(
        root,
        [
            (
                "the checkout test fails",
                [
                    ("read", "src/coupons.py"),
                    ("read", "src/invoice.py"),
                    ("read", "src/export.py"),
                    ("read", "src/cart.py"),
                    ("edited", "tests/test_cart.py"),
                ],
            )
        ],
    )
    hits, _ = search_code(con, "run it again please", root=root, session=ctx)
    assert "tests/test_cart.py" in paths(hits)[:5]
    hits_before, _ = search_code(
        con,
        "run it again please",
        root=root,
        session=ctx,
        ranking=override(DEFAULT_RANKING, {"roles.in_play_full_weight": False}),
    )
    assert paths(hits_before).index("tests/test_cart.py") > paths(hits).index("tests/test_cart.py")


def test_a_file_named_in_the_other_number_is_a_mention(shop):
    root, con = shop
    hits, _ = search_code(con, "check the fixes are merged correctly in invoices.py", root=root)
    assert paths(hits)[0] == "src/invoice.py"
    assert "named in the prompt: invoices.py" in hits[0].why


def test_seen_marks_files_read_and_unchanged_since(shop):
    root, con = shop
    import time

    ctx = SessionContext()
    ctx.touch(str(root / "src/coupons.py"), "read", time.time())
    ctx.touch(str(root / "src/invoice.py"), "read", time.time() - 3600)
    os.utime(root / "src/invoice.py", (time.time(), time.time()))  # changed after it was read
    hits, _ = search_code(con, "apply coupon discount and render invoice", root=root, session=ctx)
    by = {h.path: h for h in hits}
    assert by["src/coupons.py"].seen and by["src/coupons.py"].as_json()["seen"] is True
    assert not by["src/invoice.py"].seen and "seen" not in by["src/invoice.py"].as_json()


def test_cochange_is_a_channel_with_its_reason(coupled_repo):
    project = project_for_root(coupled_repo)
    index_project(project)
    con = open_index(project)
    ctx = _ctx(coupled_repo, [("change the main entry point", [("edited", "cli.py")])])
    hits, _ = search_code(con, "and what else", root=coupled_repo, session=ctx)
    con.close()
    parser = next(h for h in hits if h.path == "parser.py")
    assert "changes with cli.py in 6 of its last 6 commits" in parser.why


# ---------------------------------------------------------------- documents that are logs


def test_log_like_documents_are_recognized_by_shape():
    assert document_role(".specstory/history/2026-01-16_15-10-51Z-ask-me.md", "doc", "x") == "log"
    assert document_role("CHANGELOG.md", "doc", "") == "log"
    assert document_role("notes/chat.md", "doc", "User: a\nAssistant: b\n" * 4) == "log"
    assert document_role("docs/guide.md", "doc", "# Guide\nHow to configure the export.\n") is None
    assert document_role("src/history.py", "code", "") is None
    assert is_changelog("docs/ReleaseNotes.md") and not is_changelog(".specstory/history/2026-01-16_x.md")


def test_logs_count_less_for_code_requests_but_are_found_when_asked(tmp_path):
    talk = "\n".join(
        f"_**User**_\nthe csv export of invoice totals is broken {i}\n_**Agent**_\nlooking" for i in range(5)
    )
    root = make_git_repo(tmp_path / "r", {**SHOP, "notes/history/2026-01-02_10-00-00Z-export.md": talk})
    project = project_for_root(root)
    index_project(project)
    con = open_index(project)
    log = "notes/history/2026-01-02_10-00-00Z-export.md"
    hits, _ = search_code(con, "the csv export of invoice totals is broken", root=root)
    assert paths(hits)[0] == "src/export.py"
    assert paths(hits).index(log) > paths(hits).index("tasks/008-export-totals.md")  # below plain docs too
    hits, _ = search_code(con, "what did we discuss about the csv export in yesterday's session", root=root)
    assert log in paths(hits)[:3]
    con.close()


# ---------------------------------------------------------------- the CLI


def cli(args, home, cwd=None):
    env = {**os.environ, "CAIRN_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "cairn", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=120
    )


def test_search_with_a_transcript_cli(tmp_path, cairn_home):
    root = make_git_repo(tmp_path / "shop", SHOP)
    t = tmp_path / "s.jsonl"
    write_jsonl(
        t,
        [
            rec_user("render the invoice as a PDF"),
            {**rec_tool("Read", file_path=str(root / "src/invoice.py")), "timestamp": "2100-01-01T00:00:00Z"},
        ],
    )
    r = cli(
        ["search", "--root", str(root), "--json", "--transcript", str(t), "do the same for the coupons"], cairn_home
    )
    assert r.returncode == 0, r.stderr
    results = json.loads(r.stdout)["results"]
    by = {x["path"]: x for x in results}
    assert by["src/invoice.py"].get("seen") is True
    assert results[0]["path"] in ("src/coupons.py", "src/invoice.py")
    bad = cli(["search", "--root", str(root), "--transcript", str(tmp_path / "nope.jsonl"), "coupons"], cairn_home)
    assert bad.returncode != 0 and bad.stderr.count("\n") == 1 and "no such transcript" in bad.stderr
    junk = tmp_path / "junk.jsonl"
    junk.write_bytes(b"\x00garbage\n{not json\n")
    ok = cli(["search", "--root", str(root), "--json", "--transcript", str(junk), "apply coupon"], cairn_home)
    assert ok.returncode == 0 and json.loads(ok.stdout)["results"][0]["path"] == "src/coupons.py"


def test_a_bead_id_means_the_same_to_the_cli_as_to_the_hook(tmp_path, cairn_home):
    """`cairn search "work on bead shop-a1b"` reads the item's title and text from .beads/issues.jsonl,
    as the prompt hook does (agents/tracker.request_with_items)."""
    bead = {
        "id": "shop-a1b",
        "title": "Coupon discount applied twice",
        "status": "open",
        "description": "apply_coupon runs twice during checkout, so the discount doubles",
    }
    root = make_git_repo(tmp_path / "shop", {**SHOP, ".beads/issues.jsonl": json.dumps(bead) + "\n"})
    r = cli(["search", "--root", str(root), "--json", "work on bead shop-a1b"], cairn_home)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["results"][0]["path"] == "src/coupons.py"


def test_eval_sessions_replays_the_archive(tmp_path, cairn_home):
    root = make_git_repo(tmp_path / "shop", SHOP)
    folder = tmp_path / "claude" / "projects" / "shop"
    folder.mkdir(parents=True)
    recs = [
        rec_user("please render the invoice as a PDF for customers", "2026-01-01T00:00:00Z"),
        rec_tool("Read", "2026-01-01T00:00:01Z", file_path=str(root / "src/invoice.py")),
        rec_user("now apply the discount coupon before the invoice total", "2026-01-01T00:01:00Z"),
        rec_tool("Read", "2026-01-01T00:01:01Z", file_path=str(root / "src/coupons.py")),
        rec_tool("Edit", "2026-01-01T00:01:02Z", file_path=str(root / "src/invoice.py")),
    ]
    for i, r in enumerate(recs):
        r.update(uuid=f"u{i}", sessionId="s1", cwd=str(root), isSidechain=False)
    write_jsonl(folder / "s1.jsonl", recs)
    assert cli(["sessions", "ingest", str(folder)], cairn_home).returncode == 0
    r = cli(["eval", "sessions", "--root", str(root), "--json"], cairn_home)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["cases"] == 2
    assert set(out["systems"]) == {"cairn", "bm25-files", "session-recency", "cairn+history"}
    assert out["systems"]["cairn"]["files@5"] == 1.0
    empty = make_git_repo(tmp_path / "other", {"a.py": "x = 1\n"})
    r = cli(["eval", "sessions", "--root", str(empty)], cairn_home)
    assert r.returncode != 0 and "no replayable prompts" in r.stderr


def test_a_tracker_item_brings_its_words(tmp_path):
    root = make_git_repo(
        tmp_path / "r",
        {
            **SHOP,
            "tasks/012-coupon-stacking.md": "# Task 012: stop coupon stacking\n\nA cart must accept one discount coupon.\n",
        },
    )
    project = project_for_root(root)
    index_project(project)
    con = open_index(project)
    hits, _ = search_code(con, "start working on task 012", root=root)
    con.close()
    top = paths(hits)
    assert top[0] == "tasks/012-coupon-stacking.md"
    assert "src/coupons.py" in top[:4]  # found by the item's own words, which the prompt never says
