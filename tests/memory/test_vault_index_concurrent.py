"""The vault's note index under first loads at once: one table, nobody's rows dropped, nothing deleted.

Two sessions' first `remember` in a new project used to race: each saw user_version 0 and one
dropped the table the other had just created (and a load kept busy past the timeout deleted the
file another process was writing).
"""

from __future__ import annotations

import sqlite3
import threading

from cairn.codemap.knowledge.vault_index import INDEX_NAME, VaultIndex


def test_first_loads_at_once_keep_every_row(tmp_path):
    for round_ in range(15):
        state = tmp_path / f"state{round_}"
        state.mkdir()
        start = threading.Barrier(4)
        errors: list[BaseException] = []
        wrote: list[str] = []  # a load that found the file busy goes without it (its notes are parsed)

        def load(i: int, state=state, start=start, errors=errors, wrote=wrote) -> None:
            try:
                start.wait()
                index = VaultIndex(state)
                if index.con is not None:
                    wrote.append(f"note-{i}.md")
                index.update([(f"note-{i}.md", (i, i, i, i), None, None)], [])
                index.close()
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        threads = [threading.Thread(target=load, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
        rows = VaultIndex(state).rows()
        assert sorted(rows) == sorted(wrote) and wrote, (round_, sorted(rows), wrote)


def test_a_busy_index_is_left_in_place(tmp_path, monkeypatch):
    index = VaultIndex(tmp_path)
    index.update([("kept.md", (1, 2, 3, 4), None, None)], [])
    index.close()
    inode = (tmp_path / INDEX_NAME).stat().st_ino

    def busy(path):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(VaultIndex, "_open", staticmethod(busy))
    assert VaultIndex(tmp_path).con is None  # this load goes without the index...
    monkeypatch.undo()
    assert (tmp_path / INDEX_NAME).stat().st_ino == inode  # ...and the file is still the one in use
    assert list(VaultIndex(tmp_path).rows()) == ["kept.md"]
