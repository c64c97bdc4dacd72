"""The configuration files of the tools a request names: `.golangci.yml` for "the linter", the release workflow for "the release pipeline".

People ask about their tooling by the tool's name or its job ("golangci-lint complains the
configuration is outdated", "add a Make target", "the release pipeline fails", "remove those
unused transitive dependencies"), while the file to change is named by the tool's convention:
`.golangci.yml`, `Makefile`, `.github/workflows/release.yml`, `.goreleaser.yml`, `go.mod`. Those
files share few words with the request (a dotfile's name is not a word, YAML keys are not the
tool's name), so text and name search rank code that merely says "config" above them. This
module holds the field's conventions, tool by tool: the words that name a tool or its job, and
the file names that configure it. A request that says such a word gets the repository's own
files of that kind as a ranked list for the fusion (search/engine.py); a repository without them
gets nothing. Stdlib only: it runs in the prompt hook.
"""

from __future__ import annotations

import re
import sqlite3
from functools import partial

from cairn.search.index_cache import for_index
from cairn.search.ranking import DEFAULT_RANKING, Tooling

# (words of the request, file names or paths, strength, substrings). A file pattern is a regex over
# the path's last segment, or over the whole path when it holds a "/". A tool's own name is surer
# (1.0) than its job ("lint", "release": 0.6): the job's word also brings the other tools' files of
# that job. Every file a pattern takes holds one of the substrings (case aside): SQL keeps only
# those (`LIKE`), so a tool costs one narrow query per index state, not a look at every path.
_LINT_FILES = (
    r"\.?golangci\.(?:ya?ml|toml|json)|\.eslintrc(?:\.\w+)?|eslint\.config\.\w+|\.stylelintrc(?:\.\w+)?|"
    r"\.markdownlint(?:-cli2)?(?:\.\w+)?(?:\.\w+)?|\.vale\.ini|\.?ruff\.toml|\.flake8|\.?pylintrc|"
    r"\.rubocop\.ya?ml|\.swiftlint\.ya?ml|\.?clippy\.toml|\.prettierrc(?:\.\w+)?|biome\.jsonc?|"
    r"\.?rustfmt\.toml|\.clang-format|\.editorconfig"
)
_TOOLS: list[tuple[str, str, float, str]] = [
    (
        r"golangci(?:-lint)?|stylecheck|staticcheck|gocritic|revive linter",
        r"\.?golangci\.(?:ya?ml|toml|json)",
        1.0,
        "golangci",
    ),
    (r"eslint", r"\.eslintrc(?:\.\w+)?|eslint\.config\.\w+", 1.0, "eslint"),
    (r"stylelint", r"\.stylelintrc(?:\.\w+)?|stylelint\.config\.\w+", 1.0, "stylelint"),
    (r"markdownlint(?:-cli2?)?", r"\.markdownlint(?:-cli2)?(?:\.\w+)?(?:\.\w+)?", 1.0, "markdownlint"),
    (r"vale", r"\.vale\.ini", 1.0, ".vale."),
    (r"ruff", r"\.?ruff\.toml", 1.0, "ruff.toml"),
    (r"flake8", r"\.flake8", 1.0, "flake8"),
    (r"pylint", r"\.?pylintrc", 1.0, "pylintrc"),
    (r"rubocop", r"\.rubocop\.ya?ml", 1.0, "rubocop"),
    (r"swiftlint", r"\.swiftlint\.ya?ml", 1.0, "swiftlint"),
    (r"clippy", r"\.?clippy\.toml", 1.0, "clippy"),
    (r"prettier", r"\.prettierrc(?:\.\w+)?|prettier\.config\.\w+", 1.0, "prettier"),
    (r"biome", r"biome\.jsonc?", 1.0, "biome"),
    (r"rustfmt", r"\.?rustfmt\.toml", 1.0, "rustfmt"),
    (r"clang-format", r"\.clang-format", 1.0, "clang-format"),
    (
        r"lint(?:s|er|ers|ing)?|linted|formatter|formatting rules?|code style",
        _LINT_FILES,
        0.6,
        "golangci eslint stylelint markdownlint .vale. ruff.toml flake8 pylintrc rubocop swiftlint clippy prettier "
        "biome rustfmt clang-format editorconfig",
    ),
    (
        r"change ?logs?|release ?notes|releasenotes|what'?s new|(?:upcoming|last|next|previous|new|latest) release|"
        r"releases? v?\d+(?:\.\d+)+|v?\d+\.\d+\.\d+ release",
        r"(?:change[-_ ]?log|changes|history|news|release[-_ ]?notes)(?:\.(?:md|markdown|rst|txt|adoc))?",
        1.0,
        "change history news release",
    ),
    (r"go ?releaser|gorelease", r"\.?goreleaser\.ya?ml", 1.0, "goreleaser"),
    (r"release-please", r"release-please-config\.json|\.release-please-manifest\.json", 1.0, "release-please"),
    (r"semantic-release", r"\.releaserc(?:\.\w+)?", 1.0, "releaserc"),
    (
        r"releas(?:e|es|er|ing)|publish(?:es|ed|ing)?|release (?:artifacts?|assets?)",
        r"\.?goreleaser\.ya?ml|\.github/workflows/[^/]*releas[^/]*\.ya?ml|release-please-config\.json|\.releaserc(?:\.\w+)?",
        0.8,
        "goreleaser releas",
    ),
    (
        r"github actions?|gh actions?|gh workflows?|workflows?|ci|ci/cd|(?:ci|build|release|deploy(?:ment)?|github|gitlab) "
        r"pipelines?|pipelines? (?:runs?|fail\w*|jobs?|config\w*)|pr (?:runs?|checks?)|(?:ci|status) checks|checks? fail\w*",
        r"\.github/workflows/[^/]+\.ya?ml|\.gitlab-ci\.ya?ml|\.circleci/config\.ya?ml|azure-pipelines\.ya?ml|"
        r"jenkinsfile|\.travis\.ya?ml|bitbucket-pipelines\.ya?ml",
        1.0,
        ".github/workflows/ gitlab-ci .circleci/ azure-pipelines jenkinsfile .travis. bitbucket-pipelines",
    ),
    (
        r"make ?files?|make targets?|make rules?|make (?:command|task)s?|justfile|taskfile",
        r"(?:gnu)?makefile|[\w.-]+\.mk|justfile|taskfile\.ya?ml",
        1.0,
        "makefile .mk justfile taskfile",
    ),
    (
        r"(?:go|npm|pip|python|node|cargo|gem|maven|gradle|third[- ]party|transitive|direct|indirect|unused|outdated|"
        r"dev|runtime|optional|pinned|vulnerable) dependenc(?:y|ies)|dependenc(?:y|ies) (?:updates?|versions?|upgrades?|"
        r"bumps?|management|tree|list|lock)|(?:add|update|upgrade|bump|remove|install|pin|vendor|drop)\w* (?:the |a |an |"
        r"all |some |those |these |our |its |any )?(?:\w+ )?dependenc(?:y|ies)|go\.mod|go mod(?: tidy)?|go get|"
        r"npm install|pip install|cargo add|module path|third[- ]party packages?|version bump|bump the version",
        r"go\.mod|package\.json|pyproject\.toml|requirements[\w.-]*\.txt|cargo\.toml|gemfile|package\.swift|"
        r"build\.gradle(?:\.kts)?|pom\.xml|composer\.json|setup\.py|setup\.cfg",
        0.6,
        "go.mod package.json pyproject requirements cargo.toml gemfile package.swift build.gradle pom.xml composer.json "
        "setup.py setup.cfg",
    ),
    (r"gitignore|git ?ignore[ds]?|unignore[ds]?|untracked", r"\.gitignore", 1.0, "gitignore"),
    (
        r"docker(?:file)?s?|docker-compose|container images?|compose files?",
        r"dockerfile(?:\.[\w-]+)?|[\w-]+\.dockerfile|docker-compose[\w.-]*\.ya?ml|compose\.ya?ml|\.dockerignore",
        1.0,
        "docker compose",
    ),
    (
        r"pre-commit|precommit|husky|lefthook|git hooks?",
        r"\.pre-commit-config\.ya?ml|\.husky/[^/]+|lefthook\.ya?ml",
        1.0,
        "pre-commit .husky/ lefthook",
    ),
    (r"tsconfig|typescript config(?:uration)?|compiler ?options", r"tsconfig(?:\.[\w-]+)?\.json", 1.0, "tsconfig"),
    (r"vite", r"vite\.config\.\w+", 1.0, "vite.config"),
    (r"webpack", r"webpack\.config\.\w+", 1.0, "webpack.config"),
    (r"rollup", r"rollup\.config\.\w+", 1.0, "rollup.config"),
    (r"babel", r"\.babelrc(?:\.\w+)?|babel\.config\.\w+", 1.0, "babel"),
    (r"jest", r"jest\.config\.\w+", 1.0, "jest.config"),
    (r"vitest", r"vitest\.config\.\w+", 1.0, "vitest.config"),
    (r"playwright", r"playwright\.config\.\w+", 1.0, "playwright.config"),
    (r"pytest", r"pytest\.ini|conftest\.py", 1.0, "pytest.ini conftest.py"),
    (r"tox", r"tox\.ini", 1.0, "tox.ini"),
    (r"nox", r"noxfile\.py", 1.0, "noxfile"),
    (r"codeowners", r"codeowners", 1.0, "codeowners"),
    (
        r"dependabot|renovate",
        r"\.github/dependabot\.ya?ml|renovate\.json5?|\.renovaterc(?:\.\w+)?",
        1.0,
        "dependabot renovate",
    ),
]
_BY_PATH = [bool("/" in files) for _, files, _, _ in _TOOLS]
_COMPILED: dict[str, list] = {}  # compiled at first use (~4 ms for the words: not at import)


def _words() -> list[re.Pattern]:
    """The words of each row, to search in the lowercased request (no IGNORECASE: half the compile)."""
    if "words" not in _COMPILED:
        _COMPILED["words"] = [re.compile(r"(?<![\w.-])(?:" + words + r")(?![\w-])") for words, _, _, _ in _TOOLS]
    return _COMPILED["words"]


def _file_pattern(row: int) -> re.Pattern:
    """A row's file names; a pattern with a "/" is matched against the whole path's end, any other
    against the last segment."""
    files = _COMPILED.setdefault("files", [None] * len(_TOOLS))
    if files[row] is None:
        pattern = _TOOLS[row][1]
        files[row] = re.compile((r"(?:^|/)(?:" if _BY_PATH[row] else r"^(?:") + pattern + r")$", re.I)
    return files[row]


def asked_tools(text: str) -> list[tuple[int, str, float]]:
    """The tools a request names: (table row, the words that named it, strength)."""
    out = []
    low = text.lower()
    for i, words in enumerate(_words()):
        m = words.search(low)
        if m:  # the request's own spelling (a lower() that kept the length kept the offsets)
            out.append((i, text[m.start() : m.end()] if len(low) == len(text) else m.group(0), _TOOLS[i][2]))
    return out


def tooling_files(
    con: sqlite3.Connection, text: str, r: Tooling = DEFAULT_RANKING.tooling
) -> tuple[dict[int, float], dict[int, str]]:
    """File id -> strength for the configuration files of the tools the request names (of one tool's,
    the `r.max_files` shallowest), and the reason to show for each; the strongest is the list's
    share of its weight in the fusion."""
    if len(text.split(None, 1)) < 2:
        return {}, {}  # a one-word request names a thing (`Lint`, a class), not a tool's job
    asked = asked_tools(text[:20_000])
    if not asked:
        return {}, {}
    cache = for_index(con)
    scores: dict[int, float] = {}
    why: dict[int, str] = {}
    for row, word, strength in asked:
        hits: list[tuple[int, str]] = cache.value(
            f"tooling_files:{row}", partial(_files_of, con, row), file_list_only=True
        )
        for fid, path in hits[: r.max_files]:
            w = strength * (1 - r.depth_discount * min(path.count("/"), 5))  # the shallower of equals first
            if w > scores.get(fid, 0.0):
                scores[fid] = w
                why[fid] = f"configures what the request names ({word})"
    return scores, why


def _files_of(con: sqlite3.Connection, row: int) -> list[tuple[int, str]]:
    """The indexed files of one tool (once per index state), shallowest first.
    SQL keeps the rows whose path holds a literal part of a pattern (LIKE is ASCII case-blind);
    the regex decides."""
    likes = _TOOLS[row][3].split()
    pattern, by_path = _file_pattern(row), _BY_PATH[row]
    rows = con.execute(
        f"SELECT id, path FROM files WHERE {' OR '.join(['path LIKE ?'] * len(likes))}", [f"%{h}%" for h in likes]
    )
    hits = [(fid, path) for fid, path in rows if pattern.search(path if by_path else path.rsplit("/", 1)[-1])]
    hits.sort(key=lambda h: (h[1].count("/"), h[1]))
    return hits
