"""`cairn doctor` says which `cairn` the PATH runs: this install, another copy of cairn, or another
project's command (three packages on the index install a `cairn`)."""

from __future__ import annotations

import sys
from pathlib import Path

from cairn.agents.doctor import Check
from cairn.agents.doctor_path import command_on_path


def check_command_on_path() -> Check:
    return Check("command", *command_on_path())


def _command(bin_dir: Path, python: Path) -> None:
    bin_dir.mkdir(parents=True, exist_ok=True)
    cmd = bin_dir / "cairn"
    cmd.write_text(f"#!{python}\nimport sys\nsys.exit(0)\n")
    cmd.chmod(0o755)


def test_another_projects_cairn_first_on_path_is_named(tmp_path, monkeypatch):
    other = tmp_path / "other-venv"
    (other / "lib" / "python3.11" / "site-packages" / "cairn").mkdir(parents=True)  # cairn-memory's module
    (other / "lib" / "python3.11" / "site-packages" / "cairn_memory-2.2.1.dist-info").mkdir()
    _command(other / "bin", other / "bin" / "python")
    monkeypatch.setenv("PATH", str(other / "bin"))
    check = check_command_on_path()
    assert check.status == "warn" and "another project's command" in check.detail and "cairn-context" in check.detail


def test_another_copy_of_cairn_first_on_path_is_named(tmp_path, monkeypatch):
    copy = tmp_path / "old-venv"
    (copy / "lib" / "python3.11" / "site-packages" / "cairn_context-0.1.0.dist-info").mkdir(parents=True)
    _command(copy / "bin", copy / "bin" / "python")
    monkeypatch.setenv("PATH", str(copy / "bin"))
    check = check_command_on_path()
    assert check.status == "warn" and "another copy of cairn" in check.detail


def test_this_install_or_none_is_fine(tmp_path, monkeypatch):
    here = tmp_path / "bin"
    _command(here, Path(sys.prefix) / "bin" / "python")
    monkeypatch.setenv("PATH", str(here))
    assert check_command_on_path().status == "ok"
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    check = check_command_on_path()
    assert check.status == "ok" and "no `cairn` on PATH" in check.detail
