"""A fact to remember, as an agent hands it over (CLI arguments or a JSON object), validated.

Validation lives here, not in the vault, so the CLI and (later) the MCP tool reject bad input
with the same one-line messages before anything touches the disk.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cairn.codemap.knowledge.node import TYPES, Link, normalize_body
from cairn.errors import CairnError

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

FACT_KEYS = {"type", "title", "body", "files", "symbols", "links", "supersedes", "tags", "status", "personal"}


@dataclass
class Fact:
    title: str
    type: str = "note"
    body: str = ""
    files: list[str] = field(default_factory=list)
    symbols: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    supersedes: str | None = None
    tags: list[str] = field(default_factory=list)
    status: str = "active"
    personal: bool = False

    def __post_init__(self) -> None:
        from cairn.redact import redact

        # Notes are committed with the code: a secret pasted into a fact never reaches the file.
        self.title = redact(" ".join(str(self.title or "").split()))
        if not self.title:
            raise CairnError("a fact needs a non-empty title")
        self.type = str(self.type or "note").strip().lower()
        if self.type not in TYPES:
            raise CairnError(f"type {self.type!r} is not one of {', '.join(TYPES)}")
        if self.status not in ("active", "done"):
            raise CairnError(f"status {self.status!r}: a new fact is active or done")
        self.body = redact(normalize_body(str(self.body or "")))
        self.tags = _dedupe(t.strip().lstrip("#") for t in self.tags if t.strip())
        self.symbols = _dedupe(s.strip() for s in self.symbols if s.strip())
        self.files = _dedupe(f.strip() for f in self.files if f.strip())


def _dedupe(items: Iterable[Any]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item and item not in out:
            out.append(item)
    return out


def parse_link(spec: Any) -> Link:
    """`rel:target`, a bare target (relates-to), or {"rel", "target"}."""
    if isinstance(spec, dict):
        target = str(spec.get("target") or "").strip()
        rel = str(spec.get("rel") or "relates-to").strip()
    elif isinstance(spec, str):
        rel, sep, target = spec.partition(":")
        if not sep:
            rel, target = "relates-to", spec
        rel, target = rel.strip() or "relates-to", target.strip()
    else:
        raise CairnError(f'bad link {spec!r}: use rel:target or {{"rel", "target"}}')
    if not target:
        raise CairnError(f"bad link {spec!r}: the target is empty")
    if not rel.replace("-", "").replace("_", "").isalnum():
        raise CairnError(f"bad link relation {rel!r}: use a word like relates-to, caused-by, fixes")
    return Link(rel.lower(), target)


def _list_of_str(obj: dict, key: str, where: str) -> list[str]:
    val = obj.get(key)
    if val is None:
        return []
    if isinstance(val, str):
        return [val]
    if not isinstance(val, list) or not all(isinstance(v, str) for v in val):
        raise CairnError(f"{where}: `{key}` must be a list of strings")
    return list(val)


def fact_from_dict(obj: Any, where: str = "fact") -> Fact:
    """One JSON object -> Fact (schema in issue 4), with a clear error for anything else."""
    if not isinstance(obj, dict):
        raise CairnError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    unknown = sorted(set(obj) - FACT_KEYS)
    if unknown:
        raise CairnError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(FACT_KEYS))}")
    for key in ("title", "type", "body", "supersedes", "status"):
        if obj.get(key) is not None and not isinstance(obj[key], str):
            raise CairnError(f"{where}: `{key}` must be a string")
    links = obj.get("links") or []
    if not isinstance(links, list):
        raise CairnError(f'{where}: `links` must be a list of {{"rel", "target"}}')
    try:
        return Fact(
            title=obj.get("title") or "",
            type=obj.get("type") or "note",
            body=obj.get("body") or "",
            files=_list_of_str(obj, "files", where),
            symbols=_list_of_str(obj, "symbols", where),
            links=[parse_link(x) for x in links],
            supersedes=obj.get("supersedes") or None,
            tags=_list_of_str(obj, "tags", where),
            status=obj.get("status") or "active",
            personal=bool(obj.get("personal", False)),
        )
    except CairnError as exc:
        raise CairnError(f"{where}: {exc}") from None


def facts_from_json(data: Any) -> list[Fact]:
    """One object or a list of objects."""
    items = data if isinstance(data, list) else [data]
    if not items:
        raise CairnError("no facts given (an empty JSON list)")
    return [fact_from_dict(obj, f"fact {i + 1}" if len(items) > 1 else "fact") for i, obj in enumerate(items)]


def repo_relative(path: str, root: Path | None, cwd: Path | None = None) -> str:
    """A cited path as stored: POSIX, relative to the project root when it lies inside it."""
    p = Path(path).expanduser()
    if root is not None:
        root = Path(root).resolve()
        absolute = p if p.is_absolute() else (Path(cwd) if cwd else Path.cwd()) / p
        if not p.is_absolute() and not absolute.exists() and (root / p).exists():
            absolute = root / p  # already repo-relative
        try:
            return absolute.resolve().relative_to(root).as_posix()
        except ValueError:
            if not p.is_absolute():
                return p.as_posix().removeprefix("./")
    return p.as_posix()
