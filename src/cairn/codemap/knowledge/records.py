"""Which files of the tree are decision records: ADRs, RFCs and postmortems, found where they are.

Teams keep them in a handful of conventional folders, at any depth of a monorepo; others keep them
anywhere with the shape of a record. Detection, in order:

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

Judged from the file list first (`candidates`: what the index needs to know which changed files
could be records), then from each candidate's text (`classify`). The records found become Nodes in
record_nodes.py.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable
from pathlib import Path

import yaml

from cairn.codemap.knowledge import record_shape as shape
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
STATUS_LINE = re.compile(r"^[ \t\r\f\v>*\-|#]*status\**\s*[:|\-]\s*\**\s*(.+?)\s*\|?\s*$", re.I | re.M)
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
    if "status" not in found and (frontmatter.get("status") or STATUS_LINE.search(text)):
        found.add("status")
    return len(found)


def postmortem_shape(text: str) -> int:
    heads = _sections(text)
    return sum(1 for h in POSTMORTEM_SECTIONS if h in heads)


def rfc_shape(text: str) -> int:
    """Sections of an RFC (Summary / Motivation / Detailed design / Drawbacks / Alternatives...)."""
    heads = _sections(text)
    return sum(1 for h in RFC_SECTIONS if h in heads)


def read_frontmatter(text: str) -> tuple[dict, str]:
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
    fm, body = read_frontmatter(text)
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
        + (1.0 if STATUS_LINE.search(body[:3000]) else 0.0)
        + (1.5 if str(fm.get("type", "")).lower() in _RECORD_TYPES or "status" in fm else 0.0)
    )
    if for_records and (in_series or part_of) and (named or part_of or content >= 1):
        return "decision"  # `docs/proposals-done/202005-x.md`, `doc/specs/#653 - Quake Mode/spec.md`
    if (
        (in_series and named and content >= 1.5)
        or (for_records and named and content >= 1)
        or (for_records and content >= 2.5)
        or (named and content >= 3)
        or (for_records and _status_in_header(body))
    ):
        return "decision"
    return None


def _status_in_header(body: str) -> bool:
    """A status line in the document's header, before its first section (`* Owner: ...`, `* Status:
    Defunct` under the title): how design docs and one-pagers in a folder of them say they are records
    whatever sections follow (crossplane's design/, 13 of 76 missed by sections alone)."""
    cut = body.find("\n## ")
    head = body[: min(cut if cut >= 0 else 1200, 1200)]
    return bool(STATUS_LINE.search(head))


def _number(name: str) -> int | None:
    m = RECORD_NAME.match(name)
    if not m:
        return None
    return int(m.group(1) or m.group(2))


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
        if type_ and not _is_index(rel, shape.as_markdown(read_frontmatter(text)[1], rel), layout):
            out.append((rel, type_, text))
    return out
