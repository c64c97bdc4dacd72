"""`cairn serve` as a real process: once over stdio, once over HTTP on 127.0.0.1 with and without the token.

Both servers are subprocesses with hard timeouts and are always terminated, so a hung server
fails the test instead of the suite.
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from helpers import make_git_repo

FILES = {"pkg/__init__.py": "", "pkg/core.py": "def resolve_route(path):\n    return path.strip('/')\n"}


def _text(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "text", None))


def test_stdio_subprocess(tmp_path, cairn_home):
    repo = make_git_repo(tmp_path / "svc", FILES)
    env = {**os.environ, "CAIRN_HOME": str(cairn_home), "CAIRN_PROJECT_DIR": str(repo)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "cairn", "serve"], env=env, cwd=str(tmp_path))

    async def main():
        with anyio.fail_after(60):
            async with Client(params) as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                found = await client.call_tool("search_code", {"query": "resolve route"})
                bad = await client.call_tool("read", {"path": "../../etc/passwd"})
                after = await client.call_tool("read", {"path": "pkg/core.py"})
                return tools, found, bad, after

    tools, found, bad, after = anyio.run(main)
    assert {"context", "map", "read", "remember", "projects"} <= tools
    assert not found.is_error and "pkg/core.py" in _text(found)
    assert bad.is_error and "not allowed" in _text(bad)
    assert not after.is_error and "resolve_route" in _text(after)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def http_server(tmp_path, cairn_home):
    repo = make_git_repo(tmp_path / "svc", FILES)
    port = _free_port()
    env = {**os.environ, "CAIRN_HOME": str(cairn_home), "CAIRN_PROJECT_DIR": str(repo)}
    env.pop("CAIRN_MCP_TOKEN", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "cairn", "serve", "--http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("server did not start: " + proc.stderr.read().decode()) from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp", cairn_home / "mcp-token"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _post(url: str, headers: dict[str, str]) -> int:
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    req = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"content-type": "application/json", "accept": "application/json, text/event-stream", **headers},
    )
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_http_requires_the_generated_token(http_server):
    url, token_file = http_server
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    token = token_file.read_text().strip()
    assert len(token) >= 32
    assert _post(url, {}) == 401
    assert _post(url, {"authorization": "Bearer wrong-token-wrong-token"}) == 401
    assert _post(url, {"authorization": token}) == 401  # scheme missing

    async def main():
        with anyio.fail_after(60):
            async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http:
                async with Client(streamable_http_client(url, http_client=http)) as client:
                    return await client.call_tool("map", {}), await client.call_tool("read", {"path": "/etc/passwd"})

    ok, bad = anyio.run(main)
    assert not ok.is_error and "pkg" in _text(ok)
    assert bad.is_error and "outside the project" in _text(bad)


def test_http_refuses_other_bind_addresses(run_cli, tmp_path):
    res = run_cli("serve", "--http", "--host", "0.0.0.0", "--port", "1", cwd=tmp_path)
    assert res.returncode == 1
    assert "127.0.0.1 only" in res.stderr and "--allow-remote" in res.stderr
    assert "Traceback" not in res.stderr


def test_token_from_env_or_one_private_file(monkeypatch, cairn_home):
    from cairn.agents.mcp.http import load_or_create_token
    from cairn.errors import CairnError

    monkeypatch.delenv("CAIRN_MCP_TOKEN", raising=False)
    first, where = load_or_create_token()
    assert where == str(cairn_home / "mcp-token")
    assert load_or_create_token()[0] == first  # generated once, then reused
    monkeypatch.setenv("CAIRN_MCP_TOKEN", "t" * 40)
    assert load_or_create_token() == ("t" * 40, "$CAIRN_MCP_TOKEN")
    monkeypatch.setenv("CAIRN_MCP_TOKEN", "short")
    with pytest.raises(CairnError, match="too short"):
        load_or_create_token()


def test_bind_check():
    from cairn.agents.mcp.http import check_bind
    from cairn.errors import CairnError

    for host in ("127.0.0.1", "localhost", "::1"):
        check_bind(host, allow_remote=False)
    check_bind("0.0.0.0", allow_remote=True)
    with pytest.raises(CairnError, match="--allow-remote"):
        check_bind("192.168.1.5", allow_remote=False)
