"""The project's past for recall: the request log and session co-access, built as sessions are
archived, read by search, bounded, rebuilt, forgotten; bad input never makes recall worse."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cairn.codemap.index_db import open_index
from cairn.codemap.indexer import index_project
from cairn.project import project_for_recorded_cwd, project_for_root
from cairn.search.engine import search_code
from cairn.sessions.archive import forget, ingest_paths, open_archive
from cairn.sessions.history_recall import open_past
from cairn.sessions.history_store import (
    MAX_SESSIONS,
    count_of,
    open_store,
    put_session,
    rebuild,
    store_path,
    terms_of,
)
from cairn.sessions.requests import Request, project_paths, requests_of
from helpers import write_tree
from history_helpers import write_session

SHOP = {
    "pricing/cupom.py": "def apply_discount(total, code):\n    return total * 0.9\n",
    "pricing/tax.py": "def vat(total):\n    return total * 0.2\n",
    "cart/cart.py": "def add_item(cart, item):\n    cart.append(item)\n",
    "cart/checkout.py": "from cart.cart import add_item\n\ndef checkout(cart):\n    return sum(cart)\n",
    "web/routes.py": "def index():\n    return 'home'\n",
    "docs/guide.md": "# Guide\n\nHow the shop works.\n",
    **{f"util/helper{i}.py": f"def helper{i}(x):\n    return x + {i}\n" for i in range(30)},
}


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """A project outside git, indexed with --root (so its sessions are its own: project.py)."""
    root = write_tree(tmp_path / "shop", SHOP)
    index_project(project_for_root(root))
    project_for_recorded_cwd.cache_clear()
    return root.resolve()


def _search(root: Path, prompt: str, past: bool = True, session=None, **weights: float) -> list[tuple[str, list[str]]]:
    """The hits and their reasons; `weights`: Ranking fields to change ("fusion.coaccess" as fusion__coaccess)."""
    from cairn.search.ranking import DEFAULT_RANKING, override

    project = project_for_root(root)
    con = open_index(project)
    handle = open_past(project.id) if past else None
    ranking = override(DEFAULT_RANKING, {k.replace("__", "."): v for k, v in weights.items()})
    try:
        hits, _ = search_code(con, prompt, root=root, limit=10, session=session, past=handle, ranking=ranking)
    finally:
        con.close()
        if handle is not None:
            handle.close()
    return [(h.path, h.why) for h in hits]


def _archive(tmp_path: Path, *transcripts: Path) -> None:
    stats = ingest_paths(list(transcripts), auto_backup=None)
    assert not stats.errors, stats.errors


# ---------------------------------------------------------------- what a session asked


def test_requests_are_counted_prompts_and_the_files_read_or_edited_before_the_next():
    t = [
        ("user", "fix the checkout total when a coupon applies", None, None, "1"),
        ("tool", "", "Read", "/r/pricing/cupom.py", "2"),
        ("tool", "", "Grep", "coupon", "3"),  # a search names no file the agent looked at
        ("user", "yes", None, None, "4"),  # a short reply does not end the request
        ("tool", "", "Edit", "/r/pricing/cupom.py", "5"),
        ("user", "/clear", None, None, "6"),  # a slash command does
        ("tool", "", "Read", "/r/web/routes.py", "7"),
        ("user", "now add a route for the order history page", None, None, "8"),
        ("tool", "", "Read", "/elsewhere/notes.txt", "9"),  # outside the project
        ("tool", "", "Write", "web/history.py", "10"),
    ]  # relative to the session's folder
    reqs = requests_of(t, project_paths("/r", "/r"))
    assert [(r.prompt[:9], r.files) for r in reqs] == [
        ("fix the c", {"pricing/cupom.py": "edited"}),
        ("now add a", {"web/history.py": "edited"}),
    ]


def test_prompt_words_hold_tracker_items_and_file_names():
    words = terms_of("Fix #12 and ABC-42 (task 008) in cart/Checkout.py, retries")
    assert {"#12", "abc-42", "task#8", "checkout.py", "checkout", "retry"} <= set(words)
    assert "and" not in words and "12" not in words


# ---------------------------------------------------------------- built as sessions are archived


def test_archived_session_is_in_the_request_log_and_search_says_why(shop: Path, tmp_path: Path):
    before = _search(shop, "the checkout total is wrong with a discount code")
    t = write_session(
        tmp_path / "t" / "s1.jsonl",
        shop,
        "s1",
        [("the order total ignores the discount code at checkout", ["pricing/cupom.py", "cart/checkout.py"])],
        edited={"pricing/cupom.py"},
        day="2026-11-02",
    )
    _archive(tmp_path, t)
    assert store_path(project_for_root(shop).id).is_file()
    after = _search(shop, "the checkout total is wrong with a discount code")
    why = dict(after)["pricing/cupom.py"]
    assert (
        "asked before: 'the order total ignores the discount code at checkout' on 2026-11-02 led to "
        "pricing/cupom.py" in why
    )
    assert not any(w.startswith("asked before") for _, ws in before for w in ws)
    assert (
        [p for p, _ in after].index("pricing/cupom.py") <= [p for p, _ in before].index("pricing/cupom.py")
        if "pricing/cupom.py" in dict(before)
        else True
    )


def test_a_growing_session_is_stored_again_and_rebuild_gives_the_same_log(shop: Path, tmp_path: Path):
    t = tmp_path / "t" / "s1.jsonl"
    write_session(t, shop, "s1", [("the order total ignores the discount code", ["pricing/cupom.py"])])
    _archive(tmp_path, t)
    write_session(
        t,
        shop,
        "s1",
        [
            ("the order total ignores the discount code", ["pricing/cupom.py"]),
            ("also show the vat line on the receipt page", ["pricing/tax.py"]),
        ],
    )
    _archive(tmp_path, t)
    pid = project_for_root(shop).id

    def dump() -> list[tuple]:
        con = open_store(pid)
        assert con is not None
        try:
            return [
                tuple(r)
                for r in con.execute(
                    "SELECT r.idx, r.prompt, p.path, f.edited FROM requests r JOIN request_files f ON f.rid = r.id "
                    "JOIN files p ON p.id = f.fid ORDER BY r.idx"
                )
            ] + [tuple(r) for r in con.execute("SELECT term, df FROM terms ORDER BY term")]
        finally:
            con.close()

    grown = dump()
    assert [g[:3] for g in grown[:2]] == [
        (0, "the order total ignores the discount code", "pricing/cupom.py"),
        (1, "also show the vat line on the receipt page", "pricing/tax.py"),
    ]
    archive = open_archive()
    try:
        assert rebuild(archive, pid) == 1
    finally:
        archive.close()
    assert dump() == grown


def test_the_session_being_searched_is_not_its_own_history(shop: Path, tmp_path: Path):
    t = write_session(
        tmp_path / "t" / "live.jsonl",
        shop,
        "live",
        [("the order total ignores the discount code at checkout", ["pricing/cupom.py"])],
    )
    _archive(tmp_path, t)
    pid = project_for_root(shop).id
    past = open_past(pid, exclude="live")
    assert past is not None
    try:
        assert past.asked("the order total ignores the discount code at checkout") == {}
    finally:
        past.close()
    past = open_past(pid)
    assert past is not None
    try:
        assert set(past.asked("the order total ignores the discount code at checkout")) == {"pricing/cupom.py"}
    finally:
        past.close()


def test_files_read_together_before_come_with_the_files_in_play(shop: Path, tmp_path: Path):
    from cairn.sessions.context import SessionContext

    for i in range(3):
        t = write_session(
            tmp_path / "t" / f"s{i}.jsonl",
            shop,
            f"s{i}",
            [(f"look into the cart flow number {i} please", ["cart/cart.py", "docs/guide.md"])],
        )
        _archive(tmp_path, t)
    ctx = SessionContext()
    ctx.add_prompt("open the cart module")
    ctx.touch(str(shop / "cart" / "cart.py"), "read", 0.0)
    got = dict(_search(shop, "what else matters here", session=ctx, fusion__coaccess=0.5))  # shipped at 0
    assert "worked on with the files in play in earlier sessions" in got.get("docs/guide.md", [])
    assert not any(
        "earlier sessions" in w
        for ws in dict(_search(shop, "what else matters here", past=False, session=ctx)).values()
        for w in ws
    )


def test_a_request_that_shares_only_its_rare_word_still_lends_its_file(shop: Path, tmp_path: Path):
    """ "the vat is off by a cent" is like the earlier "the receipt prints the vat twice..." by its one
    rare word (similarity ~0.18): below the old 0.3 bar, yet on the development sessions such partial
    likeness lends the right file often enough (docs/benchmarks.md#session-history: past_min_sim 0.1)."""
    steps = [
        ("the receipt prints the vat twice when a coupon is applied at checkout", "pricing/tax.py"),
        ("rename the web routes module to pages", "web/routes.py"),
        ("add a helper to sum the cart items", "cart/cart.py"),
        ("document the checkout flow in the guide", "docs/guide.md"),
    ]
    for i, (prompt, path) in enumerate(steps):
        t = write_session(
            tmp_path / "t" / f"s{i}.jsonl", shop, f"s{i}", [(prompt, [path])], edited={path}, day=f"2026-11-0{i + 1}"
        )
        _archive(tmp_path, t)
    why = dict(_search(shop, "the vat is off by a cent")).get("pricing/tax.py", [])
    assert any(w.startswith("asked before: 'the receipt prints the vat twice") for w in why)


def test_the_request_log_speaks_at_a_sessions_start_not_once_files_are_in_play(shop: Path, tmp_path: Path):
    """Earlier requests lend their files while the session has none in play; after that the
    session's own files say more (docs/benchmarks.md#session-history: asked_in_play 0)."""
    from cairn.sessions.context import SessionContext

    t = write_session(
        tmp_path / "t" / "s1.jsonl",
        shop,
        "s1",
        [("the order total ignores the discount code at checkout", ["pricing/cupom.py"])],
    )
    _archive(tmp_path, t)
    prompt = "the checkout total is wrong with a discount code"
    assert any(w.startswith("asked before") for w in dict(_search(shop, prompt)).get("pricing/cupom.py", []))
    ctx = SessionContext()
    ctx.add_prompt("open the routes")
    ctx.touch(str(shop / "web" / "routes.py"), "read", 0.0)
    assert not any(w.startswith("asked before") for ws in dict(_search(shop, prompt, session=ctx)).values() for w in ws)
    assert _search(shop, prompt, session=ctx) == _search(shop, prompt, past=False, session=ctx)


# ---------------------------------------------------------------- bounded, forgotten, bad input


def test_the_log_keeps_the_newest_sessions_and_true_counts(shop: Path):
    from cairn.sessions.history_store import prune

    con = open_store(project_for_root(shop).id)
    assert con is not None
    try:
        for i in range(5):
            r = Request(0, f"look at helper number {i} and its callers", None)
            r.touch(f"util/helper{i}.py", "read")
            put_session(con, f"s{i}", None, [r], {f"util/helper{i}.py": (1, False)})
        assert prune(con, keep=2) == 3
        assert [r[0] for r in con.execute("SELECT sid FROM sessions ORDER BY seq")] == ["s3", "s4"]
        assert con.execute("SELECT df FROM terms WHERE term = 'helper'").fetchone()[0] == 2
        assert con.execute("SELECT COUNT(*) FROM files").fetchone()[0] == 2
        assert count_of(con, "requests") == 2 and count_of(con, "terms") == 2 * len(
            terms_of("look at helper number 3 and its callers")
        )
    finally:
        con.close()
    assert MAX_SESSIONS >= 1000


def test_forgotten_sessions_leave_the_request_log(shop: Path, tmp_path: Path):
    t = write_session(
        tmp_path / "t" / "s1.jsonl", shop, "s1", [("the secret plan for the zanzibar launch", ["pricing/cupom.py"])]
    )
    _archive(tmp_path, t)
    path = store_path(project_for_root(shop).id)

    def on_disk() -> bytes:
        return b"".join(Path(str(path) + sfx).read_bytes() for sfx in ("", "-wal") if Path(str(path) + sfx).exists())

    assert b"zanzibar" in on_disk()
    con = open_archive()
    try:
        forget(con, ["s1"])
    finally:
        con.close()
    assert b"zanzibar" not in on_disk()


def test_no_history_and_an_empty_history_rank_exactly_as_before(shop: Path, tmp_path: Path):
    prompt = "add the vat to the checkout total"
    before = _search(shop, prompt, past=False)
    con = open_store(project_for_root(shop).id)
    assert con is not None
    con.close()
    assert _search(shop, prompt) == before
    t = write_session(
        tmp_path / "t" / "s1.jsonl", shop, "s1", [("rename the web routes module to pages", ["web/routes.py"])]
    )
    _archive(tmp_path, t)
    assert _search(shop, prompt) == before  # an unrelated past says nothing


def test_noise_other_projects_and_cut_sessions_never_make_recall_worse(shop: Path, tmp_path: Path):
    """A thousand near-identical prompts, sessions of another project, a session cut mid-line and a
    file since deleted: nothing crashes, and the file the request is about stays on top."""
    prompt = "apply_discount returns the wrong total for a coupon code"
    before = [p for p, _ in _search(shop, prompt, past=False)]
    assert before[0] == "pricing/cupom.py"
    other = write_tree(tmp_path / "other", {"pricing/cupom.py": "x = 1\n"})
    index_project(project_for_root(other))
    project_for_recorded_cwd.cache_clear()
    steps = [("continue with the next task please", [f"util/helper{i % 30}.py"]) for i in range(1000)]
    steps += [("yes", ["web/routes.py"]), ("continue", ["docs/guide.md"])]
    files = [
        write_session(tmp_path / "t" / "noise.jsonl", shop, "noise", steps),
        write_session(
            tmp_path / "t" / "other.jsonl",
            other,
            "other",
            [("apply_discount returns the wrong total for a coupon code", ["pricing/cupom.py"])] * 3,
        ),
        write_session(
            tmp_path / "t" / "cut.jsonl",
            shop,
            "cut",
            [
                ("apply_discount returns the wrong total for a coupon code", ["web/gone.py", "util/helper3.py"]),
                ("then the coupon code in the cart", ["cart/cart.py"]),
            ],
            cut=True,
        ),
    ]
    stats = ingest_paths(files, auto_backup=None)
    assert not stats.errors
    after = _search(shop, prompt)
    assert [p for p, _ in after][0] == "pricing/cupom.py"
    assert "web/gone.py" not in dict(after)  # a file that no longer exists is dropped
    for p in before[:3]:
        assert p in [q for q, _ in after][:5]
    noise = "continue with the next task please"  # the noise itself: answered as without history
    assert _search(shop, noise) == _search(shop, noise, past=False)


def test_chatter_said_a_thousand_times_recalls_as_without_history(shop: Path, tmp_path: Path):
    """A prompt made only of words the log holds again and again ("continue") is like hundreds of
    earlier requests, so like none: it must not lend the files the newest of them led to."""
    chatter = ["continue", "continue with the next task please", "yes go ahead and continue", "next task"]
    before = {p: _search(shop, p, past=False) for p in chatter}
    steps = [("continue with the next task please", [f"util/helper{i % 30}.py"]) for i in range(1000)]
    steps += [("yes go ahead", [f"util/helper{i % 7}.py"]) for i in range(300)]
    steps += [("continue", ["docs/guide.md"])] * 300
    steps += [("the order total ignores the discount code", ["pricing/cupom.py"])]
    _archive(tmp_path, write_session(tmp_path / "t" / "noise.jsonl", shop, "noise", steps))
    for prompt in chatter:
        assert _search(shop, prompt) == before[prompt], prompt
    found = dict(_search(shop, "why is the discount code ignored in the order total"))
    assert any(w.startswith("asked before") for w in found["pricing/cupom.py"])  # what says something still counts


def test_a_damaged_history_store_is_no_history(shop: Path):
    path = store_path(project_for_root(shop).id)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"not a database" * 100)
    assert open_past(project_for_root(shop).id) is None
    assert _search(shop, "add the vat to the checkout total") == _search(
        shop, "add the vat to the checkout total", past=False
    )


def test_cli_history_rebuilds_and_reports(shop: Path, tmp_path: Path, run_cli):
    t = write_session(
        tmp_path / "t" / "s1.jsonl",
        shop,
        "s1",
        [("the order total ignores the discount code", ["pricing/cupom.py", "cart/checkout.py"])],
    )
    assert run_cli("sessions", "ingest", "--no-backup", str(t)).returncode == 0
    store_path(project_for_root(shop).id).unlink()
    r = run_cli("sessions", "history", "--rebuild", "--json", cwd=shop)
    assert r.returncode == 0, r.stderr
    (row,) = json.loads(r.stdout)["projects"]
    assert (row["sessions"], row["requests"], row["links"]) == (1, 1, 2)
    r = run_cli("search", "--root", str(shop), "--json", "why is the discount code ignored in the order total")
    assert any(w.startswith("asked before") for x in json.loads(r.stdout)["results"] for w in x["why"])


def test_store_holds_no_more_than_the_caps(shop: Path, tmp_path: Path):
    from cairn.sessions.history_store import MAX_FILES

    many = [f"util/helper{i}.py" for i in range(30)] * 3
    t = write_session(tmp_path / "t" / "big.jsonl", shop, "big", [("read every helper in the util folder now", many)])
    _archive(tmp_path, t)
    con = sqlite3.connect(store_path(project_for_root(shop).id))
    try:
        assert con.execute("SELECT COUNT(*) FROM request_files").fetchone()[0] <= MAX_FILES
        assert (
            con.execute(
                "SELECT n FROM session_files s JOIN files f ON f.id = s.fid WHERE f.path = 'util/helper0.py'"
            ).fetchone()[0]
            == 3
        )
    finally:
        con.close()


def test_eval_sessions_measures_what_the_past_adds(shop: Path, tmp_path: Path, run_cli):
    """`cairn eval sessions`: session k is searched again with the sessions before k as its past; the
    words of the second request are nowhere in the file it needs, only in the first request."""
    first = write_session(
        tmp_path / "t" / "s1.jsonl",
        shop,
        "s1",
        [("loyalty members see a wrong receipt amount", ["pricing/cupom.py"])],
        edited={"pricing/cupom.py"},
        day="2026-01-01",
    )
    second = write_session(
        tmp_path / "t" / "s2.jsonl",
        shop,
        "s2",
        [("again loyalty members see a wrong receipt amount", ["pricing/cupom.py"])],
        day="2026-01-02",
    )
    assert run_cli("sessions", "ingest", "--no-backup", str(first), str(second)).returncode == 0
    r = run_cli("eval", "sessions", "--root", str(shop), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["cases"] == 2 and out["systems"]["cairn+history"]["cases"] == 2
    assert out["history_gain"]["novel@5"] == 0.5  # the second session's prompt, found through the first
    r = run_cli("eval", "sessions", "--root", str(shop), "--no-history")
    assert r.returncode == 0 and "cairn+history" not in r.stdout
