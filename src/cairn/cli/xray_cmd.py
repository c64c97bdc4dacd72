"""`cairn xray`: where the tokens went (also by month or billing block); `xray simulate`: what compacting
earlier would save; `xray statusline`: one line for Claude Code's status line."""

from __future__ import annotations

import argparse
from pathlib import Path

from cairn.cli.common import add_json, print_json

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import threading
    from collections.abc import Callable

    from cairn.sessions.usage import Dataset

DESCRIPTION = """\
X-ray the agents' transcripts: tokens and cost by kind (cache read / cache write / input /
output), by session, project, model and day; context size at session start; which tools'
output fills the context; cache expiries mid-session; sessions that grew past 150k / 400k
tokens and their share of the cost; compactions.

PATH: transcript files or folders (default: Claude Code's ~/.claude/projects and
~/.config/claude/projects or the folders named by CLAUDE_CONFIG_DIR, Codex CLI's
$CODEX_HOME/sessions (~/.codex), Gemini CLI's ~/.gemini/tmp). Without --project every project
is included and the first line of the output says so. --days counts record timestamps, not file
dates. Sessions are named as each agent names them; Claude Code subagent files count toward their
session. Token counts match ccusage `session` (`claude`, `codex`, `gemini`); costs use cairn's
price table, each agent's models at their own prices (override in ~/.cairn/config.toml under
[prices."model-name"]). Where `cairn otel serve` stored Claude Code's telemetry, each session's
transcript is put beside it, and a session it reported whose transcript is gone (Claude Code
deletes old transcripts) is listed as known only from telemetry, outside the totals.

--by month | --by block: only the usage by calendar month (UTC, every agent) or by 5-hour billing
block (Claude Code, as ccusage `blocks` cuts them: from the hour of a block's first entry; the
active block with its burn rate and projection), equal to ccusage `claude monthly` and `blocks`.

  cairn xray statusline [--cost-source auto|cc|cairn]
reads Claude Code's status line JSON on stdin and prints ccusage `statusline`'s line (session,
today, active block, burn rate, context); `cairn xray statusline --help` says how to set it up.

  cairn xray simulate [PATH...] [--thresholds 100k,150k,250k] [--handoff 8k] [--json]
replays every session's context curve as if Claude Code compacted whenever the context
passed each threshold and reports the compactions and the estimated saving (method printed;
`cairn xray simulate --help` for its options).
"""

SIMULATE_DESCRIPTION = """Replay every session's context curve as if Claude Code had compacted whenever the context passed
each threshold, and report the compactions it would have made and the estimated saving (the
method is printed with the numbers). PATH, --days, --project and --session select sessions as
for `cairn xray`.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "xray",
        help="where the tokens and money went in agent sessions (and `xray simulate`)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        usage="cairn xray [PATH...] [--days N] [--project P | --all-projects] [--session ID] [--json] "
        "[--html FILE | --by month|block]\n       cairn xray simulate [PATH...] [--thresholds 100k,150k,250k] [--handoff 8k] "
        "[--json]",
    )
    _selection(p)
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page with plots")
    p.add_argument(
        "--by",
        choices=("month", "block"),
        help="only the totals by calendar month (UTC) or by 5-hour billing block (Claude Code), as ccusage "
        "`monthly` and `blocks` count them",
    )
    add_json(p)
    p.set_defaults(func=cmd_xray)


def _selection(p: argparse.ArgumentParser) -> None:
    """PATH... and the --days / --project / --session filters, the same for `xray` and `xray simulate`."""
    p.add_argument("paths", nargs="*", metavar="PATH", help="transcript files or folders")
    p.add_argument("--days", type=int, metavar="N", help="only activity of the last N x 24 hours (by record time)")
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--project",
        metavar="P",
        help="one project: its name, cairn id, Claude folder name (--project=-home-me-repo) or its path",
    )
    who.add_argument("--all-projects", action="store_true", help="every project (the default)")
    p.add_argument("--session", metavar="ID", help="one session (its id or an id prefix)")


def simulate_parser() -> argparse.ArgumentParser:
    """`cairn xray simulate`'s own parser (xray takes PATHs, so simulate cannot be a subparser of it):
    the entry point uses it for `xray simulate ...`, so its --help describes simulate."""
    p = argparse.ArgumentParser(prog="cairn xray simulate", description=SIMULATE_DESCRIPTION)
    _selection(p)
    p.add_argument("--thresholds", default="100k,150k,250k", help="context sizes to try (default 100k,150k,250k)")
    p.add_argument("--handoff", default="8k", help="size of the handoff after a compaction (default 8k)")
    add_json(p)
    p.set_defaults(func=cmd_simulate)
    return p


STATUSLINE_DESCRIPTION = """One line for Claude Code's status line: the session's cost, today's (UTC), the active 5-hour
billing block's with its time left and burn rate, and the context's size, from the JSON Claude
Code pipes in (ccusage `statusline`'s inputs and line). In ~/.claude/settings.json:

  "statusLine": {"type": "command", "command": "cairn xray statusline"}

Answered by the warm command-line server when one runs (started by the first call), so that a
line costs milliseconds of work after its Python start. `--setup` prints the same setting with a
leaner command (this Python without `site`, as cairn's hooks start), which spends less before it
asks the server.
"""


def statusline_parser() -> argparse.ArgumentParser:
    """`cairn xray statusline`'s own parser (as simulate's: xray takes PATHs)."""
    p = argparse.ArgumentParser(
        prog="cairn xray statusline",
        description=STATUSLINE_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--cost-source",
        choices=("auto", "cc", "cairn"),
        default="auto",
        help="the session's cost: Claude Code's own figure (cc), cairn's from the transcript (cairn), or Claude "
        "Code's when it gives one (auto, the default)",
    )
    # stdin and where the transcripts are, as the client saw them (a warm server runs it: cli/main.py)
    p.add_argument("--setup", action="store_true", help="print the statusLine setting for ~/.claude/settings.json")
    p.add_argument("--input", help=argparse.SUPPRESS)
    p.add_argument("--claude-config-dir", help=argparse.SUPPRESS)
    p.add_argument("--home", help=argparse.SUPPRESS)
    add_json(p)
    p.set_defaults(func=cmd_statusline)
    return p


def cmd_statusline(args: argparse.Namespace) -> int:
    from cairn.sessions.prices import load_prices
    from cairn.sessions.statusline import figures, parse_input, render
    from cairn.sessions.transcript import claude_roots

    if args.setup:
        import json

        command = statusline_command()
        print(json.dumps({"statusLine": {"type": "command", "command": command, "padding": 0}}, indent=2))
        return 0
    if args.input is None:
        from cairn.warm.hook_client import read_stdin

        args.input = read_stdin().decode("utf-8", "replace")
    hook = parse_input(args.input)
    roots = claude_roots(args.claude_config_dir, args.home)
    f = figures(hook, load_prices(), roots, cost_source=args.cost_source)
    if args.json:
        print_json(f)
    else:
        print(render(f))
    return 0


def statusline_command() -> str:
    """`'<python>' -S -c '<boot>' xray statusline`: this cairn without `site` (the client needs only the
    standard library to ask the warm server; cli/main.py loads `site` when it answers inline)."""
    import json
    import shlex
    import sys

    from cairn.warm.hook_client import ROOT

    # a JSON string is a Python string literal here (double quotes read well inside the shell's '...')
    boot = f"import sys; sys.path[0] = {json.dumps(ROOT)}; from cairn.cli.main import main; sys.exit(main())"
    return f"{shlex.quote(sys.executable)} -S -c {shlex.quote(boot)} xray statusline"


def _matches_project(query: str, cwd: str | None, folder: str) -> bool:
    from cairn.sessions.xray import project_of

    pid, name = project_of(cwd)
    q = query.strip()
    if q.lower() in (pid.lower(), name.lower()) or q == folder:
        return True
    here = Path(q).expanduser()
    if cwd and here.is_dir():
        from cairn.project import resolve_project

        try:
            return resolve_project(here).id == pid or Path(cwd).resolve().is_relative_to(here.resolve())
        except Exception:  # noqa: BLE001 - an unresolvable path simply does not match
            return False
    return False


def _load(args: argparse.Namespace, paths: list[str], *, late_tools: bool = False) -> tuple[Dataset, dict, str | None]:
    """Transcripts read, filtered by --days/--project/--session, the filters, and why it is empty
    (`late_tools`: the Codex tool outputs may still be coming, see load_transcripts).

    A --days window with no activity is an answer, not an error: scripts polling `--days 1 --json`
    get the normal shape with zero totals and exit 0. The third value is the plain-words line for
    that case (None when something is left), which the terminal output prints instead of empty tables.
    """
    from cairn.errors import CairnError
    from cairn.sessions.usage import load_transcripts, select

    if args.days is not None and args.days < 1:
        raise CairnError("--days must be 1 or more")
    # the tools section needs only sums by tool, unless a filter picks outputs by time or session
    ds = load_transcripts(
        paths, late_tools=late_tools, tool_rows=args.days is not None or bool(args.project) or bool(args.session)
    )
    if not ds.turns:
        raise CairnError(f"no token usage found in {ds.files} transcript file(s): are these agent transcripts?")
    all_sessions = {t.session_id for t in ds.turns}
    keep: set[str] | None = None
    if args.project:
        keep = {
            s for s in all_sessions if _matches_project(args.project, ds.session_cwd.get(s), ds.session_dir.get(s, ""))
        }
        if not keep:
            raise CairnError(f"no session belongs to project {args.project!r} ({len(all_sessions)} sessions read)")
    if args.session:
        hits = {s for s in (keep or all_sessions) if s == args.session or s.startswith(args.session)}
        if not hits:
            raise CairnError(f"no session matches {args.session!r}")
        keep = hits
    out = select(ds, days=args.days, sessions=keep)
    empty: str | None = None
    if not out.turns:

        def n(count: int, word: str) -> str:
            return f"{count} {word}" + ("" if count == 1 else "s")

        days = "day" if args.days == 1 else f"{args.days} days"
        empty = (
            f"No sessions in the last {days} ({n(len(keep or all_sessions), 'session')} read, "
            f"{n(ds.files, 'file')}); try a larger --days."
        )
    filters = {"paths": paths, "project": args.project, "days": args.days, "session": args.session}
    return out, filters, empty


def cmd_xray(args: argparse.Namespace) -> int:
    from cairn.errors import CairnError

    paths = list(args.paths)
    if args.by:
        if args.html:
            raise CairnError("--by prints a table (or --json); --html draws the whole X-ray: use one of them")
        return _periods(args, paths)
    import gc

    gc.disable()  # ~10^5 objects built and kept, almost none in cycles: the collector's passes would be wasted
    threads: list[threading.Thread] = []
    encoded: dict[str, str] = {}
    try:
        ds, filters, empty = _load(args, paths, late_tools=True)  # read while the analysis runs
        # imported once the scan is under way (not before another process is forked for it)
        from cairn.sessions.prices import load_prices
        from cairn.sessions.xray import analyze

        late = ds.late is not None  # the tool outputs come from another process: this one will wait for them
        if late:
            threads.append(_in_thread(_warm_redaction))

        def meanwhile(partial: dict) -> None:  # the sessions' JSON made while the tool outputs are waited for
            rows = partial["sessions"]  # final: nothing after this changes them
            threads.append(_in_thread(lambda: encoded.update(sessions=_rows_text(rows))))

        report = analyze(
            ds,
            load_prices(),
            filters=filters,
            curves=bool(args.html),  # only the page draws them
            before_tools=meanwhile if late and args.json else None,
        )
    finally:  # what was built is kept to the end: frozen, the collector never walks it again (it did,
        gc.freeze()  # all of it, on its first pass after gc.enable(): 0.1-0.3 s on 100 MB of Codex rollouts)
        gc.enable()
        for thread in threads:
            thread.join()  # done before anything is redacted (the output, the page, an error) or printed
    if empty:
        report["findings"] = [empty]
    _add_telemetry(report, set(ds.session_dir))
    if args.html:
        from cairn.sessions.xray_html import render_html

        try:
            from cairn.redact import redact

            Path(args.html).expanduser().write_text(redact(render_html(report)), encoding="utf-8")
        except OSError as exc:
            raise CairnError(f"cannot write {args.html}: {exc.strerror or exc}") from None
    if args.json:
        report.pop("curves", None)  # per-turn points: for the HTML page, too bulky for programs
        print_json(report, encoded)
        return 0
    if empty:
        print(empty)
        for line in report["findings"][1:]:  # what telemetry adds (sessions whose transcripts are gone)
            print(line)
    else:
        from cairn.sessions.xray_report import render

        render(report)
    if args.html:
        print(f"HTML report written to {args.html}")
    return 0


def _periods(args: argparse.Namespace, paths: list[str]) -> int:
    """`cairn xray --by month|block`: the usage by month or billing block, nothing else."""
    from cairn.sessions.prices import load_prices
    from cairn.sessions.xray_periods import period_report

    ds, filters, empty = _load(args, paths)
    report = period_report(ds, load_prices(), args.by)
    report["included"] = {"files": ds.files, "roots": ds.roots, "filters": filters}
    if args.json:
        print_json(report)
        return 0
    if empty:
        print(empty)
        return 0
    from cairn.sessions.xray_report import render_periods

    render_periods(report)
    return 0


def _in_thread(work: Callable[[], object]) -> threading.Thread:
    """Run `work` in a thread beside the analysis: it runs while the analysis waits for the tool
    outputs another process is still reading (a blocking read lets it), which takes it off the
    command's critical path. A failure is left to the same work done later in the main thread."""
    import threading

    def run() -> None:
        try:
            work()
        except Exception:  # noqa: BLE001 - the main thread does it again then (and reports what fails)
            pass

    thread = threading.Thread(target=run, name="cairn-xray-meanwhile", daemon=True)
    thread.start()
    return thread


def _warm_redaction() -> None:
    """Import and compile the output's redaction: ~0.03 s of the first `redact` call
    (cli/main.py's RedactedStdout, at the end). Only caches are filled; the output is still
    redacted whole, by that call. Also imported: what `_add_telemetry` imports (sqlite3, ~2 ms)."""
    import cairn.sessions.archive_schema  # noqa: F401 - imported here, used by _add_telemetry
    from cairn.redact import prepare

    prepare()


def _rows_text(rows: list) -> str:
    """`json_text(rows)`, made a few rows at a time so the thread doing it lets the main one run:
    a list's JSON is `[` + its items' texts joined by `,` + `]`."""
    from cairn.cli.common import json_text

    step = 64
    chunks = [json_text(rows[i : i + step])[1:-1] for i in range(0, len(rows), step)]
    return "[" + ",".join(chunks) + "]"


def _add_telemetry(report: dict, read: set[str]) -> None:
    """Put each session's transcript beside its OpenTelemetry numbers, when `cairn otel serve` stored
    any, and list the sessions it reported whose transcript is gone (`read`: every session read)."""
    from cairn.sessions.archive_schema import archive_path

    if not archive_path().exists():
        return
    from cairn.otel.store import telemetry_by_session
    from cairn.sessions.archive_schema import open_archive
    from cairn.sessions.xray_telemetry import finding, reconcile, telemetry_only, telemetry_only_finding

    con = open_archive()
    try:
        tel = telemetry_by_session(con)
    finally:
        con.close()
    section = reconcile(report, tel)
    section["telemetry_only"] = telemetry_only(
        read | {s["session_id"] for s in report["sessions"]}, tel, report["included"]["filters"]
    )
    report["telemetry"] = section
    for line in (finding(section), telemetry_only_finding(section["telemetry_only"])):
        if line is not None:
            report["findings"].append(line)


def cmd_simulate(args: argparse.Namespace) -> int:
    from cairn.sessions.prices import load_prices
    from cairn.sessions.simulate import parse_thresholds, parse_tokens, simulate

    paths = list(args.paths)
    thresholds = parse_thresholds(args.thresholds)
    handoff = parse_tokens(args.handoff, "--handoff")
    ds, _, empty = _load(args, paths)
    sim = simulate(ds, load_prices(), thresholds, handoff)
    if args.json:
        print_json(sim)
        return 0
    if empty:
        print(empty)
        return 0
    from cairn.sessions.xray_report import render_simulation

    render_simulation(sim)
    return 0
