"""Every test runs with its own empty CAIRN_HOME, so nothing touches the real ~/.cairn."""

from __future__ import annotations

from pathlib import Path

import pytest

# Real Claude Code transcripts (MIT, see its SOURCES.md), copied so a fresh clone tests alone.
FIXTURE_TRANSCRIPTS = Path(__file__).resolve().parent / "fixtures" / "transcripts" / "claude-code"


@pytest.fixture(autouse=True)
def cairn_home(tmp_path_factory, monkeypatch) -> Path:
    home = tmp_path_factory.mktemp("cairn_home")
    monkeypatch.setenv("CAIRN_HOME", str(home))
    monkeypatch.setenv("CAIRN_WARM", "0")  # no warm hook server outliving a test (tests/agents/test_warm.py turn it on)
    monkeypatch.setenv(
        "CAIRN_WATCH", "0"
    )  # no file watcher outliving a test (tests/codemap/test_freshness.py turn it on)
    return home


class CliResult:
    """What a CLI run gave: exit code, stdout, stderr (the shape of subprocess.CompletedProcess)."""

    def __init__(self, args: list[str], returncode: int, stdout: str, stderr: str) -> None:
        self.args, self.returncode, self.stdout, self.stderr = args, returncode, stdout, stderr

    def __repr__(self) -> str:
        return f"CliResult({self.args!r}, rc={self.returncode}, stdout={self.stdout[:200]!r}, stderr={self.stderr[:200]!r})"


def _clear_process_caches() -> None:
    """Caches keyed by a path whose meaning depends on CAIRN_HOME (routes): fresh per CLI run."""
    from cairn.project import project_for_recorded_cwd
    from cairn.sessions.xray import project_of

    project_for_recorded_cwd.cache_clear()
    project_of.cache_clear()


def cli_in_process(args: tuple[str, ...], cwd: Path | None, input: str | None, env: dict | None) -> CliResult:
    """`cairn ARGS` run by `cairn.cli.main.main` in this process: same argument parsing, output
    redaction and exit codes as the installed command, without a Python start-up per call."""
    import io
    import os
    import sys

    from cairn.cli.main import main

    class _Stream(io.TextIOWrapper):
        def isatty(self) -> bool:
            return False

    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    out = _Stream(out_bytes, encoding="utf-8", write_through=True)
    err = _Stream(err_bytes, encoding="utf-8", write_through=True)
    stdin = _Stream(io.BytesIO((input or "").encode()), encoding="utf-8")
    saved_env = {k: os.environ.get(k) for k in (env or {})}
    saved = (sys.stdin, sys.stdout, sys.stderr, os.getcwd())
    try:
        os.environ.update({k: str(v) for k, v in (env or {}).items()})
        if cwd is not None:
            os.chdir(cwd)
        _clear_process_caches()
        sys.stdin, sys.stdout, sys.stderr = stdin, out, err
        code = main(list(args))
    except SystemExit as exc:  # argparse: --help (0) and usage errors (2)
        code = exc.code if isinstance(exc.code, int) else 0
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved[0], saved[1], saved[2]
        os.chdir(saved[3])
        for k, v in saved_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return CliResult(
        list(args),
        code,
        out_bytes.getvalue().decode("utf-8", "replace"),
        err_bytes.getvalue().decode("utf-8", "replace"),
    )


def cli_subprocess(
    args: tuple[str, ...], cwd: Path | None, input: str | None, env: dict | None, home: Path
) -> CliResult:
    """`python -m cairn ARGS` in a real process: for the hook and MCP stdio contracts."""
    import os
    import subprocess
    import sys

    full_env = {**os.environ, "CAIRN_HOME": str(home), **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-m", "cairn", *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        env=full_env,
        timeout=120,
    )
    return CliResult(list(args), proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def run_cli(cairn_home):
    """Run `cairn ARGS` (in-process; `hook` and `serve`, whose contract is a process, in a subprocess)."""

    def run(*args: str, cwd: Path | None = None, input: str | None = None, env: dict | None = None) -> CliResult:
        if args[:1] in (("hook",), ("serve",)):
            return cli_subprocess(args, cwd, input, env, cairn_home)
        return cli_in_process(args, cwd, input, env)

    return run


@pytest.fixture
def run_cli_process(cairn_home):
    """Run `python -m cairn ARGS` in a subprocess (the installed command's real process boundary)."""

    def run(*args: str, cwd: Path | None = None, input: str | None = None, env: dict | None = None) -> CliResult:
        return cli_subprocess(args, cwd, input, env, cairn_home)

    return run
