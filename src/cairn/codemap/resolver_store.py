"""The full graph build's import-resolver context, kept beside the index for in-place updates.

The full build (graph.py) saves it; an update of a few edited files (graph_update.py) loads it to
re-resolve their imports without indexing the whole file list again. Beside it, a small JSON
record of each folder's first JVM files and the package they name (`jvm_heads`): a JVM edit is
checked against it without loading the context (~0.3 s at 100k files). Both are private files
next to the index, written atomically; a missing or stale one (another file list) reads as None.
"""

from __future__ import annotations

import pickle
from pathlib import Path


def resolver_path(index_path: Path) -> Path:
    return index_path.with_suffix(".resolver")


def save_resolver(index_path: Path, ctx: object, paths_key: str) -> None:
    """Keep the full build's resolver context beside the index (private, like the index)."""
    import os

    tmp = resolver_path(index_path).with_suffix(".resolver.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            pickle.dump((paths_key, ctx), fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, resolver_path(index_path))
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        tmp.unlink(missing_ok=True)
    save_heads(index_path, ctx, paths_key)


def heads_path(index_path: Path) -> Path:
    return index_path.with_suffix(".jvmheads")


def jvm_heads(ctx: object) -> dict[str, str | None]:
    """The JVM files whose `package` line names their folder's package (each folder's first
    FILES_TRIED_PER_DIR, imports/jvm.py) -> that package as the resolver recorded it (None: none,
    so any edit of them is resolver-sensitive). A few entries per folder of JVM code."""
    from cairn.codemap.imports.jvm import FILES_TRIED_PER_DIR, JVM_EXTS

    index = ctx.indexes.get("jvm")  # type: ignore[attr-defined]
    pkg_of = {} if index is None else {f: pkg for pkg, files in reversed(index.packages.items()) for f in files}
    out: dict[str, str | None] = {}
    for files in ctx.dir_files.values():  # type: ignore[attr-defined]
        for f in [f for f in files if f.endswith(JVM_EXTS)][:FILES_TRIED_PER_DIR]:
            out[f] = pkg_of.get(f)
    return out


def save_heads(index_path: Path, ctx: object, paths_key: str) -> None:
    """Beside the resolver context, what an edit of a JVM file is checked against (`jvm_heads`), small
    enough to read on every such edit: the whole context (~0.3 s to load at 100k files) is then
    loaded only when import lines changed."""
    import json
    import os

    tmp = heads_path(index_path).with_suffix(".jvmheads.tmp")
    try:
        data = json.dumps({"paths_key": paths_key, "heads": jvm_heads(ctx)})
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(data)
        os.replace(tmp, heads_path(index_path))
    except (OSError, TypeError, AttributeError, ValueError):
        tmp.unlink(missing_ok=True)


def load_heads(index_path: Path, paths_key: str) -> dict[str, str | None] | None:
    import json

    try:
        with open(heads_path(index_path), encoding="utf-8") as fh:
            data = json.load(fh)
        return data["heads"] if data.get("paths_key") == paths_key and isinstance(data.get("heads"), dict) else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def head_moved(heads: dict[str, str | None], root: Path, path: str) -> bool:
    """What graph_update's `_resolver_sensitive` asks of a JVM file, from `jvm_heads`: it is one of its folder's
    first files and its `package` line no longer names the package recorded for it."""
    from cairn.codemap.imports.jvm import read_package

    if path not in heads:
        return False
    recorded = heads[path]
    return recorded is None or read_package(root, path) != recorded


_LOADED: dict[
    str, tuple[int, str, object]
] = {}  # resolver file -> (mtime_ns, paths key, context): a long-lived process loads it once


def load_resolver(index_path: Path, paths_key: str) -> object | None:
    path = resolver_path(index_path)
    try:
        mtime = path.stat().st_mtime_ns
        hit = _LOADED.get(str(path))
        if hit is None or hit[0] != mtime:
            with open(path, "rb") as fh:
                key, ctx = pickle.load(fh)  # noqa: S301 - written by this program into CAIRN_HOME (0600)
            hit = _LOADED[str(path)] = (mtime, key, ctx)
    except Exception:
        return None
    return hit[2] if hit[1] == paths_key else None
