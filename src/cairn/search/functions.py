"""For a pasted report, the functions inside each returned file, the one to fix first.

A hit lists its definitions in the order the channels found them (the frame's function, the names
the request gives, the declarations that matched best). For a long, report-shaped request
(long_query.py) this stage re-ranks the definitions of the best `FunctionRank.files` hits by the
report's own evidence, and lists those with evidence first:

- the function of a stack frame or of the line raising the report's message (bug_evidence.py);
- a definition the report names (`BaseModel.construct` -> `construct`, `is_flag` -> the parameter's
  function is not named, but `PromptBase.on_validate_error` is), by how code-like the name was written
  (query.Symbol.strength);
- the share of the report's code-written names (long_query's weights) found in the definition's own
  lines: only the innermost definitions (a class holding the matching method would take its words).

Whole-body BM25 inside a file was tried before and lost (docs/benchmarks-log/2026-12-07.md); this
counts only what the report writes as code. Definitions without evidence keep their order after, and
a hit lists `FunctionRank.shown` of them (the text output shows as many): a report's answer reads as
the best functions of the best files, not every definition of the first file first.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from cairn.search.hit import Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cairn.search.bug_evidence import Evidence
    from cairn.search.query import Query
    from cairn.search.ranking import FunctionRank

DEF_KINDS = ("function", "method", "class", "struct", "impl", "interface", "trait", "enum", "type", "macro", "module")
_CALLABLE = frozenset({"function", "method", "macro"})
MAX_FILE_BYTES = 1 << 20  # a file's head read for the body signal


def rank_functions(
    con: sqlite3.Connection, root: Path | None, q: Query, bug: Evidence | None, hits: list[Hit], r: FunctionRank
) -> None:
    """Reorder the symbols (and shown lines) of the first `r.files` hits by the report's evidence."""
    from cairn.codemap.model import symbol_key

    named = {s.key: s.strength for s in q.symbols}
    code_terms = [(t.text, t.weight) for t in q.main if t.weight > 0 and len(t.text) >= 3]
    total = sum(w for _, w in code_terms) or 1.0
    marks = ",".join("?" * len(DEF_KINDS))
    for h in hits[: r.files]:
        defs = con.execute(
            f"SELECT name, kind, line, end_line, signature FROM symbols WHERE file_id = ? AND kind IN ({marks}) "
            "AND end_line >= line ORDER BY line LIMIT 400",
            (h.file_id, *DEF_KINDS),
        ).fetchall()
        if not defs:
            continue
        framed = {d[0] for d in (bug.defs.get(h.file_id, []) if bug else [])}
        lines = _lines(os.path.join(root, h.path)) if root is not None and r.body else None
        scored: dict[str, tuple[float, int, int, str]] = {}
        for i, d in enumerate(defs):
            name, kind, line, end = d["name"], d["kind"], d["line"], d["end_line"]
            s = r.frame if name in framed else 0.0
            s += r.named * named.get(symbol_key(name), 0.0)
            if lines and kind in _CALLABLE and _leaf(defs, i):
                body = "\n".join(lines[line - 1 : end])
                s += r.body * sum(w for t, w in code_terms if t in body) / total
            if s >= r.least and s > scored.get(name, (0.0,))[0]:
                scored[name] = (s, line, end, d["signature"] or name)
        if not scored:
            continue
        best = sorted(scored.items(), key=lambda kv: (-kv[1][0], kv[1][1]))[: r.max_first]
        first = [name for name, _ in best]
        h.symbols = first + [s for s in h.symbols if s not in first]
        for _name, (_, line, end, sig) in reversed(best):
            if (line, end) not in h.lines:
                h.lines.insert(0, (line, end))
                h.snippets.insert(0, (line, end, sig))
    if r.shown:  # each hit its best few definitions, as the text output shows them: the next hit's come next
        for h in hits:
            del h.symbols[r.shown :]


def _leaf(defs: list[sqlite3.Row], i: int) -> bool:
    """No other definition inside this one's lines (the innermost: a method, not its class)."""
    line, end = defs[i]["line"], defs[i]["end_line"]
    for d in defs[i + 1 :]:
        if d["line"] > end:
            break
        if d["line"] > line or (d["line"] == line and d["end_line"] < end):
            return False
    return True


def _lines(path: str) -> list[str]:
    """A file's lowercased lines (its first MAX_FILE_BYTES); none when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return fh.read(MAX_FILE_BYTES).decode("utf-8", "replace").lower().split("\n")
    except OSError:
        return []
