"""A background watcher that records which paths of a worktree changed, so a refresh needs no walk.

Linux inotify through ctypes (stdlib only): one watch per folder of the worktree (junk folders,
`.git` and symlinked folders left out), and every event on a file is appended to a journal beside
the index as `path\\0` (a folder that went away or was renamed away as `path/\\0`, everything under
it; a new folder is watched and every file already in it journaled). A lost event (the kernel
queue overflowed, a watch could not be added) is journaled as `*\\0`: the next refresh walks.

Files beside the index (`index-<worktree>.db`): `.watchlock` (held by the live watcher; a
reader that can take it knows none runs), `.watch` (JSON: pid, epoch; written once every folder
is watched) and `.journal` (started empty for each epoch). The watcher exits after IDLE_S without
a reader touching `.watch`, when the worktree goes, or when the journal passes MAX_JOURNAL
(the next reader starts a new one). Started detached by `codemap/freshness.py`.
Usage (internal): python -m cairn.codemap.watch ROOT INDEX_PATH
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import select
import struct
import sys
import time

from cairn.codemap.freshness import LOST, files_beside

IN_MODIFY, IN_ATTRIB, IN_CLOSE_WRITE = 0x2, 0x4, 0x8
IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF = 0x400, 0x800
IN_Q_OVERFLOW, IN_IGNORED, IN_ONLYDIR, IN_DONT_FOLLOW, IN_ISDIR = 0x4000, 0x8000, 0x1000000, 0x2000000, 0x40000000
IN_CLOEXEC = 0o2000000
MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
)
IDLE_S = float(os.environ.get("CAIRN_WATCH_IDLE", "1800"))
MAX_JOURNAL = 16 << 20
_EVENT = struct.Struct("iIII")


def _skip_dir(name: str) -> bool:
    from cairn.codemap.scan import JUNK_DIRS

    return name in JUNK_DIRS or name.endswith(".egg-info")


class Watcher:
    """The inotify handle and the folder each watch descriptor stands for."""

    def __init__(self, root: str, journal_fd: int) -> None:
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(IN_CLOEXEC)
        if self.fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.root = root
        self.journal = journal_fd
        self.dirs: dict[int, str] = {}  # wd -> folder relative to root ("" = root)

    def add_tree(self, rel: str, journal_files: bool) -> bool:
        """Watch `rel` and every folder below it; journal the files met when asked. False: a watch failed."""
        ok = True
        stack = [rel]
        found: list[bytes] = []
        while stack:
            d = stack.pop()
            full = os.path.join(self.root, d) if d else self.root
            wd = self.libc.inotify_add_watch(self.fd, os.fsencode(full), MASK)
            if wd < 0:
                if ctypes.get_errno() in (2, 20):  # ENOENT, ENOTDIR: gone already, its event says so
                    continue
                ok = False
                continue
            self.dirs[wd] = d
            try:
                with os.scandir(full) as it:
                    for entry in it:
                        sub = f"{d}/{entry.name}" if d else entry.name
                        try:
                            if entry.is_dir(follow_symlinks=False):
                                if not _skip_dir(entry.name):
                                    stack.append(sub)
                            elif journal_files:
                                found.append(os.fsencode(sub))
                        except OSError:
                            continue
            except OSError:
                continue
        if found:
            self.write(found)
        return ok

    def write(self, records: list[bytes]) -> None:
        os.write(self.journal, b"".join(r + b"\0" for r in records))

    def handle(self, buf: bytes) -> bool:
        """Journal one read's events. False: the worktree itself went away."""
        records: list[bytes] = []
        seen: set[bytes] = set()
        off = 0
        while off + _EVENT.size <= len(buf):
            wd, mask, _cookie, length = _EVENT.unpack_from(buf, off)
            name = buf[off + _EVENT.size : off + _EVENT.size + length].rstrip(b"\0")
            off += _EVENT.size + length
            if mask & IN_Q_OVERFLOW:
                records.append(LOST)
                continue
            d = self.dirs.get(wd)
            if d is None:
                continue
            if mask & IN_IGNORED:
                self.dirs.pop(wd, None)
                continue
            if mask & (IN_DELETE_SELF | IN_MOVE_SELF):
                if d == "":
                    return False
                continue  # the parent's event names it
            rel = (os.fsencode(d) + b"/" + name) if d else name
            if mask & IN_ISDIR:
                if _skip_dir(os.fsdecode(name)):
                    continue
                if mask & (IN_CREATE | IN_MOVED_TO):
                    if not self.add_tree(os.fsdecode(rel), journal_files=True):
                        records.append(LOST)
                if mask & (IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO):
                    records.append(rel + b"/")
                continue
            if rel not in seen:
                seen.add(rel)
                records.append(rel)
        if records:
            self.write(records)
        return True


def serve(root: str, index_path: str, idle: float = IDLE_S, poll: float = 5.0) -> int:
    """Watch `root` until idle, gone or the journal is full; 0 also when another watcher holds the lock.
    Every `poll` seconds it checks whether it should stop."""
    lock_path, state_path, journal_path = files_beside(index_path)
    lock = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    for attempt in range(20):  # a reader checking whether a watcher runs holds the lock for a moment
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError:
            if attempt == 19 or os.path.exists(state_path):
                return 0  # another watcher runs
            time.sleep(0.05)
    try:
        os.unlink(state_path)
    except FileNotFoundError:
        pass
    journal = os.open(journal_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | os.O_CLOEXEC, 0o600)
    try:
        w = Watcher(root, journal)
    except OSError:
        return 1
    if not w.add_tree("", journal_files=False):
        w.write([LOST])
    epoch = os.urandom(8).hex()
    tmp = state_path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({"pid": os.getpid(), "epoch": epoch}, fh)
    os.replace(tmp, state_path)
    poll = min(poll, idle)
    checked = time.monotonic()
    while True:
        ready, _, _ = select.select([w.fd], [], [], poll)
        if ready and not w.handle(os.read(w.fd, 1 << 16)):
            break
        if time.monotonic() - checked < poll and ready:
            continue
        checked = time.monotonic()
        if os.fstat(journal).st_size > MAX_JOURNAL or not os.path.isdir(root):
            break
        try:
            last = os.stat(state_path).st_mtime
        except OSError:
            break  # our state file was removed: a reader asked us to stop
        if time.time() - last > idle:
            break
    try:
        os.unlink(state_path)
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(serve(sys.argv[1], sys.argv[2]))
