"""The decision records found (records.py) as read-only Nodes, and the relations between them.

Each record becomes a read-only Node (origin "adr", type decision, bug for postmortems, note for
plain docs/notes) with the status the record states (proposed, accepted, deprecated, rejected,
superseded) and `superseded_by` / `supersedes` links to the other record it names, dated or not
("Superseded: 2020-01-01 by [ADR 14]", "Superseded by ADR 14 on 2020-01-01"); "Replaced by ADR 14" is
read in the status only.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path

from cairn.codemap.knowledge import record_shape as shape
from cairn.codemap.knowledge.node import Link, Node, normalize_body, slugify
from cairn.codemap.knowledge.records import STATUS_LINE, Note, find_decision_records, read_frontmatter
from cairn.text.frontmatter import split_front_matter

_DATE = re.compile(
    r"^[ \t\r\f\v>*\-|]*(?:date|created|decided|last updated)\**\s*[:|\-]?\s*\**\s*(\d{4}-\d{2}-\d{2})", re.I | re.M
)
_MDLINK = r"\[([^\]]*)\]\(([^)\s]+)\)"
# What a relation names: a markdown link (groups 1-2), a bracketed number "[ADR 14]" (group 3) or a
# bare one "ADR-14", "#14" (group 4).
_TARGET = r"\s*:?\s*(?:" + _MDLINK + r"|\[(?:adr|rfc)?[\s#-]*(\d+)[^\]]*\]|(?:adr|rfc)?[\s#-]*(\d+))"
# A date between a relation's verb and its "by": "Superseded: 2020-01-01 by", "Amended (on 3 March 2021)
# by", "Superseded on 2020/01/01, by" (ISO, slashed, day-first with dots, and month names both ways).
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DAY = (
    r"(?:\d{4}-\d{1,2}-\d{1,2}|\d{4}/\d{1,2}/\d{1,2}|\d{1,2}[./]\d{1,2}[./]\d{4}|" + _MONTH + r"\s+\d{1,2},?\s+\d{4}"
    r"|\d{1,2}\s+" + _MONTH + r"\s+\d{4})"
)
_WHEN = r"(?:[\s:,(]*(?:on\s+)?" + _DAY + r"\)?,?)?"
_REL_PATTERNS = [
    (
        "partly-superseded-by",
        re.compile(r"superseded\s+(?:in\s+part|partly|partially)" + _WHEN + r"\s+by" + _TARGET, re.I),
    ),
    ("superseded-by", re.compile(r"superseded" + _WHEN + r"\s+by" + _TARGET, re.I)),
    ("partly-supersedes", re.compile(r"\b(?:in\s+part|partly|partially)\s+supersedes" + _TARGET, re.I)),
    ("supersedes", re.compile(r"(?<!part )(?<!partly )(?<!partially )\bsupersedes" + _TARGET, re.I)),
    ("amended-by", re.compile(r"amended" + _WHEN + r"\s+by" + _TARGET, re.I)),
    ("amends", re.compile(r"\bamends" + _TARGET, re.I)),
    ("clarified-by", re.compile(r"clarified" + _WHEN + r"\s+by\s*:?\s*(?:" + _MDLINK + r")", re.I)),
    ("clarifies", re.compile(r"\bclarifies\s*:?\s*(?:" + _MDLINK + r")", re.I)),
]
# Read in the record's status only ("Status: Replaced by ADR 14"): in prose, "replaced by 3 workers"
# names no record.
_STATUS_REL_PATTERNS = [("superseded-by", re.compile(r"\breplaced" + _WHEN + r"\s+by" + _TARGET, re.I))]
_LINK_NUMBER = re.compile(r"(?:adr|rfc)?[\s#-]*(\d+)", re.I)
STATUS_WORDS = [  # first match wins; "partly superseded" is still live
    (
        "accepted",
        (
            "partly superseded",
            "partially superseded",
            "superseded in part",
            "superseded partly",
            "superseded partially",
        ),
    ),
    ("superseded", ("superseded", "replaced")),
    ("deprecated", ("deprecated", "obsolete", "retired")),
    ("rejected", ("rejected", "declined", "withdrawn", "abandoned")),
    ("accepted", ("accepted", "approved", "adopted", "implemented", "agreed", "final", "done", "decided")),
    (
        "proposed",
        (
            "proposed",
            "draft",
            "proposal",
            "in progress",
            "under review",
            "review",
            "open",
            "pending",
            "wip",
            "on hold",
            "postponed",
        ),
    ),
]


_COMMENT_BLOCK = re.compile(r"<!--.*?-->", re.S)


def _is_guidance(line: str) -> bool:
    """A line a record template left in its Status section: a `>` quote explaining the statuses,
    `{Deprecated|Proposed|Accepted}` or `Accepted | Rejected | Superseded by` (the choices, unpicked)."""
    s = line.strip()
    if s.startswith(">") or (s.startswith(("{", "[")) and s.endswith(("}", "]")) and "|" in s):
        return True
    choices = [c.strip().lower() for c in s.strip("{}[]").split("|")]
    known = {w for _, words in STATUS_WORDS for w in words}
    return len(choices) >= 3 and sum(1 for c in choices if c.split(" ")[0] in known) >= 3


def _status(fm: dict, body: str) -> tuple[str, str]:
    """(normalized status, the raw status text) read from frontmatter, a Status section or line;
    a template's guidance left in the section (quotes, unpicked choices, comments) is not a status."""
    raw = str(fm.get("status") or "").strip()
    if not raw:
        m = re.search(r"^\s{0,3}#{1,6}\s*\**status\**:?\s*#*\s*$\n+((?:(?!\s{0,3}#).*\n?){1,12})", body, re.I | re.M)
        if m:
            section = m.group(1)
            last = section.rfind("-->") + 3  # every `<!--` before the last `-->` has an end: one pass
            section = _COMMENT_BLOCK.sub("", section[:last]) + section[last:]
            raw = " ".join(ln.strip() for ln in section.splitlines() if ln.strip() and not _is_guidance(ln))[:300]
    if not raw:
        m = STATUS_LINE.search(body)
        raw = m.group(1).strip() if m else ""
    low = raw.lower()
    for status, words in STATUS_WORDS:
        if any(re.search(rf"\b{re.escape(w)}\b", low) for w in words):
            return status, raw
    return "active", raw


_NUMBER_PREFIX = re.compile(r"^(?:(?:adr|rfc)[-\s#]*)?\d+\s*[.:)-]\s+", re.I)


# A first heading that names a section, not the record ("# Summary" in an RFC template): the file name
# says what the record is about instead.
_SECTION_HEADINGS = frozenset(
    {
        "summary",
        "context",
        "status",
        "motivation",
        "background",
        "overview",
        "introduction",
        "abstract",
        "problem",
        "decision",
        "proposal",
    }
)


_NAME_LEAD = re.compile(r"^#?\d+(?:[-_. ]+\d+)*(?:\s*-\s*|[-_. ]+)")  # "2021-06-29-7709-", "#653 - ", "0001-"


def _heading(fm: dict, body: str, stem: str) -> str:
    """The record's own heading (what the file shows), e.g. "12. Use Postgres"."""
    if fm.get("title"):
        return str(fm["title"]).strip()
    m = re.search(r"^\s{0,3}#\s+(.+?)\s*#*\s*$", body, re.M)
    if m and m.group(1).strip().rstrip(":").lower() not in _SECTION_HEADINGS:
        return m.group(1).strip()
    words = re.sub(r"[-_]+", " ", _NAME_LEAD.sub("", stem)).strip()
    return (words[:1].upper() + words[1:]) if words else stem


def clean_title(heading: str) -> str:
    """The title without its record number ("12. Use Postgres" -> "Use Postgres") or a comment left in
    it; the id keeps the number."""
    heading = _COMMENT_BLOCK.sub("", heading).strip() or heading
    return _NUMBER_PREFIX.sub("", heading).strip() or heading


def _date(fm: dict, body: str) -> str | None:
    val = fm.get("date") or fm.get("created")
    if val:
        return str(val)[:10]
    m = _DATE.search(body[:4000])
    return m.group(1) if m else None


def record_id(rel: str) -> str:
    """Stable id: the file's slug plus a hash of its path (two `0001-...md` in a monorepo differ)."""
    stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return f"{slugify(stem)}-{hashlib.sha1(rel.encode()).hexdigest()[:6]}"


def parse_record(
    rel: str, text: str, type_: str, notes: list[Note] | None = None
) -> tuple[Node, list[tuple[str, str, str | None]]]:
    """A record file -> Node, plus the raw relations it states: (rel, href, number). Front matter that
    is not YAML is read as text (and noted): the record is still found."""
    text = text.replace("\r\n", "\n")
    fm, body = read_frontmatter(text)
    if notes is not None and not fm and split_front_matter(text)[0] is not None:
        notes.append((rel, "front matter is not a YAML mapping: read as text"))
    body = shape.as_markdown(body, rel)
    stem = rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    heading = _heading(fm, body, stem)
    title = clean_title(heading)
    status, raw_status = _status(fm, body)
    prefix = shape.STATUS_PREFIX.match(stem)
    if prefix and (
        status == "active"
        or prefix.group(1).lower() in ("superseded", "deprecated", "rejected", "obsolete", "withdrawn")
    ):  # the name says it
        status, raw_status = _status({"status": prefix.group(1)}, "")
    if type_ == "bug" and status == "active":
        status = "done"
    content = re.sub(r"^\s{0,3}#\s+" + re.escape(heading) + r"\s*#*\s*\n", "", body, count=1)
    date = _date(fm, body)
    node = Node(
        id=record_id(rel),
        type=type_,
        title=title,
        status=status,
        body=normalize_body(content),
        created=date,
        updated=date,
        path=rel,
        origin="adr",
        read_only=True,
        extra={"status_text": raw_status} if raw_status else {},
    )
    relations: list[tuple[str, str, str | None]] = []
    for patterns, text_ in ((_REL_PATTERNS, body), (_STATUS_REL_PATTERNS, raw_status)):
        for rel_name, pattern in patterns:
            for m in pattern.finditer(text_):
                groups = m.groups() + (None, None)
                text_number = _LINK_NUMBER.match(groups[0] or "")  # "[ADR 14](...)": the number, if the link fails
                number = groups[2] or groups[3] or (text_number.group(1) if text_number else None)
                relations.append((rel_name, groups[1] or "", number))
    return node, relations


def _folder_title(folder: str) -> str:
    name = folder.rsplit("/", 1)[-1]
    return _heading({}, "", name)


def import_records(
    root: Path,
    paths: Iterable[str] | None = None,
    config: dict | None = None,
    heads: dict[str, int] | None = None,
    notes: list[Note] | None = None,
) -> list[Node]:
    """Read-only Nodes for the repository's decision records, with supersede links resolved.

    The parts of a record kept as a folder (record_shape.Layout) share `extra["record"]`, the folder:
    search shows the best part for the record. A relation to the record itself or to no record is
    ignored and noted."""
    paths = None if paths is None else list(paths)
    found = find_decision_records(root, paths, config, heads, notes)
    layout = shape.Layout(paths if paths is not None else [rel for rel, _, _ in found])
    parsed = [(parse_record(rel, text, type_, notes), rel) for rel, type_, text in found]
    by_path = {rel: node for (node, _), rel in parsed}
    by_num: dict[tuple[str, int], Node] = {}
    for (node, _), rel in parsed:
        num = shape.number(rel.rsplit("/", 1)[-1])
        if num is not None:
            by_num.setdefault((rel.rsplit("/", 1)[0] if "/" in rel else "", num), node)
        folder = layout.record_folder(rel)
        if folder:
            node.extra["record"] = folder
            title = _folder_title(folder)
            if layout.parts(folder) > 1 and title.lower() not in node.title.lower():
                node.title = f"{title}: {node.title}"

    def target(rel: str, href: str, number: str | None) -> Node | None:
        folder = rel.rsplit("/", 1)[0] if "/" in rel else ""
        if href and not re.match(r"^[a-z]+://", href):
            path = os.path.normpath(os.path.join(folder, href.split("#", 1)[0])).replace(os.sep, "/")
            for candidate in (path, path + "." + rel.rsplit(".", 1)[-1]):  # rst `:doc:` links omit the suffix
                if candidate in by_path:
                    return by_path[candidate]
            num = shape.number(href.rsplit("/", 1)[-1])
            if num is not None and (folder, num) in by_num:
                return by_num[(folder, num)]
        return by_num.get((folder, int(number))) if number else None

    nodes = []
    for (node, relations), rel in parsed:
        for rel_name, href, number in relations:
            other = target(rel, href, number)
            if other is None or other is node:
                if notes is not None and (other is node or (href and "://" not in href) or number):
                    notes.append(
                        (
                            rel,
                            f"{rel_name} {'itself' if other is node else href or number}: "
                            + ("ignored" if other is node else "no such record"),
                        )
                    )
                continue
            if rel_name == "superseded-by" and node.status == "superseded" and not node.superseded_by:
                node.superseded_by = other.id
                other.supersedes = other.supersedes or node.id
            elif rel_name == "supersedes" and not node.supersedes:
                node.supersedes = other.id
            elif not any(lk.target == other.id for lk in node.links):
                node.links.append(Link(rel_name, other.id))
        nodes.append(node)
    return nodes
