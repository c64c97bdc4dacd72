"""What a request asks for: code or documentation, an explanation or a change, the reason for a decision.

Read from the wording alone (stdlib regexes, so it runs in hooks): "how do I configure ..." asks
for documentation, "fix the retry when ..." asks for a change, "why did we pick Postgres" asks
for a decision record. Each answer moves weights elsewhere (roles.py, engine.py, knowledge.py);
nothing here filters results out.
"""

from __future__ import annotations

import re

# Wording that asks for documentation, usage or project process rather than code.
_DOC = re.compile(
    r"\b(how (do|can|should) (i|we|you)|how to|docs|documentation|documented|guides?|tutorials?|readme|"
    r"change ?logs?|release ?notes?|what('s| is| are) new|migrat(e|ion) (guide|to)|upgrad(e|ing) (to|from|guide)|"
    r"getting started|installation (guide|instructions|steps)|contributing|faq|"
    r"(release|review|deploy(ment)?|branching|versioning|support) (process|policy|workflow|cycle)|"
    r"code of conduct|what licen[cs]e)\b",
    re.I,
)

# Wording that asks why something was decided: the decision record should come first.
_WHY = re.compile(
    r"\b(why|decid\w*|decision\w*|chose|choice|rationale|reason\w*|adrs?|rfcs?(?!\s*\d)|postmortem)\b", re.I
)  # "RFC 7231" cites a standard, it does not ask for a record

# Words that name a design record ("Add ADR for ...", "RFC: migrate from X to Y", "the spec for quake mode").
_RECORD = re.compile(
    r"\b(adrs?|rfcs?(?!\s*\d)|specs?|specification|proposals?|design (?:doc|document|note)s?|"
    r"decision records?|architecture decisions?|postmortems?)\b",
    re.I,
)

# A request that opens with one of these verbs asks for a change ("preserve the placeholder when ...",
# "fix retry on 429"): the code to touch is often where a thing is used, not the file named after it.
_CHANGE_VERBS = frozenset(
    """add adjust allow avoid bump change check clean cleanup correct deprecate disable drop
    emit enable ensure expose fix handle ignore implement improve include infer keep make migrate move normalize
    optimize optimise pass prefer prevent preserve propagate refactor reject remove rename reorder replace
    resolve respect restore return reuse revert rework set simplify skip sort split stop support throw tweak
    update upgrade use validate warn""".split()
)
_FIRST_WORD = re.compile(r"[A-Za-z]+")

# Wording that asks about past sessions or releases: chat histories, diaries and changelogs count fully.
_HISTORY = re.compile(
    r"\b(session|sessions|conversation|chat|discuss(?:ed|ion)?|decid(?:e|ed)|yesterday|last (?:time|week)|earlier|"
    r"change ?logs?|release ?notes?|(?:last|next|upcoming|previous|recent) release|what'?s new|history|journal|"
    r"diary|transcript|log)\b",
    re.I,
)


def wants_docs(text: str) -> bool:
    """True when the wording asks for documentation, usage or process."""
    return bool(_DOC.search(text))


def wants_reason(text: str) -> bool:
    """True for "why did we ...", "what did we decide about ..." questions."""
    return bool(_WHY.search(text))


def names_record(text: str) -> bool:
    """True when the request names a kind of design record (ADR, RFC, spec, proposal, design doc)."""
    return bool(_RECORD.search(text))


def asks_question(text: str) -> bool:
    """True when the request is a question ("...?"), not a change to make nor a commit subject."""
    return text.rstrip().endswith("?")


def wants_history(text: str) -> bool:
    """True when the request asks about past sessions, discussions or releases (logs are what it wants)."""
    return bool(_HISTORY.search(text))


def wants_change(text: str) -> bool:
    """True when the request opens with an imperative verb of change (a task, not a question)."""
    m = _FIRST_WORD.search(text)
    return m is not None and m.group(0).lower() in _CHANGE_VERBS
