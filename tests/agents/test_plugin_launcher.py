"""The plugin carries no environment: its launcher (plugin/bin/cairn), copied alone as Claude Code's
plugin cache holds it, finds a tool install of cairn-context, takes the fast hook path when it can see
the package's hook script, and never runs another project's `cairn` module."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SH = shutil.which("sh") or "/bin/sh"


def _plugin_copy(tmp: Path) -> Path:
    """The plugin folder alone, where no clone or .venv is beside it (the plugin cache)."""
    dest = tmp / "cache" / "cairn" / "0.1.0"
    shutil.copytree(REPO / "plugin", dest)
    return dest / "bin" / "cairn"


def _tool_venv(folder: Path, *, package_visible: bool) -> Path:
    """A venv laid out as `uv tool install cairn-context` leaves it: cairn in its site-packages
    (a link to this checkout's package) when package_visible, else importable only through a .pth."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    py = folder / "bin" / "python"
    site = Path(
        subprocess.check_output([py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], text=True).strip()
    )
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    if package_visible:
        (site / "cairn").symlink_to(REPO / "src" / "cairn")
    else:
        (site / "src.pth").write_text(str(REPO / "src") + "\n")
    return py


def _env(tmp: Path, **extra: str) -> dict[str, str]:
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp),
        "CAIRN_HOME": str(tmp / "cairn-home"),
        "CAIRN_WARM": "0",
        **extra,
    }


def _read_guard(launcher: Path, tmp: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    big = tmp / "big.txt"
    big.write_text("".join(f"line {i}\n" for i in range(2000)))
    payload = {"session_id": "p1", "cwd": str(tmp), "hook_event_name": "PreToolUse", "tool_name": "Read"}
    payload["tool_input"] = {"file_path": str(big)}
    return subprocess.run(
        [SH, str(launcher), "hook", "PreToolUse"], input=json.dumps(payload), capture_output=True, text=True,
        env=env, timeout=120,
    )  # fmt: skip


@pytest.mark.parametrize("package_visible", [True, False])
def test_a_uv_tool_install_is_found_from_the_plugin_cache(tmp_path, package_visible):
    launcher = _plugin_copy(tmp_path)
    _tool_venv(tmp_path / "share" / "uv" / "tools" / "cairn-context", package_visible=package_visible)
    env = _env(tmp_path, XDG_DATA_HOME=str(tmp_path / "share"))
    r = subprocess.run([SH, str(launcher), "--version"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("cairn "), r.stderr
    # a hook through bash's hook.sh (the package folder seen) or the CLI (it is not): the same answer
    r = _read_guard(launcher, tmp_path, env)
    assert r.returncode == 2 and "read guard" in r.stderr, r.stderr


def test_a_cairn_context_command_on_path_is_followed_to_its_interpreter(tmp_path):
    launcher = _plugin_copy(tmp_path)
    py = _tool_venv(tmp_path / "venvs" / "mine", package_visible=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    command = bin_dir / "cairn-context"
    command.write_text(f"#!{py}\nimport sys\nfrom cairn.cli.main import main\nsys.exit(main())\n")
    command.chmod(0o755)
    env = _env(tmp_path, PATH=f"{bin_dir}:/usr/bin:/bin")
    r = subprocess.run([SH, str(launcher), "--version"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("cairn "), r.stderr


def test_another_projects_cairn_module_is_never_run(tmp_path):
    """cairn-memory and the `cairn` package on the index both install a `cairn` module: a python3 that
    imports one is not ours; the launcher says how to install cairn instead of running it."""
    launcher = _plugin_copy(tmp_path)
    other = tmp_path / "other-site" / "cairn"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("")
    (other / "cli.py").write_text("raise SystemExit('the other cairn ran')\n")
    env = _env(tmp_path, PYTHONPATH=str(other.parent))
    r = subprocess.run([SH, str(launcher), "search", "x"], capture_output=True, text=True, env=env, timeout=120)
    assert "the other cairn ran" not in r.stderr
    if r.returncode == 127:  # no cairn on this machine outside the checkout's venv
        assert "uv tool install" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([SH, str(launcher), "hook", "Stop"], input="{}", capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "Traceback" not in r.stderr


def test_the_plugin_is_small(tmp_path):
    """What Claude Code copies into its plugin cache: the plugin folder, kilobytes, no environment."""
    market = json.loads((REPO / ".claude-plugin" / "marketplace.json").read_text())
    (entry,) = market["plugins"]
    folder = (REPO / entry["source"]).resolve()
    assert folder == REPO / "plugin"
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) < 100_000
    assert not any(part in (".venv", "src", "node_modules") for p in files for part in p.relative_to(folder).parts)
    os.access(folder / "bin" / "cairn", os.X_OK) or pytest.fail("the launcher is not executable")
