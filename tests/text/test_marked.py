"""cairn.text.marked: the one marked-block splice (connect's usage block, memory-md's block)."""

from __future__ import annotations

import pytest

from cairn.agents.connectors import edit
from cairn.errors import CairnError
from cairn.memory import memory_md
from cairn.text.marked import MarkerError, marked, splice_block

S, E = "<!-- x:start -->", "<!-- x:end -->"


def test_a_block_is_appended_after_one_blank_line() -> None:
    block = marked("hello\n\n", S, E)
    assert block == f"{S}\nhello\n{E}"
    assert splice_block(None, block, S, E) == block + "\n"
    assert splice_block("", block, S, E) == block + "\n"
    assert splice_block("# Mine", block, S, E) == f"# Mine\n\n{block}\n"
    assert splice_block("# Mine\n", block, S, E) == f"# Mine\n\n{block}\n"
    assert splice_block("# Mine\n\n", block, S, E) == f"# Mine\n\n{block}\n"


def test_only_the_marked_span_is_replaced_and_a_second_run_changes_nothing() -> None:
    user_head, user_tail = "# Notes\r\n\ttabs  and trailing  \n\n", "\n\n## After\nkeep me\n"
    text = user_head + marked("old", S, E) + user_tail
    new = splice_block(text, marked("new\nlines", S, E), S, E)
    assert new == user_head + f"{S}\nnew\nlines\n{E}" + user_tail
    assert splice_block(new, marked("new\nlines", S, E), S, E) == new


@pytest.mark.parametrize("text", [f"a\n{S}\nb\n", f"a\n{E}\nb\n", f"{E}\nx\n{S}\n"])
def test_a_lone_or_reversed_marker_is_refused(text: str) -> None:
    with pytest.raises(MarkerError, match="found only one of the markers"):
        splice_block(text, marked("b", S, E), S, E)
    assert issubclass(MarkerError, CairnError)


def test_connect_and_memory_md_splice_with_it() -> None:
    text = "# AGENTS\n\nmine\n"
    assert edit.block_set(text, "usage", S, E) == splice_block(text, marked("usage", S, E), S, E)
    with pytest.raises(edit.NeedsManual, match="found only one of the markers"):
        edit.block_set(f"{S}\n", "usage", S, E)  # connect prints a snippet instead
    assert not hasattr(memory_md, "splice") and memory_md.splice_block is splice_block
    assert edit.splice_block is splice_block
