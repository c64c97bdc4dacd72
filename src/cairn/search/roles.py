"""Which part a file plays for a request (source, test, prose, data) and how much that part counts.

A code question ("how does the router dispatch requests") wants the source that does it; guides,
changelogs and generated API pages that talk about it come after, and tests and examples that
exercise it after the source. A documentation question ("how do I configure ...", "what is the
release process") wants the prose first. The role comes from the file (its kind, language and
path shape: test folders and test-file suffixes, never a repository's own folder names), the
intent from the request's wording and from the repository (a repository that is mostly prose
is documentation, whatever the request says).
"""

from __future__ import annotations

import re

from cairn.search.intent import wants_docs
from cairn.search.ranking import DEFAULT_RANKING, RoleFactors, Roles

SOURCE, TEST, PROSE, DATA, OTHER = "source", "test", "prose", "data", "other"

# Languages indexed as text that are data or markup, not a program (see codemap/languages.py).
DATA_LANGS = frozenset({"json", "yaml", "toml", "ini", "xml", "csv", "graphql", "protobuf", "css", "sql"})
# Markup that is read, not run: rendered documentation, generated API pages.
PROSE_LANGS = frozenset({"markdown", "rst", "text", "asciidoc", "tex", "html"})

_TEST_PATH = re.compile(
    r"(^|/)(tests?|__tests__|spec|specs|testing|testdata|fixtures|e2e|examples?|_examples?|benchmarks?|benches|"
    r"[\w-]*[-_]tests?|docs?|documentation)/|"
    r"(^|/)test_[^/]+\.(py|c|cc|cpp|dart|lua|rs|go)$|_test\.[a-z]+$|_spec\.[a-z]+$|[._-](test|spec)(-d)?\.[a-z]+$|"
    r"(Tests?|Spec|Suite|Benchmarks?)\.(java|kt|cs|swift|scala)$|\.snap$|\.bats$"
)


def is_test_path(path: str) -> bool:
    """Tests, fixtures, examples and benchmarks, by path shape alone."""
    return bool(_TEST_PATH.search(path))


def role(path: str, kind: str, lang: str | None) -> str:
    """The role of one indexed file."""
    if kind == "code" and lang not in PROSE_LANGS:
        return TEST if is_test_path(path) else SOURCE
    if lang in PROSE_LANGS or kind == "doc":
        return PROSE
    if lang in DATA_LANGS:
        return DATA
    if lang is None:
        return TEST if is_test_path(path) else OTHER
    return TEST if is_test_path(path) else SOURCE  # a program in a language we have no grammar for


def role_factors(
    text: str, prose_share: float, r: Roles = DEFAULT_RANKING.roles, report: bool = False
) -> dict[str, float]:
    """Multiplier per role for this request in this repository (a code or a documentation question,
    or a pasted report: `report`; in a repository mostly of prose, `r.prose_repo_share`, prose counts fully)."""
    f: RoleFactors = r.report_intent if report else r.doc_intent if wants_docs(text) else r.code_intent
    factors = {SOURCE: f.source, TEST: f.test, PROSE: f.prose, DATA: f.data, OTHER: f.other}
    if prose_share >= r.prose_repo_share:
        factors[PROSE] = max(factors[PROSE], 1.0)
    return factors
