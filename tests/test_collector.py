"""The indexer collects cycles at a slower pace while it stores files and rebuilds the graph, then
gives the process its own pace back (util/collector.py)."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest

from cairn.util.collector import PACE, fewer_collections
from helpers import make_git_repo


@pytest.fixture
def pace():
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*before)


def test_the_pace_holds_inside_and_comes_back_after(pace) -> None:
    with fewer_collections():
        assert gc.get_threshold() == PACE
    assert gc.get_threshold() == (700, 10, 10)


def test_overlapping_blocks_restore_only_when_the_last_ends(pace) -> None:
    """Two index runs in two threads of one server: the first to end must not take the pace from the other."""
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[tuple[int, ...]] = []

    def second() -> None:
        first_in.wait()
        with fewer_collections():
            second_in.set()
            first_out.wait()
            seen.append(gc.get_threshold())

    t = threading.Thread(target=second)
    t.start()
    with fewer_collections():
        first_in.set()
        second_in.wait()
    first_out.set()
    t.join()
    assert seen == [PACE]
    assert gc.get_threshold() == (700, 10, 10)


def test_an_index_run_stores_and_rebuilds_at_the_pace(pace, tmp_path: Path, monkeypatch) -> None:
    import cairn.codemap.graph as graph
    from cairn.codemap.indexer import index_project
    from cairn.codemap.stages import store
    from cairn.project import project_for_root

    during: dict[str, tuple[int, ...]] = {}
    real_flush, real_rebuild = store._flush, graph.rebuild_graph

    def flush(run, batch):
        during.setdefault("store", gc.get_threshold())
        return real_flush(run, batch)

    def rebuild(*args, **kwargs):
        during["graph"] = gc.get_threshold()
        return real_rebuild(*args, **kwargs)

    monkeypatch.setattr(store, "_flush", flush)
    monkeypatch.setattr(graph, "rebuild_graph", rebuild)
    root = make_git_repo(tmp_path / "r", {"a.py": "def f():\n    return 1\n", "b.py": "from a import f\n\nf()\n"})
    index_project(project_for_root(root), workers=1)
    assert during == {"store": PACE, "graph": PACE}
    assert gc.get_threshold() == (700, 10, 10)
