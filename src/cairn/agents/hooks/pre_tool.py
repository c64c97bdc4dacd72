"""PreToolUse: the read guard (deny a whole-file Read of a huge file once, then allow it).

A whole-file Read of a huge file (more than `max_lines` lines or
`max_bytes` bytes, no offset/limit) is denied once with a reason pointing to search or
offset/limit; the same read asked again is allowed, so the agent keeps the last word. Only Read
is ever looked at: edits, writes and every other tool pass untouched.
"""

from __future__ import annotations

import os
import stat

from cairn.agents.hooks.context import HookContext
from cairn.agents.hooks.output import HookResult

# Read renders these itself (images, PDFs by page, notebooks by cell): size says nothing.
# Reading a file this small whole costs ~2k tokens at most: never worth a denial, whatever the
# settings say, and deciding it needs no project or settings lookup.
NEVER_GUARD_BYTES = 8192
NOT_TEXT = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".ico", ".svg", ".pdf", ".ipynb"})


def count_lines(path: str, limit_bytes: int) -> int:
    """Newlines in the first `limit_bytes` of a file (enough to know it is over the line limit)."""
    with open(path, "rb") as fh:
        data = fh.read(limit_bytes)
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def deny_reason(path: str, lines: int | None, size: int) -> str:
    what = f"{lines} lines, {size // 1024} KB" if lines else f"{size // 1024} KB"
    return (
        f"cairn read guard: {path} is large ({what}, roughly {size * 2 // 7 // 1000}k tokens if read whole). "
        'Find the part you need first: `cairn search "what you are looking for"` (or Grep), then Read with '
        "offset/limit (e.g. offset=1, limit=200). If you really need the whole file, repeat the same Read: "
        "it will be allowed."
    )


def handle(ctx: HookContext) -> HookResult | None:
    if ctx.text("tool_name") != "Read":
        return None
    params = ctx.mapping("tool_input")
    path = params.get("file_path")
    if not isinstance(path, str) or not path or any(params.get(k) is not None for k in ("offset", "limit", "pages")):
        return None
    if os.path.splitext(path)[1].lower() in NOT_TEXT:
        return None
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size < NEVER_GUARD_BYTES:
        return None
    cfg = ctx.settings.read_guard
    if not cfg.enabled:
        return None
    max_bytes, max_lines = cfg.max_bytes, cfg.max_lines
    lines = None
    if st.st_size <= max_bytes:
        if st.st_size <= max_lines:  # fewer bytes than the line limit: cannot have that many lines
            return None
        lines = count_lines(path, max_bytes + 1)
        if lines <= max_lines:
            return None
    key = os.path.abspath(path)
    state = ctx.load_state("guard")
    denied = state.get("denied")
    denied = denied if isinstance(denied, dict) else {}
    if key in denied:  # asked again after the warning: the agent decided; never nag about it again
        if denied[key] != "allowed":
            denied[key] = "allowed"
            ctx.save_state("guard", {"denied": denied})
        return None
    denied[key] = "denied"
    ctx.save_state("guard", {"denied": denied})
    return HookResult(deny_reason=deny_reason(path, lines, st.st_size))
