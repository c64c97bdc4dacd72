"""Recognize documents that are logs: agent chat histories, dated diaries, changelogs.

Repositories keep exported agent conversations (`.specstory/history/`, transcripts), daily notes and
changelogs. Their words match every conversational prompt, so they would crowd out the code a
request is about. They are recognized by their shape, not by a list of one project's folders:
a date or timestamp in the file name, a log-like name (changelog, history, journal...), a path
segment that says it holds histories or sessions, or a body that alternates speakers
(User/Assistant, Human/AI) or is a list of dated entries. Only prose and text files are judged;
code never is. The search counts them less for code requests, not at all less when a request asks
about past sessions or releases.
"""

from __future__ import annotations

import re

LOG = "log"
_DATED_NAME = re.compile(r"(?:^|[^0-9])(?:19|20)\d\d[-_.]?(?:0[1-9]|1[0-2])[-_.]?(?:0[1-9]|[12]\d|3[01])(?:[^0-9]|$)")
_CHANGELOG_STEMS = frozenset({"changelog", "changes", "history", "news", "releases", "releasenotes"})
_LOG_STEMS = _CHANGELOG_STEMS | {"journal", "diary", "devlog", "worklog", "transcript", "chatlog", "conversation"}
_LOG_DIRS = frozenset(
    {
        "history",
        "histories",
        "transcripts",
        "sessions",
        "chats",
        "conversations",
        "journal",
        "journals",
        "diary",
        "logs",
        "changelogs",
        "changelog",
        "devlog",
        "worklog",
    }
)
_SPEAKER_AT = (
    r"[^\S\n]*(?:#{1,6}\s*|\*\*|_\*\*|>\s*)?(user|human|assistant|agent|ai|claude|model|you|me)\s*(?:\*\*_?)?\s*[:(\n]"
)
_SPEAKER = re.compile(r"(?im)^" + _SPEAKER_AT)
_DATED_AT = (
    r"(?:[^\S\n]*(?:#{1,6}|\*\*|-)\s*\[?v?\d+\.\d+[^\n]*\d{4}-\d\d-\d\d"
    r"|[^\S\n]*#{1,6}[^\n]*\b(?:19|20)\d\d-\d\d-\d\d\b)"
)
_DATED_HEADING = re.compile(r"(?m)^" + _DATED_AT)
# Newlines that may precede a match: the line's first character after blanks can start one. Both
# patterns match at line starts only, so trying them after these newlines (and at 0) finds what
# `finditer` finds, without trying them at every position of the text (~3-4x less CPU).
_SPEAKER_LINE = re.compile(r"\n(?=[^\S\n]*[#*_>uhacmyUHACMY])")
_DATED_LINE = re.compile(r"\n(?=[^\S\n]*[#*-])")


def _line_matches(rx: re.Pattern[str], line_rx: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """`rx.finditer(text)` for a pattern anchored at line starts (`(?m)^...`): the same matches.
    `line_rx` finds newlines after which a match may start (a superset: `rx` decides)."""
    first = rx.match(text)
    out = [first] if first else []
    end = first.end() if first else 0
    for nl in line_rx.finditer(text):
        if nl.end() >= end and (m := rx.match(text, nl.end())) is not None:
            out.append(m)
            end = m.end()
    return out


def _stem(name: str) -> str:
    base = name.rsplit(".", 1)[0] if "." in name else name
    return re.sub(r"[\W_]+", "", base.lower())


def is_changelog(path: str) -> bool:
    """A log by its name that people also edit on purpose (CHANGELOG.md, ReleaseNotes.md): it is
    the target of "update the release notes", so the search counts it less than code but not as
    little as a chat history."""
    return _stem(path.rsplit("/", 1)[-1]) in _CHANGELOG_STEMS


def document_role(path: str, kind: str, text: str) -> str | None:
    """LOG when the file reads as a log (see the module doc), else None. Code files are never logs."""
    if kind == "code":
        return None
    parts = path.lower().split("/")
    name = parts[-1]
    if _stem(name) in _LOG_STEMS or _DATED_NAME.search(name):
        return LOG
    if any(p.lstrip(".") in _LOG_DIRS for p in parts[:-1]):
        return LOG
    head = text[:200_000]
    speakers = [m.group(1).lower() for m in _line_matches(_SPEAKER, _SPEAKER_LINE, head)]
    if len(speakers) >= 6 and len(set(speakers)) >= 2:
        return LOG
    if len(_line_matches(_DATED_HEADING, _DATED_LINE, head)) >= 4:
        return LOG
    return None
