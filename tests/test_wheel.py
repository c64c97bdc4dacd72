"""The built wheel works without the source tree: installed into a fresh venv, its `cairn` indexes,
searches and serves MCP (grammar queries, the hook script and other package data included), and
`cairn-context` is the same command.

The fresh venv has no pip and nothing from the package index (tests run offline): the wheel is
installed with this interpreter's pip, and the dependencies are this environment's site-packages,
added by a .pth line (which does not run the editable install's own .pth, so `cairn` can only come
from the wheel).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import anyio
from mcp import Client, StdioServerParameters

from helpers import make_git_repo

REPO = Path(__file__).resolve().parents[1]
FILES = {
    "shop/__init__.py": "",
    "shop/billing.py": "def charge_card(amount: int) -> bool:\n    return amount > 0\n",
    "shop/api.py": "from shop.billing import charge_card\n\n\ndef checkout(total):\n    return charge_card(total)\n",
    "web/app.ts": "export function renderCart(items: string[]): string {\n  return items.join(',');\n}\n",
}


def _build_wheel(tmp: Path) -> Path:
    """The wheel, built from a copy of the sources (a build in the clone would leave build/ there)."""
    src = tmp / "src-copy"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, src / name)
    shutil.copytree(REPO / "src" / "cairn", src / "src" / "cairn", ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp / "dist"
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    (wheel,) = out.glob("cairn_context-*.whl")
    return wheel


def _fresh_venv(tmp: Path, wheel: Path) -> Path:
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site = Path(
        subprocess.check_output([py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], text=True).strip()
    )
    (site / "deps.pth").write_text(sysconfig.get_path("purelib") + "\n")  # the dependencies, not cairn
    r = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    return venv


def test_the_wheel_indexes_searches_and_serves_without_the_source_tree(tmp_path, cairn_home):
    wheel = _build_wheel(tmp_path)
    venv = _fresh_venv(tmp_path, wheel)
    bin_dir = venv / "bin"
    repo = make_git_repo(tmp_path / "proj", FILES)
    env = {**os.environ, "CAIRN_HOME": str(cairn_home), "CAIRN_WARM": "0", "PYTHONPATH": ""}

    where = subprocess.check_output(
        [bin_dir / "python", "-c", "import cairn; print(cairn.__file__)"], text=True, env=env
    ).strip()
    assert Path(where).is_relative_to(venv), where  # the wheel's copy, not the clone's src/
    pkg = Path(where).parent
    assert (pkg / "agents" / "hooks" / "hook.sh").is_file()  # package data: what the plugin launcher runs
    assert list((pkg / "codemap").rglob("*.scm")), "grammar queries missing from the wheel"

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(bin_dir / "cairn"), *args], capture_output=True, text=True, env=env, cwd=repo, timeout=300
        )

    r = cli("index", "--root", str(repo))
    assert r.returncode == 0, r.stderr
    r = cli("search", "charge the card", "--json")
    assert r.returncode == 0, r.stderr
    paths = [h["path"] for h in json.loads(r.stdout)["results"]]
    assert "shop/billing.py" in paths[:2], paths
    r = cli("search", "render the cart", "--json")  # the TypeScript grammar, from the wheel's data
    assert "web/app.ts" in [h["path"] for h in json.loads(r.stdout)["results"]][:2]
    same = subprocess.run([str(bin_dir / "cairn-context"), "--version"], capture_output=True, text=True, env=env)
    assert same.returncode == 0 and same.stdout == cli("--version").stdout

    params = StdioServerParameters(command=str(bin_dir / "cairn"), args=["serve"], env=env, cwd=str(repo))

    async def main():
        with anyio.fail_after(120):
            async with Client(params) as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                found = await client.call_tool("search_code", {"query": "checkout total"})
                return tools, found

    tools, found = anyio.run(main)
    assert {"search_code", "map", "read"} <= tools
    assert not found.is_error and "shop/api.py" in "".join(getattr(c, "text", "") for c in found.content)
