"""C# and Swift: imports name namespaces/modules, not files, so only directory matches count.

C#: `using A.B.C` resolves only when a directory path ends with the namespace (A/B/C, or a
project folder named A.B with subfolder C, ...): the .cs files directly in it. Namespaces
are declared in files, which the resolver does not read, so anything else is [].
Swift: `import X` resolves only to a SwiftPM target directory Sources/X (any depth of
package), meaning every .swift file of that target.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import ImportRef
from .context import ResolverContext

MIN_NAMESPACE_SEGMENTS = 2  # segments a directory match needs (after dropping a root namespace)


@dataclass
class OtherIndex:
    cs_dirs: dict[str, list[str]]  # last directory name -> directories holding .cs files
    swift_modules: dict[str, list[str]]  # target name -> its .swift files (recursive)


def build_index(ctx: ResolverContext) -> OtherIndex:
    """Directories of .cs files by name; SwiftPM targets under Sources/."""
    cs_dirs: dict[str, list[str]] = {}
    for d, files in ctx.dir_files.items():
        if d and any(f.endswith(".cs") for f in files):
            cs_dirs.setdefault(d.rpartition("/")[2], []).append(d)
    swift: dict[str, list[str]] = {}
    for f in sorted(ctx.files):
        if not f.endswith(".swift"):
            continue
        parts = f.split("/")
        for i in range(len(parts) - 2, -1, -1):
            if parts[i] == "Sources":
                swift.setdefault(parts[i + 1], []).append(f)
                break
    return OtherIndex(cs_dirs=cs_dirs, swift_modules=swift)


def _namespace_dirs(idx: OtherIndex, segs: list[str]) -> list[str]:
    """Directories whose path spells the namespace (some leading segments may be one folder)."""
    for drop in range(0, max(len(segs) - MIN_NAMESPACE_SEGMENTS, 0) + 1):
        tail = segs[drop:]
        for split in range(len(tail), 0, -1):  # first `split` segments may be one dotted folder
            path = "/".join([".".join(tail[:split]), *tail[split:]])
            last = path.rpartition("/")[2]
            hits = [d for d in idx.cs_dirs.get(last, ()) if d == path or d.endswith("/" + path)]
            if len(segs) < MIN_NAMESPACE_SEGMENTS:  # `using Models;` is weak evidence: project folders only
                hits = [d for d in hits if d.count("/") <= 1]
            if hits:
                return hits
    return []


def resolve(ctx: ResolverContext, from_path: str, imp: ImportRef, lang: str) -> list[str]:
    """C# namespace -> .cs files of a matching directory; Swift module -> Sources/<X> files."""
    idx = ctx.indexes.get("other")
    if idx is None:
        return []
    raw = imp.raw.strip().rstrip(";").strip()
    if lang == "swift":
        name = raw.split()[-1].split(".")[0] if raw else ""  # `import class Foo.Bar` -> Foo
        return list(idx.swift_modules.get(name, ()))
    raw = raw.removeprefix("global ").removeprefix("using ").removeprefix("static ").strip()
    if "=" in raw:  # using Alias = A.B.C;
        raw = raw.split("=", 1)[1].strip()
    segs = [s for s in raw.split(".") if s]
    if not segs:
        return []
    out: list[str] = []
    for d in _namespace_dirs(idx, segs):
        out.extend(f for f in ctx.dir_files.get(d, ()) if f.endswith(".cs"))
    return out
