"""Render search hits for an agent (compact text within a token budget) or a program (JSON).

An agent reads the path, why it is there, and the signatures of the definitions that matched,
with line numbers to open them at: never whole files.
"""

from __future__ import annotations

from cairn.search.hit import Hit
from cairn.text.budget import line_cost, take_within

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Iterator

MAX_SNIPPETS = 3


def render_hit(h: Hit) -> str:
    if h.meta:  # a knowledge node: what it is, where it is, why it is here
        m = h.meta
        head = f"{m.get('type', 'note')}: {m.get('title', '')}  [{m.get('id', '')}, {m.get('status', '')}]"
        lines = [head, f"  {h.path} - " + "; ".join(h.why)]
        if m.get("files"):
            lines.append("  about: " + ", ".join(m["files"][:4]))
        return "\n".join(lines)
    lines = [f"{h.path}  [{h.kind}] " + "; ".join(h.why)]
    for line, end, sig in h.snippets[:MAX_SNIPPETS]:
        first = (sig or "").splitlines()[0].strip()[:160] if sig else ""
        rng = f"L{line}-{end}" if end and end != line else f"L{line}"
        lines.append(f"  {rng}  {first}")
    return "\n".join(lines)


def pack(hits: list[Hit], budget: int | None) -> tuple[list[Hit], list[str], int]:
    """The hits whose rendered text fits the budget (in rank order), their texts and the token total."""

    def rendered() -> Iterator[tuple[Hit, str]]:
        for i, h in enumerate(hits):
            text = render_hit(h)
            if i == 0 and budget is not None and line_cost(text) > budget:
                # even the first hit is over budget: drop its snippets rather than return nothing
                h = Hit(h.file_id, h.path, h.score, h.kind, h.lines, h.symbols, [], h.why[:1], h.hub, h.meta)
                text = render_hit(h)
            yield h, text

    taken, used = take_within(rendered(), lambda pair: line_cost(pair[1]), budget)
    return [h for h, _ in taken], [text for _, text in taken], used
