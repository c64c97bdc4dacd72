"""The README's command table, `--root` claim and language list agree with the code."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from cairn.cli.main import build_parser
from cairn.codemap.languages import REGISTRY

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _commands() -> dict[str, argparse.ArgumentParser]:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _leaves(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return [leaf for s in subs for p in s.choices.values() for leaf in _leaves(p)] if subs else [parser]


def _table() -> str:
    return README.split("## Everyday commands", 1)[1].split("\n\n", 2)[1]


def test_every_command_is_in_the_table_and_every_row_is_a_command():
    commands = _commands()
    named = set(re.findall(r"`cairn ([a-z][a-z-]*)", _table()))
    assert named == set(commands), f"missing from README: {set(commands) - named}, unknown: {named - set(commands)}"
    for group, subs in re.findall(r"`cairn ([a-z-]+) ((?:[a-z]+\\?\|)+[a-z]+)", _table()):
        choices = {c for p in _leaves(commands[group]) for c in [p.prog.split()[-1]]}
        assert set(subs.replace("\\", "").split("|")) <= choices, (group, subs)


def test_the_root_claim_names_exactly_the_commands_without_root():
    sentence = README.split("Every command that works on one project takes `--root DIR`", 1)[1].split("do not", 1)[0]
    claimed = set(re.findall(r"`([a-z-]+(?: [a-z-]+)?)`", sentence))
    without = set()
    for name, parser in _commands().items():
        lacking = [
            leaf for leaf in _leaves(parser) if "--root" not in {o for a in leaf._actions for o in a.option_strings}
        ]
        if len(lacking) == len(_leaves(parser)):
            without.add(name)  # the whole command
        else:
            without |= {f"{name} {leaf.prog.split()[-1]}" for leaf in lacking}
    assert claimed == without


def test_the_language_list_is_the_registry():
    listed = README.split("PageRank centrality for ", 1)[1].split(" (tree-sitter)", 1)[0]
    names = {n.strip() for n in re.split(r",|\band\b", listed.replace("\n", " ")) if n.strip()}
    alias = {
        "c++": "cpp",
        "objective-c": "objc",
        "c#": "csharp",
        "f#": "fsharp",
        "typescript/tsx": "typescript tsx",
        "hcl/terraform": "hcl",
        "bash (": "bash",
        "bats)": "",
    }
    readme = {w for n in names for w in alias.get(n.lower(), n.lower()).split()}
    parsed = {lang.name for lang in REGISTRY if lang.kind == "code" and lang.grammar} - {"ocaml_interface"}
    assert readme == parsed, f"README lacks {parsed - readme}, README has extra {readme - parsed}"
