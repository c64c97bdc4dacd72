"""Stage 3, derive: what follows from the stored files (graph, vectors, history, maps, counts).

Each step is skipped when its inputs did not move, and each leaves in `meta` (index_meta.py) what a
killed run must finish: the graph is rebuilt while `graph_dirty` holds, ranks computed while
`rank_stale` says they are missing, maps written while `maps_dirty` holds. The journal offset the
index is right as of is recorded last but the maps and counts, which the next run finishes anyway.
"""

from __future__ import annotations

from cairn.codemap.freshness import history_stamp
from cairn.codemap.git_changes import MAX_LISTED, GitView
from cairn.codemap.index_meta import RANKS_MISSING
from cairn.codemap.stages.state import IndexStats, Run
from cairn.store.db import transaction

TEXT_LOG_KEEP = 4096  # rows of the text log (schema v8) kept: a search rescores answers of states this recent


def prune_text_log(run: Run) -> None:
    """Drop the text log's old rows once it holds twice TEXT_LOG_KEEP (a full re-index logs every file)."""
    if not run.stats.changed:
        return
    top = run.con.execute("SELECT MAX(seq) FROM text_log").fetchone()[0] or 0
    if top - run.meta.text_log_floor > 2 * TEXT_LOG_KEEP:
        with transaction(run.con):
            run.con.execute("DELETE FROM text_log WHERE seq <= ?", (top - TEXT_LOG_KEEP,))
            run.meta.save(run.con, text_log_floor=top - TEXT_LOG_KEEP)


def refresh_vectors(run: Run) -> None:
    """The semantic channel's vectors follow the files (opt-in: `[index] semantic`)."""
    from cairn.codemap.vectors import refresh_vectors as refresh

    refresh(run.con, run.root, run.cfg.semantic, run.cfg.semantic_model)


def refresh_graph(run: Run) -> None:
    """After a change: the few changed files' edges in place when it can (graph_update.py), else the
    full rebuild (graph.py); the maps are stale then. Without one: finish a killed run's rank pass."""
    stats = run.stats
    if stats.changed or stats.deleted or run.graph_dirty or run.full:
        from cairn.codemap.graph import rebuild_graph
        from cairn.codemap.graph_update import update_graph

        if run.old and not stats.deleted and update_graph(run.con, run.project, run.project.index_path(), run.old):
            stats.graph_updated = True
        else:
            from cairn.util.collector import fewer_collections

            with fewer_collections():  # edge dicts of 100k+ entries: no cycle among them (util/collector.py)
                rebuild_graph(run.con, run.project, fork=run.jobs() > 1)
            stats.graph_rebuilt = True
        with transaction(run.con):
            run.meta.save(run.con, maps_dirty=True)
    elif run.meta.rank_stale >= RANKS_MISSING:
        from cairn.codemap.graph import rank_pass

        rank_pass(run.con)


def count_kinds(run: Run) -> None:
    """The file list may have moved: its counts per kind and language follow (file_facts.py)."""
    if run.stats.changed or run.stats.deleted or run.full:
        from cairn.codemap.file_facts import save_kind_counts

        save_kind_counts(run.con)


def mine_history(run: Run) -> None:
    """New commits since the last run (history.py), unless .git/HEAD and its reflog did not move."""
    stamp = history_stamp(run.root)
    if run.git and run.cfg.history and (stamp is None or stamp != run.meta.history_stamp):
        from cairn.codemap.history import update_history

        run.stats.commits_mined = update_history(run.con, run.root)
    if stamp is not None and stamp != run.meta.history_stamp:
        with transaction(run.con):
            run.meta.save(run.con, history_stamp=stamp)


def record_journal(run: Run) -> None:
    """The index is right as of this watcher's journal offset: the next run reads only what came after."""
    watch = run.watch
    if watch is not None and (run.meta.watch_epoch, run.meta.watch_offset) != (watch.epoch, run.offset):
        with transaction(run.con):
            run.meta.save(run.con, watch_epoch=watch.epoch, watch_offset=run.offset)


def record_git_view(run: Run) -> None:
    """git's view as the run started, plus every path it stored or deleted (their content is what was
    read, which git may call clean later): the next run without the journal starts from it. A run
    that took no view but changed files leaves no view (the old one no longer covers the index)."""
    changed = {e.path for e in run.todo} | set(run.gone)
    if run.git_view is not None:
        listed = sorted(set(run.git_view.listed) | changed)
        view = GitView(run.git_view.head, listed, run.git_view.stamps)
        row = view.as_row() if len(listed) <= MAX_LISTED else None
    elif run.meta.git_view is not None and changed:
        then = GitView.from_row(run.meta.git_view)
        listed = sorted(set(then.listed) | changed) if then is not None else []
        fits = then is not None and len(listed) <= MAX_LISTED
        row = GitView(then.head, listed, then.stamps).as_row() if then is not None and fits else None
    else:
        return
    if row != run.meta.git_view:
        with transaction(run.con):
            run.meta.save(run.con, git_view=row)


def write_maps(run: Run) -> None:
    """Whoever refreshed the index (index, search, a hook, MCP), the committed maps follow it."""
    if run.project.has_memory_dir and run.meta.maps_dirty:
        from cairn.codemap.maps import write_maps as write

        run.stats.maps_written = write(run.con, run.project)
        with transaction(run.con):
            run.meta.save(run.con, maps_dirty=False)


_TOTALS = ("files", "languages", "symbols", "headings", "edges", "parse_failures", "parse_errors")


def count_totals(run: Run) -> None:
    """Counts of what the index holds: counted after a change, else read back from the last count;
    a run asked not to count (`totals=False`) that changed files marks the saved counts stale."""
    stats = run.stats
    if not run.totals:
        if stats.changed or stats.deleted:
            with transaction(run.con):
                run.meta.save(run.con, totals=None)  # the next run that prints them counts again
        return
    saved = run.meta.totals
    if saved and "headings" in saved and not (stats.walked or stats.changed or stats.deleted or stats.graph_rebuilt):
        for k, v in saved.items():  # (totals saved before headings were apart are counted again)
            setattr(stats, k, v)
    else:
        _count(run, stats)
    for reason, n in run.con.execute("SELECT reason, COUNT(*) FROM skipped GROUP BY reason"):
        stats.skipped[reason] = stats.skipped.get(reason, 0) + n


def _count(run: Run, stats: IndexStats) -> None:
    con = run.con
    stats.files = con.execute("SELECT COUNT(*) FROM files").fetchone()[0]
    # files of no language count as text, in one group (two groups under one key: the last one won)
    stats.languages = dict(
        con.execute("SELECT COALESCE(lang, 'text'), COUNT(*) FROM files GROUP BY 1 ORDER BY 2 DESC, 1").fetchall()
    )
    stats.symbols, stats.headings = con.execute(
        "SELECT COUNT(*) - COALESCE(SUM(kind = 'heading'), 0), COALESCE(SUM(kind = 'heading'), 0) FROM symbols"
    ).fetchone()
    stats.edges = con.execute("SELECT COUNT(*) FROM edges").fetchone()[0]
    stats.parse_failures = dict(
        con.execute(
            "SELECT COALESCE(lang, 'text'), COUNT(*) FROM files "
            "WHERE parse_error IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1"
        ).fetchall()
    )
    stats.parse_errors = sum(stats.parse_failures.values())
    with transaction(con):
        run.meta.save(con, totals={k: getattr(stats, k) for k in _TOTALS})
