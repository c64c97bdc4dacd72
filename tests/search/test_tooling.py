"""The tooling channel: a request about a tool finds the file that configures it by convention."""

from __future__ import annotations

import pytest

from cairn.codemap.index_db import open_index
from cairn.codemap.indexer import index_project
from cairn.project import project_for_root
from cairn.search.engine import search_code
from cairn.search.ranking import DEFAULT_RANKING, override
from cairn.search.tooling import asked_tools, tooling_files
from helpers import make_git_repo

# A Go service whose code talks about "config" everywhere: text search alone ranks it above the
# dotfiles, whose names are no words and whose YAML keys never say the tool's name.
FILES = {
    ".golangci.yml": 'version: "2"\nlinters:\n  enable:\n    - govet\n    - errcheck\n',
    ".goreleaser.yaml": "builds:\n  - main: ./cmd/server\n    binary: server\n",
    ".github/workflows/ci.yml": "on: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n",
    ".github/workflows/release.yml": "on:\n  push:\n    tags: ['v*']\njobs:\n  goreleaser: {}\n",
    "Makefile": "build:\n\tgo build ./...\n",
    "go.mod": "module example.com/server\n\ngo 1.22\n",
    "ReleaseNotes.md": "# Release notes\n\n## 1.2.0\n- faster startup\n",
    "cmd/server/main.go": "package main\n\n// main loads the configuration and starts the tool.\nfunc main() { run(loadConfig()) }\n",
    **{
        f"internal/config/part{i}.go": f"package config\n\n// Part{i} is configuration of the tool, checked when the "
        f"configuration is outdated or incompatible.\nfunc Part{i}Config() string "
        f'{{ return "config" }}\n'
        for i in range(12)
    },
}


def _index(tmp_path, files=FILES):
    root = make_git_repo(tmp_path / "svc", files)
    project = project_for_root(root)
    index_project(project)
    return root, open_index(project)


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    root, con = _index(tmp_path_factory.mktemp("tooling"))
    yield root, con
    con.close()


def _paths(hits, n=5):
    return [h.path for h in hits[:n]]


def test_a_tool_or_its_job_finds_its_configuration(svc):
    root, con = svc
    cases = {
        "The golangci-lint tool complains that the configuration is outdated and incompatible, fix it": ".golangci.yml",
        "the stylecheck linter does not exist anymore, fix the problem": ".golangci.yml",
        "Add a Make target to format all go files": "Makefile",
        "Review the gorelease config and add the migration tool to the build": ".goreleaser.yaml",
        "run the linting and testing in CI for every pull request": ".github/workflows/ci.yml",
        "The release 1.3.0 is upcoming, add a section for it": "ReleaseNotes.md",
        "can we remove those unused transitive dependencies?": "go.mod",
    }
    for request, expected in cases.items():
        hits, _ = search_code(con, request, root=root)
        assert expected in _paths(hits), (request, _paths(hits))
        hit = next(h for h in hits if h.path == expected)
        assert any(w.startswith("configures what the request names") for w in hit.why)


def test_without_the_channel_the_code_that_says_config_wins(svc):
    root, con = svc
    request = "The golangci-lint tool complains that the configuration is outdated and incompatible, fix it"
    hits, _ = search_code(con, request, root=root, ranking=override(DEFAULT_RANKING, {"fusion.tooling": 0.0}))
    assert ".golangci.yml" not in _paths(hits)  # the case the channel exists for


def test_words_that_only_look_like_tools_ask_for_nothing():
    for request in [
        "how halt stops a plug pipeline from continuing",
        "avoid repeated hydration mismatch checks",
        "remove unused Context dependency in get method",
        "how the parser reports a lint-free file",
        "fix the useEffect deps array",
        "circular dependencies between modules",
        "fix the login flow",
    ]:
        assert asked_tools(request) == [], request
    assert [w for _, w, _ in asked_tools("the release pipeline fails, Go Releaser cannot work")] == [
        "Go Releaser",
        "release",
        "release pipeline",
    ]


def test_a_one_word_request_names_a_thing_not_a_tool(tmp_path):
    root, con = _index(tmp_path, {**FILES, "lib/lint.rb": "class Lint\n  def check(env) end\nend\n"})
    assert tooling_files(con, "Lint") == ({}, {})
    hits, _ = search_code(con, "Lint", root=root)
    assert hits[0].path == "lib/lint.rb"
    con.close()


def test_a_repository_without_the_files_gets_nothing(tmp_path):
    files = {k: v for k, v in FILES.items() if not k.startswith(".") and k not in ("Makefile", "go.mod")}
    _root, con = _index(tmp_path, files)
    assert tooling_files(con, "the golangci-lint configuration is outdated") == ({}, {})
    con.close()


def test_a_file_added_later_is_found_after_the_refresh(tmp_path):
    files = {k: v for k, v in FILES.items() if k != ".golangci.yml"}
    root, con = _index(tmp_path, files)
    assert tooling_files(con, "the golangci-lint configuration is outdated")[0] == {}
    con.close()
    (root / ".golangci.yml").write_text(FILES[".golangci.yml"])
    index_project(project_for_root(root))
    con = open_index(project_for_root(root))
    scores, why = tooling_files(con, "the golangci-lint configuration is outdated")
    fid = con.execute("SELECT id FROM files WHERE path = '.golangci.yml'").fetchone()[0]
    assert set(scores) == {fid} and why[fid] == "configures what the request names (golangci-lint)"
    con.close()


def test_monorepo_tools_shallowest_first_and_bounded(tmp_path):
    files = {**FILES, **{f"services/s{i}/.golangci.yml": "linters: {}\n" for i in range(20)}}
    _root, con = _index(tmp_path, files)
    scores, _ = tooling_files(con, "the golangci-lint configuration is outdated")
    paths = dict(con.execute("SELECT id, path FROM files").fetchall())
    order = sorted(scores, key=lambda f: -scores[f])
    assert paths[order[0]] == ".golangci.yml" and len(scores) <= 12
    con.close()


CONVENTIONAL = [
    ".golangci.yml",
    "sub/.golangci.yaml",
    ".eslintrc.json",
    "eslint.config.mjs",
    ".stylelintrc",
    ".markdownlint-cli2.yaml",
    ".markdownlint.json",
    ".vale.ini",
    "ruff.toml",
    ".ruff.toml",
    ".flake8",
    ".pylintrc",
    ".rubocop.yml",
    ".swiftlint.yml",
    "clippy.toml",
    ".prettierrc.json",
    "biome.json",
    "rustfmt.toml",
    ".clang-format",
    ".editorconfig",
    "CHANGELOG.md",
    "ReleaseNotes.md",
    "HISTORY.rst",
    "NEWS",
    "changes.txt",
    ".goreleaser.yml",
    "release-please-config.json",
    ".releaserc.json",
    ".github/workflows/release.yml",
    ".github/workflows/ci.yaml",
    ".gitlab-ci.yml",
    ".circleci/config.yml",
    "azure-pipelines.yml",
    "Jenkinsfile",
    ".travis.yml",
    "bitbucket-pipelines.yml",
    "Makefile",
    "GNUmakefile",
    "rules.mk",
    "justfile",
    "Taskfile.yml",
    "go.mod",
    "package.json",
    "pyproject.toml",
    "requirements-dev.txt",
    "Cargo.toml",
    "Gemfile",
    "Package.swift",
    "build.gradle.kts",
    "pom.xml",
    "composer.json",
    "setup.py",
    "setup.cfg",
    ".gitignore",
    "Dockerfile",
    "Dockerfile.dev",
    "api.dockerfile",
    "docker-compose.override.yml",
    "compose.yaml",
    ".dockerignore",
    ".pre-commit-config.yaml",
    ".husky/pre-commit",
    "lefthook.yml",
    "tsconfig.json",
    "tsconfig.build.json",
    "vite.config.ts",
    "webpack.config.js",
    "rollup.config.mjs",
    ".babelrc",
    "babel.config.js",
    "jest.config.ts",
    "vitest.config.ts",
    "playwright.config.ts",
    "pytest.ini",
    "conftest.py",
    "tox.ini",
    "noxfile.py",
    "CODEOWNERS",
    ".github/dependabot.yml",
    "renovate.json",
]


def test_every_conventional_name_is_taken_and_passes_the_sql_prefilter():
    """What SQL keeps (`LIKE` on a row's substrings) must hold every file its pattern takes."""
    from cairn.search.tooling import _BY_PATH, _TOOLS, _file_pattern

    for path in CONVENTIONAL:
        rows = [
            i for i in range(len(_TOOLS)) if _file_pattern(i).search(path if _BY_PATH[i] else path.rsplit("/", 1)[-1])
        ]
        assert rows, path
        for i in rows:
            assert any(h.lower() in path.lower() for h in _TOOLS[i][3].split()), (path, _TOOLS[i][3])
