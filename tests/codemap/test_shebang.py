"""Scripts without a known extension are known by their `#!` line, and shell `source` makes edges (issue 35).

nvm was the case: 353 of its 420 files had no language (tests named `Running 'nvm use' works`,
`nvm-exec`, `bash_completion`) and its `\\. ../../nvm.sh` lines made no edge.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from cairn.codemap.imports import build_context, resolve_import
from cairn.codemap.indexer import index_project, open_index
from cairn.codemap.languages import language_for_path, shebang_language
from cairn.codemap.model import ImportRef
from cairn.codemap.parse import parse_source
from cairn.project import resolve_project
from helpers import make_git_repo


@pytest.mark.parametrize(
    ("first_line", "lang"),
    [
        ("#!/bin/sh", "bash"),
        ("#!/bin/bash -e", "bash"),
        ("#!/usr/bin/env bash", "bash"),
        ("#! /bin/zsh", "bash"),
        ("#!/usr/bin/env -S node --experimental-vm-modules", "javascript"),
        ("#!/usr/bin/env -S deno run --allow-read", "typescript"),
        ("#!/usr/bin/env python3.12", "python"),
        ("#!/usr/bin/python3 -u", "python"),
        ("#!/usr/bin/env -i PATH=/bin ruby -w", "ruby"),
        ("#!/usr/bin/env -u HOME perl", "perl"),
        ("#!/usr/bin/perl5.30 -T", "perl"),
        ("#!/usr/bin/env php", "php"),
        ("#!/usr/bin/env pwsh", "powershell"),
        ("#!/usr/bin/env lua5.4", "lua"),
        ("#!/usr/bin/env julia", "julia"),
        ("#!/usr/bin/env fish", "shell"),
        ("#!/usr/bin/awk -f", None),  # an interpreter no row claims
        ("#!/usr/bin/env", None),
        ("#!", None),
        ("echo hi", None),
    ],
)
def test_shebang_names_the_language(first_line: str, lang: str | None) -> None:
    head = (first_line + "\necho body\n").encode()
    assert shebang_language(head) == lang
    assert language_for_path("bin/tool", head) == lang  # no extension
    assert language_for_path("configure.in", head) == lang  # an extension no language claims


def test_a_known_name_wins_over_the_shebang() -> None:
    assert language_for_path("tool.py", b"#!/bin/sh\n") == "python"
    assert language_for_path("Rakefile", b"#!/usr/bin/env python\n") == "ruby"
    assert language_for_path("bin/tool") is None  # nothing read, nothing guessed


def test_backslashed_source_after_a_command_is_an_import() -> None:
    """tree-sitter-bash glued `\\. file` at the start of a line onto the command before it."""
    src = (
        b"#!/bin/sh\n\nnvm_prepare -ex\n\\. ../../../nvm.sh\n\\. ../../common.sh\n\nnvm_ls_remote\n"
        b'if [ -n "$X" ]; then\n  \\source "$NVM_DIR/bash_completion"\nfi\ntrue && \\. ./more.sh\n'
    )
    parsed = parse_source("bash", src)
    assert [(i.raw, i.line) for i in parsed.imports] == [
        ("../../../nvm.sh", 4),
        ("../../common.sh", 5),
        ("$NVM_DIR/bash_completion", 9),
        ("./more.sh", 11),
    ]
    assert {"nvm_prepare", "nvm_ls_remote"} <= set(parsed.refs)  # the commands around stay commands


def test_source_resolves_extensionless_targets_without_any_sh_file(tmp_path: Path) -> None:
    files = ["bin/tool", "lib/helpers", "test/fast/run it"]
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("#!/bin/sh\n")
    ctx = build_context(tmp_path, files)
    res = lambda path, raw: resolve_import(ctx, "bash", path, ImportRef(raw=raw, line=1))  # noqa: E731
    assert res("test/fast/run it", "../../lib/helpers") == ["lib/helpers"]
    assert res("bin/tool", '"$DIR/lib/helpers"') == ["lib/helpers"]  # a variable folder: by its unique tail


NVM_LIKE = {
    "nvm.sh": "#!/usr/bin/env bash\nnvm_echo() {\n  printf '%s\\n' \"$*\"\n}\nnvm() {\n  nvm_echo hi\n}\n",
    "nvm-exec": '#!/usr/bin/env bash\nDIR="$(command cd "$(dirname "$0")" && pwd)"\n'
    '\\. "$DIR/nvm.sh" --no-use\nnvm_echo run\n',
    "bash_completion": "#!/usr/bin/env bash\n__nvm() {\n  :\n}\n",
    "test/common.sh": 'assert_ok() {\n  "$@"\n}\n',
    "test/fast/Unit tests/nvm_echo": "#!/bin/sh\n\nset -e\n\\. ../../../nvm.sh\n\\. ../../common.sh\n\n"
    "assert_ok nvm_echo foo\n",
    "test/fast/Unit tests/nvm works": "#!/bin/sh\n\\. ../../../nvm.sh\nnvm\n",
    "test/mocks/uname_osx": "Darwin\n",
}


def test_an_nvm_like_tree_gets_languages_and_edges(tmp_path: Path) -> None:
    project = resolve_project(make_git_repo(tmp_path / "nvm", NVM_LIKE))
    index_project(project)
    con: sqlite3.Connection = open_index(project)
    try:
        langs = {r[0]: r[1] for r in con.execute("SELECT path, lang FROM files")}
        edges = set(
            map(
                tuple,
                con.execute(
                    "SELECT s.path, d.path FROM edges e JOIN files s ON s.id = e.src JOIN files d ON d.id = e.dst "
                    "WHERE e.kind = 'import'"
                ).fetchall(),
            )
        )
        defs = {r[0] for r in con.execute("SELECT name FROM symbols")}
    finally:
        con.close()
    assert {p: langs[p] for p in ("nvm-exec", "bash_completion", "test/fast/Unit tests/nvm_echo")} == dict.fromkeys(
        ("nvm-exec", "bash_completion", "test/fast/Unit tests/nvm_echo"), "bash"
    )
    assert langs["test/mocks/uname_osx"] is None  # no shebang: not guessed
    assert edges == {
        ("nvm-exec", "nvm.sh"),
        ("test/fast/Unit tests/nvm_echo", "nvm.sh"),
        ("test/fast/Unit tests/nvm_echo", "test/common.sh"),
        ("test/fast/Unit tests/nvm works", "nvm.sh"),
    }
    assert "__nvm" in defs
