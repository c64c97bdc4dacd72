"""Expand tracker references in a prompt (`#123`, `ABC-42`, `.beads` ids) to their title and text.

A reference is `#123`, a ticket key like `ABC-42`, or an id found in the repository's own tracker
files (`.beads/issues.jsonl` by default; any JSON-lines file whose records have an `id` and a
`title`). A configured file outside the project (a committed `.cairn/config.toml` could name any
file on the machine) is never read. "fix #123" says little to a search engine; the item's title and text say what the work
is about.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cairn.project import Project

MAX_TRACKER_BYTES = 8 * 1024 * 1024
MAX_ITEMS = 3
TEXT_CHARS = 600
_HASH_REF = re.compile(r"(?<![\w&])#(\d{1,7})\b")
_KEY_REF = re.compile(r"\b([A-Z][A-Z0-9]{1,9}-\d{1,7})\b")
_ID_TOKEN = re.compile(r"\b[a-z][a-z0-9]{0,15}-[0-9a-z]{2,12}(?:\.\d{1,4})*\b", re.I)
TEXT_KEYS = ("description", "body", "text", "design", "acceptance_criteria", "notes")


def _records(root: Path, files: list[str]) -> Iterator[dict]:
    from cairn.errors import PathRefused
    from cairn.safepath import confine, is_regular

    for rel in files:
        try:  # a committed config names these: each must stay inside the project (symlinks too)
            path = confine(str(rel), [root], relative_to=root, what="a tracker file")
        except PathRefused:
            continue
        try:
            if not is_regular(path) or path.stat().st_size > MAX_TRACKER_BYTES:
                continue
            data = path.read_bytes()
        except OSError:
            continue
        for line in data.splitlines():
            try:
                rec = json.loads(line)
            except (ValueError, UnicodeDecodeError, RecursionError):
                continue
            if isinstance(rec, dict) and isinstance(rec.get("id"), str | int) and isinstance(rec.get("title"), str):
                yield rec


def _matches(rec: dict, ref: str) -> bool:
    rid = str(rec["id"])
    if ref.startswith("#"):
        num = ref[1:]
        return rid == num or rid.endswith(f"-{num}") or str(rec.get("number", "")) == num
    return rid.lower() == ref.lower()


def find_refs(prompt: str) -> list[str]:
    """Candidate references in the prompt, in order: `#123`, `ABC-42`, and id-like tokens."""
    refs = [f"#{m}" for m in _HASH_REF.findall(prompt)] + _KEY_REF.findall(prompt)
    refs += [m.group(0) for m in _ID_TOKEN.finditer(prompt)]
    return list(dict.fromkeys(refs))


def content_terms(text: str) -> list[str]:
    """The words of `text` a search would use (three letters or more, no bare numbers)."""
    from cairn.text.tokens import query_terms

    return [t for t in query_terms(text) if len(t) >= 3 and not t.isdigit()]


def request_with_items(
    root: Path | None, prompt: str, files: list[str] | tuple[str, ...]
) -> tuple[str, list[str], list[dict]]:
    """The request as search sees it when the prompt names tracker items: the prompt plus each
    item's title, the items' words as extra terms, and the items themselves. The prompt hook,
    `cairn search` and MCP `context`/`search` all build their request here ("work on bead
    spotter-dov" means the same to each)."""
    items = expand(root, prompt, list(files)) if root is not None else []
    if not items:
        return prompt, [], []
    query = " ".join([prompt] + [it["title"] for it in items])
    return query, [w for it in items for w in content_terms(it["text"])][:40], items


def with_tracker_items(project: Project, query: str) -> tuple[str, list[str]]:
    """`request_with_items` for `cairn search` and MCP: the project's configured tracker files;
    the request unchanged when it names no item (nothing read)."""
    if project.root is None or not find_refs(query):
        return query, []
    from cairn.config import settings

    query, terms, _items = request_with_items(project.root, query, settings(project.root).hooks.recall.tracker_files)
    return query, terms


def expand(root: Path, prompt: str, files: list[str]) -> list[dict]:
    """The tracker items the prompt names: [{"ref", "id", "title", "text"}] (at most a few)."""
    refs = find_refs(prompt)
    if not refs:
        return []
    found: list[dict] = []
    for rec in _records(root, files):
        for ref in refs:
            if _matches(rec, ref):
                text = " ".join(str(rec[k]) for k in TEXT_KEYS if isinstance(rec.get(k), str))
                found.append(
                    {
                        "ref": ref,
                        "id": str(rec["id"]),
                        "title": rec["title"].strip(),
                        "text": " ".join(text.split())[:TEXT_CHARS],
                    }
                )
                break
        if len(found) >= MAX_ITEMS:
            break
    return found
