#!/usr/bin/env python3
"""Monorepo scale: build a synthetic monorepo from public repositories, then time cairn on it.

The tree is several fetched repositories side by side under their own folder (the shape of a
company monorepo), taken in order until the file target is reached; past the sum of them, the
whole set is copied again under `copyN/` prefixes. The tree is committed into one git
repository (as a monorepo is). Repositories come from bare git directories
(`BENCH_MIRRORS`-style pattern, default /work/.mirror/{owner}+{name}/repo), written with
bench/materialize.py (blobs a snapshot lacks are skipped).

Printed, per tree: files, the parse floor (read + tree-sitter parse of every file the scanner
keeps, one process, and that CPU work divided over the cores), cold `cairn index` (fresh
CAIRN_HOME, child process: wall time and peak RSS), no-change refresh, one-file-change refresh
(a function appended to a source file, then removed again), CLI `cairn search` p50/p95 (each a
new process, refreshing first as the CLI does), the MCP search tool p50 (in a served process),
the prompt hook p50 (`cairn hook UserPromptSubmit`, cold process) and the index size on disk.

Usage: python bench/monorepo.py --files 20000 [--files 100000] [--work DIR] [--runs 20]
       [--keep] [--skip-floor]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from materialize import materialize  # noqa: E402

REPOS = [  # biggest first: a few large code bases, then many small ones
    "hashicorp/terraform", "JetBrains/Exposed", "cometbft/cometbft", "trpc/trpc", "dimagi/commcare-cloud",
    "haskell/aeson", "JanDeDobbeleer/oh-my-posh", "cisagov/manage.get.gov", "vuejs/core",
    "specstoryai/getspecstory", "ClickHouse/terraform-provider-clickhouse", "Alamofire/Alamofire", "libuv/libuv",
    "gitleaks/gitleaks", "alphagov/govuk-aws", "ClusterCockpit/cc-backend", "bats-core/bats-core",
    "serde-rs/serde", "PackmindHub/context-evaluator", "ryoppippi/ccusage", "google/gson", "madshn/localpush",
    "expressjs/express", "rack/rack", "encode/httpx", "gin-gonic/gin", "pallets/click", "psf/requests",
    "elixir-ecto/ecto", "elixir-plug/plug", "go-chi/chi", "folke/lazy.nvim", "Hejsil/zig-clap",
    "npryce/adr-tools", "adr/madr", "reactjs/rfcs",
]
PROMPT = "where are provider schemas cached between plan and apply"
QUERIES = ["provider schema cache", "how is the state file locked", "parse configuration blocks",
           "router middleware chain", "reactive effect scheduler", "json decoding of records",
           "transaction isolation level", "where are secrets redacted", "http client retry on timeout",
           "query builder join clause"]


def git_dir(pattern: str, repo: str) -> str:
    owner, name = repo.split("/")
    return pattern.format(owner=owner, name=name)


def count_files(git: str) -> int:
    out = subprocess.run(["git", f"--git-dir={git}", "ls-tree", "-r", "--name-only", "-z", "HEAD"],
                         capture_output=True, check=True).stdout
    return out.count(b"\0")


def build(dest: Path, target: int, pattern: str) -> int:
    """Write the monorepo of about `target` files into `dest` (a git repository, one commit)."""
    if (dest / ".git").exists():
        return int(subprocess.run(["git", "-C", str(dest), "ls-files", "-z"], capture_output=True,
                                  check=True).stdout.count(b"\0"))
    dest.mkdir(parents=True, exist_ok=True)
    written = 0
    first = dest / "_first"
    usable = [r for r in REPOS if os.path.isdir(git_dir(pattern, r))]
    for repo in usable:  # the first set, materialized once
        if written >= target:
            break
        out = first / repo.split("/")[1]
        w, _ = materialize(git_dir(pattern, repo), "HEAD", out)
        written += w
    copy = 0
    for item in sorted(first.iterdir()):
        shutil.move(str(item), str(dest / item.name))
    first.rmdir()
    base = written
    while written < target:  # past what the repositories hold: the same trees under other prefixes
        copy += 1
        prefix = dest / f"copy{copy}"
        for item in sorted(dest.iterdir()):
            if item.name.startswith(("copy", ".git")):
                continue
            shutil.copytree(item, prefix / item.name, symlinks=True)
        written += base
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.invalid",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.invalid"}
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "monorepo"]):
        subprocess.run(["git", "-C", str(dest), *cmd], check=True, env=env, capture_output=True)
    return written
