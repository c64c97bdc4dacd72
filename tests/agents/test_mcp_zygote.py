"""The warm MCP zygote: `cairn serve` through it gives a real SDK client what the inline server gives,
falls back inline whenever it must, and leaves no process behind."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from cairn import __version__
from cairn.warm import zygote, zygote_client
from helpers import make_git_repo
from helpers import wait_for as _wait_for

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the zygote runs on Linux only")

FILES = {"pkg/__init__.py": "", "pkg/core.py": "def resolve_route(path):\n    return path.strip('/')\n"}


def _pid_files(home: Path) -> list[Path]:
    return sorted((home / "run").glob("mcp-*.pid")) if (home / "run").is_dir() else []


def _children(pid: int) -> list[int]:
    """Live processes whose parent is `pid` (Linux /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:  # a zombie (not reaped yet by its parent) is not alive
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


@pytest.fixture
def served(tmp_path, cairn_home):
    """A project, the environment of a warm `cairn serve`, and the zygotes stopped afterwards."""
    repo = make_git_repo(tmp_path / "svc", FILES)
    env = {**os.environ, "CAIRN_HOME": str(cairn_home), "CAIRN_PROJECT_DIR": str(repo), "CAIRN_WARM": "1"}
    yield repo, env
    for pid_file in _pid_files(cairn_home):
        try:
            pid = int(pid_file.read_text())
            os.kill(pid, signal.SIGTERM)
            _wait_for(lambda pid=pid: not _alive(pid), 10)
        except (OSError, ValueError):
            pass


def _zygote_pid(home: Path) -> int:
    assert _wait_for(lambda: bool(_pid_files(home))), "no zygote started"
    return int(_pid_files(home)[0].read_text())


async def _session(env: dict, cwd: Path, during=None) -> tuple[list, str, str]:
    params = StdioServerParameters(command=sys.executable, args=["-m", "cairn", "serve"], env=env, cwd=str(cwd))
    with anyio.fail_after(60):
        async with Client(params) as client:
            tools = sorted((t.name, t.description, t.input_schema) for t in (await client.list_tools()).tools)
            found = await client.call_tool("search_code", {"query": "resolve route"})
            read = await client.call_tool("read", {"path": "pkg/core.py"})
            if during:
                during()
    assert not found.is_error and not read.is_error
    return tools, found.content[0].text, read.content[0].text


def test_inline_first_then_the_zygote_answers_the_same(served, cairn_home, tmp_path):
    repo, env = served
    first = anyio.run(_session, env, tmp_path)  # no zygote: inline, and one is started for the next
    pid = _zygote_pid(cairn_home)
    seen: list[list[int]] = []
    second = anyio.run(_session, env, tmp_path, lambda: seen.append(_children(pid)))
    assert second == first
    assert "pkg/core.py" in first[1] and "resolve_route" in first[2]
    assert len(seen[0]) == 1  # the second server was the zygote's child...
    assert _wait_for(lambda: not _alive(seen[0][0]), 10)  # ...and it ended with the client's stdin
    assert _children(pid) == [] and _alive(pid)


def test_off_switch_serves_inline_and_starts_nothing(served, cairn_home, tmp_path):
    repo, env = served
    tools, found, _ = anyio.run(_session, {**env, "CAIRN_WARM": "0"}, tmp_path)
    assert "pkg/core.py" in found
    time.sleep(0.5)
    assert _pid_files(cairn_home) == []


def _start_zygote(env: dict, home: Path) -> int:
    subprocess.Popen(
        [sys.executable, "-m", "cairn", "serve", "--zygote"],
        env=env,
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    pid = _zygote_pid(home)
    assert _wait_for(lambda: zygote_client.alive(str(_pid_files(home)[0].with_suffix(".sock"))))
    return pid


@pytest.fixture(scope="module")
def one_zygote(tmp_path_factory):
    """One zygote for the tests that only need one running (its own CAIRN_HOME), stopped afterwards."""
    home = tmp_path_factory.mktemp("zygote_home")
    repo = make_git_repo(tmp_path_factory.mktemp("zygote_repo") / "svc", FILES)
    env = {**os.environ, "CAIRN_HOME": str(home), "CAIRN_PROJECT_DIR": str(repo), "CAIRN_WARM": "1", "CAIRN_WATCH": "0"}
    pid = _start_zygote(env, home)
    yield repo, env, pid
    os.kill(pid, signal.SIGTERM)
    _wait_for(lambda: not _alive(pid), 10)


@pytest.mark.parametrize("how", ["stdin closed", "SIGTERM", "SIGKILL"])
def test_the_child_ends_with_its_client(one_zygote, how):
    repo, env, pid = one_zygote
    client = subprocess.Popen(
        [sys.executable, "-m", "cairn", "serve"],
        env=env,
        cwd=repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert _wait_for(lambda: len(_children(pid)) == 1), "the client was not served by the zygote"
        child = _children(pid)[0]
        if how == "stdin closed":
            client.stdin.close()
            assert client.wait(timeout=30) == 0
        elif how == "SIGTERM":  # forwarded to the child: the agent stopping its server stops it
            client.send_signal(signal.SIGTERM)
            assert client.wait(timeout=30) == 128 + signal.SIGTERM
        else:  # the client cannot forward anything: the child notices its socket closing
            client.kill()
            client.wait(timeout=30)
        assert _wait_for(lambda: not _alive(child), 10)
    finally:
        if client.poll() is None:
            client.kill()
            client.wait(timeout=10)
    assert _alive(pid)


def test_a_stale_zygote_is_left_and_replaced(served, cairn_home, tmp_path):
    repo, env = served
    pid = _start_zygote(env, cairn_home)
    sock = _pid_files(cairn_home)[0].with_suffix(".sock")
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(str(sock))
    conn.close()
    tools, found, _ = anyio.run(_session, env, tmp_path)
    assert "pkg/core.py" in found and _alive(pid)  # a probe, then a session, served: it still runs
    zygote_module = Path(zygote.__file__)
    mtime = zygote_module.stat().st_mtime
    os.utime(zygote_module, (mtime, mtime + 1))
    try:
        again = anyio.run(_session, env, tmp_path)  # answered inline, not by the stale zygote
    finally:
        os.utime(zygote_module, (mtime, mtime))
    assert again[1] == found
    assert _wait_for(lambda: not _alive(pid), 10)
    # the inline server started its successor (stopped by the fixture)
    assert _wait_for(lambda: _pid_files(cairn_home) and int(_pid_files(cairn_home)[0].read_text()) != pid)


# ------------------------------------------------------------------ the zygote's refusals, in-process


def _request(header: bytes, fds: list[int], seen: dict[str, float]) -> tuple[bool, bytes]:
    """Send `header` and `fds` to zygote._answer over a socket pair: (keep serving?, its reply)."""
    ours, theirs = socket.socketpair()
    with ours, theirs:
        socket.send_fds(ours, [header], fds)
        ours.shutdown(socket.SHUT_WR)
        keep = zygote._answer(theirs, theirs, lambda argv: 0, seen)
        return keep, ours.recv(100)


def _header(env: dict[str, str], version: str = __version__, magic: bytes = zygote_client.MAGIC) -> bytes:
    payload = b"\0".join([b"/", b"18", b"1", b"serve", *(f"{k}={v}".encode() for k, v in env.items())])
    return magic + b"\n" + version.encode() + b"\n" + b"%d" % len(payload) + b"\n" + payload


def test_the_zygote_refuses_what_it_must_not_serve(tmp_path, monkeypatch):
    fds = [0, 1, 2]
    mine = {k: v for k, v in os.environ.items() if k.startswith("CAIRN_")}
    source = tmp_path / "module.py"
    source.write_text("x = 1\n")
    seen = {str(source): source.stat().st_mtime}
    assert _request(_header(mine, "0.0.0-other"), fds, seen) == (False, zygote_client.FALLBACK)  # other version: leave
    assert _request(_header(mine, magic=b"other/1"), fds, seen) == (True, zygote_client.FALLBACK)
    assert _request(_header({**mine, "CAIRN_CONFIG": "/elsewhere"}), fds, seen) == (True, zygote_client.FALLBACK)
    assert _request(_header(mine), fds[:2], seen) == (True, zygote_client.FALLBACK)  # stdio incomplete
    hold = threading.Event()
    running = threading.Thread(target=hold.wait, args=(10,))
    running.start()  # a thread running: a fork would lose it (and pytest's process must not fork)
    try:
        assert _request(_header(mine), fds, seen) == (True, zygote_client.FALLBACK)
    finally:
        hold.set()
        running.join()
    os.utime(source, (1, 1))
    assert _request(_header(mine), fds, seen) == (False, zygote_client.FALLBACK)  # stale: leave


def test_the_client_serves_inline_without_a_usable_zygote(cairn_home, monkeypatch):
    monkeypatch.setenv("CAIRN_WARM", "1")
    zygote_client.WANTED.clear()
    assert zygote_client.run(["serve"]) is None and zygote_client.WANTED  # none: inline, start one
    zygote_client.WANTED.clear()
    assert zygote_client.run(["serve", "--http"]) is None and not zygote_client.WANTED
    path = zygote_client.socket_path()
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    got: list[tuple[bytes, int]] = []

    def refuse() -> None:  # a zygote that answers "fallback" (stale, another version...)
        conn, _ = srv.accept()
        with conn:
            data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
            got.append((data, len(fds)))
            for fd in fds:
                os.close(fd)
            conn.sendall(zygote_client.FALLBACK)

    t = threading.Thread(target=refuse)
    t.start()
    try:
        assert zygote_client.run(["serve", "--root", "x"]) is None
    finally:
        t.join(10)
        srv.close()
    assert got[0][1] == 3 and got[0][0].startswith(zygote_client.MAGIC + b"\n" + __version__.encode())
    assert b"\0serve\0--root\0x\0" in got[0][0]
    monkeypatch.setenv("CAIRN_WARM", "0")
    assert zygote_client.run(["serve"]) is None


def test_session_start_starts_the_zygote_once(served, cairn_home, monkeypatch):
    from cairn.agents.hooks.session_start import warm_mcp

    repo, env = served
    monkeypatch.setenv("CAIRN_WARM", "1")
    warm_mcp()  # no `cairn serve` has run on this machine: a user of the hooks alone gets no zygote
    time.sleep(0.3)
    assert not list(_pid_files(cairn_home))
    zygote_client.mark_used()  # what every stdio `cairn serve` does
    warm_mcp()
    pid = _zygote_pid(cairn_home)
    assert _wait_for(lambda: zygote_client.alive())
    warm_mcp()  # one answers: nothing started
    time.sleep(0.3)
    assert [int(p.read_text()) for p in _pid_files(cairn_home)] == [pid]


def test_the_header_carries_the_start_as_the_client_sees_it(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CAIRN_PROJECT_DIR", "/some/project")
    old = os.umask(0o027)
    try:
        magic, version, size, rest = zygote_client.parse_header(zygote_client.header(["serve", "--root", "a b"]))
    finally:
        os.umask(old)
    assert (magic, version.decode(), size) == (zygote_client.MAGIC, __version__, len(rest))
    cwd, mask, argv, env = zygote_client.parse_payload(rest)
    assert (cwd, mask, argv) == (str(tmp_path), 0o027, ["serve", "--root", "a b"])
    assert env == dict(os.environ)


def test_doctor_names_the_running_zygote(one_zygote, monkeypatch):
    from cairn.agents.doctor_wiring import warm_start

    repo, env, pid = one_zygote
    monkeypatch.setenv("CAIRN_HOME", env["CAIRN_HOME"])
    monkeypatch.setenv("CAIRN_WARM", "1")
    assert warm_start() == f"warm start: zygote running (pid {pid})"
    monkeypatch.setenv("CAIRN_HOME", str(Path(env["CAIRN_HOME"]) / "elsewhere"))
    assert warm_start() == "warm start: no zygote now (the next `cairn serve` starts one)"
    monkeypatch.setenv("CAIRN_WARM", "0")
    assert warm_start().startswith("warm start off")
