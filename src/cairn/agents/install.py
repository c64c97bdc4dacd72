"""`cairn install claude`: register cairn's hooks and MCP server with Claude Code (and undo it).

Hooks go into a settings file (`~/.claude/settings.json` with --user, `<project>/.claude/
settings.json` with --project), the MCP server into `~/.claude.json` (user scope) or the
project's `.mcp.json`. With --user each command calls this interpreter (`<python> -m cairn ...`)
by absolute path: hooks run with a stripped PATH, and an absolute interpreter needs none. With
--project the files are committed and shared by a team, so nothing of this machine goes in them:
commands call `cairn` found on each teammate's PATH (`PORTABLE_LAUNCHER`), and `cairn doctor`
says when it is not there. A project hook is guarded (`portable_hook_command`): where `cairn` is
not on PATH it drains its input and exits 0 silently, since Claude Code runs a committed hook on
every teammate's machine and shows a bare `cairn: not found` (exit 127) on each prompt otherwise.

Safety: every file is backed up once, before cairn first touches it, and the manifest of what
was backed up lives in CAIRN_HOME/install/; running install again replaces only cairn's own
entries (a handler whose command runs `cairn hook`), so it is idempotent and leaves the user's
other hooks alone; `--undo` restores each file byte for byte when it still holds what cairn
wrote, and otherwise removes only cairn's entries. `--compact-window N|best` also sets
CLAUDE_CODE_AUTO_COMPACT_WINDOW in the settings' `env` (`best` = the threshold `cairn xray
simulate` finds cheapest on the user's own sessions). `--otel` also sets the `env` that makes
Claude Code export its OpenTelemetry logs and metrics (OTLP/HTTP protobuf) to `cairn otel serve`
on 127.0.0.1, with the receiver's token (CAIRN_HOME/otel/token, made here when missing) in
OTEL_EXPORTER_OTLP_HEADERS; so it goes only in the user's own settings (then made 0600), never a
committed project file; `--undo` removes those keys too.

The hook table below is also the plugin's plugin/hooks/hooks.json (a test keeps them identical).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path

from cairn.errors import CairnError

# event -> (matcher or None, timeout in seconds)
HOOK_EVENTS: dict[str, tuple[str | None, int]] = {
    "SessionStart": ("startup|resume|clear|compact|fork", 15),
    "UserPromptSubmit": (None, 10),
    "PreToolUse": ("Read", 5),
    "PostToolUse": (None, 5),
    "Stop": (None, 10),
    "PreCompact": ("manual|auto", 30),
    "SessionEnd": (None, 5),
}
MCP_NAME = "cairn"
PORTABLE_LAUNCHER = "cairn"  # project scope: no absolute path of one machine in committed files
WINDOW_ENV = "CLAUDE_CODE_AUTO_COMPACT_WINDOW"
WINDOW_MIN, WINDOW_MAX = 100_000, 1_000_000
OTEL_ENV = {  # Claude Code's documented telemetry switches, pointed at `cairn otel serve`
    "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
    "OTEL_LOGS_EXPORTER": "otlp",
    "OTEL_METRICS_EXPORTER": "otlp",
    "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
    "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318",
}
OTEL_HEADERS_ENV = "OTEL_EXPORTER_OTLP_HEADERS"  # the receiver's token (otel/auth.py)
ENV_KEYS = (WINDOW_ENV, *OTEL_ENV, OTEL_HEADERS_ENV)  # every env key cairn may write, and undo removes
_OURS = re.compile(
    r"(?:^|[\s/\"'])(?:-m\s+)?cairn[\"']?\s+hook(?:\s|$)|cairn\.agents\.hooks\.client\b.*\shook(?:\s|$)"
    r"|/cairn/agents/hooks/hook\.sh[\"']?\s"
)


def is_cairn_handler(handler: object) -> bool:
    """A hook handler cairn installed (its command runs `cairn hook ...`, however cairn is found)."""
    return (
        isinstance(handler, dict) and isinstance(handler.get("command"), str) and bool(_OURS.search(handler["command"]))
    )


def portable_hook_command(event: str) -> str:
    """A project hook's command: `cairn hook EVENT` when `cairn` is on PATH (exec keeps its exit code,
    the read guard's 2 included), else nothing: stdin drained, exit 0. POSIX sh only, which is what
    Claude Code runs a hook command with (Git Bash on Windows)."""
    return (
        f"command -v {PORTABLE_LAUNCHER} >/dev/null 2>&1 && exec {PORTABLE_LAUNCHER} hook {event}; "
        "cat >/dev/null 2>&1; exit 0"
    )


def hook_config(launcher: str, *, portable: bool = False, shell: dict[str, str] | None = None) -> dict:
    """`{"hooks": {...}}` calling `<launcher> hook EVENT` for every event cairn handles
    (`portable`: the guarded `portable_hook_command` instead; `shell`: event -> the command to run
    instead, see `shell_hook_commands`)."""
    hooks: dict[str, list] = {}
    for event, (matcher, timeout) in HOOK_EVENTS.items():
        group: dict = {"matcher": matcher} if matcher else {}
        command = portable_hook_command(event) if portable else f"{launcher} hook {event}"
        if shell and event in shell and not portable:
            command = shell[event]
        group["hooks"] = [{"type": "command", "command": command, "timeout": timeout}]
        hooks[event] = [group]
    return {"hooks": hooks}


def hook_launcher(python: str | None = None) -> str:
    """What a user-scope hook command starts, as shell words: `'/path/to/python' -S -c '<boot>'`
    (then `hook EVENT`): no `site` and no CLI before the warm server answers (hooks/client.py)."""
    from cairn.agents.hooks.boot import boot

    return f"{shlex.quote(python or sys.executable)} -S -c {shlex.quote(boot())}"


def shell_hook_commands(python: str | None = None) -> dict[str, str]:
    """The user-scope hooks of the events the warm server answers (warm/hook_client.EVENTS: UserPromptSubmit,
    PreToolUse, PostToolUse, Stop): `'<bash>' -p '<...>/cairn/agents/hooks/hook.sh' '<python>' EVENT`, which hands the payload
    to the warm server with bash builtins (~2 ms against ~10-17 ms for the smallest Python client) and
    runs the Python client when it cannot; {} where there is no bash."""
    import shutil

    from cairn.agents.hooks.boot import ROOT
    from cairn.warm.hook_client import EVENTS

    bash = shutil.which("bash") if os.name == "posix" else None
    script = os.path.join(ROOT, "cairn", "agents", "hooks", "hook.sh")
    if not bash or not os.path.isfile(script):
        return {}
    # -p: no BASH_ENV (a user's rc file: output, `set -e`, its time), SHELLOPTS or exported functions
    head = f"{shlex.quote(bash)} -p {shlex.quote(script)} {shlex.quote(python or sys.executable)}"
    return {event: f"{head} {event}" for event in EVENTS}


def merge_hooks(settings: dict, launcher: str, *, portable: bool = False, shell: dict[str, str] | None = None) -> dict:
    """`settings` with cairn's handlers replaced by the current ones; other handlers untouched."""
    out = dict(settings)
    hooks = remove_hooks(out).get("hooks")
    hooks = dict(hooks) if isinstance(hooks, dict) else {}
    for event, groups in hook_config(launcher, portable=portable, shell=shell)["hooks"].items():
        existing = hooks.get(event)
        hooks[event] = (list(existing) if isinstance(existing, list) else []) + groups
    out["hooks"] = hooks
    return out


def remove_hooks(settings: dict) -> dict:
    """`settings` without any cairn handler (groups left empty by that are dropped)."""
    out = dict(settings)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    cleaned: dict = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            cleaned[event] = groups
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                handlers = [h for h in group["hooks"] if not is_cairn_handler(h)]
                if not handlers and group["hooks"]:
                    continue
                group = {**group, "hooks": handlers}
            kept.append(group)
        if kept:
            cleaned[event] = kept
    if cleaned:
        out["hooks"] = cleaned
    else:
        out.pop("hooks", None)
    return out


def mcp_entry(python: str | None = None, *, portable: bool = False) -> dict:
    """The MCP server entry: this interpreter by absolute path, or (`portable`) `cairn` on PATH."""
    if portable:
        return {"type": "stdio", "command": PORTABLE_LAUNCHER, "args": ["serve"], "env": {}}
    return {"type": "stdio", "command": python or sys.executable, "args": ["-m", "cairn", "serve"], "env": {}}


# ---------------------------------------------------------------- files, backups, plan


@dataclass
class Change:
    path: Path
    before: str | None  # None: the file does not exist
    after: str | None  # None: delete the file
    private: bool = False  # holds a secret (the receiver's token): written 0600

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        a = (self.before or "").splitlines(keepends=True)
        b = (self.after or "").splitlines(keepends=True)
        return "".join(difflib.unified_diff(a, b, f"{self.path} (before)", f"{self.path} (after)"))


@dataclass
class Plan:
    scope: str
    changes: list[Change] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def as_json(self) -> dict:
        return {
            "scope": self.scope,
            "files": [{"path": str(c.path), "changed": c.changed} for c in self.changes],
            "notes": self.notes,
        }


def _read_json(path: Path) -> tuple[str | None, dict]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise CairnError(f"cannot read {path}: {exc}") from None
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CairnError(f"{path} is not valid JSON ({exc}); fix it first, cairn will not overwrite it") from None
    if not isinstance(data, dict):
        raise CairnError(f"{path} does not hold a JSON object; cairn will not overwrite it")
    return text, data


def _dump(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def targets(scope: str, root: Path | None) -> tuple[Path, Path]:
    """(settings file, MCP file) for a scope: the project's `.claude/settings.json` and `.mcp.json`,
    or the user's `~/.claude/settings.json` and `~/.claude.json` (both inside CLAUDE_CONFIG_DIR
    when that is set, as Claude Code does)."""
    import os

    if scope == "project":
        if root is None:
            raise CairnError("--project needs a project: run it inside one or pass --root DIR")
        return root / ".claude" / "settings.json", root / ".mcp.json"
    env = os.environ.get("CLAUDE_CONFIG_DIR", "").split(",")[0].strip()
    if env:
        base = Path(env).expanduser()
        return base / "settings.json", base / ".claude.json"
    return Path.home() / ".claude" / "settings.json", Path.home() / ".claude.json"


def compact_window(value: str | None) -> int | None:
    """`--compact-window N|best` as a token count Claude Code accepts (100k..1M), or None."""
    if value is None:
        return None
    if value.strip().lower() == "best":
        from cairn.sessions.prices import load_prices
        from cairn.sessions.simulate import DEFAULT_HANDOFF, DEFAULT_THRESHOLDS, simulate
        from cairn.sessions.usage import load_transcripts

        ds = load_transcripts()
        best = simulate(ds, load_prices(), DEFAULT_THRESHOLDS, DEFAULT_HANDOFF)["best"] if ds.turns else None
        if best is None:
            raise CairnError(
                "--compact-window best: no threshold saves money on your recorded sessions "
                "(see `cairn xray simulate`); give a number instead"
            )
        return min(max(int(best), WINDOW_MIN), WINDOW_MAX)
    from cairn.sessions.simulate import parse_tokens

    n = parse_tokens(value, "--compact-window")
    if not WINDOW_MIN <= n <= WINDOW_MAX:
        raise CairnError(f"--compact-window must be between {WINDOW_MIN} and {WINDOW_MAX} tokens (Claude Code's range)")
    return n


def plan_install(
    scope: str,
    root: Path | None,
    *,
    window: int | None = None,
    python: str | None = None,
    otel: bool = False,
    dry_run: bool = False,
) -> Plan:
    """What installing would write (nothing is written until `apply`; with `otel`, the receiver's
    token is made now unless `dry_run`)."""
    if otel and scope == "project":
        raise CairnError(
            "--otel puts this machine's receiver token in the settings, so not in a committed "
            "project file: run `cairn install claude --otel` (user scope)"
        )
    settings_path, mcp_path = targets(scope, root)
    plan = Plan(scope)
    portable = scope == "project"
    before, settings = _read_json(settings_path)
    settings = merge_hooks(
        settings,
        PORTABLE_LAUNCHER if portable else hook_launcher(python),
        portable=portable,
        shell=None if portable else shell_hook_commands(python),
    )
    if window is not None or otel:
        env = dict(settings.get("env") or {}) if isinstance(settings.get("env"), dict) else {}
        if window is not None:
            env[WINDOW_ENV] = str(window)
            plan.notes.append(f"{WINDOW_ENV}={window}")
        if otel:
            from cairn.otel.auth import exporter_headers, load_token, token_path

            try:
                token = load_token(create=not dry_run)
            except OSError as exc:
                raise CairnError(f"cannot make the receiver's token {token_path()}: {exc.strerror or exc}") from None
            env.update(OTEL_ENV)
            env[OTEL_HEADERS_ENV] = exporter_headers(token or "<made on install>")
            plan.notes.append(
                f"telemetry to {OTEL_ENV['OTEL_EXPORTER_OTLP_ENDPOINT']} with the token in "
                f"{token_path()}: run `cairn otel serve`"
            )
        settings["env"] = env
    plan.changes.append(Change(settings_path, before, _dump(settings), private=otel))
    before, mcp = _read_json(mcp_path)
    servers = dict(mcp.get("mcpServers") or {}) if isinstance(mcp.get("mcpServers"), dict) else {}
    servers[MCP_NAME] = mcp_entry(python, portable=portable)
    plan.changes.append(Change(mcp_path, before, _dump({**mcp, "mcpServers": servers})))
    if portable:
        import shutil

        plan.notes.append(
            "project scope: the hooks and the MCP server call `cairn` on PATH (these files are "
            "committed, so they hold no path of this machine); each teammate needs `cairn` on PATH, "
            "where it is missing the hooks do nothing and `cairn doctor` says so"
            + ("" if shutil.which(PORTABLE_LAUNCHER) else " (not on this machine's PATH yet)")
        )
    return plan


def plan_undo(scope: str, root: Path | None) -> Plan:
    """Byte-for-byte restore where the file is as cairn left it; otherwise remove only cairn's entries."""
    settings_path, mcp_path = targets(scope, root)
    manifest = _load_manifest()
    plan = Plan(scope)
    for path in (settings_path, mcp_path):
        key = str(path)
        before, data = _read_json(path)
        entry = manifest.get(key)
        if entry and before is not None and _digest(before) == entry.get("written"):
            original = entry.get("original")
            after = None if original is None else Path(original).read_text(encoding="utf-8")
            plan.changes.append(Change(path, before, after))
            continue
        if before is None:
            continue
        if path == settings_path:
            cleaned = remove_hooks(data)
            if entry is not None and isinstance(cleaned.get("env"), dict) and set(ENV_KEYS) & set(cleaned["env"]):
                env = {k: v for k, v in cleaned["env"].items() if k not in ENV_KEYS}
                cleaned = {**cleaned, "env": env} if env else {k: v for k, v in cleaned.items() if k != "env"}
        else:
            servers = {k: v for k, v in (data.get("mcpServers") or {}).items() if k != MCP_NAME}
            cleaned = {**data, "mcpServers": servers}
        plan.changes.append(Change(path, before, _dump(cleaned)))
        if entry:
            plan.notes.append(f"{path} changed since install: removed only cairn's entries")
    return plan


def _manifest_path() -> Path:
    from cairn.home import cairn_home

    return cairn_home() / "install" / "manifest.json"


def _load_manifest() -> dict:
    try:
        data = json.loads(_manifest_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def apply(plan: Plan, *, undo: bool = False) -> list[Path]:
    """Write the plan (backing files up first on install); the files written or removed."""
    from cairn.util.atomic import atomic_write_text

    manifest = _load_manifest()
    done = []
    for ch in plan.changes:
        key = str(ch.path)
        if not ch.changed:
            if ch.private and ch.path.exists() and ch.path.stat().st_mode & 0o077:
                ch.path.chmod(0o600)  # the token is in it: not for other users
            continue
        if not undo and key not in manifest:
            backup = None
            if ch.before is not None:
                backup = _manifest_path().parent / (hashlib.sha1(key.encode()).hexdigest()[:12] + "-" + ch.path.name)
                atomic_write_text(backup, ch.before)
                backup.chmod(0o600)
            manifest[key] = {"original": str(backup) if backup else None}
            if not ch.path.parent.exists():  # install makes `.claude/`: undo removes it again (if empty)
                manifest[key]["made_dir"] = str(ch.path.parent)
        if ch.after is None:
            ch.path.unlink(missing_ok=True)
        else:
            atomic_write_text(ch.path, ch.after, mode=0o600 if ch.private else None)
        if undo:
            made = (manifest.pop(key, None) or {}).get("made_dir")
            if made and ch.after is None and Path(made) == ch.path.parent:
                try:
                    ch.path.parent.rmdir()  # only when empty: anything else there is the user's
                except OSError:
                    pass
        else:
            manifest[key]["written"] = _digest(ch.after or "")
        done.append(ch.path)
    if not undo:
        for ch in plan.changes:  # unchanged files still record what cairn expects to find there
            if str(ch.path) in manifest and ch.after is not None:
                manifest[str(ch.path)]["written"] = _digest(ch.after)
    atomic_write_text(_manifest_path(), json.dumps(manifest, indent=2) + "\n", mode=0o600)
    return done
