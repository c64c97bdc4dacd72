"""Dart: `package:<name>/x.dart` to <package>/lib/x.dart for packages of this repository.

Every pubspec.yaml contributes its `name` (a melos/pub workspace has many), so a monorepo's
packages resolve to each other; `dart:` and third-party packages are external. Relative URIs
(imports, exports, `part`) resolve against the file's directory.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import ImportRef
from .context import ResolverContext, dirname, join, read_text

_NAME = re.compile(r"^name\s*:\s*['\"]?([A-Za-z0-9_]+)['\"]?\s*(?:#.*)?$", re.M)


@dataclass
class DartIndex:
    packages: dict[str, str]  # pubspec name -> package directory


def build_index(ctx: ResolverContext) -> DartIndex:
    """Read the top-level `name:` of every pubspec.yaml (a line read; no YAML needed)."""
    packages: dict[str, str] = {}
    for spec in ctx.configs.get("pubspec.yaml", ()):
        text = read_text(ctx.root, spec)
        m = _NAME.search(text or "")
        if m:
            packages.setdefault(m.group(1), dirname(spec))
    return DartIndex(packages=packages)


def resolve(ctx: ResolverContext, from_path: str, imp: ImportRef) -> list[str]:
    """`package:` of a local package -> its lib/ file; relative URI -> sibling path; else []."""
    idx = ctx.indexes.get("dart")
    if idx is None:
        return []
    uri = imp.raw.strip().strip("'\"")
    if not uri or uri.startswith(("dart:", "http:", "https:")):
        return []
    if uri.startswith("package:"):
        name, _, rest = uri[len("package:") :].partition("/")
        d = idx.packages.get(name)
        if d is None:
            return []
        cand = join(d, "lib/" + rest)
    else:
        cand = join(dirname(from_path), uri.removeprefix("file:"))
    return [cand] if cand in ctx.files else []
