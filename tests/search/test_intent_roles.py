"""What a request asks for, what part each file plays, which request words name things."""

from __future__ import annotations

import pytest

from cairn.search.intent import wants_change, wants_docs, wants_reason
from cairn.search.paths import matches
from cairn.search.query import _name_keys, _symbols
from cairn.search.ranking import DEFAULT_RANKING
from cairn.search.roles import PROSE, SOURCE, TEST, is_test_path, role, role_factors

SYM = DEFAULT_RANKING.terms


@pytest.mark.parametrize(
    "text",
    [
        "how do I configure the proxy?",
        "what is the release process",
        "where is the changelog for 2.0",
        "installation steps",
        "how to use retries",
    ],
)
def test_documentation_questions(text):
    assert wants_docs(text)


@pytest.mark.parametrize(
    "text",
    [
        "how does the router dispatch requests",
        "Plug.Conn struct",
        "error types and per-request error collection",
        "Conn",
        "how the install command resolves plugins",
        "license header check",
    ],
)
def test_code_questions(text):
    assert not wants_docs(text)


def test_change_requests_and_reason_questions():
    assert wants_change("preserve placeholder for conditional slots") and wants_change("Fix retry on 429")
    assert not wants_change("how upload requests stream data") and not wants_change("UploadRequest")
    assert wants_reason("why did we pick Postgres over Mongo?") and wants_reason("what did we decide about caching")
    assert not wants_reason("how are sessions stored") and not wants_reason("Allow header according to RFC 7231")
    assert wants_reason("which ADR covers caching")


def test_roles_by_kind_language_and_path_shape():
    assert role("lib/plug/conn.ex", "text", "elixir") == SOURCE  # a program without a grammar is still source
    assert role("lib/bats-core/test_functions.bash", "text", "shell") == SOURCE
    assert role("test/plug/conn_test.exs", "text", "elixir") == TEST
    assert role("guides/routing.md", "doc", "markdown") == PROSE
    assert role("docs/api/index.html", "text", "html") == PROSE
    assert role("docs/code/cgi/main.c", "code", "c") == TEST  # example code inside documentation
    assert is_test_path("tests/test_tax.py") and is_test_path("src/foo_test.go") and is_test_path("FooTests.swift")
    assert not is_test_path("src/testing.py") and not is_test_path("lib/test.ex")


def test_prose_gives_way_for_code_questions_and_leads_for_documentation_questions():
    code, docs = role_factors("how does the router dispatch", 0.1), role_factors("how do I configure routes", 0.1)
    assert code[PROSE] < code[TEST] < code[SOURCE]
    assert docs[PROSE] > docs[SOURCE]
    assert role_factors("how does the router dispatch", 0.9)[PROSE] >= 1.0  # a repository of documents


def test_request_tokens_that_name_definitions():
    def sym(text):
        return {s.token: (s.key, s.strength) for s in _symbols(text)}

    assert sym("Conn") == {"Conn": ("conn", SYM.sym_bare)}
    assert sym("Rack::Response")["Rack::Response"] == ("response", SYM.sym_bare)
    s = sym("how the Session manages the underlying URLSession")
    assert s["Session"] == ("session", SYM.sym_capital) and s["URLSession"] == ("urlsession", SYM.sym_code)
    assert sym("Transaction block and session management")["Transaction"][1] == SYM.sym_first
    assert sym("Plug.Conn struct")["Plug.Conn"] == ("conn", SYM.sym_code)
    assert sym("how M.load activates a plugin")["M.load"][0] == "load"
    assert sym("optional fields use (.:?) here")["(.:?)"][0] == ".:?"
    assert "conn.ex" not in sym("look at conn.ex")  # a file name is the name channel's business
    assert sym("HTTP router")["HTTP"][1] < SYM.sym_code  # an acronym is a word, not an identifier


def test_name_keys_split_file_names_and_qualified_names_differently():
    keys = dict(_name_keys("open conn.ex, then Plug.Conn in lazy.nvim"))
    assert keys["conn"] >= 2.0 and keys["plugconn"] >= 2.0
    assert "lazy" not in keys or keys["lazy"] < 1.0  # `lazy.nvim` is a project, not a file named lazy


@pytest.mark.parametrize(
    "word,part,ok",
    [
        ("routers", "router", True),
        ("utility", "utils", True),
        ("reflection", "reflective", True),
        ("mapping", "map", True),
        ("validation", "validator", True),
        ("errors", "error", True),
        ("parse", "params", False),
        ("form", "platform", False),
        ("session", "sse", False),
    ],
)
def test_loose_word_matching_in_names(word, part, ok):
    assert matches(word, part) is ok
