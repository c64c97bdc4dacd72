"""Settings: defaults in one place, overridden by ~/.cairn/config.toml, then <repo>/.cairn/config.toml.

A project's config.toml is committed, so whoever wrote the repository wrote it: it may tune how
cairn reads the project (`[index]`, `[search]`, `[hooks.*]`, `[memory]`), never what leaves the
machine, who the user is, or how other projects' data is filed. USER_ONLY names those settings;
from a project file they are dropped and only *suggested* (`project_suggestions`, shown by
`cairn doctor`): a cloned repository that commits `[team] database = "postgresql://..."` and
`push_on_stop = true` must not send the user's sessions anywhere.

`settings(root)` is the one typed object every reader uses (`settings(root).hooks.recall.budget`):
each table below is a class whose annotated class attributes are the defaults, so a default is
written once, a value is parsed once, and a configured 0 stays 0. A value of the wrong type falls
back to its default (a hook must never fail on a typo; `cairn doctor` reads the file strictly).
`load_config` keeps the raw merged tables for the free-form ones (`[[routes]]`, `[prices]`).

Stdlib only (tomllib, imported when a config file exists) so hooks can read settings cheaply.

Example `.cairn/config.toml`:

    [hooks.recall]
    budget = 500
    [hooks.harvest]
    enabled = true
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from cairn.errors import CairnError
from cairn.home import cairn_home

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any, ClassVar


class Table:
    """One `[table]` of config.toml: class attributes are the keys, their defaults and types.

    Read as attributes (`cfg.budget`), or by a key held as data (`cfg["budget"]`).
    """

    _keys: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls) -> None:
        cls._keys = tuple(k for k, v in vars(cls).items() if not k.startswith("_") and not callable(v))

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        values = values if isinstance(values, Mapping) else {}
        for key in self._keys:
            if key in values:
                default = getattr(type(self), key)
                setattr(self, key, _coerce(values[key], default))

    def __getitem__(self, key: str) -> Any:
        if key not in self._keys:
            raise KeyError(key)
        return getattr(self, key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def as_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self._keys}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.as_dict()!r})"


def _coerce(value: Any, default: Any) -> Any:
    """`value` as the type of `default`, or `default` when it is not one (never raises). Numbers
    must be real numbers in 0..1e15: `budget = "500"`, `max_items = -3` or `window = inf` keep the
    default, so a typo never switches a feature off."""
    if isinstance(default, bool):
        return value if isinstance(value, bool) else default
    if isinstance(default, int | float):
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1e15:
            return default  # NaN fails the range test too
        return int(value) if isinstance(default, int) else float(value)
    if isinstance(default, tuple):
        if isinstance(value, str):
            return (value,)
        if isinstance(value, (list, tuple)):
            return tuple(str(v) for v in value)
        return default
    if isinstance(default, str):
        return value if isinstance(value, str) else default
    return value


class IndexSettings(Table):
    max_file_bytes: int = 1_000_000  # larger files are skipped and counted
    workers: int = 0  # 0 = one per core when the cold index is large enough to pay
    history: bool = True  # mine git history (co-change, churn) for recall; false skips `git log`
    semantic: bool = False  # vectors for the semantic search channel (needs the `semantic` extra: util/install_hint.py says the command)
    semantic_model: str = "wordllama"  # its model: "wordllama" (static table) or "minilm" (the `semantic-onnx` extra)


class SearchSettings(Table):
    rrf_k: int = 60
    budget: int = 2000
    limit: int = 10


class SessionStartSettings(Table):
    budget: int = 2000  # one hard cap on everything injected at session start (estimated tokens)
    map_budget: int = 600  # the level-0 map's own share
    refresh_seconds: float = 1.0  # inline index refresh; past this it finishes in the background
    decisions: int = 5  # most important live decisions and gotchas
    tasks: int = 5  # open tasks


class RecallSettings(Table):
    enabled: bool = True
    budget: int = 700  # estimated tokens per prompt
    max_items: int = 3
    min_terms: int = 2  # distinctive terms needed when nothing is named
    min_weight: float = 0.6  # term weight (search/query.py, 0.3..~3 by rarity) that counts as distinctive
    score_floor: float = 0.02  # fused rank score of a code hit (one strong channel ~ 0.016)
    sessions: bool = True  # also recall past sessions of this project from the archive
    tracker_files: tuple[str, ...] = (".beads/issues.jsonl",)


class MeterSettings(Table):
    enabled: bool = True
    window: int = 150_000  # compaction window; CLAUDE_CODE_AUTO_COMPACT_WINDOW wins when set
    share: float = 0.8


class HarvestSettings(Table):
    enabled: bool = False  # writing after every answer costs more than it saves: opt in
    min_explore: int = 10  # reads/searches in the turn before asking
    max_per_session: int = 1


class ReadGuardSettings(Table):
    enabled: bool = True
    max_lines: int = 800
    max_bytes: int = 80_000


class Switch(Table):
    enabled: bool = True


class TeamSettings(Table):
    database: str = ""  # postgresql://... (opt-in; CAIRN_TEAM_DATABASE wins); never a default
    user: str = ""  # who pushes: default git's user.email, else the login name
    machine: str = ""  # default: this host's name
    push_on_stop: bool = False  # the Stop hook's detached archive run also pushes the new turns


class HookSettings:
    """The `[hooks.*]` tables: one typed table per hook feature."""

    __slots__ = ("session_start", "recall", "meter", "harvest", "read_guard", "journal", "archive", "session_record")

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        v = values if isinstance(values, Mapping) else {}
        self.session_start = SessionStartSettings(v.get("session_start"))
        self.recall = RecallSettings(v.get("recall"))
        self.meter = MeterSettings(v.get("meter"))
        self.harvest = HarvestSettings(v.get("harvest"))
        self.read_guard = ReadGuardSettings(v.get("read_guard"))
        self.journal = Switch(v.get("journal"))  # SessionEnd: the daily journal entry
        self.archive = Switch(v.get("archive"))  # Stop: archive the transcript's new tail (detached)
        self.session_record = Switch(v.get("session_record"))  # PreCompact: the session record


class Settings:
    """Every setting cairn reads, typed; `raw` holds the merged tables as written."""

    __slots__ = ("index", "search", "hooks", "team", "raw")

    def __init__(self, raw: Mapping[str, Any] | None = None) -> None:
        self.raw: dict[str, Any] = dict(raw or {})
        self.index = IndexSettings(self.raw.get("index"))
        self.search = SearchSettings(self.raw.get("search"))
        self.hooks = HookSettings(self.raw.get("hooks"))
        self.team = TeamSettings(self.raw.get("team"))


DEFAULTS: dict[str, Any] = {"index": IndexSettings().as_dict(), "search": SearchSettings().as_dict()}

# Tables only the user's own config (or the environment) may set; a project file's are dropped.
USER_ONLY: dict[str, str] = {
    "team": "sends sessions to a database, names the user and the machine",
    "routes": "files other folders' sessions under a project",
    "prices": "changes what the X-ray says every project cost",
    "sessions": "how many archive backups the user keeps",
    "workspace": "adds other folders to what search reads (`cairn workspace add PATH` is yours to run)",
}
# Values a project may lower but not raise past what this machine has.
_CAPS: dict[tuple[str, str], Any] = {("index", "workers"): lambda: os.cpu_count() or 1}


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, val in over.items():
        if isinstance(val, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], val)
        else:
            out[key] = val
    return out


def read_toml(path: Path) -> dict:
    """Parse a TOML file; a missing file is empty (and costs no TOML parser import), a broken one
    is a clear CairnError."""
    try:
        fh = open(path, "rb")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise CairnError(f"cannot read config {path}: {exc}") from None
    import tomllib

    with fh:
        try:
            return tomllib.load(fh)
        except (tomllib.TOMLDecodeError, OSError, ValueError) as exc:  # ValueError: not UTF-8
            raise CairnError(f"cannot read config {path}: {exc}") from None


def _checked(path: Path, problems: list[str] | None = None) -> dict:
    """A config file's settings, values of the wrong shape dropped (their defaults apply)."""
    raw = read_toml(path)
    if raw == {}:  # no file (the usual case on every command): nothing to check, no checker import
        return {}
    from cairn.config_check import sanitize

    data, found = sanitize(raw, str(path))
    if problems is not None:
        problems += found
    return data


def _project_file(root: Path | None) -> Path | None:
    if root is None:
        return None
    path = Path(root) / ".cairn" / "config.toml"
    if not os.path.lexists(path):  # a missing one is not ok either: no path checker import for it
        return None
    from cairn.safepath import memory_member_ok

    return path if memory_member_ok(path.parent, path) else None  # a link out of .cairn/ is not the project's


def _files(root: Path | None) -> list[Path]:
    project = _project_file(root)
    return [cairn_home() / "config.toml"] + ([project] if project is not None else [])


def _project_part(data: dict) -> dict:
    """A project file's settings without USER_ONLY tables, and capped where _CAPS says."""
    out = {k: v for k, v in data.items() if k not in USER_ONLY}
    for (table, key), cap in _CAPS.items():
        value = (out.get(table) or {}).get(key) if isinstance(out.get(table), dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > cap():
            out[table] = {**out[table], key: cap()}
    return out


def project_suggestions(root: Path | None) -> dict[str, Any]:
    """The USER_ONLY tables the project's config.toml sets (dropped from its settings): `cairn
    doctor` shows them as suggestions, nothing applies them."""
    path = _project_file(root)
    if path is None:
        return {}
    try:
        data = read_toml(path)
    except CairnError:
        return {}
    return {table: data[table] for table in USER_ONLY if table in data}


def user_config() -> dict:
    """The user's own ~/.cairn/config.toml (routes, personal settings)."""
    return _checked(cairn_home() / "config.toml")


def load_config(root: Path | None = None) -> dict:
    """Effective settings for a project root as raw tables (defaults < user < project); values
    of the wrong shape are dropped, so their defaults apply."""
    cfg = _merge(DEFAULTS, _checked(cairn_home() / "config.toml"))
    project = _project_file(root)
    if project is not None:
        cfg = _merge(cfg, _project_part(_checked(project)))
    return cfg


def check_config(root: Path | None = None) -> None:
    """Raise a one-line CairnError naming the first unreadable file or wrong value (CLI use)."""
    problems: list[str] = []
    for path in _files(root):
        _checked(path, problems)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise CairnError(problems[0] + more)


def settings(root: Path | None = None, *, strict: bool = False) -> Settings:
    """The typed settings of a project root. A broken config.toml gives the defaults unless
    `strict` (then it is the CairnError naming the file or value); without any config file no
    TOML parser is even imported (the usual case on every hook call)."""
    candidates = [cairn_home() / "config.toml"] + ([Path(root) / ".cairn" / "config.toml"] if root else [])
    if not any(p.is_file() for p in candidates):
        return Settings()
    try:
        if strict:
            check_config(root)
        return Settings(load_config(root))
    except (CairnError, OSError, ValueError):
        if strict:
            raise
        return Settings()
