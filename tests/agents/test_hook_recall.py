"""UserPromptSubmit recall: the relevance gate, reasons, dedupe per session (reset by compaction),
isolation between projects, cairn's own text never fed back, tracker references, redaction."""

from __future__ import annotations

import json

from test_hook_support import context_of, make_project, payload, run_hook, tool_call, user, write_transcript

PROMPT = "the coupon discount is applied twice at checkout, where does apply_coupon get called?"


def ask(root, home, prompt, session="sess-1", transcript=None):
    data = payload("UserPromptSubmit", root, session=session, transcript=transcript, prompt=prompt)
    return context_of(run_hook("UserPromptSubmit", data, home=home, cwd=root), "UserPromptSubmit")


def test_matching_prompt_injects_few_items_with_reasons(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    text = ask(root, cairn_home, PROMPT)
    assert "src/shop/coupons.py" in text
    body = text.split("\n")[2:-1]
    items = [ln for ln in body if not ln.startswith("  ")]
    assert 1 <= len(items) <= 3
    assert all(("matches" in ln or "named" in ln or "defines" in ln) for ln in items)
    assert len(text) <= 700 * 3.5 + 100


def test_a_file_attached_with_at_is_not_injected_again(tmp_path, run_cli, cairn_home):
    """Claude Code puts an @path's text into the prompt: recall points elsewhere, never at it."""
    root = make_project(tmp_path / "shop", run_cli)
    named = ask(root, cairn_home, "why does src/shop/coupons.py apply the discount twice at checkout?")
    assert "src/shop/coupons.py" in named
    attached = ask(
        root, cairn_home, "why does @src/shop/coupons.py apply the discount twice at checkout?", session="s-at"
    )
    assert "src/shop/coupons.py" not in attached


def test_trivial_and_slash_prompts_inject_nothing(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    for prompt in [
        "ok",
        "yes please continue",
        "/compact",
        "/review src/shop/cart.py",
        "thanks!",
        "",
        "can you do the same thing again",
        "continue where you left off",
        "please pick up where we left off last time",
        "keep going with the next steps",
    ]:
        assert ask(root, cairn_home, prompt) == "", prompt


def test_dedupe_within_session_and_reset_after_compaction(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    first = ask(root, cairn_home, PROMPT)
    assert "src/shop/coupons.py" in first
    again = ask(root, cairn_home, PROMPT)
    assert "src/shop/coupons.py" not in again
    assert "src/shop/coupons.py" in ask(root, cairn_home, PROMPT, session="sess-2")  # another session
    run_hook("SessionStart", payload("SessionStart", root, source="compact"), home=cairn_home, cwd=root)
    assert "src/shop/coupons.py" in ask(root, cairn_home, PROMPT)


def test_isolation_between_projects(tmp_path, run_cli, cairn_home):
    shop = make_project(tmp_path / "shop", run_cli)
    bank = make_project(
        tmp_path / "bank",
        run_cli,
        files={
            "ledger/coupon_ledger.py": 'def apply_coupon_credit(account, coupon):\n    """Credit a coupon discount '
            'to a ledger account at checkout."""\n    return account\n',
            "ledger/accounts.py": "def open_account(owner):\n    return owner\n",
            "ledger/rates.py": "def interest_rate(days):\n    return days * 0.01\n",
            "ledger/audit.py": "def audit_trail(entries):\n    return list(entries)\n",
            **{f"ledger/misc_{i}.py": f"def helper_{i}():\n    return {i}\n" for i in range(10)},
        },
    )
    assert (
        run_cli(
            "remember",
            "Coupon credits post at checkout",
            "--type",
            "decision",
            "--body",
            "Discount coupons are credited to the ledger.",
            cwd=bank,
        ).returncode
        == 0
    )
    assert run_cli("index", "-q", cwd=bank).returncode == 0
    text = ask(shop, cairn_home, PROMPT)
    assert text and "ledger" not in text.lower() and "Coupon credits" not in text
    other = ask(bank, cairn_home, "where is the coupon discount credited to the ledger account?", session="b")
    assert "ledger" in other and "src/shop" not in other


def test_own_injected_text_is_not_fed_back(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    pasted = (
        "<!-- cairn:recall -->\ncairn recall: src/shop/coupons.py matches coupon discount apply_coupon "
        "checkout invoice\n<!-- /cairn:recall -->\nok"
    )
    assert ask(root, cairn_home, pasted) == ""


def test_session_files_seed_a_vague_follow_up(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    transcript = write_transcript(
        tmp_path / "t.jsonl",
        [user("render the invoice total"), tool_call("Edit", "a1", file_path=str(root / "src/shop/invoice.py"))],
    )
    text = ask(root, cairn_home, "now render the cart total the same way as the invoice", transcript=transcript)
    assert "src/shop/" in text


def test_tracker_reference_is_expanded(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    (root / ".beads").mkdir()
    (root / ".beads" / "issues.jsonl").write_text(
        json.dumps(
            {
                "id": "shop-7f3",
                "title": "Invoice PDF renders an empty total",
                "description": "render_invoice prints nothing for carts with a coupon",
            }
        )
        + "\n"
    )
    text = ask(root, cairn_home, "please fix shop-7f3")
    assert 'shop-7f3 is "Invoice PDF renders an empty total"' in text
    assert "src/shop/invoice.py" in text


def test_secrets_in_injected_text_are_redacted(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    (root / ".beads").mkdir()
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    (root / ".beads" / "issues.jsonl").write_text(
        json.dumps({"id": "shop-9aa", "title": f"Rotate the leaked key {token}", "description": "coupon service"})
        + "\n"
    )
    text = ask(root, cairn_home, "look at shop-9aa")
    assert token not in text and "[REDACTED:github-" in text


def test_past_session_of_this_project_is_recalled(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    old = tmp_path / "transcripts" / "old-sess.jsonl"
    old.parent.mkdir()
    base = {"cwd": str(root), "sessionId": "old-sess", "version": "2.1.39", "isSidechain": False}
    write_transcript(
        old,
        [
            {
                **base,
                **user("the coupon discount was applied twice at checkout: apply_coupon ran in cart and invoice", "u1"),
                "timestamp": "2026-01-05T10:00:00Z",
            },
            {
                **base,
                "type": "assistant",
                "uuid": "a1",
                "timestamp": "2026-01-05T10:00:05Z",
                "requestId": "r1",
                "message": {
                    "id": "m1",
                    "role": "assistant",
                    "model": "claude-opus-4-6",
                    "content": [{"type": "text", "text": "Fixed: checkout now applies the coupon discount once."}],
                    "usage": {"input_tokens": 5, "output_tokens": 5},
                },
            },
        ],
    )
    assert run_cli("sessions", "ingest", str(old)).returncode == 0
    text = ask(root, cairn_home, PROMPT, session="new-sess")
    assert "past session old-sess" in text and "applied twice" in text
    assert "past session" not in ask(root, cairn_home, PROMPT, session="old-sess")  # never the session itself


def _archived_session(tmp_path, run_cli, root, sid: str, said: list[tuple[str, str]]) -> None:
    """A past session of the project at `root` (its records carry that cwd), ingested into the archive."""
    path = tmp_path / "transcripts" / f"{sid}.jsonl"
    path.parent.mkdir(exist_ok=True)
    base = {"cwd": str(root), "sessionId": sid, "version": "2.1.39", "isSidechain": False}
    records = []
    for i, (role, text) in enumerate(said):
        stamp = f"2026-01-0{i + 1}T10:00:00Z"
        if role == "user":
            records.append({**base, **user(text, f"{sid}-u{i}"), "timestamp": stamp})
        else:
            records.append(
                {
                    **base,
                    "type": "assistant",
                    "uuid": f"{sid}-a{i}",
                    "timestamp": stamp,
                    "requestId": f"r{i}",
                    "message": {
                        "id": f"m{i}",
                        "role": "assistant",
                        "model": "claude-opus-4-6",
                        "content": [{"type": "text", "text": text}],
                        "usage": {"input_tokens": 5, "output_tokens": 5},
                    },
                }
            )
    write_transcript(path, records)
    assert run_cli("sessions", "ingest", str(path)).returncode == 0


WEBHOOK_PROMPT = "what did we decide about the webhook retries"


def test_past_session_alone_is_recalled_in_its_own_project_only(tmp_path, run_cli, cairn_home):
    shop = make_project(tmp_path / "shop", run_cli)  # its code never mentions webhooks
    bank = make_project(
        tmp_path / "bank",
        run_cli,
        files={
            "ledger.py": "def post_entry(entry):\n    return entry\n",
            **{f"misc_{i}.py": f"def helper_{i}():\n    return {i}\n" for i in range(6)},
        },
    )
    _archived_session(
        tmp_path,
        run_cli,
        shop,
        "hooks-past",
        [
            ("user", "the payment provider says our webhook retries hammer them during outages"),
            ("assistant", "Decided: webhook retries back off exponentially, capped at 5 attempts over an hour."),
        ],
    )
    _archived_session(
        tmp_path, run_cli, shop, "other-past", [("user", "rename the cart total helper"), ("assistant", "Renamed it.")]
    )
    text = ask(shop, cairn_home, WEBHOOK_PROMPT, session="now")
    assert "past session hooks-pa" in text and "webhook retries" in text
    assert "other-pa" not in text and "src/shop" not in text  # no code hit rode along
    assert len(text) <= 700 * 3.5 + 100
    assert ask(shop, cairn_home, WEBHOOK_PROMPT, session="now") == ""  # once per session
    assert ask(bank, cairn_home, WEBHOOK_PROMPT, session="now") == ""  # another project's past stays there
    # words the code lacks are not enough by themselves: the past session must share two of them
    assert ask(shop, cairn_home, "what did we decide about the deploy freeze", session="later") == ""


def test_a_file_the_session_already_read_is_not_injected_until_it_changes(tmp_path, run_cli, cairn_home):
    import os
    import time

    root = make_project(tmp_path / "shop", run_cli)
    coupons = root / "src/shop/coupons.py"
    read_at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(coupons.stat().st_mtime + 60))
    transcript = write_transcript(
        tmp_path / "t.jsonl",
        [user("look at the coupons"), {**tool_call("Read", "a1", file_path=str(coupons)), "timestamp": read_at}],
    )
    text = ask(root, cairn_home, PROMPT, session="n1", transcript=transcript)
    assert "src/shop/coupons.py" not in text  # the agent has it
    later = coupons.stat().st_mtime + 3600
    os.utime(coupons, (later, later))  # edited since it was read: new again
    assert "src/shop/coupons.py" in ask(root, cairn_home, PROMPT, session="n2", transcript=transcript)


NAMES = ["total", "code", "limit", "expiry", "owner"]


def _coupon_rules_project(tmp_path, run_cli):
    from test_hook_support import PROJECT_FILES

    return make_project(
        tmp_path / "shop",
        run_cli,
        files={
            **PROJECT_FILES,
            "CLAUDE.md": "# Shop\n\nCoupon rules: coupon_total, coupon_code, coupon_limit, coupon_expiry and "
            "coupon_owner live in src/shop; the coupon expiry and owner are checked at checkout.\n",
            **{f"src/shop/c{i}.py": f"def coupon_{n}(cart):\n    return cart\n" for i, n in enumerate(NAMES)},
            "src/shop/resume.py": 'def resume_left_off(cart):\n    """Continue the checkout where the cart left off.'
            '"""\n    return cart\n',
        },
    )


def test_a_repeated_prompt_gets_no_weaker_fill_ins(tmp_path, run_cli, cairn_home):
    root = _coupon_rules_project(tmp_path, run_cli)
    prompt = "where are " + ", ".join(f"coupon_{n}" for n in NAMES) + " defined?"
    first = ask(root, cairn_home, prompt)
    assert first.count("defines coupon_") == 3  # max_items
    assert ask(root, cairn_home, prompt) == ""  # the three best were given: no lesser two in their place


def test_claude_md_and_carrying_on_are_never_recalled(tmp_path, run_cli, cairn_home):
    root = _coupon_rules_project(tmp_path, run_cli)
    docs = ask(root, cairn_home, "what do the docs say about the coupon rules for expiry and owner at checkout?")
    assert "CLAUDE.md" not in docs  # the agent loads it itself
    assert ask(root, cairn_home, "continue where you left off", session="s2") == ""  # resume.py matches the words


def test_a_tool_the_prompt_names_brings_its_configuration(tmp_path, run_cli, cairn_home):
    """ "golangci-lint complains" has one distinctive word in the code, yet names a tool whose file the
    repository has: that file is recalled, with the reason."""
    from test_hook_support import PROJECT_FILES

    files = {**PROJECT_FILES, ".golangci.yml": "linters:\n  enable:\n    - govet\n"}
    root = make_project(tmp_path / "shop", run_cli, files)
    text = ask(root, cairn_home, "the golangci-lint tool complains that its configuration is outdated, where is it?")
    assert ".golangci.yml" in text and "configures what the request names (golangci-lint)" in text
    root2 = make_project(tmp_path / "plain", run_cli)  # no such file: the same prompt injects nothing
    assert (
        ask(root2, cairn_home, "the golangci-lint tool complains that its configuration is outdated", session="s-2")
        == ""
    )
