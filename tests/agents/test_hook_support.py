"""Shared builders for the hook tests: run `cairn hook` as Claude Code does, payloads shaped like
the documented ones (Claude Code docs, `hooks` page, "Hook input"), a small opted-in project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import make_git_repo

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts" / "claude-code"

PROJECT_FILES = {
    "README.md": "# Shop\n\nA tiny shop: carts, coupons and invoices.\n",
    "src/shop/__init__.py": "",
    "src/shop/cart.py": 'from shop.coupons import apply_coupon\n\n\nclass Cart:\n    """A shopping cart."""\n\n'
    "    def total(self, items):\n        return sum(i.price for i in items)\n\n"
    "    def checkout(self, code):\n        return apply_coupon(self, code)\n",
    "src/shop/coupons.py": 'def apply_coupon(cart, code):\n    """Apply a discount coupon to the cart total."""\n'
    "    if code == 'WINTER':\n        return cart.total([]) * 0.9\n    return cart.total([])\n",
    "src/shop/invoice.py": "from shop.cart import Cart\n\n\ndef render_invoice(cart: Cart) -> str:\n"
    '    """Render a PDF invoice for a cart."""\n    return \'invoice\'\n',
    # unrelated modules, so that the words above are rare in the repository, as in a real one
    **{f"src/util/helper_{i}.py": f"def helper_{i}(value):\n    return value + {i}\n" for i in range(8)},
}


def payload(event: str, cwd: Path, session: str = "sess-1", transcript: Path | None = None, **extra) -> dict:
    base = {
        "session_id": session,
        "transcript_path": str(transcript or cwd / "no-transcript.jsonl"),
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": event,
    }
    base.update(extra)
    return base


def run_hook(
    event: str | None,
    data,
    *,
    home: Path,
    inline: bool = False,
    env: dict | None = None,
    cwd: Path | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess:
    """`python -m cairn hook EVENT` with `data` (a dict, or raw text) on stdin, run from `cwd`
    (default: CAIRN_HOME, which is no project) as Claude Code runs hooks from the project."""
    stdin = data if isinstance(data, str) else json.dumps(data)
    args = [sys.executable, "-m", "cairn", "hook"] + ([event] if event else []) + (["--inline"] if inline else [])
    base = {k: v for k, v in os.environ.items() if k != "CLAUDE_CODE_AUTO_COMPACT_WINDOW"}
    full_env = {**base, "CAIRN_HOME": str(home), **(env or {})}
    return subprocess.run(
        args, input=stdin, capture_output=True, text=True, env=full_env, timeout=timeout, cwd=cwd or home
    )


def context_of(proc: subprocess.CompletedProcess, event: str) -> str:
    """The additionalContext of a hook answer, after checking the answer's shape."""
    assert proc.returncode == 0, proc.stderr
    if not proc.stdout.strip():
        return ""
    out = json.loads(proc.stdout)
    assert set(out) <= {"hookSpecificOutput", "decision", "reason"}
    spec = out["hookSpecificOutput"]
    assert spec["hookEventName"] == event
    text = spec["additionalContext"]
    assert text.startswith("<!-- cairn:recall -->") and text.endswith("<!-- /cairn:recall -->")
    return text


def make_project(root: Path, run_cli, files: dict | None = None, init: bool = True) -> Path:
    """A git repository with a few files, opted in with `cairn init` (indexed)."""
    make_git_repo(root, files or PROJECT_FILES)
    if init:
        r = run_cli("init", cwd=root)
        assert r.returncode == 0, r.stderr
    return root


def write_transcript(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def user(text: str, uuid: str = "u1") -> dict:
    return {"type": "user", "uuid": uuid, "isSidechain": False, "message": {"role": "user", "content": text}}


def tool_call(name: str, uuid: str = "a1", **params) -> dict:
    return {
        "type": "assistant",
        "uuid": uuid,
        "isSidechain": False,
        "requestId": f"req-{uuid}",
        "message": {
            "id": f"msg-{uuid}",
            "role": "assistant",
            "model": "claude-opus-4-6",
            "content": [{"type": "tool_use", "id": f"toolu-{uuid}", "name": name, "input": params}],
            "usage": {
                "input_tokens": 10,
                "cache_read_input_tokens": 1000,
                "cache_creation_input_tokens": 100,
                "output_tokens": 5,
            },
        },
    }
