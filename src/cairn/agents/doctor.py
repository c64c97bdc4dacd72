"""`cairn doctor`: is cairn wired into Claude Code and alive? One check per line, ok/warn/fail.

Checks, each ok / warn / fail with one line of detail: the hooks registered in the settings files
(every event, pointing to an interpreter that exists and imports cairn, and only once: the
plugin enabled beside hooks installed in a settings file makes every event fire twice), the MCP
registration, which `cairn` the PATH runs (doctor_path.py), the freshness of this project's index
(indexed files changed on disk since), hook errors logged in the last day, how long each hook took recently (p50/p95 from
logs/hook-times.jsonl), whether the semantic search channel is active (codemap/vectors.py), and
the knowledge graph's own doctor (stale, orphaned, broken, malformed notes).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from cairn.agents.doctor_path import command_on_path
from cairn.agents.install import HOOK_EVENTS, MCP_NAME, is_cairn_handler, targets

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

    from cairn.project import Project

RECENT_RUNS = 200  # timing samples per event
ERROR_WINDOW = 24 * 3600
_LOG_HEAD = re.compile(r"^--- (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}) (\S+): (.*)$")


@dataclass
class Check:
    name: str
    status: str  # ok | warn | fail
    detail: str
    data: dict = field(default_factory=dict)

    def as_json(self) -> dict:
        return {
            "name": self.name,
            "status": self.status,
            "detail": self.detail,
            **({"data": self.data} if self.data else {}),
        }


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


def check_index(project: Project) -> Check:
    if project is None or project.root is None:
        return Check("index", "warn", "not inside a project: no index to check")
    path = project.index_path()
    if not path.exists():
        return Check("index", "fail", f"no index for {project.root}: run `cairn index`")
    import sqlite3

    from cairn.codemap.index_db import expected_tables
    from cairn.errors import printable
    from cairn.store.repair import probe, quick_check

    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            damaged = quick_check(con) or probe(con, set(expected_tables()))
            rows = [] if damaged else con.execute("SELECT path, size, mtime_ns FROM files").fetchall()
        finally:
            con.close()
    except (sqlite3.Error, UnicodeDecodeError) as exc:
        damaged = str(exc)
    if damaged:
        return Check(
            "index", "fail", f"the index {path} is damaged ({printable(damaged)[:120]}): `cairn index` rebuilds it"
        )
    changed = 0
    for rel, size, mtime in rows:
        try:
            st = os.stat(project.root / rel)
        except OSError:
            changed += 1
            continue
        if st.st_size != size or st.st_mtime_ns != mtime:
            changed += 1
    age = time.time() - path.stat().st_mtime
    data = {"files": len(rows), "changed": changed, "age_seconds": round(age)}
    if changed:
        return Check(
            "index",
            "warn",
            f"{changed} of {len(rows)} indexed files changed on disk since; "
            "the next session start (or `cairn index`) refreshes it",
            data,
        )
    return Check("index", "ok", f"{len(rows)} files, up to date", data)


def check_errors(logs: Path, now: float | None = None) -> Check:
    now = now or time.time()
    try:
        text = (logs / "hooks.log").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return Check("hook errors", "ok", "no hook errors logged")
    recent = []
    for line in text.splitlines():
        m = _LOG_HEAD.match(line)
        if not m:
            continue
        try:
            when = time.mktime(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S"))
        except ValueError:
            continue
        if now - when <= ERROR_WINDOW:
            recent.append(f"{m.group(1)} {m.group(2)}: {m.group(3)}")
    if not recent:
        return Check("hook errors", "ok", "none in the last 24 h")
    return Check(
        "hook errors",
        "warn",
        f"{len(recent)} in the last 24 h (details in {logs / 'hooks.log'}); last: " + recent[-1],
        {"recent": recent[-5:]},
    )


def _pct(values: list[float], q: float) -> float:
    vals = sorted(values)
    return vals[min(len(vals) - 1, int(round(q * (len(vals) - 1))))]


def hook_timings(logs: Path) -> dict[str, dict]:
    """{event: {runs, p50_ms, p95_ms, max_ms, timeouts, errors}} over the recent runs."""
    from cairn.util.jsonl import read_tail_lines

    try:
        lines = read_tail_lines(logs / "hook-times.jsonl", 1024 * 1024)
    except OSError:
        return {}
    per: dict[str, list[dict]] = {}
    for raw in lines:
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if isinstance(rec, dict) and isinstance(rec.get("ms"), int | float) and isinstance(rec.get("event"), str):
            per.setdefault(rec["event"], []).append(rec)
    out = {}
    for event, recs in sorted(per.items()):
        recs = recs[-RECENT_RUNS:]
        ms = [float(r["ms"]) for r in recs]
        out[event] = {
            "runs": len(recs),
            "p50_ms": round(_pct(ms, 0.5), 1),
            "p95_ms": round(_pct(ms, 0.95), 1),
            "max_ms": round(max(ms), 1),
            "timeouts": sum(r.get("status") == "timeout" for r in recs),
            "errors": sum(r.get("status") == "error" for r in recs),
        }
    return out


def check_timings(logs: Path) -> Check:
    t = hook_timings(logs)
    if not t:
        return Check("hook timings", "ok", "no hook has run yet", {})
    slow = [e for e, v in t.items() if v["timeouts"]]
    detail = "; ".join(
        f"{e} p50 {v['p50_ms']:.0f} ms p95 {v['p95_ms']:.0f} ms ({v['runs']} runs)" for e, v in t.items()
    )
    return Check(
        "hook timings", "warn" if slow else "ok", (f"timeouts in {', '.join(slow)}; " if slow else "") + detail, t
    )


def check_memory(project: Project) -> Check:
    if project is None or project.root is None:
        return Check("memory", "ok", "not inside a project")
    from cairn.memory import load_knowledge_with_problems
    from cairn.memory.doctor import diagnose
    from cairn.memory.knowledge import symbol_range_for

    k = load_knowledge_with_problems(project)
    report = diagnose(k.nodes, k.problems, project.root, symbol_range_for(project, k.nodes))
    if report.ok:
        return Check("memory", "ok", f"{report.nodes} knowledge nodes, no problems", report.to_dict())
    lines = report.lines()
    return Check("memory", "warn", f"{len(lines)} problems: " + "; ".join(lines[:3]), report.to_dict())


def check_team(project: Project | None) -> Check | None:
    """The team database, when one is configured (else no line): reachable, recent enough, its schema."""
    from cairn.errors import CairnError
    from cairn.team.connect import TeamUnavailable, connect, database_url, where

    try:
        url = database_url(project.root if project is not None else None)
    except TeamUnavailable:
        return None
    try:
        con = connect(url, migrate=False)  # doctor looks, it never changes the database
    except CairnError as exc:
        return Check("team", "warn", str(exc))
    try:
        from cairn.team.schema import MIGRATIONS, current_version

        version, schema = con.info.server_version, current_version(con)
    except Exception as exc:  # a driver error mid-way: one line like the rest
        return Check("team", "warn", f"team database {where(url)}: {type(exc).__name__}")
    finally:
        con.close()
    detail = f"{where(url)}: PostgreSQL {version // 10000}.{version % 10000}, schema v{schema}" + (
        ""
        if schema == len(MIGRATIONS)
        else f" (this cairn brings it to v{len(MIGRATIONS)}: `cairn team status` run by the schema's owner)"
    )
    return Check("team", "ok", detail, {"server_version": version, "schema_version": schema})


def check_project_config(project: Project) -> Check | None:
    """Settings the project's committed config.toml sets that only the user may set (the team
    database, push on stop, identity, routes, prices): shown as suggestions, never applied."""
    from cairn.config import USER_ONLY, project_suggestions
    from cairn.home import cairn_home

    found = project_suggestions(project.root)
    if not found:
        return None
    parts = []
    for table, value in found.items():
        keys = sorted(value) if isinstance(value, dict) else []
        shown = [f"{k} = {_shown_value(k, value[k])}" for k in keys] or ["(entries)"]
        parts.append(f"[{table}] {', '.join(shown)} ({USER_ONLY[table]})")
    detail = (
        "the project's .cairn/config.toml suggests settings only you can make, ignored there: "
        + "; ".join(parts)
        + f". To accept one, write it in {cairn_home() / 'config.toml'}"
    )
    return Check("project config", "warn", detail, {"suggested": sorted(found)})


def _shown_value(key: str, value: Any) -> str:
    if key == "database" and isinstance(value, str):
        from cairn.team.connect import where

        return where(value)  # host:port/dbname only: never a user or password
    if isinstance(value, (dict, list)):
        return "..."
    return repr(value)[:60]


def check_semantic(project: Project) -> Check:
    """The semantic search channel: active, opt-in, or configured but without its model (one line)."""
    from cairn.codemap.vectors import describe
    from cairn.config import settings

    index = project.index_path() if project.root is not None else None  # _global has no code index
    status, detail = describe(settings(project.root).index.semantic, index)
    return Check("semantic", status, detail)


def run_doctor(project: Project | None) -> list[Check]:
    from cairn.home import logs_dir

    root = project.root if project is not None else None
    logs = logs_dir()
    if project is None:
        return [
            check_hooks(root),
            check_mcp(root),
            Check("command", *command_on_path()),
            check_errors(logs),
            check_timings(logs),
        ]
    checks = [
        check_hooks(root),
        check_mcp(root),
        Check("command", *command_on_path()),
        check_index(project),
        check_semantic(project),
        check_errors(logs),
        check_timings(logs),
        check_memory(project),
    ]
    extra = [check_project_config(project), check_team(project)]
    return checks + [c for c in extra if c is not None]
