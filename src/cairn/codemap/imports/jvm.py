"""Java / Kotlin / Scala / Groovy: qualified names to files through package declarations.

Source roots vary (src/main/java, src/main/kotlin, app/src/..., plain src/), and Kotlin does not
require directories to match packages, so the package of each directory is read from the
`package` line of one of its files (one small read per directory, not per file); when no
file can be read it is inferred from the path below a java/ or kotlin/ directory. Then
`com.x.Y` is a dict hit on "package.FileStem" and `com.x.*` on the package.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..model import ImportRef
from .context import ResolverContext


def _jvm_exts() -> tuple[str, ...]:
    from cairn.codemap.languages import family_extensions

    return family_extensions()["jvm"]


JVM_EXTS = _jvm_exts()  # .java .kt .kts .scala .groovy ... (every language of the jvm family)
HEAD_BYTES = 8192
FILES_TRIED_PER_DIR = 3
_PACKAGE = re.compile(r"^[^\S\n]*package\s+([\w.`]+)", re.M)
_SOURCE_DIR_NAMES = ("java", "kotlin", "scala", "groovy")


@dataclass
class JvmIndex:
    packages: dict[str, list[str]]  # package -> files declaring it
    classes: dict[str, list[str]]  # "package.FileStem" -> files


def _read_package(ctx: ResolverContext, rel: str) -> str | None:
    return read_package(ctx.root, rel)


def read_package(root: Path, rel: str) -> str | None:
    """The package a JVM file's `package` line names ("" without one; None: unreadable)."""
    try:
        with open(root / rel, "rb") as fh:
            head = fh.read(HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    m = _PACKAGE.search(head)
    return m.group(1).replace("`", "") if m else ""  # no package line: the default package


def _package_from_path(directory: str) -> str | None:
    parts = directory.split("/")
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] in _SOURCE_DIR_NAMES:
            return ".".join(parts[i + 1 :])
    return None


def build_index(ctx: ResolverContext) -> JvmIndex:
    """Package per directory (from one file's `package` line), then package and class maps."""
    packages: dict[str, list[str]] = {}
    classes: dict[str, list[str]] = {}
    for d, files in ctx.dir_files.items():
        jvm = [f for f in files if f.endswith(JVM_EXTS)]
        if not jvm:
            continue
        pkg: str | None = None
        for f in jvm[:FILES_TRIED_PER_DIR]:
            pkg = _read_package(ctx, f)
            if pkg is not None:
                break
        if pkg is None:
            pkg = _package_from_path(d)
        if pkg is None:
            continue
        packages.setdefault(pkg, []).extend(jvm)
        for f in jvm:
            stem = f.rpartition("/")[2].rsplit(".", 1)[0]
            classes.setdefault(f"{pkg}.{stem}" if pkg else stem, []).append(f)
    return JvmIndex(packages=packages, classes=classes)


def resolve(ctx: ResolverContext, from_path: str, imp: ImportRef) -> list[str]:
    """`com.x.Y` -> Y's file (nested/static members fall back to the outer class); `com.x.*` -> package."""
    idx = ctx.indexes.get('jvm')
    if idx is None:
        return []
    raw = imp.raw.strip().rstrip(";").removeprefix("import ").removeprefix("static ").strip()
    raw = raw.split(" as ", 1)[0].strip().replace("`", "")
    if raw.endswith(".*"):
        name = raw[:-2]
        if name in idx.packages:
            return list(idx.packages[name])
        return list(idx.classes.get(name, ()))
    parts = raw.split(".")
    for i in range(len(parts), max(len(parts) - 3, 0), -1):
        hit = idx.classes.get(".".join(parts[:i]))
        if hit:
            return list(hit)
    return []
