"""Group files into modules: directories, split where big and merged where tiny.

One module per folder is useless in a deep tree, one module for `src/` useless in a big one.
So: start at the root, split a folder into its subfolders while it holds more than
`max_size` files, collapse single-child chains (`src/pkg/`), and fold subfolders with fewer than
`MIN_MODULE_FILES` files back into their parent.
"""

from __future__ import annotations

from collections import defaultdict

ROOT_MODULE = "(root)"
MIN_MODULE_FILES = 3


def default_max_size(n_files: int) -> int:
    """Aim at roughly 8-30 modules whatever the repository size."""
    return max(12, n_files // 12)


def assign_modules(paths: list[str], max_size: int | None = None) -> dict[str, str]:
    """Map each repo-relative path to its module name (a folder path, or "(root)")."""
    max_size = max_size or default_max_size(len(paths))
    out: dict[str, str] = {}

    def split(prefix: str, items: list[tuple[tuple[str, ...], str]]) -> None:
        # items: (remaining dir parts, full path)
        direct = [p for parts, p in items if not parts]
        sub: dict[str, list[tuple[tuple[str, ...], str]]] = defaultdict(list)
        for parts, p in items:
            if parts:
                sub[parts[0]].append((parts[1:], p))
        # collapse a chain: a folder whose only content is one subfolder
        if not direct and len(sub) == 1:
            ((name, rest),) = sub.items()
            split(f"{prefix}/{name}" if prefix else name, rest)
            return
        here = prefix or ROOT_MODULE
        if len(items) <= max_size and prefix:
            for _, p in items:
                out[p] = here
            return
        for p in direct:
            out[p] = here
        for name, rest in sub.items():
            child = f"{prefix}/{name}" if prefix else name
            if len(rest) < MIN_MODULE_FILES and prefix:
                for _, p in rest:
                    out[p] = here
            else:
                split(child, rest)

    split("", [(tuple(p.split("/")[:-1]), p) for p in paths])
    return out
