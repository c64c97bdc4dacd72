#!/usr/bin/env python3
"""Regenerate the module-map tables of docs/ARCHITECTURE.md from the module docstrings.

Everything above the `## Module map` heading is kept as written; the tables below it are
rebuilt, one per package, one row per file (its docstring's first paragraph).
Usage: python scripts/module_map.py   (run from the repository root; `--check` exits 1 when the
document differs from what it would write, which tests/test_architecture.py also asserts)
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

TITLES = {
    "cairn": "Foundation: identity, settings, errors, entry",
    "cairn/util": "Stdlib helpers",
    "cairn/text": "Text helpers shared by every layer: tokens, token estimates, stop words, front matter",
    "cairn/store": "SQLite plumbing",
    "cairn/redact": "Secret redaction: one function at every way in and out (RE2, gitleaks rules)",
    "cairn/codemap": "Code map (index path)",
    "cairn/codemap/imports": "Import resolution, one resolver per language family",
    "cairn/codemap/stages": "The index run, one module per stage",
    "cairn/codemap/knowledge": "Knowledge files read: node format, vaults, decision records (the index and memory build on it)",
    "cairn/search": "Search (request path)",
    "cairn/search/eval": "Evaluation built into the product",
    "cairn/memory": "Knowledge graph (markdown is the truth)",
    "cairn/sessions": "Transcripts of every agent: archive, redaction, token X-ray",
    "cairn/team": "Team archive on PostgreSQL (opt-in): push, search, forget",
    "cairn/otel": "OpenTelemetry receiver: the usage an agent reports, as ground truth",
    "cairn/workspace": "A workspace of repositories: one request across the user's projects, their cross-repository imports",
    "cairn/warm": "The warm processes: hook server, command-line server, MCP zygote, and their clients",
    "cairn/agents": "Agent integration: handoffs, session records",
    "cairn/agents/hooks": "Claude Code hooks, one module per event",
    "cairn/agents/mcp": "MCP server",
    "cairn/agents/connectors": "`cairn connect` for other agents",
    "cairn/cli": "Command line: one thin module per command group",
}
MARK = "## Module map"


def tables(src: Path) -> str:
    rows: dict[str, list[tuple[str, str]]] = {}
    for f in sorted(src.rglob("*.py")):
        doc = ast.get_docstring(ast.parse(f.read_text(encoding="utf-8"))) or ""
        first = " ".join(doc.strip().split("\n\n")[0].split()).replace("|", "/")
        rows.setdefault(f.parent.relative_to(src.parent).as_posix(), []).append((f.name, first))
    out = []
    for pkg in sorted(rows, key=lambda k: (list(TITLES).index(k) if k in TITLES else 99, k)):
        out.append(f"### `src/{pkg}/` ({TITLES.get(pkg, '')})\n\n| file | its one job |\n|---|---|")
        out.extend(f"| `{name}` | {doc} |" for name, doc in rows[pkg])
        out.append("")
    return "\n".join(out)


def render(text: str, src: Path) -> str:
    """`text` (docs/ARCHITECTURE.md) with everything below the module-map heading regenerated."""
    if MARK not in text:
        raise ValueError(f"no '{MARK}' heading")
    return text.split(MARK)[0] + MARK + "\n\n" + tables(src)


def main() -> None:
    root = Path(__file__).resolve().parents[1]
    doc = root / "docs" / "ARCHITECTURE.md"
    text = doc.read_text(encoding="utf-8")
    try:
        new = render(text, root / "src" / "cairn")
    except ValueError as exc:
        sys.exit(f"{doc}: {exc}")
    if "--check" in sys.argv[1:]:
        sys.exit(0 if new == text else f"{doc} is out of date: run python scripts/module_map.py")
    doc.write_text(new, encoding="utf-8")


if __name__ == "__main__":
    main()
