"""`cairn doctor`: is cairn wired into Claude Code and alive? One check per line, ok/warn/fail.

Checks, each ok / warn / fail with one line of detail: the hooks and the MCP server registered
in Claude Code's settings (doctor_wiring.py), which `cairn` the PATH runs (doctor_path.py), the
freshness of this project's index (indexed files changed on disk since), hook errors logged in
the last day, how long each hook took recently (p50/p95 from logs/hook-times.jsonl), whether
the semantic search channel is active (codemap/vectors.py), and the knowledge graph's own
doctor (stale, orphaned, broken, malformed notes).
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from cairn.agents.doctor_check import Check
from cairn.agents.doctor_path import command_on_path
from cairn.agents.doctor_wiring import check_hooks, check_mcp

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

    from cairn.project import Project

RECENT_RUNS = 200  # timing samples per event
ERROR_WINDOW = 24 * 3600
_LOG_HEAD = re.compile(r"^--- (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}) (\S+): (.*)$")


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
    cfg = settings(project.root).index
    status, detail = describe(cfg.semantic, index, cfg.semantic_model)
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
