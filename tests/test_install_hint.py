"""Errors that need an extra say the command for the install that runs cairn, never `pip install
'cairn[...]'` (on the package index `cairn` is another project)."""

from __future__ import annotations

import sys

from cairn.util import install_hint as ih


def test_the_hint_fits_the_install(monkeypatch):
    monkeypatch.setattr(ih, "install_source", lambda: ("/home/me/src/cairn", False))
    monkeypatch.setattr(sys, "prefix", "/home/me/.local/share/uv/tools/cairn-context")
    assert ih.install_hint("semantic") == "uv tool install --reinstall '/home/me/src/cairn[semantic]'"
    monkeypatch.setattr(sys, "prefix", "/home/me/.local/share/pipx/venvs/cairn-context")
    assert ih.install_hint("team") == "pipx install --force '/home/me/src/cairn[team]'"
    monkeypatch.setattr(sys, "prefix", "/home/me/src/cairn/.venv")
    monkeypatch.setattr(ih, "install_source", lambda: ("/home/me/src/cairn", True))
    assert ih.install_hint("team").endswith(" -m pip install -e '/home/me/src/cairn[team]'")


def test_this_checkout_is_named_and_never_the_other_cairn():
    source, _ = ih.install_source()
    hint = ih.install_hint("semantic")
    assert "'cairn[" not in hint and source in hint
