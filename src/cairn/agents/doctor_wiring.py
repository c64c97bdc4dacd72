"""Is cairn wired into Claude Code: its hooks and its MCP server registered, once, runnable (for doctor.py).

The hooks registered in the settings files: every event, pointing to an interpreter that exists
and imports cairn, and only once (the plugin enabled beside hooks installed in a settings file
makes every event fire twice); who answers the frequent hooks (the warm server); the MCP
registration and how the next `cairn serve` starts (the zygote).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from pathlib import Path

from cairn.agents.doctor_check import Check
from cairn.agents.install import HOOK_EVENTS, MCP_NAME, is_cairn_handler, targets


def settings_files(root: Path | None) -> list[Path]:
    files = [targets("user", None)[0]]
    if root is not None:
        files += [root / ".claude" / "settings.json", root / ".claude" / "settings.local.json"]
    return files


def _handlers(path: Path) -> dict[str, list[str]]:
    """{event: [cairn hook commands]} registered in one settings file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out: dict[str, list[str]] = {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    for event, groups in (hooks or {}).items() if isinstance(hooks, dict) else []:
        for group in groups if isinstance(groups, list) else []:
            for h in group.get("hooks", []) if isinstance(group, dict) else []:
                if is_cairn_handler(h):
                    out.setdefault(event, []).append(h["command"])
    return out


def _plugin_enabled(files: list[Path]) -> str | None:
    """The `cairn@<marketplace>` plugin key enabled in any settings file (`enabledPlugins`), if any."""
    for path in files:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        plugins = data.get("enabledPlugins") if isinstance(data, dict) else None
        for key, on in (plugins or {}).items() if isinstance(plugins, dict) else []:
            if on is True and str(key).split("@")[0] == "cairn":
                return str(key)
    return None


def _interpreter_ok(command: str, cache: dict[str, str | None]) -> str | None:
    """None when the command's program exists (and imports cairn, for `python -m cairn`; holds it where
    the hook's boot says, for `python -S -c <boot>`), else why not."""
    try:
        words = shlex.split(command)
    except ValueError:
        return "cannot parse the command"
    if not words:
        return "empty command"
    if words[:2] == ["command", "-v"] and len(words) > 2:  # a project hook guarded by `command -v cairn`
        words = words[2:]
    prog = words[0]
    if "${" in prog or "$CLAUDE" in prog:
        return None  # a plugin path: resolved by Claude Code
    if len(words) >= 4 and words[1] == "-p" and words[2].endswith(SHELL_HOOK_TAIL):  # `bash -p hook.sh`
        words = [words[0], *words[2:]]
    if len(words) >= 3 and words[1].endswith(SHELL_HOOK_TAIL):  # the bash prompt hook (agents/hooks/hook.sh)
        if not os.path.isfile(words[1]):
            return f"cairn is no longer at {words[1][: -len(SHELL_HOOK_TAIL)]} (run `cairn install claude` again)"
        words = words[2:]  # then the Python it falls back to, as for the other hooks
        prog = words[0]
        if not (os.path.isfile(prog) and os.access(prog, os.X_OK)):
            return f"{prog} does not exist or is not executable"
        return None
    root = _boot_root(words)
    key = prog if root is None else f"{prog}\0{words[3]}"
    if key in cache:
        return cache[key]
    why = None
    if "/" not in prog:  # a bare name (project scope's portable `cairn`): found on PATH or not
        import shutil

        why = None if shutil.which(prog) else f"{prog} is not on PATH (the project's hooks and MCP server need it)"
    elif not (os.path.isfile(prog) and os.access(prog, os.X_OK)):
        why = f"{prog} does not exist or is not executable"
    elif root is not None:  # the user-scope hook (agents/hooks/client.py): `python -S -c <boot>`
        if not os.path.isfile(os.path.join(root, "cairn", "agents", "hooks", "client.py")):
            why = f"cairn is no longer at {root or '?'} (run `cairn install claude` again)"
    elif words[1:3] == ["-m", "cairn"]:
        try:
            r = subprocess.run([prog, "-c", "import cairn"], capture_output=True, timeout=20)
            if r.returncode != 0:
                why = f"{prog} cannot import cairn"
        except (OSError, subprocess.TimeoutExpired) as exc:
            why = f"{prog}: {exc}"
    cache[key] = why
    return why


SHELL_HOOK_TAIL = "/cairn/agents/hooks/hook.sh"


def _boot_root(words: list[str]) -> str | None:
    """The folder a `python -S -c <boot> hook EVENT` command puts first on sys.path, or None."""
    if words[1:3] != ["-S", "-c"] or len(words) < 4 or "cairn.agents.hooks.client" not in words[3]:
        return None
    import ast
    import re

    m = re.search(r'sys\.path\[0\] = ("(?:[^"\\]|\\.)*")', words[3])
    try:
        return str(ast.literal_eval(m.group(1))) if m else ""
    except (ValueError, SyntaxError):
        return ""


PLUGIN_LAUNCHER = '"${CLAUDE_PLUGIN_ROOT}/bin/cairn"'  # what the plugin's hooks/hooks.json runs


def duplicate_hooks(sources: dict[str, dict[str, str]]) -> dict[str, list[str]]:
    """{event: [where each of its distinct cairn commands comes from]} for events with more than
    one. `sources` is {event: {command: where}}. Claude Code runs an identical handler once
    however many files hold it, but two different commands for one event (the plugin's and an
    installed one, or two interpreters) both run: every prompt would be recalled twice, every
    turn archived twice."""
    return {event: sorted(set(cmds.values())) for event, cmds in sources.items() if len(cmds) > 1}


def check_hooks(root: Path | None) -> Check:
    """Every event registered once, with an interpreter that runs cairn (see the module doc)."""
    files = settings_files(root)
    sources: dict[str, dict[str, str]] = {}  # event -> {command: where it is registered}
    where: list[str] = []
    for path in files:
        got = _handlers(path)
        if got:
            where.append(str(path))
        for event, cmds in got.items():
            for cmd in cmds:
                sources.setdefault(event, {}).setdefault(cmd, str(path))
    plugin = _plugin_enabled(files)
    if not sources:
        if plugin:
            return Check("hooks", "ok", f"provided by the enabled plugin `{plugin}` (its hooks/hooks.json)")
        return Check(
            "hooks",
            "fail",
            "no cairn hooks in "
            + ", ".join(map(str, files))
            + ": run `cairn install claude` (or install the cairn plugin)",
        )
    data: dict[str, object] = {"files": where, "events": sorted(sources)}
    cache: dict[str, str | None] = {}
    broken = sorted({why for cmds in sources.values() for c in cmds if (why := _interpreter_ok(c, cache))})
    if broken:
        return Check("hooks", "fail", "; ".join(broken), data)
    if plugin:
        for event in HOOK_EVENTS:
            sources.setdefault(event, {}).setdefault(f"{PLUGIN_LAUNCHER} hook {event}", f"plugin `{plugin}`")
    twice = duplicate_hooks(sources)
    missing = [e for e in HOOK_EVENTS if e not in sources]
    problems = []
    if twice:
        data["duplicates"] = twice
        origins = sorted({w for ws in twice.values() for w in ws})
        problems.append(
            f"registered twice, so each fires twice ({', '.join(sorted(twice))}): "
            f"{' and '.join(origins)}; keep one (disable the plugin, or `cairn install claude --undo` "
            "with that file's scope)"
        )
    if missing:
        problems.append(f"registered in {', '.join(where)}, but not for: {', '.join(missing)}")
    if problems:
        return Check("hooks", "warn", "; ".join(problems), data)
    return Check(
        "hooks", "ok", f"all {len(HOOK_EVENTS)} events registered in {', '.join(where)}; {hook_server(sources)}", data
    )


def hook_server(sources: dict[str, dict[str, str]] | None = None) -> str:
    """Who answers the frequent hooks (warm/hook_client.EVENTS): the warm server, reached from bash (hook.sh) or
    from Python; for the hooks line."""
    from cairn.warm import hook_client as warm

    if not warm.enabled():
        return "warm server off (CAIRN_WARM=0): every hook answers in its own process"
    bash = any(SHELL_HOOK_TAIL in cmd for event in warm.EVENTS for cmd in (sources or {}).get(event, {}))
    how = "reached from bash (hook.sh)" if bash else "reached from Python"
    pid = warm.server_pid()
    if pid is not None:
        return f"warm server running (pid {pid}), {how}"
    return f"warm server not running now (the next session start or prompt starts it), {how}"


def warm_start() -> str:
    """How this machine's next stdio `cairn serve` starts (warm/zygote.py), for the mcp line."""
    from cairn.warm import zygote_client

    if not zygote_client.supported():
        return "warm start off (CAIRN_WARM=0, or not Linux)"
    path = zygote_client.socket_path()
    if zygote_client.alive(path):
        try:
            with open(path.removesuffix(".sock") + ".pid", encoding="utf-8") as fh:
                return f"warm start: zygote running (pid {int(fh.read())})"
        except (OSError, ValueError):
            return "warm start: zygote running"
    return "warm start: no zygote now (the next `cairn serve` starts one)"


def check_mcp(root: Path | None) -> Check:
    warm = warm_start()
    check = _check_mcp(root)
    return Check(check.name, check.status, f"{check.detail}; {warm}", {"warm_start": warm})


def _check_mcp(root: Path | None) -> Check:
    plugin = _plugin_enabled(settings_files(root))
    if plugin:  # the plugin ships .mcp.json with the server: Claude Code starts it from there
        return Check("mcp", "ok", f"MCP server `{MCP_NAME}` provided by the enabled plugin `{plugin}`")
    paths = [targets("user", None)[1]] + ([root / ".mcp.json"] if root is not None else [])
    for path in paths:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        servers = data.get("mcpServers") if isinstance(data, dict) else None
        if isinstance(servers, dict) and MCP_NAME in servers:
            return Check("mcp", "ok", f"MCP server `{MCP_NAME}` registered in {path}")
    return Check("mcp", "warn", "cairn's MCP server is not registered (`cairn install claude`, or the plugin)")
