"""Outcome feedback in the prompt hook: a file injected session after session and never opened
there stops being injected; a file the agent opened, or one the request names, never does."""

from __future__ import annotations

from pathlib import Path

from test_hook_support import context_of, make_project, payload, run_hook

from history_helpers import write_session

PROMPT = "the coupon discount is applied twice at checkout, where does apply_coupon get called?"
COUPONS = "src/shop/coupons.py"


def ask(root: Path, home: Path, prompt: str, session: str) -> str:
    data = payload("UserPromptSubmit", root, session=session, prompt=prompt)
    return context_of(run_hook("UserPromptSubmit", data, home=home, cwd=root), "UserPromptSubmit")


def _sessions_that_ignore(
    tmp_path: Path, run_cli, home: Path, root: Path, sids: list[str], opened_in: str | None = None
) -> None:
    """Each session is injected COUPONS by the hook, then the agent reads another file (or COUPONS,
    in `opened_in`), and the session is archived, as the Stop hook's detached run does."""
    for sid in sids:
        assert COUPONS in ask(root, home, PROMPT, sid)
        read = [COUPONS] if sid == opened_in else ["src/shop/cart.py"]
        t = write_session(tmp_path / "t" / f"{sid}.jsonl", root, sid, [(PROMPT, read)])
        assert run_cli("sessions", "ingest", "--no-backup", str(t)).returncode == 0


def test_a_file_injected_again_and_again_and_never_opened_is_left_out(tmp_path, run_cli, cairn_home):
    root = make_project(tmp_path / "shop", run_cli)
    _sessions_that_ignore(tmp_path, run_cli, cairn_home, root, ["s1", "s2", "s3"])
    assert COUPONS not in ask(root, cairn_home, PROMPT, "s4")
    named = ask(root, cairn_home, f"why does {COUPONS} apply the discount twice at checkout?", "s5")
    assert COUPONS in named  # the request names it: feedback never hides it
    # in another project the agent opened it once after it was injected: it stays
    other = make_project(tmp_path / "shop2", run_cli)
    _sessions_that_ignore(tmp_path / "2", run_cli, cairn_home, other, ["o1", "o2", "o3"], opened_in="o2")
    assert COUPONS in ask(other, cairn_home, PROMPT, "o4")
