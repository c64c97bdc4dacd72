"""No regular expression of cairn takes super-linear time on hostile text (issue 35, item 2).

Every compiled `re` pattern at module level in cairn is found (regex_probe.py), so a new one is
checked without anyone listing it. Each is run on strings of repeated units ending in a character
that makes a match fail late, at 500 and 2,000 characters: the time may grow about 4x (linear),
not 16x (quadratic) or without end (exponential, stopped by an alarm). Patterns that cairn only
runs at one position (`match`, `fullmatch`) are timed that way; patterns whose input the caller
cuts are run at that bound and must finish quickly there.
"""

from __future__ import annotations

import re
import signal
import time

import pytest
from regex_probe import ONE_START, cost, hostile, module_patterns, worst_growth

N = 500
GROWTH_MAX = 9.0  # t(4n) / t(n): linear ~4, quadratic ~16
LIMIT = 2.0  # seconds for one probe before it counts as endless

# Patterns cairn runs at one position only: a start is tried once, so only that is timed.
ONE_POSITION = {
    "cairn.codemap.extract_refs._HYPHENATED": "extract_refs: _HYPHENATED.match(name)",
    "cairn.codemap.knowledge.record_nodes._LINK_NUMBER": "record_nodes: _LINK_NUMBER.match(link text)",
    "cairn.codemap.knowledge.records.RECORD_NAME": "records: RECORD_NAME.match(file name)",
    "cairn.redact.assign._LIST_GOES_ON": "assign: _LIST_GOES_ON.match(data, ve + 1, ve + 8)",
    "cairn.redact.assign._WEAK_SHORT_BARE": "assign: _WEAK_SHORT_BARE.match(data, end)",
    "cairn.redact.shape._CALLISH": "shape: _CALLISH.match(value)",
    "cairn.search.targets._IDENT": "targets: _IDENT.match(name)",
    "cairn.codemap.doc_role._SPEAKER": "doc_role._line_matches: .match at each line start",
    "cairn.codemap.doc_role._DATED_HEADING": "doc_role._line_matches: .match at each line start",
    "cairn.codemap.textdefs._KEYWORD": "textdefs._match: .match(line)",
    "cairn.redact.shape._DOTTED": "shape: _DOTTED.fullmatch(value)",
    "cairn.redact.shape._VERSION": "shape: _VERSION.fullmatch(value)",
    "cairn.redact.shape._PATHLIKE": "shape: _PATHLIKE.fullmatch(value)",
    "cairn.sessions.usage_entry._SEMVER_PREFIX": "usage_entry: _SEMVER_PREFIX.match(version)",
    "cairn.redact.assign._RULE_LIST": "assign: _RULE_LIST.fullmatch(value)",
    "cairn.redact.records._LABEL": "records: _LABEL.fullmatch(line head)",
    "cairn.redact.records._VAR": "records: _VAR.fullmatch(word)",
    # html_text: `<[^>]*>` runs on the page up to its last `>` only, where every `<` has an end
    "cairn.codemap.html_text._TAG": "html_text.visible_text: .sub on the text up to the last `>`",
    "cairn.codemap.knowledge.record_nodes._COMMENT_BLOCK": "record_nodes: .sub on the text up to the last `-->`",
}
# Patterns whose input the caller cuts to a length: (that length, where).
BOUNDED = {
    "cairn.codemap.html_text._TEMPLATE": (4096, "html_text._template_parts: tags of MAX_TEMPLATE_TAG chars"),
    "cairn.text.tokens.CODE_NAME": (256, "query._ident_matches, prompt_submit.worth_searching: words of 256 chars"),
}

PATTERNS = module_patterns()


def _ids() -> list[str]:
    return [name for name, _ in PATTERNS]


def test_the_probe_finds_the_patterns_that_see_requests():
    names = set(_ids())
    assert "cairn.text.tokens.CODE_NAME" in names and "cairn.codemap.doc_role._SPEAKER" in names
    assert len(names) > 100
    stale = [n for n in list(ONE_POSITION) + list(BOUNDED) if n not in names]
    assert not stale, f"listed but no longer in cairn: {stale}"


@pytest.mark.parametrize(("name", "pattern"), PATTERNS, ids=_ids())
def test_no_pattern_grows_faster_than_its_input(name: str, pattern: re.Pattern):
    if name in BOUNDED:
        bound, where = BOUNDED[name]
        slowest = max(cost(pattern, text, LIMIT) for text in hostile(bound, isinstance(pattern.pattern, bytes)))
        assert slowest < 1.0, f"{name} at its bound of {bound} chars ({where}): {slowest:.2f} s"
        growth, t_large, text = worst_growth(pattern, N, LIMIT, ONE_START)  # at one position: any length
        assert growth < GROWTH_MAX, f"{name}.fullmatch took {t_large:.3f} s on {text}, {growth:.0f}x"
        return
    ops = ONE_START if name in ONE_POSITION else ("search", "finditer", "match", "fullmatch")
    growth, t_large, text = worst_growth(pattern, N, LIMIT, ops)
    assert growth < GROWTH_MAX, (
        f"{name} took {t_large:.3f} s on {text}, {growth:.0f}x its time on a "
        f"quarter of it: backtracking (make it linear, or cut its input and list it)"
    )


class _Slow(Exception):
    pass


def _bounded(seconds: float):
    def alarm(*_args: object) -> None:
        raise _Slow

    signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)


def _unbounded() -> None:
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)


@pytest.mark.parametrize(
    "request_text",
    [
        "MAX_RETRY_COUNT_FOR_UPSTREAM_HTTP_REQUESTS-v2",
        "why does MAX_RETRY_COUNT_FOR_UPSTREAM_HTTP_REQUESTS_AND_THE_OTHER_LIMITS-v2 fail",
        "aBcDeFgHiJkLmNoPqRsTuVwXyZ" * 40 + "!",
        "A_" * 2000 + "-",
        " ".join(["x" + "Ab" * 120 + "-"] * 80),
    ],
)
def test_the_query_analyser_answers_hostile_requests_at_once(request_text: str, tmp_path):
    """The shapes that held `cairn search` for minutes: the analyser and the prompt gate, bounded."""
    from cairn.agents.hooks.prompt_submit import worth_searching
    from cairn.search import query

    _bounded(5.0)
    started = time.perf_counter()
    try:
        shaped = [m.group(0) for m in query._ident_matches(request_text) if query._code_shaped(m.group(0))]
        keys = query._name_keys(request_text)
        symbols = query._symbols(request_text)
        worth_searching(request_text)
    except _Slow:
        pytest.fail(f"the analyser ran over 5 s on {request_text[:40]!r}...")
    finally:
        _unbounded()
    assert time.perf_counter() - started < 5.0
    if request_text.startswith("MAX_RETRY"):
        assert "MAX_RETRY_COUNT_FOR_UPSTREAM_HTTP_REQUESTS" in shaped
        assert any(s.token.startswith("MAX_RETRY") for s in symbols) and keys
