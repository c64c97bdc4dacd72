"""Decision records already in the repository, read where they are and never moved.

Teams keep ADRs, RFCs and postmortems in a handful of conventional folders, at any depth of a
monorepo; others keep them anywhere with the shape of a record. Detection, in order:

1. `[memory] adr_exclude` globs drop a path; `[memory] adr_globs` globs add one; files under
   template and test-fixture folders (`templates/`, `fixtures/`, `testdata/`) are skipped;
2. a markdown file below a record folder (`adr/`, `adrs/`, `docs/decisions/`,
   `architecture/decisions/`, `decision-records/`, `architecture-decisions/`, `rfc/`, `rfcs/`,
   `postmortems/`, `post-mortems/`, `docs/notes/`), except README/index/template files;
3. below `docs/architecture/`: a record-like file name (`adr-012-x.md`, `0012-x.md`) or at
   least two record sections;
4. anywhere else: the shape of a record, i.e. >= 3 of the Status / Context / Decision /
   Consequences sections (MADR's "Context and Problem Statement" and "Decision Outcome" count),
   or >= 2 with a record-like file name; postmortems by >= 3 of Impact / Root cause /
   Timeline / Resolution / Action items; RFCs by a record-like name and >= 3 of Summary /
   Motivation / Detailed design / Drawbacks / Alternatives / Unresolved questions.

Each record becomes a read-only Node (origin "adr", type decision, bug for postmortems, note for
plain docs/notes) with the status the record states (proposed, accepted, deprecated, rejected,
superseded) and `superseded_by` / `supersedes` links to the other record it names, dated or not
("Superseded: 2020-01-01 by [ADR 14]", "Superseded by ADR 14 on 2020-01-01"); "Replaced by ADR 14" is
read in the status only.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path

import yaml

from cairn.memory import record_shape as shape
from cairn.memory.node import Link, Node, normalize_body, slugify
from cairn.text.frontmatter import split_front_matter

MAX_READ = 64_000  # a record is short; do not read megabytes of markdown to find one
RECORD_DIRS = {
    "adr",
    "adrs",
    "decision-records",
    "architecture-decisions",
    "architecture-decision-records",
    "rfc",
    "rfcs",
    "postmortems",
    "post-mortems",
    "postmortem",
}
RECORD_DIR_PAIRS = {
    ("docs", "decisions"),
    ("doc", "decisions"),
    ("architecture", "decisions"),
    ("docs", "notes"),
    ("doc", "notes"),
}
LENIENT_PAIRS = {("docs", "architecture"), ("doc", "architecture")}
# Templates and test data hold record-shaped files that are not this project's decisions.
SKIP_DIRS = {"template", "templates", "_templates", "fixtures", "__fixtures__", "testdata", "test-data", "test_data"}
POSTMORTEM_DIRS = {"postmortems", "post-mortems", "postmortem"}
NOTES_PAIRS = {("docs", "notes"), ("doc", "notes")}
SKIP_STEMS = re.compile(r"^(readme|index|_index|summary|toc|_sidebar|sidebar|changelog|contributing|license)$", re.I)
_PLACEHOLDER = re.compile(r"^[ \t*\-]*date\**[ \t]*:[ \t]*(?:DATE|YYYY-MM-DD|\{|\[|<)|\{\{[ \t]*title", re.M | re.I)
RECORD_NAME = re.compile(r"^(?:(?:adr|rfc|dr|add|pm)[-_ ]?(\d+)|(\d{3,5}))(?:[-_. ]|$)", re.I)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.M)
# The prefix of a status or date line stays on its line (`[\s>*...]*` from every line start of a run
# of blank lines ran to the run's end: quadratic); after the word, `\s*` still crosses lines, so
# "## Status\n\n- **Accepted**" is read as before.
_STATUS_LINE = re.compile(r"^[ \t\r\f\v>*\-|#]*status\**\s*[:|\-]\s*\**\s*(.+?)\s*\|?\s*$", re.I | re.M)
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
DECISION_SECTIONS = {
    "status": "status",
    "context": "context",
    "context and problem statement": "context",
    "problem": "context",
    "decision": "decision",
    "decision outcome": "decision",
    "consequences": "consequences",
}
RFC_SECTIONS = (
    "summary",
    "motivation",
    "detailed design",
    "design",
    "guide-level explanation",
    "reference-level explanation",
    "drawbacks",
    "alternatives",
    "rationale and alternatives",
    "unresolved questions",
    "prior art",
)
POSTMORTEM_SECTIONS = (
    "impact",
    "root cause",
    "root causes",
    "timeline",
    "resolution",
    "action items",
    "lessons learned",
    "trigger",
    "detection",
)
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


def _is_template(stem: str, text: str) -> bool:
    """A record template (`template.md`, `0000-template.md`, "Date: DATE") is not a record."""
    num = _number(stem)
    if "template" in stem.lower() and not num:
        return True
    return bool(_PLACEHOLDER.search(text[:800]))


def _dir_kind(parts: tuple[str, ...]) -> str | None:
    """'strict', 'lenient' or None for the folders holding a file (parts without the name)."""
    low = tuple(p.lower() for p in parts)
    kind = None
    for i, part in enumerate(low):
        pair = (low[i - 1], part) if i else ("", part)
        if part in RECORD_DIRS or pair in RECORD_DIR_PAIRS:
            return "strict"
        if pair in LENIENT_PAIRS:
            kind = "lenient"
    return kind


def _sections(text: str) -> set[str]:
    return {h.strip().strip("*_:").strip().lower() for h in _HEADING.findall(text)}


def decision_shape(text: str, frontmatter: dict) -> int:
    """How many of Status / Context / Decision / Consequences the text has."""
    found = {DECISION_SECTIONS[h] for h in _sections(text) if h in DECISION_SECTIONS}
    if "status" not in found and (frontmatter.get("status") or _STATUS_LINE.search(text)):
        found.add("status")
    return len(found)


def postmortem_shape(text: str) -> int:
    heads = _sections(text)
    return sum(1 for h in POSTMORTEM_SECTIONS if h in heads)


def rfc_shape(text: str) -> int:
    """Sections of an RFC (Summary / Motivation / Detailed design / Drawbacks / Alternatives...)."""
    heads = _sections(text)
    return sum(1 for h in RFC_SECTIONS if h in heads)


def _split_frontmatter(text: str) -> tuple[dict, str]:
    fm_text, body = split_front_matter(text)
    if fm_text is not None:
        try:
            data = yaml.safe_load(fm_text)
        except yaml.YAMLError:
            data = None
        if isinstance(data, dict):
            return data, body.lstrip("\n")
    return {}, text


_RECORD_TYPES = frozenset({"proposal", "adr", "rfc", "decision", "design", "spec", "enhancement", "kep"})


def classify(rel: str, text: str, extra_globs: Iterable[str] = (), layout: shape.Layout | None = None) -> str | None:
    """The node type a prose file imports as (decision, bug, note), or None if not a record.

    `layout` is the file list read once (record_shape.Layout: series, record folders); without it the
    file is judged alone. Inside a record folder a README is the record itself, not an index."""
    parts = tuple(rel.split("/"))
    name = parts[-1]
    stem = name.rsplit(".", 1)[0]
    layout = layout or shape.Layout([rel])
    part_of = layout.record_folder(rel)
    if (SKIP_STEMS.match(stem) and not part_of) or _is_template(stem, text) or shape.placeholder_name(name):
        return None
    forced = any(fnmatch.fnmatch(rel, g) for g in extra_globs)
    if not forced and any(p.lower() in SKIP_DIRS for p in parts[:-1]):
        return None
    fm, body = _split_frontmatter(text)
    body = shape.as_markdown(body, rel)
    low = tuple(p.lower() for p in parts[:-1])
    postmortem = any(p in POSTMORTEM_DIRS for p in low)
    kind = "strict" if forced else _dir_kind(parts[:-1])
    dshape = decision_shape(body, fm)
    named_match = RECORD_NAME.match(name)
    named = bool(named_match) or shape.name_kind(name) is not None
    if named_match and named_match.group(1) and name.lower().startswith(("adr", "rfc")):
        return "decision"  # `adr-008-x.md`, `rfc-12.md`: a record by its name, Status heading or not
    if kind == "strict":
        if postmortem:
            return "bug"
        notes = any((low[i - 1], low[i]) in NOTES_PAIRS for i in range(1, len(low)))
        return "note" if notes and dshape < 2 else "decision"
    if kind == "lenient" and (named or dshape >= 2):
        return "decision"
    if dshape >= 3 or (named and dshape >= 2) or (named and rfc_shape(body) >= 3):
        return "decision"
    if postmortem_shape(body) >= 3:
        return "bug"
    # By shape, anywhere: a place for records (a folder named for them, a series), a record's name, sections;
    # never a log (an exported chat, a diary: codemap/doc_role.py) that quotes a record's headings.
    folder = rel.rpartition("/")[0]
    from cairn.codemap.doc_role import document_role

    if document_role(f"{folder}/x.md", "doc", body):  # the folder and the body; a date in the name is a record's
        return None
    for_records = layout.for_records(folder)
    in_series = layout.in_series(rel)
    content = (
        shape.section_score(shape.headings(body))
        + (1.0 if _STATUS_LINE.search(body[:3000]) else 0.0)
        + (1.5 if str(fm.get("type", "")).lower() in _RECORD_TYPES or "status" in fm else 0.0)
    )
    if for_records and (in_series or part_of) and (named or part_of or content >= 1):
        return "decision"  # `docs/proposals-done/202005-x.md`, `doc/specs/#653 - Quake Mode/spec.md`
    if (
        (in_series and named and content >= 1.5)
        or (for_records and named and content >= 1)
        or (for_records and content >= 2.5)
        or (named and content >= 3)
    ):
        return "decision"
    return None


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
        m = _STATUS_LINE.search(body)
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


def _number(name: str) -> int | None:
    m = RECORD_NAME.match(name)
    if not m:
        return None
    return int(m.group(1) or m.group(2))


def parse_record(
    rel: str, text: str, type_: str, notes: list[Note] | None = None
) -> tuple[Node, list[tuple[str, str, str | None]]]:
    """A record file -> Node, plus the raw relations it states: (rel, href, number). Front matter that
    is not YAML is read as text (and noted): the record is still found."""
    text = text.replace("\r\n", "\n")
    fm, body = _split_frontmatter(text)
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


Note = tuple[str, str]  # (repo-relative path, what was wrong with it), for `cairn memory doctor`


def candidates(paths: list[str], heads: dict[str, int] | None = None, layout: shape.Layout | None = None) -> list[str]:
    """The prose files worth opening, judged from the file list alone: a record-like name, a place
    for records (a record folder, a folder named for records, a series), or, from the index, two or
    more record section headings (`heads`). Without `heads` every prose file is opened."""
    layout = layout or shape.Layout(paths)
    out = []
    for rel in paths:
        if not shape.is_prose(rel) or rel.startswith(".cairn/"):
            continue
        parts = rel.split("/")
        folder = rel.rpartition("/")[0]
        if (
            heads is None
            or heads.get(rel, 0) >= 2
            or shape.name_kind(parts[-1])
            or RECORD_NAME.match(parts[-1])
            or _dir_kind(tuple(parts[:-1])) is not None
            or layout.for_records(folder)
            or layout.record_folder(rel)
            or layout.in_series(rel)
        ):
            out.append(rel)
    return out


# Section names whose headings (counted by the index) make a prose file worth opening (candidates()).
CANDIDATE_SECTIONS = (
    frozenset(DECISION_SECTIONS) | frozenset(RFC_SECTIONS) | frozenset(POSTMORTEM_SECTIONS) | shape.STRONG_SECTIONS
)


def changed_candidates(paths: list[str], heads: dict[str, int] | None) -> list[str]:
    """Of a few changed files, those that could be records (judged without the rest of the file list):
    `candidates`, and a prose file below a record-named folder (`0007-storage/02-design.md`)."""
    found = set(candidates(paths, heads))
    found |= {p for p in paths if shape.is_prose(p) and any(shape.name_kind(f) for f in p.split("/")[:-1])}
    return [p for p in paths if p in found]


_LINK_TARGET = re.compile(r"\]\(([^)\s#]+)|<([^<>\s]+)>`_")


def _is_index(rel: str, body: str, layout: shape.Layout) -> bool:
    """A file that lists the records beside it (`000-records.md`, a table of contents): most of its
    lines link to entries of its own folder, so it is the way to the records, not one of them."""
    folder = rel.rpartition("/")[0]
    lines = [ln for ln in body.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    linking = 0
    for ln in lines:
        for m in _LINK_TARGET.finditer(ln):
            href = m.group(1) or m.group(2) or ""
            if "://" not in href and os.path.normpath(os.path.join(folder, href)).replace(os.sep, "/").startswith(
                (folder + "/") if folder else ""
            ):
                linking += 1
                break
    return linking >= 3 and linking >= 0.4 * len(lines)


def find_decision_records(
    root: Path,
    paths: Iterable[str] | None = None,
    config: dict | None = None,
    heads: dict[str, int] | None = None,
    notes: list[Note] | None = None,
) -> list[tuple[str, str, str]]:
    """(repo-relative path, type, text) of every record under root; `paths` (every file of the tree)
    and `heads` (record headings per file) can come from the index. What was found wrong (a binary or
    unreadable file with a record's name) is added to `notes`: skipped, never an error."""
    root = Path(root)
    mem = (config or {}).get("memory", {}) or {}
    globs = [str(g) for g in mem.get("adr_globs", []) or []]
    excludes = [str(g) for g in mem.get("adr_exclude", []) or []]
    if paths is None:
        from cairn.codemap.scan import scan

        paths = [e.path for e in scan(root).entries]
    paths = list(paths)
    layout = shape.Layout(paths)
    out = []
    for rel in candidates(paths, None if globs else heads, layout):
        if any(fnmatch.fnmatch(rel, g) for g in excludes):
            continue
        try:
            with open(os.path.join(root, rel), "rb") as fh:
                raw = fh.read(MAX_READ)
        except OSError as e:
            if notes is not None and shape.name_kind(rel.rsplit("/", 1)[-1]):
                notes.append((rel, f"unreadable ({e.strerror or e}): skipped"))
            continue
        if b"\0" in raw[:8192]:
            if notes is not None and shape.name_kind(rel.rsplit("/", 1)[-1]):
                notes.append((rel, "binary content under a record's name: skipped"))
            continue
        text = raw.decode("utf-8", errors="replace")
        type_ = classify(rel, text, globs, layout)
        if type_ and not _is_index(rel, shape.as_markdown(_split_frontmatter(text)[1], rel), layout):
            out.append((rel, type_, text))
    return out


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
