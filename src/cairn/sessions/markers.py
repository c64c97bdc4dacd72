"""The marker cairn wraps around everything it injects into an agent's context.

Injected recall ends up in the agent's transcript; the archive must recognise it so cairn never
re-archives (and later re-injects) its own output as if the user or the agent had written it.
The hooks wrap each injection with `wrap_injected`; the archive calls `strip_injected`.
Stdlib only: imported on the hook path.
"""

from __future__ import annotations

import re

RECALL_MARKER = "<!-- cairn:recall -->"
RECALL_END = "<!-- /cairn:recall -->"

# An opening marker without its end (a truncated injection) swallows the rest of the text.
_INJECTED = re.compile(re.escape(RECALL_MARKER) + r".*?(?:" + re.escape(RECALL_END) + r"|\Z)", re.S)


def wrap_injected(text: str) -> str:
    """`text` between cairn's markers, ready to hand to the agent."""
    return f"{RECALL_MARKER}\n{text}\n{RECALL_END}"


def has_marker(text: str) -> bool:
    """True when `text` holds (part of) something cairn injected."""
    return RECALL_MARKER in text or RECALL_END in text


def strip_injected(text: str) -> str:
    """`text` without any cairn-injected span (and without a stray end marker)."""
    if RECALL_MARKER not in text and RECALL_END not in text:
        return text
    return _INJECTED.sub("", text).replace(RECALL_END, "")
