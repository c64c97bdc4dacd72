"""What a design record looks like from outside: its name, its folder, its siblings, its sections.

Teams file records in every layout: `docs/adr/0007-x.md`, `rfcs/2021-06-29-7709-x.md`,
`docs/proposals-accepted/202012-x.md`, `doc/specs/#653 - Quake Mode/#653 - Quake Mode.md`,
`docs/decisions/0008-x.rst`, a folder of numbered parts (`rfcs/storage/01-survey.md`,
`02-design.md`...). None of it is a list of one project's folders; each is a generic sign:

- a record-like name: numbered (`0007-x`, `adr-12`, `kep-1234`), dated (`2021-06-29-x`,
  `20221129-x`, `202012-x`, `2023-10-16_028-x`) or named after an issue (`#653 - Quake Mode`);
- a folder named for records (a word of its name is adr, decision, rfc, proposal, spec, design,
  enhancement, postmortem...), or a series (a folder holding three or more record-named entries);
- the sections records have (Status / Context / Decision / Consequences; Summary / Motivation /
  Goals / Proposal / Alternatives / Open questions...), a status, a `type: proposal` front matter.

`Layout` reads the whole file list once (paths only, no file is opened): which folders are series,
which folders are one record made of parts. reStructuredText and AsciiDoc headings are read as
markdown headings (`as_markdown`), so every later rule sees one syntax.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

PROSE_EXTS = (".md", ".markdown", ".mdx", ".rst", ".adoc")
# A name that numbers a record: `0007-x`, `adr-12-x`, `rfc_3`, `kep-1234`, `oep-0042` (the letters of
# the common enhancement-proposal series: ?EP, ?IP), `#653 - Title`, `653 - Title`.
_NUMBERED = re.compile(
    r"^(?:(?:adr|rfc|dr|add|pm|[a-z]?[a-z]ep|[a-z]ip)[-_ #]?(\d+)|#?(\d{1,6})(?=\s+-\s)|(\d{3,6}))"
    r"(?:[-_. ]|$)",
    re.I,
)
# A dated name: 2021-06-29-x, 2023-10-16_028-x, 20221129-x, 202012-x, 2022-11-2-x.
_DATED = re.compile(r"^((?:19|20)\d\d)[-_]?(0[1-9]|1[0-2])(?:[-_]?([0-3]?\d))?(?:[-_](\d{1,5}))?[-_. ]")
_ISSUE = re.compile(r"^#(\d+)\b")
# A file name made of placeholders (`_YYYY-MM-DD-issue#-title.md`, `NNNN-title.md`): a template.
_PLACEHOLDER_NAME = re.compile(r"(?:^|[-_ #])(?:yyyy|yyyymmdd|nnnn|nnn|xxxx)(?:[-_ .#]|$)|[<{\[]", re.I)
# Words a folder of records is named with (a word of the folder's name, plural or not).
RECORD_WORDS = frozenset(
    {
        "adr",
        "adrs",
        "decision",
        "decisions",
        "rfc",
        "rfcs",
        "proposal",
        "proposals",
        "spec",
        "specs",
        "specification",
        "specifications",
        "design",
        "designs",
        "enhancement",
        "enhancements",
        "kep",
        "keps",
        "postmortem",
        "postmortems",
        "blueprint",
        "blueprints",
        "records",
        "architecture",
        "rationale",
    }
)
# Folders that sort records by status or date, not records themselves (`proposals-done/`, `drafts/`, `2023/`).
STATUS_FOLDERS = frozenset(
    {
        "accepted",
        "approved",
        "done",
        "implemented",
        "rejected",
        "declined",
        "withdrawn",
        "deferred",
        "draft",
        "drafts",
        "proposed",
        "superseded",
        "deprecated",
        "archive",
        "archived",
        "historic",
        "historical",
        "legacy",
        "old",
        "obsolete",
        "active",
        "final",
        "review",
        "reviews",
        "in-review",
        "pending",
        "open",
        "closed",
    }
)
_WORD = re.compile(r"[a-z]+")
# Section headings of decision records and design documents. "Strong" ones are what a design record has
# and a guide rarely does; "weak" ones are common in any document and count half.
STRONG_SECTIONS = frozenset(
    {
        "status",
        "context",
        "context and problem statement",
        "problem statement",
        "decision",
        "decision outcome",
        "decision drivers",
        "considered options",
        "consequences",
        "motivation",
        "non-goals",
        "non goals",
        "no goals",
        "goals and non-goals",
        "proposal",
        "proposed solution",
        "proposed design",
        "proposed change",
        "solution design",
        "detailed design",
        "design details",
        "alternatives",
        "alternatives considered",
        "considered alternatives",
        "rationale",
        "rationale and alternatives",
        "drawbacks",
        "unresolved questions",
        "open questions",
        "outstanding questions",
        "prior art",
        "future considerations",
        "future possibilities",
        "potential issues",
        "work plan",
        "guide-level explanation",
        "reference-level explanation",
        "pros and cons of the options",
        "deferred alternatives",
        "rejected alternatives",
        "tl;dr",
        "rollout plan",
        "decision record",
    }
)
WEAK_SECTIONS = frozenset(
    {
        "summary",
        "abstract",
        "goals",
        "background",
        "problem",
        "design",
        "implementation",
        "implementation plan",
        "risks",
        "scope",
        "why",
        "how",
        "future work",
        "inspiration",
        "action plan",
        "user stories",
        "requirements",
        "security considerations",
        "compatibility",
        "migration",
        "overview",
        "references",
        "ui/ux design",
        "capabilities",
        "audience",
        "verification",
        "related tickets",
        "plan",
    }
)
_NUMBER_LEAD = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[ivx]+\.|[a-z]\))\s+")
_RST_ADORN = re.compile(r"^([=\-~^\"'`#*+:._])\1{2,}\s*$")
_ADOC_HEADING = re.compile(r"^(={1,6})\s+(\S.*)$")
_RST_FIELD = re.compile(r"^:([A-Za-z][\w -]*):\s+(.+)$")
# `ADR 14 <0014-x.rst>`_ and :doc:`ADR 14 <0014-x>` / :doc:`0014-x`: links, as markdown writes them.
_RST_LINK = re.compile(r"(?::doc:)?`([^`<>]*?)\s*<([^<>`\s]+)>`_{0,2}|:doc:`([^`<>\s]+)`")


def is_prose(rel: str) -> bool:
    return rel.lower().endswith(PROSE_EXTS)


# A status written before a record's name (`SUPERSEDED-20230719-plan.md`, `draft-0004-x.md`).
STATUS_PREFIX = re.compile(
    r"^(superseded|deprecated|rejected|obsolete|withdrawn|draft|wip|accepted|proposed)[-_ ]+", re.I
)


def stem(name: str) -> str:
    """The name without its extension nor a status prefix."""
    base = name.rsplit(".", 1)[0] if "." in name and is_prose(name) else name
    return STATUS_PREFIX.sub("", base) or base


def name_kind(name: str) -> str | None:
    """'numbered', 'dated', 'issue' or None for a file or folder name."""
    base = stem(name)
    if _ISSUE.match(base):
        return "issue"
    if _DATED.match(base + " "):
        return "dated"
    if _NUMBERED.match(base + " "):
        return "numbered"
    return None


def number(name: str) -> int | None:
    """The record number a name gives (`0007-x` -> 7, `#653 - x` -> 653), or None (dates are no numbers)."""
    base = stem(name)
    m = _ISSUE.match(base)
    if m:
        return int(m.group(1))
    d = _DATED.match(base + " ")
    if d:
        return int(d.group(4)) if d.group(4) else None
    m = _NUMBERED.match(base + " ")
    if not m:
        return None
    return int(next(g for g in m.groups() if g is not None))


def placeholder_name(name: str) -> bool:
    """A template's name: placeholders instead of a date or a title (`_YYYY-MM-DD-issue#-title.md`)."""
    base = stem(name)
    return bool(_PLACEHOLDER_NAME.search(base)) or ("template" in base.lower() and not number(base))


def folder_is_for_records(folder: str) -> bool:
    """A folder whose name says it holds records: a word of it is one of RECORD_WORDS."""
    return any(w in RECORD_WORDS for w in _WORD.findall(folder.lower()))


def as_markdown(text: str, rel: str) -> str:
    """reStructuredText / AsciiDoc headings as `#` headings, rst field lists (`:Status: Accepted`) as
    `Status: Accepted` lines and rst links as markdown links, so the record rules read one syntax;
    markdown is returned as it is."""
    low = rel.lower()
    if low.endswith(".adoc"):
        return "\n".join(
            f"{'#' * len(m.group(1))} {m.group(2)}" if (m := _ADOC_HEADING.match(ln)) else ln for ln in text.split("\n")
        )
    if not low.endswith(".rst"):
        return text
    lines = _RST_LINK.sub(lambda m: f"[{m.group(1) or m.group(3)}]({m.group(2) or m.group(3)})", text).split("\n")
    out: list[str] = []
    levels: list[tuple[str, bool]] = []  # adornment styles in order of first use: the first is the title
    i = 0
    while i < len(lines):
        ln = lines[i]
        over = _RST_ADORN.match(ln)
        if (
            over
            and i + 2 < len(lines)
            and lines[i + 1].strip()
            and _RST_ADORN.match(lines[i + 2])
            and lines[i + 2].strip()[0] == ln.strip()[0]
        ):
            style, title, i = (ln.strip()[0], True), lines[i + 1].strip(), i + 3
        elif (
            ln.strip()
            and not over
            and i + 1 < len(lines)
            and _RST_ADORN.match(lines[i + 1])
            and len(lines[i + 1].strip()) >= len(ln.strip()) >= 1
        ):
            style, title, i = (lines[i + 1].strip()[0], False), ln.strip(), i + 2
        else:
            field = _RST_FIELD.match(ln)
            out.append(f"{field.group(1)}: {field.group(2)}" if field else ln)
            i += 1
            continue
        if style not in levels:
            levels.append(style)
        out.append(f"{'#' * min(levels.index(style) + 1, 6)} {title}")
    return "\n".join(out)


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def headings(text: str) -> list[str]:
    """Section names, lowercased, without numbering or emphasis ("## 2. Why?" -> "why")."""
    out = []
    for h in _HEADING.findall(text):
        h = h.strip().strip("*_:").strip().lower()
        h = _NUMBER_LEAD.sub("", h).rstrip("?:").strip()
        out.append(h)
    return out


def section_score(heads: Iterable[str]) -> float:
    """Strong design-record sections count 1, weak ones 0.5 (each name once)."""
    seen = set(heads)
    return sum(1.0 for h in seen if h in STRONG_SECTIONS) + sum(0.5 for h in seen if h in WEAK_SECTIONS)


class Layout:
    """The file list read once: series folders and record folders made of parts.

    A *series* is a folder holding three or more record-named entries (files or folders). A
    *record folder* is one record kept as a folder: a record-named folder (`0007-storage/`,
    `#653 - Quake Mode/`) inside a series or a folder named for records, or another folder there
    whose prose files are numbered parts named like parts of a document (`01-survey.md`,
    `02-design.md`). Its prose files are the record's parts, except those named as records of their
    own (`#1032 - x.md` inside `#5000 - y/`); a file named as the folder beside it is its main part.
    """

    def __init__(self, paths: Iterable[str]):
        entries: dict[str, set[str]] = defaultdict(set)  # folder -> names of its entries (files, folders)
        prose: dict[str, list[str]] = defaultdict(list)  # folder -> its prose files (names)
        for rel in paths:
            parts = rel.split("/")
            for depth in range(1, len(parts)):
                entries["/".join(parts[: depth - 1])].add(parts[depth - 1])
            folder = "/".join(parts[:-1])
            entries[folder].add(parts[-1])
            if is_prose(rel):
                prose[folder].append(parts[-1])
        self.series = {
            f for f, names in entries.items() if sum(1 for n in names if name_kind(n) and not placeholder_name(n)) >= 3
        }
        self.record_folders: dict[str, frozenset[str]] = {}  # folder -> the names of its parts
        for folder, names in prose.items():
            parent, _, name = folder.rpartition("/")
            if not name or _sorting_folder(name):
                continue
            found = frozenset(n for n in names if _part_of(name, n))
            numbered = len(found) >= 2 and _numbered_parts(found)
            if found and (
                (parent in self.series or self.for_records(parent))
                and (name_kind(name) or numbered)
                or (numbered and folder_is_for_records(name))
            ):  # `storage-rfc/01-survey.md`
                self.record_folders[folder] = found
        # `rfc/20240513-x.md` beside `rfc/20240513-x/`: the file is the record's main part
        self.joined: dict[str, str] = {}
        for folder in self.record_folders:
            parent, _, name = folder.rpartition("/")
            for other in prose.get(parent, []):
                if stem(other) == stem(name) and other != name:
                    self.joined[f"{parent}/{other}" if parent else other] = folder

    def for_records(self, folder: str) -> bool:
        """`folder` or one of its ancestors is named for records."""
        return any(folder_is_for_records(p) for p in folder.split("/") if p)

    def record_folder(self, rel: str) -> str | None:
        """The folder `rel` is a part of, when that folder is one record made of parts (or the record
        folder `rel` is the main part of, named as it is beside it)."""
        if rel in self.joined:
            return self.joined[rel]
        folder, _, name = rel.rpartition("/")
        parts = self.record_folders.get(folder)
        return folder if parts and name in parts else None

    def parts(self, folder: str) -> int:
        """How many prose files make up the record kept as `folder`."""
        return len(self.record_folders.get(folder, ())) + sum(1 for f in self.joined.values() if f == folder)

    def in_series(self, rel: str) -> bool:
        """The file, or the record folder holding it, is an entry of a series."""
        record = self.record_folder(rel)
        return (record or rel).rpartition("/")[0] in self.series


_PART_NUMBER = re.compile(r"^(\d{1,2})[-_. ]")
_YEAR = re.compile(r"^(?:19|20)\d\d$")


def _sorting_folder(name: str) -> bool:
    """A folder that sorts records (by status, by year, or named for records and nothing else: `rfcs`,
    `docs-decisions`), not a record."""
    low = name.lower()
    words = _WORD.findall(low)
    return (
        low in STATUS_FOLDERS
        or bool(_YEAR.match(low))
        or placeholder_name(name)
        or bool(words)
        and all(w in RECORD_WORDS or w in STATUS_FOLDERS or w in ("doc", "docs") for w in words)
    )


def _part_of(folder_name: str, name: str) -> bool:
    """A prose file of a record folder that is not a record of its own (nor a template)."""
    if placeholder_name(name):
        return False
    if name_kind(name) is None or _PART_NUMBER.match(stem(name)):
        return True
    own = number(name)
    return own is not None and own == number(folder_name)


# What the parts of one document are called (besides its section names): `01-survey`, `04-appendix`.
PART_WORDS = frozenset(
    {
        "survey",
        "overview",
        "introduction",
        "intro",
        "appendix",
        "appendices",
        "glossary",
        "faq",
        "questions",
        "open questions",
        "plan",
        "research",
        "analysis",
        "conclusion",
        "conclusions",
        "timeline",
        "api",
        "data model",
        "testing",
        "rollout",
        "architecture",
        "readme",
        "index",
        "current state",
        "options",
        "recommendation",
        "findings",
        "evaluation",
        "decision",
    }
)


def _numbered_parts(names: Iterable[str]) -> bool:
    """Parts of one document, not a series of records: most names start with a one- or two-digit number
    and name a part of a document (`01-survey`, `02-design`, `03-open-questions`), not a topic."""
    names = list(names)
    numbered = [_PART_NUMBER.sub("", stem(n)) for n in names if _PART_NUMBER.match(stem(n))]
    sections = STRONG_SECTIONS | WEAK_SECTIONS | PART_WORDS
    named = sum(1 for n in numbered if " ".join(_WORD.findall(n.lower())) in sections)
    return len(numbered) >= max(2, (len(names) + 1) // 2) and named >= (len(numbered) + 1) // 2
