"""doc_role's line-start scan finds exactly what `finditer` finds (it only skips lines that cannot match)."""

from __future__ import annotations

import random
from pathlib import Path

from cairn.codemap import doc_role

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
_PIECES = [
    "\n",
    "\n\n",
    " ",
    "\t",
    "\r\n",
    "\x0b",
    "\u00a0",
    "\u2028",
    "User:",
    "user",
    "AI",
    "ai (",
    "me\n",
    "You",
    "HUMAN",
    "**",
    "_**",
    "> ",
    "#",
    "## ",
    "###### ",
    "- ",
    "[v1.2",
    "v3.4 ",
    "2024-01-02",
    "1999-12-31",
    "Claude",
    "x",
    ":",
    "(",
    "assistant**:",
    "model_",
    "K",
    "é",
]


def _texts() -> list[str]:
    rng = random.Random(7)
    texts = [
        p.read_bytes().decode("utf-8", "replace")[:200_000]
        for p in sorted(FIXTURES.rglob("*"))
        if p.is_file() and p.stat().st_size < 1_000_000
    ]
    return texts + ["".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 80))) for _ in range(4000)]


def test_line_scan_equals_finditer():
    found = 0
    for text in _texts():
        for rx, line_rx in (
            (doc_role._SPEAKER, doc_role._SPEAKER_LINE),
            (doc_role._DATED_HEADING, doc_role._DATED_LINE),
        ):
            old = [(m.span(), m.groups()) for m in rx.finditer(text)]
            assert [(m.span(), m.groups()) for m in doc_role._line_matches(rx, line_rx, text)] == old, text
            found += len(old)
    assert found > 2000  # the texts exercise both patterns


def test_chat_history_is_a_log():
    chat = "\n".join(f"**User:** question {i}\n\n**Assistant:** answer {i}\n" for i in range(4))
    assert doc_role.document_role("notes/talk.md", "doc", chat) == doc_role.LOG
    assert doc_role.document_role("notes/plain.md", "doc", "# Title\n\nJust prose.\n") is None
