"""Where each agent reads its MCP servers, instructions and hooks: one table row per agent.

Why a table: eleven agents differ only in data (file, format, key, entry shape, which instruction
file), so one engine (apply.py) handles them all and adding an agent is adding a row. A row
says how sure we are: formats from an agent's own docs are edited; formats only seen in third-
party pages, YAML, and JSON-with-comments (VS Code, Zed, OpenCode) are printed for the user to
paste (`Target.auto = False`), because a wrong guess there breaks the user's editor config.
Sources: each agent's own documentation (Claude Code `mcp` and `hooks` pages at
https://code.claude.com/docs/en/, Codex's config reference, Gemini CLI's settings, VS Code's MCP
page); rows with `auto=False` rest on third-party pages.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

SERVER_NAME = "cairn"
HOOK_MARKER = " -m cairn hook "

Paths = Callable[[Path, Path], Path]  # (home, project root) -> file


@dataclass(frozen=True)
class Target:
    """One file cairn writes (or prints for the user) for an agent."""

    role: str  # mcp | instructions | hooks
    path: Paths
    fmt: str  # json | jsonc | toml | yaml | block | file | hooks-json
    auto: bool = True  # False: print the snippet, never write
    keypath: tuple[str, ...] = ()  # json/toml: where the servers live ("mcpServers",)
    needs_parent: bool = False  # write only when the agent's own folder exists (it is installed)
    note: str = ""


@dataclass(frozen=True)
class Agent:
    name: str
    title: str
    entry: str  # the server entry style, see server_entry()
    pin_project: bool  # GUI apps start servers in an unknown cwd: pin CAIRN_PROJECT_DIR
    targets: tuple[Target, ...] = field(default_factory=tuple)
    notes: str = ""
    # (table, key) set to true in the agent's TOML config when cairn writes its hooks: Codex
    # ignores hooks.json unless `[features] hooks = true` (integration.md §5); `hook_flag_old`: the
    # key's older names, whose `false` cairn respects (Codex 0.171 reads `codex_hooks` as `hooks`
    # and calls it deprecated on every start)
    hook_flag: tuple[str, str] | None = None
    hook_flag_old: tuple[str, ...] = ()


def _app_support(home: Path, *parts: str) -> Path:
    """The per-user application folder on this OS (macOS Application Support, else XDG config)."""
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / Path(*parts)
    return home / ".config" / Path(*parts)


def _instructions(rel: str, fmt: str = "block", auto: bool = True, note: str = "") -> Target:
    return Target("instructions", lambda home, root: root / rel, fmt, auto=auto, note=note)


AGENTS: dict[str, Agent] = {
    a.name: a
    for a in (
        Agent(
            "codex",
            "OpenAI Codex CLI",
            "standard",
            pin_project=False,
            targets=(
                Target(
                    "mcp",
                    lambda h, r: h / ".codex" / "config.toml",
                    "toml",
                    keypath=("mcp_servers",),
                    needs_parent=True,
                ),
                _instructions("AGENTS.md"),
                Target(
                    "hooks",
                    lambda h, r: h / ".codex" / "hooks.json",
                    "hooks-json",
                    needs_parent=True,
                    note="SessionStart and UserPromptSubmit; Codex asks you to trust new hooks once",
                ),
            ),
            hook_flag=("features", "hooks"),
            hook_flag_old=("codex_hooks",),
        ),
        Agent(
            "gemini",
            "Gemini CLI",
            "standard",
            pin_project=False,
            targets=(
                Target(
                    "mcp",
                    lambda h, r: h / ".gemini" / "settings.json",
                    "json",
                    keypath=("mcpServers",),
                    needs_parent=True,
                ),
                _instructions("GEMINI.md"),
                Target(
                    "hooks",
                    lambda h, r: h / ".gemini" / "settings.json",
                    "hooks-json",
                    auto=False,
                    note="Gemini CLI hook events (BeforeAgent, ...) and contract are unverified: printed only",
                ),
            ),
        ),
        Agent(
            "cursor",
            "Cursor",
            "standard",
            pin_project=True,
            targets=(
                Target(
                    "mcp",
                    lambda h, r: r / ".cursor" / "mcp.json",
                    "json",
                    keypath=("mcpServers",),
                    note="project file .cursor/mcp.json (restart Cursor after connecting)",
                ),
                _instructions(".cursor/rules/cairn.mdc", "file"),
            ),
        ),
        Agent(
            "vscode",
            "VS Code (GitHub Copilot agent mode)",
            "vscode",
            pin_project=True,
            targets=(
                Target(
                    "mcp",
                    lambda h, r: r / ".vscode" / "mcp.json",
                    "jsonc",
                    auto=False,
                    keypath=("servers",),
                    note="JSON with comments: printed (or run `code --add-mcp`)",
                ),
                _instructions(".github/copilot-instructions.md"),
            ),
        ),
        Agent(
            "windsurf",
            "Windsurf (Cascade)",
            "standard",
            pin_project=True,
            targets=(
                Target(
                    "mcp",
                    lambda h, r: h / ".codeium" / "windsurf" / "mcp_config.json",
                    "json",
                    keypath=("mcpServers",),
                    needs_parent=True,
                    note="global file: serves the project it was connected in",
                ),
                _instructions(".windsurf/rules/cairn.md", "file", auto=False, note="rules folder unverified: printed"),
            ),
        ),
        Agent(
            "cline",
            "Cline (VS Code extension)",
            "standard",
            pin_project=True,
            targets=(
                Target(
                    "mcp",
                    lambda h, r: (
                        _app_support(h, "Code", "User", "globalStorage", "saoudrizwan.claude-dev", "settings")
                        / "cline_mcp_settings.json"
                    ),
                    "json",
                    keypath=("mcpServers",),
                    needs_parent=True,
                    note="global file: serves the project it was connected in",
                ),
                _instructions(
                    ".clinerules/cairn.md", "file", auto=False, note=".clinerules layout unverified: printed"
                ),
            ),
        ),
        Agent(
            "opencode",
            "OpenCode",
            "opencode",
            pin_project=False,
            targets=(
                Target(
                    "mcp",
                    lambda h, r: r / "opencode.json",
                    "jsonc",
                    auto=False,
                    keypath=("mcp",),
                    note="format differs between OpenCode versions (v2 nests under mcp.servers): printed",
                ),
                _instructions("AGENTS.md", auto=False, note="OpenCode reading AGENTS.md is unverified: printed"),
            ),
        ),
        Agent(
            "continue",
            "Continue",
            "continue",
            pin_project=True,
            targets=(
                Target(
                    "mcp",
                    lambda h, r: r / ".continue" / "mcpServers" / "cairn.yaml",
                    "yaml",
                    auto=False,
                    note="YAML, format unverified: printed",
                ),
                _instructions(".continue/rules/cairn.md", "file", auto=False, note="unverified: printed"),
            ),
        ),
        Agent(
            "goose",
            "Goose",
            "goose",
            pin_project=False,
            targets=(
                Target(
                    "mcp",
                    lambda h, r: h / ".config" / "goose" / "config.yaml",
                    "yaml",
                    auto=False,
                    note="YAML under `extensions:`, format unverified: printed",
                ),
                _instructions(".goosehints", auto=False, note="unverified: printed"),
            ),
        ),
        Agent(
            "zed",
            "Zed",
            "zed",
            pin_project=True,
            targets=(
                Target(
                    "mcp",
                    lambda h, r: h / ".config" / "zed" / "settings.json",
                    "jsonc",
                    auto=False,
                    keypath=("context_servers",),
                    note="JSON with comments: printed",
                ),
                _instructions(".rules", auto=False, note="unverified: printed"),
            ),
        ),
        Agent(
            "claude-desktop",
            "Claude Desktop",
            "standard",
            pin_project=True,
            targets=(
                Target(
                    "mcp",
                    lambda h, r: _app_support(h, "Claude") / "claude_desktop_config.json",
                    "json",
                    keypath=("mcpServers",),
                    needs_parent=True,
                    note="global file: serves the project it was connected in; restart the app",
                ),
            ),
            notes="no instruction file: the server's own instructions teach the routine",
        ),
    )
}


def server_command() -> list[str]:
    """The absolute interpreter running cairn now: works under the stripped PATH agents use."""
    return [sys.executable, "-m", "cairn", "serve"]


def server_entry(agent: Agent, project_root: Path) -> dict:
    """The MCP server entry in `agent`'s own shape."""
    cmd = server_command()
    env = {"CAIRN_PROJECT_DIR": str(project_root)} if agent.pin_project else {}
    if agent.entry == "vscode":
        return {"type": "stdio", "command": cmd[0], "args": cmd[1:], "env": {"CAIRN_PROJECT_DIR": "${workspaceFolder}"}}
    if agent.entry == "opencode":
        out: dict = {"type": "local", "command": cmd, "enabled": True}
        return {**out, "environment": env} if env else out
    if agent.entry == "zed":
        return {"command": cmd[0], "args": cmd[1:], "env": env}
    out = {"command": cmd[0], "args": cmd[1:]}
    return {**out, "env": env} if env else out


def yaml_snippet(agent: Agent, project_root: Path) -> str:
    """YAML for Continue and Goose (printed only), written by PyYAML's dumper: quoting of paths
    with spaces, colons or `#` is the dumper's job, not ours."""
    import yaml

    cmd = server_command()
    doc: dict[str, object]
    if agent.entry == "goose":
        doc = {
            "extensions": {
                SERVER_NAME: {
                    "name": SERVER_NAME,
                    "type": "stdio",
                    "enabled": True,
                    "cmd": cmd[0],
                    "args": cmd[1:],
                    "timeout": 300,
                }
            }
        }
    else:
        server: dict[str, object] = {"name": SERVER_NAME, "command": cmd[0], "args": cmd[1:]}
        if agent.pin_project:
            server["env"] = {"CAIRN_PROJECT_DIR": str(project_root)}
        doc = {"name": "cairn", "version": "0.0.1", "schema": "v1", "mcpServers": [server]}
    return str(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, default_flow_style=False))


def hook_commands() -> dict[str, tuple[str | None, str]]:
    """Event -> (matcher, command) for agents with Claude-style hooks (Codex)."""
    py = json.dumps(sys.executable) if " " in sys.executable else sys.executable
    return {
        "SessionStart": ("startup|resume|clear|compact", f"{py}{HOOK_MARKER}SessionStart"),
        "UserPromptSubmit": (None, f"{py}{HOOK_MARKER}UserPromptSubmit"),
    }
