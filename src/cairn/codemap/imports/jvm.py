"""Java / Kotlin / Scala / Groovy: qualified names to files through package declarations.

Source roots vary (src/main/java, src/main/kotlin, app/src/..., plain src/), and Kotlin does not
require directories to match packages, so the package of each directory is read from the
`package` line of one of its files (one small read per directory, not per file); when no
file can be read it is inferred from the path below a java/ or kotlin/ directory. Then
`com.x.Y` is a dict hit on "package.FileStem" and `com.x.*` on the package.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..model import ImportRef
from .context import ResolverContext


def _jvm_exts() -> tuple[str, ...]:
    from cairn.codemap.languages import family_extensions

    return family_extensions()["jvm"]


JVM_EXTS = _jvm_exts()  # .java .kt .kts .scala .groovy ... (every language of the jvm family)
HEAD_BYTES = 8192
FILES_TRIED_PER_DIR = 3
# A package clause; Scala chains them (`package cats` then `package arrow` is cats.arrow) and ends
# a chain with `package object x` (its members are package P.x's).
_PACKAGE = re.compile(r"^[ \t]*package[ \t]+(?:(object)[ \t]+)?([\w.`]+)", re.M)
_BETWEEN_CLAUSES = re.compile(r"(?:\s|;|//[^\n]*|/\*.*?\*/)*", re.S)  # what may separate two chained clauses
_SOURCE_DIR_NAMES = ("java", "kotlin", "scala", "groovy")


_SCALA_EXTS = (".scala", ".sc", ".mill")
_RELATIVE_EXTS = (*_SCALA_EXTS, ".groovy", ".gvy")  # may name a class of their own package unqualified


@dataclass
class JvmIndex:
    packages: dict[str, list[str]]  # package -> files declaring it
    classes: dict[str, list[str]]  # "package.FileStem" -> files
    dir_packages: dict[str, str] = field(default_factory=dict)  # folder -> its package (a Scala import's base)
    folded: dict[str, list[str]] = field(
        default_factory=dict
    )  # classes by lowercased key (Scala `object eq` in Eq.scala)


def _read_package(ctx: ResolverContext, rel: str) -> str | None:
    return read_package(ctx.root, rel)


def read_package(root: Path, rel: str) -> str | None:
    """The package a JVM file's `package` line names ("" without one; None: unreadable)."""
    try:
        with open(root / rel, "rb") as fh:
            head = fh.read(HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None
    return package_of(head)


def package_of(head: str) -> str:
    """The package the start of a JVM file declares: its chain of package clauses, joined
    ("" without one: the default package)."""
    parts: list[str] = []
    end = -1
    for m in _PACKAGE.finditer(head):
        if end >= 0 and not _BETWEEN_CLAUSES.fullmatch(head, end, m.start()):
            break  # a clause after other code (inside a comment or a string): not part of the chain
        parts.append(m.group(2).replace("`", ""))
        end = m.end()
        if m.group(1):
            break
    return ".".join(parts)


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
    dir_packages: dict[str, str] = {}
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
        dir_packages[d] = pkg
        for f in jvm:
            stem = f.rpartition("/")[2].rsplit(".", 1)[0]
            classes.setdefault(f"{pkg}.{stem}" if pkg else stem, []).append(f)
    folded: dict[str, list[str]] = {}
    for key, files in classes.items():
        if files[0].endswith(_SCALA_EXTS):
            folded.setdefault(key.lower(), []).extend(files)
    return JvmIndex(packages=packages, classes=classes, dir_packages=dir_packages, folded=folded)


def resolve(ctx: ResolverContext, from_path: str, imp: ImportRef) -> list[str]:
    """`com.x.Y` -> Y's file (nested/static members fall back to the outer class); `com.x.*` -> package.

    Scala also names a module relative to the importer's package (`import compat.x._` in package
    cats.kernel is cats.kernel.compat.x; Groovy `import static Converter.getHeader` a class of its
    own) and may keep `object eq` in Eq.scala: both are tried when the name as written finds nothing."""
    idx: JvmIndex | None = ctx.indexes.get("jvm")
    if idx is None:
        return []
    raw = imp.raw.strip().rstrip(";").removeprefix("import ").removeprefix("static ").strip()
    raw = raw.split(" as ", 1)[0].strip().replace("`", "")
    found = _lookup(idx.packages, idx.classes, raw)
    if found or not from_path.endswith(_RELATIVE_EXTS):
        return found
    pkg = idx.dir_packages.get(from_path.rpartition("/")[0], "")
    while pkg:  # the importer's package, then each enclosing one
        found = _lookup(idx.packages, idx.classes, f"{pkg}.{raw}")
        if found:
            return found
        pkg = pkg.rpartition(".")[0]
    return _lookup({}, idx.folded, raw.lower()) if from_path.endswith(_SCALA_EXTS) else []


def _lookup(packages: dict[str, list[str]], classes: dict[str, list[str]], raw: str) -> list[str]:
    """Files of a qualified name: a wildcard's package or class, else the class or an outer one."""
    if raw.endswith(".*"):
        name = raw[:-2]
        if name in packages:
            return list(packages[name])
        return list(classes.get(name, ()))
    parts = raw.split(".")
    for i in range(len(parts), max(len(parts) - 3, 0), -1):
        hit = classes.get(".".join(parts[:i]))
        if hit:
            return list(hit)
    return []
