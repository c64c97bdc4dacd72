"""A pasted report's file by what its text says, above a facade ranked for what the report uses.

A report names the public API its user called (`jinja2.Template(...)`, `from rich.console import
Console`, `class Model(pydantic.BaseModel)`), and the file defining it gathers the evidence of use:
the names it defines, the modules the report's code imports, the phrases of its docstrings, the
graph's hub. The fix is often in the module that does the work, the one whose content the report's
words (its behaviour, its output, its identifiers, weighed by long_query.py) match best: the text
channel's first. When that file is among the first hits but not first, and the first hit owes its
place to other channels (its own text rank is worse than `ranking.LongQuery.text_first`), the text's
first goes just above it (attrs#1427: `_next_gen.py`'s `define` before `_make.py`; rich#3569:
`console.py` before `panel.py`). No path or name rule: only the channels' own lists.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cairn.search.hit import Hit

TOP = 5  # the text's first is lifted only from the first hits: lower, the other channels disagree too much
LIFT = 1.001  # of the first hit's score: just above it


POINTERS = ("name", "mention", "mention_path", "modules", "trace", "raises", "tested")  # the report points there
SEEN = 10  # of a pointer channel's list


def lift(hits: list[Hit], lists: dict[str, list[int]], worse_than: int, kept: set[int]) -> None:
    """The hits again (in place): the text channel's first file above the first hit, when it is among
    the first TOP hits, the first hit's own text rank is worse than `worse_than` (0: never), the first
    hit is none the report points at more than at it (a channel of POINTERS with the first hit and
    without the text's first: a named path, module, frame, definition) and none in `kept` (a named
    wrapper's callee, delegates.py). A text's first that is a frame of the report's stack stays: the
    report pasted its code lines, and the callee the stack blames may come first (werkzeug#995)."""
    text = lists.get("text") or []
    if worse_than <= 0 or len(hits) < 2 or not text:
        return
    best, lead = text[0], hits[0]
    if lead.file_id == best or lead.file_id in kept:
        return
    rank = text.index(lead.file_id) + 1 if lead.file_id in text else len(text) + 1
    if rank <= worse_than:
        return
    if best in (lists.get("trace") or [])[:SEEN]:
        return  # a frame of the report's stack: its pasted code lines are its text's match
    for name in POINTERS:
        seen = (lists.get(name) or [])[:SEEN]
        if lead.file_id in seen and best not in seen:
            return
    for h in hits[1:TOP]:
        if h.file_id == best:
            h.score = lead.score * LIFT
            h.why.append("the report's words match its text best")
            hits.sort(key=lambda x: (-x.score, x.path))
            return
