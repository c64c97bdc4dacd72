"""Which files of a project get indexed: the stat walk that every index run starts with.

In a git worktree: the files git tracks plus the untracked ones it would not ignore (so
.gitignore and .git/info/exclude apply), asked from git in one call. Outside git: a walk of the
tree minus the usual junk folders, honouring a root .gitignore if there is one. Both then apply
`.cairn/ignore`, and skip lockfiles, vendored and generated paths, symlinks (never followed out
of the root) and files over the size cap. Content checks (binary, minified, generated header)
happen later, when a file is read anyway.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat as statmod
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import pathspec

JUNK_DIRS = frozenset(
    """.git .hg .svn node_modules vendor third_party third-party bower_components __pycache__ .venv venv
    env .env .tox .nox .mypy_cache .pytest_cache .ruff_cache .cache dist build out target .next .nuxt
    .svelte-kit .gradle .idea .vscode coverage htmlcov .terraform .eggs site-packages Pods DerivedData
    .dart_tool .pub-cache""".split()
)
LOCKFILES = frozenset(
    """package-lock.json yarn.lock pnpm-lock.yaml bun.lockb Cargo.lock poetry.lock Pipfile.lock uv.lock
    composer.lock Gemfile.lock go.sum mix.lock pubspec.lock Package.resolved flake.lock
    npm-shrinkwrap.json gradle.lockfile packages.lock.json""".split()
)
BINARY_EXT = frozenset(
    """png jpg jpeg gif bmp ico webp svgz tiff psd pdf zip gz tgz bz2 xz 7z rar tar jar war ear class
    so dylib dll exe o a lib obj bin dat db sqlite sqlite3 wasm pyc pyo whl egg woff woff2 ttf otf eot
    mp3 mp4 wav ogg flac avi mov mkv webm pkl npy npz parquet h5 onnx pt ckpt safetensors ds_store
    lockb icns""".split()
)
GENERATED_SUFFIXES = (
    ".min.js",
    ".min.css",
    ".map",
    ".pb.go",
    "_pb2.py",
    "_pb2_grpc.py",
    ".g.dart",
    ".freezed.dart",
    ".generated.ts",
    ".designer.cs",
    ".snap",
    ".snap.new",
)  # test snapshots (insta, jest): generated output, often thousands


@dataclass
class ScanEntry:
    path: str  # repo-relative, POSIX separators
    size: int
    mtime_ns: int


@dataclass
class ScanResult:
    entries: list[ScanEntry] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> count
    git: bool = False
    ignore_fingerprint: str = ""

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


def _git_files(root: Path) -> list[str] | None:
    """Tracked + untracked-not-ignored files from git, or None if git can't answer."""
    try:
        out = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    names = out.stdout.decode("utf-8", "surrogateescape").split("\0")
    return sorted({n for n in names if n})


def _walk_files(root: Path) -> list[str]:
    """Every file under root outside junk folders; symlinked folders are not entered.

    os.scandir with relative prefixes carried down (no relpath per folder): this walk is most of
    a no-change re-index outside git.
    """
    out: list[str] = []
    stack = [("", str(root))]
    while stack:
        prefix, path = stack.pop()
        try:
            it = os.scandir(path)
        except OSError:
            continue
        with it:
            try:
                for entry in it:
                    name = entry.name
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            if name not in JUNK_DIRS and not name.endswith(".egg-info"):
                                stack.append((prefix + name + "/", entry.path))
                        else:
                            out.append(prefix + name)
                    except OSError:
                        continue
            except OSError:  # a folder that cannot be listed to the end: keep what was read
                continue
    out.sort()
    return out


def _ignore_lines(root: Path, use_gitignore: bool) -> list[str]:
    lines: list[str] = []
    sources = [root / ".cairn" / "ignore"]
    if use_gitignore:
        sources.append(root / ".gitignore")
    for src in sources:
        try:
            lines.extend(src.read_text(encoding="utf-8", errors="replace").splitlines())
        except OSError:
            continue
    return lines


def _ignore_spec(lines: list[str]) -> _FastIgnore | None:
    """A matcher for `.cairn/ignore` (and the root .gitignore when git is not there to apply it)."""
    if not lines:
        return None
    import pathspec

    return _FastIgnore(pathspec.GitIgnoreSpec.from_lines(lines))


class _FastIgnore:
    """gitignore matching at one regex search per path instead of one per pattern.

    All ignoring patterns are joined into a single regex; a path none of them matches is kept
    without consulting the rest (the common case). Only paths that do match go through
    pathspec's exact last-match-wins evaluation, which handles `!negations`.
    """

    def __init__(self, spec: pathspec.GitIgnoreSpec) -> None:
        self.spec = spec
        parts = [
            re.sub(r"\(\?P<\w+>", "(?:", p.regex.pattern) for p in spec.patterns if p.include and p.regex is not None
        ]
        try:
            self.any = re.compile("|".join(f"(?:{x})" for x in parts)) if parts else None
        except re.error:
            self.any = None
        self.exact_only = self.any is None and bool(parts)

    def match_file(self, path: str) -> bool:
        if self.any is not None and not self.any.search(path):
            return False
        if self.any is None and not self.exact_only:
            return False
        return self.spec.match_file(path)


_SECRET_NAME = re.compile(
    r"^(\.env(\..+)?|\.envrc|\.netrc|\.npmrc|\.pypirc|\.pgpass|id_(rsa|dsa|ecdsa|ed25519)(\.pub)?|"
    r"credentials(\.json)?|secrets?\.(json|ya?ml|toml)|.+\.(pem|key|p12|pfx|jks|keystore|kdbx|gpg|asc))$",
    re.I,
)
_SECRET_OK = re.compile(r"\.(example|sample|template|dist|defaults?)$", re.I)


def is_secret_file(name: str) -> bool:
    """Files that hold credentials by convention (`.env`, keys, keystores): never read into the index."""
    return bool(_SECRET_NAME.match(name)) and not _SECRET_OK.search(name)


def skip_reason_for_path(rel: str) -> str | None:
    """Why a path is never indexed, judged from its name alone (None = keep)."""
    parts = rel.split("/")
    name = parts[-1]
    if is_secret_file(name):
        return "secret"
    if any(p in JUNK_DIRS for p in parts[:-1]):
        return "vendored"
    if name in LOCKFILES:
        return "lockfile"
    low = name.lower()
    ext = low.rsplit(".", 1)[-1] if "." in low else ""
    if ext in BINARY_EXT:
        return "binary"
    if low.endswith(GENERATED_SUFFIXES):
        return "generated"
    if parts[0] == ".cairn" and len(parts) > 1 and parts[1] not in ("knowledge",):
        return "cairn"  # cairn's own generated maps and records are not code
    return None


def scan(
    root: Path, max_bytes: int = 1_000_000, *, kept: set[str] | None = None, ignore_fingerprint: str | None = None
) -> ScanResult:
    """List the indexable files of `root` with their size and mtime (one stat each).

    `kept` are paths known to pass the ignore rules whose fingerprint was `ignore_fingerprint`;
    while the rules are unchanged those paths skip matching (a no-change re-index is a stat walk).
    """
    root = Path(root)
    result = ScanResult()
    names = _git_files(root) if (root / ".git").exists() else None
    result.git = names is not None
    if names is None:
        names = _walk_files(root)
    lines = _ignore_lines(root, use_gitignore=not result.git)
    result.ignore_fingerprint = hashlib.sha1("\n".join(lines).encode()).hexdigest()[:16]
    spec = _ignore_spec(lines)
    if kept is None or ignore_fingerprint != result.ignore_fingerprint:
        kept = set()
    _stat_all(result, root, names, max_bytes, spec, kept)
    return result


def _stat_all(
    result: ScanResult, root: Path, names: list[str], max_bytes: int, spec: _FastIgnore | None, kept: set[str]
) -> None:
    """Judge each name (path rules, ignore rules unless in `kept`) and stat it into `result`."""
    root_str = str(root) + os.sep
    lstat = os.lstat
    for rel in names:
        if rel in kept:  # passed every name rule before, with the same ignore rules
            try:
                st = lstat(root_str + rel)
            except OSError:
                result.skip("unreadable")
                continue
        else:
            try:
                rel.encode("utf-8")
            except UnicodeEncodeError:  # a name that is not UTF-8 cannot be stored or shown: count it
                result.skip("bad filename")
                continue
            reason = skip_reason_for_path(rel)
            if reason:
                result.skip(reason)
                continue
            if spec is not None and spec.match_file(rel):
                result.skip("ignored")
                continue
            try:
                st = lstat(root_str + rel)
            except OSError:
                result.skip("unreadable")
                continue
        if statmod.S_ISLNK(st.st_mode):
            result.skip("symlink")
            continue
        if not statmod.S_ISREG(st.st_mode):
            continue
        if st.st_size > max_bytes:
            result.skip("too large")
            continue
        result.entries.append(ScanEntry(rel, st.st_size, st.st_mtime_ns))


def scan_paths(root: Path, paths: list[str], max_bytes: int = 1_000_000, *, known: set[str]) -> ScanResult:
    """`scan` for the named paths only (the watcher's journal says only they changed).

    A path the index did not know is kept only if git would list it (not ignored), or outside
    git if the root .gitignore and junk-folder rules keep it; paths that are gone are left out."""
    root = Path(root)
    result = ScanResult()
    result.git = (root / ".git").exists()
    lines = _ignore_lines(root, use_gitignore=not result.git)
    result.ignore_fingerprint = hashlib.sha1("\n".join(lines).encode()).hexdigest()[:16]
    spec = _ignore_spec(lines)
    new = [p for p in paths if p not in known and os.path.lexists(os.path.join(root, p))]
    if new and result.git:
        listed = _git_listed(root, new)
        if listed is not None:  # what git ignores is not counted, as in a walk
            paths = [p for p in paths if p in known or p in listed]
    _stat_all(result, root, sorted(paths), max_bytes, spec, set())
    return result


def _git_listed(root: Path, paths: list[str]) -> set[str] | None:
    """Which of `paths` git lists as tracked or untracked-not-ignored (None: git did not answer)."""
    listed: set[str] = set()
    for i in range(0, len(paths), 500):
        try:
            out = subprocess.run(
                [
                    "git",
                    "-C",
                    str(root),
                    "--literal-pathspecs",
                    "ls-files",
                    "-z",
                    "--cached",
                    "--others",
                    "--exclude-standard",
                    "--",
                    *paths[i : i + 500],
                ],
                capture_output=True,
                timeout=60,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        if out.returncode != 0:
            return None
        listed.update(n for n in out.stdout.decode("utf-8", "surrogateescape").split("\0") if n)
    return listed


def looks_binary(data: bytes) -> bool:
    return b"\0" in data[:8192]


def looks_generated(data: bytes, path: str) -> str | None:
    """'minified' or 'generated' when the content says so (checked when the file is read anyway)."""
    head = data[:2048]
    if b"DO NOT EDIT" in head or b"@generated" in head or b"<auto-generated" in head:
        return "generated"
    if path.endswith((".js", ".css", ".mjs", ".cjs")) and len(data) > 5000:
        lines = data.count(b"\n") + 1
        if len(data) / lines > 300:
            return "minified"
    return None
