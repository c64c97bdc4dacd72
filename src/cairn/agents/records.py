"""Markdown records with JSON-valued front matter (handoffs, session records), newest first.

A JSON-valued front matter block (valid YAML, read back without a YAML parser so the
hooks stay light), then markdown. Stored in `.cairn/<kind>/` when the project opted in, else in
CAIRN_HOME/projects/<id>/<kind>/; file names start with a UTC timestamp so name order is time
order.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from cairn.text.frontmatter import split_front_matter

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from cairn.project import Project


def records_dir(project: Project, kind: str) -> Path:
    """Where records of `kind` live for a project (see the module docstring). Under `.cairn/` no
    component may be a symlink (a cloned repository could point one anywhere): PathRefused."""
    if project.memory_dir is not None and project.has_memory_dir:
        from cairn.safepath import memory_path

        return memory_path(project.memory_dir, kind)
    return project.data_dir() / kind


def read_dir(project: Project, kind: str) -> Path | None:
    """`records_dir` for reading: None when `.cairn/` links it elsewhere (nothing is read then)."""
    from cairn.errors import PathRefused

    try:
        return records_dir(project, kind)
    except PathRefused:
        return None


def utc_stamp(ts: float | None = None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def slug(text: str, max_len: int = 40) -> str:
    from cairn.safepath import slug as safe_slug

    return safe_slug(text, max_len, default="record")


def render(meta: dict, body: str) -> str:
    """Front matter (one `key: <json>` line per key) + body."""
    lines = ["---"] + [f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in meta.items()] + ["---", ""]
    return "\n".join(lines) + body.rstrip() + "\n"


def parse(text: str) -> tuple[dict, str]:
    """(meta, body) of a record; a file without front matter is all body."""
    block, body = split_front_matter(text)
    if block is None:
        return {}, text
    meta: dict = {}
    for line in block.splitlines():
        key, sep, raw = line.partition(":")
        if not sep:
            continue
        try:
            meta[key.strip()] = json.loads(raw.strip())
        except ValueError:
            meta[key.strip()] = raw.strip()
    return meta, body


def new_path(folder: Path, title: str, ts: float | None = None) -> Path:
    """A fresh `YYYYMMDD-HHMMSS-mmm-<slug>.md` in `folder` (never an existing name); milliseconds so
    two records written in one second still sort in the order they were written."""
    ts = time.time() if ts is None else ts
    base = time.strftime("%Y%m%d-%H%M%S", time.gmtime(ts)) + f"-{int(ts * 1000) % 1000:03d}-" + slug(title)
    path = folder / f"{base}.md"
    n = 2
    while path.exists():
        path = folder / f"{base}-{n}.md"
        n += 1
    return path


def write(path: Path, meta: dict, body: str) -> Path:
    """Write a new record atomically, secrets redacted (front matter included), through no
    symlink, and never over another record: when `path` is taken (a writer in the same
    millisecond), the next free `-2`, `-3`... name is used. Returns the path written."""
    from cairn.redact import redact
    from cairn.util.atomic import atomic_create_bytes, sweep_temps

    if path.is_symlink():
        from cairn.errors import PathRefused

        raise PathRefused(path, "a symlink is never written through")
    data = redact(render(meta, body)).encode("utf-8")
    sweep_temps(path.parent)  # temp files of a writer killed mid-write
    stem, n = path.stem, 2
    while True:
        try:
            atomic_create_bytes(path, data)
            return path
        except FileExistsError:
            path = path.with_name(f"{stem}-{n}{path.suffix}")
            n += 1


def newest(folder: Path | None, pattern: str = "*.md") -> list[Path]:
    """Records in `folder`, newest first (by name, which starts with the UTC time)."""
    if folder is None:
        return []
    try:  # a symlink is never a record: it could point anywhere on the machine
        return sorted(
            (p for p in folder.glob(pattern) if p.is_file() and not p.is_symlink()), key=lambda p: p.name, reverse=True
        )
    except OSError:
        return []
