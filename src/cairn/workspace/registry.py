"""The workspace file: which folders the user put in the workspace, read and written in one place.

Trust: the list lives in CAIRN_HOME (`~/.cairn/workspace.toml`, beside the user's config.toml),
written only by `cairn workspace add/remove`, plus the `[workspace] roots` the user may write in
their own `~/.cairn/config.toml`. Nothing a repository commits is read here: a
project's `.cairn/config.toml` cannot add a folder to what cairn reads (`[workspace]` is one of
config.USER_ONLY's tables, so such a table is dropped and `cairn doctor` shows it as a suggestion).

Entries are folders resolved through their symlinks when added; one that is the same folder as
another, or lies inside or around another, is refused (a symlink loop cannot be resolved and is
refused too). A hand-edited file is read leniently: duplicates and nested entries are dropped with
a line saying so (`Entries.problems`), the outer entry kept.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from cairn.errors import CairnError
from cairn.home import cairn_home

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from contextlib import AbstractContextManager

FILE_NAME = "workspace.toml"
MAX_ENTRIES = 64  # a workspace is a team's repositories, not a disk: each entry is one index per query


def workspace_file() -> Path:
    """Where the user's workspace is kept (never inside a repository)."""
    return cairn_home() / FILE_NAME


@dataclass
class Entries:
    """The workspace's folders as written (absolute, resolved when added), and what reading them found wrong."""

    roots: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _relation(a: Path, b: Path) -> str | None:
    """How folder `a` stands to folder `b`: same, inside, around, or None (apart)."""
    if a == b:
        return "same"
    if b in a.parents:
        return "inside"
    if a in b.parents:
        return "around"
    return None


def read_entries() -> Entries:
    """The workspace's entries; an absent file is an empty workspace, a broken one a CairnError."""
    from cairn.config import read_toml

    path = workspace_file()
    data = read_toml(path)
    raw = data.get("roots", [])
    if not isinstance(raw, list) or not all(isinstance(r, str) for r in raw):
        raise CairnError(f"{path}: `roots` must be a list of folder paths (fix it or remove the file)")
    raw = raw + configured()
    out = Entries()
    for text in raw[:MAX_ENTRIES]:
        root = Path(os.path.expanduser(text))
        if not root.is_absolute():
            out.problems.append(f"workspace entry {text!r} is not an absolute path: skipped")
            continue
        clash = next(((other, _relation(root, other)) for other in out.roots if _relation(root, other)), None)
        if clash is not None:
            other, how = clash
            if how == "around":  # keep the outer folder: it holds the inner one
                out.roots[out.roots.index(other)] = root
            out.problems.append(f"workspace entry {text} is {how} {other}: counted once")
            continue
        out.roots.append(root)
    if len(raw) > MAX_ENTRIES:
        out.problems.append(f"workspace has {len(raw)} entries: only the first {MAX_ENTRIES} are read")
    return out


def configured() -> list[str]:
    """The `[workspace] roots` of the user's own config.toml (a project's file never counts:
    config.USER_ONLY drops it there)."""
    from cairn.config import user_config

    table = user_config().get("workspace")
    return list(table.get("roots", [])) if isinstance(table, dict) else []


def write_entries(roots: list[Path]) -> None:
    """Replace the workspace file with `roots` (atomic, 0600: it names the user's folders)."""
    from cairn.home import ensure_private_dir
    from cairn.util.atomic import atomic_write_text

    ensure_private_dir(cairn_home())
    lines = ["# cairn's workspace: written by `cairn workspace add/remove` (one index per folder)", "roots = ["]
    lines += [f"  {json.dumps(str(r), ensure_ascii=False)}," for r in roots]  # a JSON string is a TOML basic string
    atomic_write_text(workspace_file(), "\n".join(lines + ["]", ""]), 0o600)


def checked_folder(text: str) -> Path:
    """`text` as the real folder it names (symlinks resolved), or a one-line CairnError."""
    if "\x00" in text:
        raise CairnError(f"{text!r}: not a path (NUL byte)")
    path = Path(os.path.expanduser(text))
    try:
        real = path.resolve(strict=True)
    except RuntimeError:  # Python < 3.13: a symlink loop
        raise CairnError(f"{text}: a symlink loop, not a folder: not added") from None
    except FileNotFoundError:
        raise CairnError(f"{text}: no such folder") from None
    except OSError as exc:  # ELOOP on 3.13+, permission...
        raise CairnError(f"{text}: cannot be resolved ({exc.strerror or exc}): not added") from None
    if not real.is_dir():
        raise CairnError(f"{text}: not a folder")
    try:
        str(real).encode("utf-8")  # the workspace file is UTF-8 text
    except UnicodeEncodeError:
        raise CairnError(f"{text!r}: its path is not UTF-8: rename the folder to add it") from None
    if len(real.parts) < 2 or real == Path.home() or real == cairn_home() or cairn_home() in real.parents:
        raise CairnError(f"{text}: {real} is too wide to be a workspace entry (name a repository's folder)")
    return real


def _locked() -> AbstractContextManager[int]:
    """The workspace file's lock: add and remove read it, then write it whole; two at once lost one's change."""
    from cairn.home import ensure_private_dir
    from cairn.util.filelock import file_lock

    ensure_private_dir(cairn_home())
    path = workspace_file()
    return file_lock(path.with_name(path.name + ".lock"), timeout=30, busy=f"{path}: another cairn is changing it")


def add(texts: list[str]) -> tuple[list[Path], list[str]]:
    """Add folders to the workspace: (the ones added, a line for each one refused or already there)."""
    with _locked():
        return _add(texts)


def _add(texts: list[str]) -> tuple[list[Path], list[str]]:
    entries = read_entries()
    roots = list(entries.roots)
    fixed = {str(Path(os.path.expanduser(t))) for t in configured()}
    added: list[Path] = []
    notes: list[str] = []
    for text in texts:
        real = checked_folder(text)
        clash = next(((other, _relation(real, other)) for other in roots if _relation(real, other)), None)
        if clash is not None:
            other, how = clash
            notes.append(
                f"{text}: already in the workspace" if how == "same" else f"{text}: refused: {how} the entry {other}"
            )
            continue
        if len(roots) >= MAX_ENTRIES:
            raise CairnError(f"the workspace holds {MAX_ENTRIES} folders already: remove one first")
        roots.append(real)
        added.append(real)
    if added:
        write_entries([r for r in roots if str(r) not in fixed])
    return added, notes


def remove(texts: list[str]) -> list[Path]:
    """Remove entries (by the path given, resolved or as written, or by folder name): the ones removed."""
    with _locked():
        return _remove(texts)


def _remove(texts: list[str]) -> list[Path]:
    entries = read_entries()
    fixed = {str(Path(os.path.expanduser(t))) for t in configured()}
    keep: list[Path] = []
    gone: list[Path] = []
    wanted = set()
    for text in texts:
        wanted.add(os.path.abspath(os.path.expanduser(text)))
        wanted.add(text.rstrip("/"))
        try:
            wanted.add(str(Path(os.path.expanduser(text)).resolve()))
        except (OSError, RuntimeError):
            pass
    for root in entries.roots:
        (gone if str(root) in wanted or root.name in wanted else keep).append(root)
    if not gone:
        raise CairnError(f"not in the workspace: {', '.join(texts)} (see `cairn workspace list`)")
    pinned = [str(r) for r in gone if str(r) in fixed]
    if pinned:
        raise CairnError(
            f"{', '.join(pinned)}: set in [workspace] roots of {cairn_home() / 'config.toml'}: remove it there"
        )
    write_entries([r for r in keep if str(r) not in fixed])
    return gone
