"""The old import path of the redactor: `cairn.redact` is the one redaction function (kept for callers)."""

from __future__ import annotations

from cairn.redact import PLACEHOLDER, redact, redact_obj
from cairn.redact.shape import entropy, looks_random

__all__ = ["PLACEHOLDER", "entropy", "looks_random", "redact", "redact_obj"]
