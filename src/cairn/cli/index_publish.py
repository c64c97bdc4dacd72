"""`cairn index --publish FILE|--team` and `cairn index --from FILE|--team`: an index built once for the team.

`--publish` writes the index of the current commit to a file (a CI artifact) or the team database
(codemap/publish.py, team/published.py); `--from` installs one, verified against the local tree,
then refreshes what differs (codemap/publish_install.py). A plain `cairn index` with no index yet
and a team database configured first asks the database for an index of HEAD or one of its
NEAR_COMMITS nearest first-parent ancestors; any failure there is one line on stderr and the
ordinary cold index. Hooks, searches and MCP never ask the database: they must not wait on a network.
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager
from pathlib import Path

from cairn.errors import CairnError

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from cairn.codemap.publish_install import Installed
    from cairn.codemap.stages.state import IndexStats
    from cairn.project import Project

NEAR_COMMITS = 50  # first-parent ancestors of HEAD whose published index a fresh clone may start from


def add_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--publish",
        nargs="?",
        const="",
        metavar="FILE",
        help="write the index of the current commit to FILE (a CI artifact), or with --team to the team database",
    )
    p.add_argument(
        "--from",
        dest="from_file",
        nargs="?",
        const="",
        metavar="FILE",
        help="install a published index (FILE, or with --team the team database's), then refresh what differs here",
    )
    p.add_argument("--team", action="store_true", help="with --publish or --from: the team database ([team] database)")


def wanted(args: argparse.Namespace) -> bool:
    return args.publish is not None or args.from_file is not None or bool(args.team)


def repository(project: Project) -> str | None:
    """The normalized git remote (team/identity.py), None without one."""
    from cairn.team.identity import git_remote, normalize_remote

    assert project.root is not None
    remote = git_remote(project.root)
    return normalize_remote(remote) if remote else None


def run(args: argparse.Namespace, project: Project, summary_line: Callable[[IndexStats], str]) -> int:
    """`--publish` or `--from` (with or without --team); prints its lines (or JSON). `summary_line`
    is index_cmd's, passed in (that module imports this one)."""
    from cairn.cli.common import print_json

    if args.publish is not None and args.from_file is not None:
        raise CairnError("--publish and --from cannot be used together")
    if args.publish is None and args.from_file is None:
        raise CairnError("--team goes with --publish or --from")
    with _term_as_interrupt():
        if args.publish is not None:
            out = _publish(args, project)
        else:
            out = _install(args, project, summary_line)
    if args.json:
        print_json(out)
    else:
        print(out["line"])
    return 0


@contextmanager
def _term_as_interrupt() -> Iterator[None]:
    """SIGTERM (a CI job cancelled, `kill`) raises KeyboardInterrupt as Ctrl-C does, so the finally
    blocks remove the temporary files of a publish or install (exit 130). Off the main thread no
    handler can be set; a kill -9 is left to the next run's sweep (publish.sweep_dead)."""
    import signal

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def _need(value: str, team: bool, flag: str) -> None:
    if bool(value) == team:
        raise CairnError(f"{flag} takes a FILE or --team (one of them)")


def _publish(args: argparse.Namespace, project: Project) -> dict:
    from cairn.codemap.publish import publish_index

    _need(args.publish, args.team, "--publish")
    repo = repository(project)
    if not args.team:
        try:
            m = publish_index(project, Path(args.publish), repo)
            size = Path(args.publish).stat().st_size
        except OSError as exc:  # a folder that cannot be written, a full disk
            raise CairnError(f"{args.publish}: cannot write it: {exc.strerror or exc}") from None
        where = args.publish
    else:
        if repo is None:
            raise CairnError(f"{project.root} has no git remote: the team database names a repository by its remote")
        from cairn.codemap.publish import sweep_beside_index
        from cairn.team.connect import connect, database_url
        from cairn.team.published import store

        sweep_beside_index(project.index_path())
        url = database_url(project.root)
        tmp = project.index_path().with_name(f"{project.index_path().name}.publish-{os.getpid()}")
        try:
            m = publish_index(project, tmp, repo)
            con = connect(url)
            try:
                size = store(con, url, repo, m, tmp)
            finally:
                con.close()
        finally:
            tmp.unlink(missing_ok=True)
        where = f"the team database ({repo})"
    line = f"published the index of {m.commit[:12]} ({len(m.files):,} files, {size / 1e6:.1f} MB) to {where}"
    return {"line": line, "commit": m.commit, "files": len(m.files), "bytes": size, "to": where}


def _install(args: argparse.Namespace, project: Project, summary_line: Callable[[IndexStats], str]) -> dict:
    _need(args.from_file, args.team, "--from")
    if not args.team:
        from cairn.codemap.publish_install import install

        done = install(project, Path(args.from_file), repository(project))
    else:
        done = fetch_from_team(project)
    from cairn.codemap.indexer import index_project

    stats = index_project(project)  # no page walk (`check`): the payload's sha256 was checked
    line = installed_line(done) + "\n" + summary_line(stats)
    out = {"line": line, "commit": done.manifest.commit, "files": done.files, "same": done.same}
    return {**out, "install_seconds": done.seconds, **stats.as_dict()}


def installed_line(done: Installed) -> str:
    return (
        f"installed the index published for {done.manifest.commit[:12]}: {done.same:,} of its {done.files:,} files "
        f"as published here, the rest refreshed below"
    )


def fetch_from_team(project: Project, on_part: Callable[[int], None] | None = None) -> Installed:
    """Fetch the published index of HEAD or its nearest ancestor from the team database and install it."""
    from cairn.codemap.graph import GRAPH_VERSION
    from cairn.codemap.index_db import INDEX_FORMAT
    from cairn.codemap.publish import PUBLISH_FORMAT, git
    from cairn.codemap.publish_install import install
    from cairn.team.connect import connect, database_url
    from cairn.team.published import fetch, find, other_formats

    assert project.root is not None
    repo = repository(project)
    if repo is None:
        raise CairnError(f"{project.root} has no git remote: the team database names a repository by its remote")
    commits = (git(project.root, "rev-list", "--first-parent", f"-n{NEAR_COMMITS}", "HEAD") or "").split()
    url = database_url(project.root)
    con = connect(url)
    tmp = project.index_path().with_name(f"{project.index_path().name}.fetch-{os.getpid()}.team")
    try:
        found = find(con, repo, commits, (PUBLISH_FORMAT, INDEX_FORMAT, GRAPH_VERSION))
        if found is None:
            others = other_formats(con, repo)
            why = f" (only index formats {', '.join(others)}; this cairn writes {INDEX_FORMAT})" if others else ""
            raise CairnError(f"no index published for HEAD or its {NEAR_COMMITS - 1} nearest ancestors of {repo}{why}")
        project.index_path().parent.mkdir(parents=True, exist_ok=True)
        fetch(con, url, repo, found, tmp, on_part)
    finally:
        con.close()
    try:
        return install(project, tmp, repo, where=f"the index published for {found.commit[:12]}")
    finally:
        tmp.unlink(missing_ok=True)


def team_configured(project: Project) -> bool:
    from cairn.team.connect import ENV

    if os.environ.get(ENV, "").strip():
        return True
    from cairn.config import settings

    return bool(settings(project.root).team.database.strip())


def maybe_fetch(project: Project) -> Installed | None:
    """Before a cold `cairn index`: the team's published index of HEAD or near it, when a team
    database is configured; None (one line on stderr) when there is none or it cannot be used."""
    if project.root is None or project.index_path().exists() or not (project.root / ".git").exists():
        return None
    if not team_configured(project):
        return None
    try:
        done = fetch_from_team(project)
    except (CairnError, OSError) as exc:
        print(f"cairn: no published index used ({exc}); indexing from scratch", file=sys.stderr)
        return None
    print(installed_line(done), file=sys.stderr)
    return done
