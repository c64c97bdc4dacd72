"""What the semantic channel's embedding backends share: their status record, the load-or-why path, identifier words.

codemap/embed.py (the static table, and the choice of backend) and codemap/embed_onnx.py (a sentence
transformer) both import it; neither imports the other at module level.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    M = TypeVar("M")

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[_\W]+")


@dataclass(frozen=True)
class Status:
    """Whether the model can be used, its id (package version + weights), or why not."""

    ok: bool
    model_id: str = ""
    reason: str = ""
    folder: Path | None = None


def words(text: str) -> str:
    """Identifiers split into lowercase words: `verify_session(RateLimiter)` -> "verify session rate limiter"."""
    return _SEPARATORS.sub(" ", _CAMEL.sub(" ", text)).lower().strip()


def build(st: Status, make: Callable[[Status], M]) -> tuple[M | None, str | None]:
    """(the model, None) or (None, why not): a missing or broken model package switches the channel off, never raises."""
    if not st.ok:
        return None, st.reason
    try:
        return make(st), None
    except Exception as exc:  # a broken package (bad file, missing tokenizers, numpy, onnxruntime): the channel is off
        first = str(exc).splitlines()[0][:120] if str(exc) else ""
        return None, f"the model package is broken: {type(exc).__name__}: {first}"
