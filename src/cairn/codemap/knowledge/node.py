"""The knowledge node and its file format: YAML frontmatter, a body, a `## Links` section.

One markdown file per node so the team shares knowledge through git and the folder opens as a
graph in Obsidian (`[[wikilinks]]`). The format is canonical: `render(parse(text)) == text` for
any file cairn wrote, which is how a vault tells "still as cairn left it" from "a person edited
it". `cairn_hash` (last frontmatter key) is the hash of the rest of the file as cairn wrote it;
it travels with git, so a teammate's cairn-written note pulled from a branch is not mistaken
for a hand edit.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
import unicodedata
from dataclasses import dataclass, field

import yaml

from cairn.errors import CairnError
from cairn.text.frontmatter import split_front_matter

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

TYPES = ("decision", "bug", "gotcha", "concept", "howto", "preference", "task", "note")
# Lifecycle statuses of cairn nodes, then the ADR statuses kept verbatim from imported records.
STATUSES = ("active", "superseded", "done", "proposed", "accepted", "deprecated", "rejected")
# What each status means for ranking: live knowledge, replaced knowledge, or finished/retired.
STATE_OF_STATUS = {
    "active": "active",
    "proposed": "active",
    "accepted": "active",
    "superseded": "superseded",
    "done": "done",
    "deprecated": "done",
    "rejected": "done",
}
ORIGINS = ("project", "adr", "personal", "agent")  # agent: an agent's own memory, imported read-only
KNOWN_KEYS = (
    "id",
    "type",
    "status",
    "title",
    "files",
    "symbols",
    "links",
    "supersedes",
    "superseded_by",
    "commit",
    "created",
    "updated",
    "tags",
    "cites",
    "cairn_hash",
)
LINKS_HEADING = "## Links"
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present: loading is the hot path
_HASH_LINE = re.compile(r"^cairn_hash:.*\n", re.M)
_WIKILINK_LINE = re.compile(
    r"^\s*[-*]\s*(?:([A-Za-z][\w-]*)\s*:?\s*)?\[\[([^\]|]+)(?:\|[^\]]*)?\]\]\s*(\(pending\))?\s*$"
)


class ParseError(CairnError):
    """A malformed node file, located by file and line so a person can fix it."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path, self.line, self.message = path, line, message


@dataclass
class Link:
    """A typed edge to another node; `pending` while the target names a node not written yet."""

    rel: str
    target: str
    pending: bool = False

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"rel": self.rel, "target": self.target}
        if self.pending:
            d["pending"] = True
        return d


@dataclass
class Cite:
    """What a node saw of a file when written: the commit, the file hash, and cited symbols' hashes."""

    path: str
    commit: str | None = None
    sha1: str | None = None
    symbols: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"path": self.path, "commit": self.commit, "sha1": self.sha1}
        if self.symbols:
            d["symbols"] = dict(sorted(self.symbols.items()))
        return d


@dataclass
class Node:
    id: str
    type: str
    title: str
    status: str = "active"
    body: str = ""
    files: list[str] = field(default_factory=list)
    symbols: list[str] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    supersedes: str | None = None
    superseded_by: str | None = None
    commit: str | None = None
    created: str | None = None
    updated: str | None = None
    tags: list[str] = field(default_factory=list)
    cites: list[Cite] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)  # unknown frontmatter keys, kept in order
    # Not part of the file: where it came from and whether it is still as cairn wrote it.
    path: str | None = None
    origin: str = "project"
    hand_edited: bool = False
    read_only: bool = False

    @property
    def state(self) -> str:
        """active | superseded | done, whatever vocabulary the status uses."""
        return STATE_OF_STATUS.get(self.status, "active")

    @property
    def is_live(self) -> bool:
        return self.state == "active"

    @property
    def inline_links(self) -> list[str]:
        """`[[targets]]` a person wrote in the body (Obsidian style), beyond the typed links: not part
        of the file format (never rendered into `links`), but edges of the graph all the same."""
        from cairn.codemap.knowledge.wikilinks import body_wikilinks

        typed = {wikitarget(lk.target) for lk in self.links} | {self.supersedes, self.superseded_by}
        return [t for t in body_wikilinks(self.body) if t not in typed and t != self.id]


# ---------------------------------------------------------------- text helpers


def slugify(text: str, max_len: int = 48) -> str:
    """A filesystem- and wikilink-safe slug (ASCII, lowercase, dashes)."""
    norm = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    s = re.sub(r"[^a-z0-9]+", "-", norm.lower()).strip("-")
    if len(s) > max_len:
        s = s[:max_len].rsplit("-", 1)[0] or s[:max_len]
    return s or "node"


def make_id(type_: str, title: str, body: str) -> str:
    """slug + short content hash: two branches writing different notes never collide on an id."""
    digest = hashlib.sha1(f"{type_}\n{title.strip()}\n{body.strip()}".encode()).hexdigest()[:6]
    return f"{slugify(title)}-{digest}"


def normalize_body(text: str) -> str:
    """The body as stored: no leading blank lines, no trailing whitespace."""
    return (text or "").replace("\r\n", "\n").replace("\r", "\n").lstrip("\n").rstrip()


def now_iso() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")


def _as_str(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(_dt.UTC).replace(tzinfo=None)
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, _dt.date):
        return value.isoformat()
    return str(value)


def content_hash(text_without_hash: str) -> str:
    return hashlib.sha1(text_without_hash.encode("utf-8")).hexdigest()[:12]


# ---------------------------------------------------------------- render


def _frontmatter_dict(node: Node) -> dict[str, Any]:
    d: dict[str, Any] = {
        "id": node.id,
        "type": node.type,
        "status": node.status,
        "title": node.title,
        "files": list(node.files),
        "symbols": list(node.symbols),
        "links": [link.to_dict() for link in node.links],
    }
    if node.supersedes:
        d["supersedes"] = node.supersedes
    if node.superseded_by:
        d["superseded_by"] = node.superseded_by
    d.update({"commit": node.commit, "created": node.created, "updated": node.updated, "tags": list(node.tags)})
    if node.cites:
        d["cites"] = [c.to_dict() for c in node.cites]
    for key, val in node.extra.items():
        if key not in d and key not in KNOWN_KEYS:
            d[key] = val
    return d


def wikitarget(target: str) -> str:
    """A link target as it can appear inside [[...]] (no brackets, pipes or line breaks)."""
    return " ".join(target.replace("[", "(").replace("]", ")").replace("|", "/").split())


def _links_section(node: Node) -> str:
    lines = []
    if node.supersedes:
        lines.append(f"- supersedes [[{wikitarget(node.supersedes)}]]")
    if node.superseded_by:
        lines.append(f"- superseded-by [[{wikitarget(node.superseded_by)}]]")
    for link in node.links:
        lines.append(f"- {link.rel} [[{wikitarget(link.target)}]]" + (" (pending)" if link.pending else ""))
    return "\n".join(lines)


def render(node: Node) -> str:
    """The canonical file text for a node, stamped with cairn_hash."""
    yaml_text = yaml.safe_dump(
        _frontmatter_dict(node), sort_keys=False, allow_unicode=True, default_flow_style=False, width=1_000_000
    )
    parts = [f"# {node.title}"]
    body = normalize_body(node.body)
    if body:
        parts.append(body)
    links = _links_section(node)
    # A body with its own "## Links" line still gets ours (even empty) last, so parse finds ours.
    if links or any(ln.strip() == LINKS_HEADING for ln in body.split("\n")):
        parts.append(LINKS_HEADING + (f"\n\n{links}" if links else ""))
    text = "---\n" + yaml_text + "---\n\n" + "\n\n".join(parts) + "\n"
    return stamp(text)


def stamp(text: str) -> str:
    """Put `cairn_hash: <hash of the rest>` as the last frontmatter line."""
    bare = _HASH_LINE.sub("", text, count=1)
    end = bare.index("\n---\n", 3)
    return f"{bare[: end + 1]}cairn_hash: {content_hash(bare)}\n{bare[end + 1 :]}"


def is_unchanged_since_written(text: str) -> bool:
    """True when the file still carries the hash of its own content (nobody edited it)."""
    m = re.search(r"^cairn_hash:\s*([0-9a-f]+)\s*$", text, re.M)
    return m is not None and content_hash(_HASH_LINE.sub("", text, count=1)) == m.group(1)


# ---------------------------------------------------------------- parse


def _key_line(fm_lines: list[str], key: str) -> int:
    """1-based file line of a top-level frontmatter key (line 1 is the opening ---)."""
    for i, line in enumerate(fm_lines):
        if line.startswith(f"{key}:"):
            return i + 2
    return 2


MAX_DEPTH = 32  # frontmatter nesting a note may hold; deeper cannot be written back (YAML recurses)


def _too_deep(value: object, limit: int = MAX_DEPTH) -> bool:
    """True when lists/mappings inside `value` nest more than `limit` levels (walked without recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= limit:
                return True
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return False


def _bad_value_line(fm_lines: list[str]) -> int:
    """1-based file line of the first frontmatter line YAML cannot turn into a value on its own."""
    for i, line in enumerate(fm_lines):
        if not line.strip() or line.startswith((" ", "\t", "-")):
            continue
        try:
            yaml.load(line, Loader=_LOADER)
        except yaml.YAMLError:
            continue  # part of a multi-line value: judged with the whole text
        except (ValueError, TypeError, OverflowError, RecursionError):
            return i + 2
    return 2


def _str_list(data: dict, key: str, where: tuple[str, list[str]]) -> list[str]:
    val = data.get(key)
    if val is None:
        return []
    if isinstance(val, str):
        return [val]
    if not isinstance(val, list) or not all(isinstance(v, (str, int, float)) for v in val):
        raise ParseError(where[0], _key_line(where[1], key), f"`{key}` must be a list of strings")
    return [str(v) for v in val]


def _links(data: dict, where: tuple[str, list[str]]) -> list[Link]:
    raw = data.get("links") or []
    line = _key_line(where[1], "links")
    if not isinstance(raw, list):
        raise ParseError(where[0], line, "`links` must be a list of {rel, target}")
    out = []
    for item in raw:
        if isinstance(item, str):  # shorthand "rel:target" or a bare target
            rel, _, target = item.partition(":") if ":" in item else ("relates-to", "", item)
            out.append(Link(rel.strip() or "relates-to", target.strip()))
        elif isinstance(item, dict) and item.get("target"):
            out.append(
                Link(str(item.get("rel") or "relates-to"), str(item["target"]), bool(item.get("pending", False)))
            )
        else:
            raise ParseError(where[0], line, f"bad link {item!r}: expected {{rel, target}}")
    return out


def _cites(data: dict, where: tuple[str, list[str]]) -> list[Cite]:
    raw = data.get("cites") or []
    line = _key_line(where[1], "cites")
    if not isinstance(raw, list):
        raise ParseError(where[0], line, "`cites` must be a list of {path, commit, sha1}")
    out = []
    for item in raw:
        if not isinstance(item, dict) or not item.get("path"):
            raise ParseError(where[0], line, f"bad cite {item!r}: expected {{path, commit, sha1}}")
        syms = item.get("symbols") or {}
        if not isinstance(syms, dict):
            raise ParseError(where[0], line, "cite `symbols` must map symbol -> sha1")
        out.append(
            Cite(
                str(item["path"]),
                _as_str(item.get("commit")),
                _as_str(item.get("sha1")),
                {str(k): str(v) for k, v in syms.items()},
            )
        )
    return out


def _split_body(rest: str, title: str) -> tuple[str, list[tuple[str, str, bool]]]:
    """Body text without the title heading and the generated `## Links` section."""
    lines = rest.lstrip("\n").split("\n")
    if lines and lines[0].strip() == f"# {title}".strip():
        lines = lines[1:]
    wikilinks: list[tuple[str, str, bool]] = []
    idx = max((i for i, ln in enumerate(lines) if ln.strip() == LINKS_HEADING), default=-1)
    if idx >= 0:
        tail = lines[idx + 1 :]
        parsed = [_WIKILINK_LINE.match(ln) for ln in tail if ln.strip()]
        if all(parsed):  # only a pure list of wikilinks is ours to regenerate
            wikilinks = [((m.group(1) or "relates-to"), m.group(2).strip(), bool(m.group(3))) for m in parsed if m]
            lines = lines[:idx]
    return normalize_body("\n".join(lines)), wikilinks


def parse(text: str, path: str, *, origin: str = "project") -> Node:
    """Parse a node file. Malformed frontmatter raises ParseError naming file and line.

    A markdown file without frontmatter (added by hand) is a `note` named after the file.
    """
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    text = text.replace("\r\n", "\n").lstrip("\ufeff")
    if not text.startswith("---\n"):
        m = re.match(r"\s*#\s+(.+)", text)
        title = m.group(1).strip() if m else stem
        body, wl = _split_body(text, title)
        node = Node(id=stem, type="note", title=title, body=body, path=path, origin=origin, hand_edited=True)
        _merge_wikilinks(node, wl)
        return node
    fm_text, rest = split_front_matter(text)
    if fm_text is None:
        raise ParseError(path, 1, "frontmatter opened with --- but never closed")
    fm_lines = fm_text.split("\n")
    where = (path, fm_lines)
    try:
        data = yaml.load(fm_text, Loader=_LOADER) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 2
        problem = getattr(exc, "problem", None) or str(exc).split("\n")[0]
        raise ParseError(path, line, f"malformed YAML frontmatter: {problem}") from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        # A value YAML reads but Python cannot hold: `updated: 2024-13-45`, a list as a key...
        raise ParseError(
            path,
            _bad_value_line(fm_lines),
            f"impossible value in frontmatter: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}",
        ) from None
    if not isinstance(data, dict):
        raise ParseError(path, 2, "frontmatter must be a YAML mapping (key: value lines)")
    deep = next((k for k, v in data.items() if _too_deep(v)), None)
    if deep is not None:
        raise ParseError(
            path,
            _key_line(fm_lines, str(deep)),
            f"value of {str(deep)[:40]!r} nested more than {MAX_DEPTH} levels deep",
        )
    type_ = str(data.get("type") or "note").strip().lower()
    if type_ not in TYPES:
        raise ParseError(path, _key_line(fm_lines, "type"), f"type {type_!r} is not one of {', '.join(TYPES)}")
    status = str(data.get("status") or "active").strip().lower()
    if status not in STATUSES:
        raise ParseError(path, _key_line(fm_lines, "status"), f"status {status!r} is not one of {', '.join(STATUSES)}")
    title = str(data.get("title") or "").strip()
    if not title:
        m = re.match(r"\s*#\s+(.+)", rest)
        title = m.group(1).strip() if m else stem
    body, wl = _split_body(rest, title)
    node = Node(
        id=str(data.get("id") or stem).strip(),
        type=type_,
        status=status,
        title=title,
        body=body,
        files=_str_list(data, "files", where),
        symbols=_str_list(data, "symbols", where),
        links=_links(data, where),
        supersedes=_as_str(data.get("supersedes")),
        superseded_by=_as_str(data.get("superseded_by")),
        commit=_as_str(data.get("commit")),
        created=_as_str(data.get("created")),
        updated=_as_str(data.get("updated")),
        tags=_str_list(data, "tags", where),
        cites=_cites(data, where),
        extra={k: v for k, v in data.items() if k not in KNOWN_KEYS},
        path=path,
        origin=origin,
        hand_edited=not is_unchanged_since_written(text),
    )
    _merge_wikilinks(node, wl)
    return node


def _merge_wikilinks(node: Node, wikilinks: list[tuple[str, str, bool]]) -> None:
    """Links a person typed into the `## Links` section join the frontmatter ones."""
    shown = {wikitarget(link.target) for link in node.links}
    for rel, target, pending in wikilinks:
        if rel == "supersedes":
            node.supersedes = node.supersedes or target
        elif rel == "superseded-by":
            node.superseded_by = node.superseded_by or target
        elif target not in shown:  # not the rendering of a frontmatter link: typed by a person
            node.links.append(Link(rel, target, pending))
            shown.add(target)
