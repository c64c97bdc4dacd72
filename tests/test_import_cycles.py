"""Import cycles between cairn's modules only shrink, and the layer contract gains no exception.

Every import of a cairn module counts, wherever it is written: at the top of a file, inside a
function (a lazy import still ties two modules together: neither can be read, moved or tested
without the other) or under TYPE_CHECKING. The strongly connected components of that graph are
the cycles; today's are listed below with their reason, to burn down. A new cycle, or a module
joining a listed one, fails `test_no_new_import_cycle`; a listed cycle that is gone (or smaller)
fails `test_listed_cycles_are_current` until its entry is removed (or shrunk), so the list stays
what the code is. Not seen: a module imported by a name built at run time (`importlib`).
"""

from __future__ import annotations

import ast
import functools
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"

# Each cycle of today: its modules and why it is still there. Remove an entry when it is cut.
KNOWN_CYCLES: dict[frozenset[str], str] = {
    frozenset(
        {
            "cairn.agents.hooks.background",
            "cairn.agents.hooks.runner",
            "cairn.agents.hooks.session_end",
            "cairn.agents.hooks.session_start",
        }
    ): "runner.py dispatches to the handlers, and SessionStart/SessionEnd's background run goes back through "
    "runner for its own work (the warm processes left this cycle with cairn/warm/)",
    frozenset(
        {"cairn.search.engine", "cairn.search.knowledge"}
    ): "search/knowledge.py imports Hit from engine.py, which asks it for the knowledge hits: Hit lives in "
    "search/hit.py now, and knowledge.py importing it from there cuts this (decision-records work)",
    frozenset(
        {"cairn.sessions.codex_context", "cairn.sessions.context", "cairn.sessions.gemini_context"}
    ): "context.py holds both SessionContext, which the Codex and Gemini readers fill, and the dispatch "
    "to those readers: the model in a module of its own cuts it",
    frozenset(
        {
            "cairn.sessions.codex_tools",
            "cairn.sessions.codex_usage",
            "cairn.sessions.gemini_usage",
            "cairn.sessions.scan_pool",
            "cairn.sessions.usage",
        }
    ): "usage.py holds both the Turn and Dataset the agents' scanners fill and load_transcripts, which "
    "dispatches to them through scan_pool.py: the model in a module of its own cuts it",
    frozenset(
        {"cairn.memory.remember_batch", "cairn.memory.vault"}
    ): "type only: a Batch is handed the Vault that runs it (Vault.remember) and reads its folder and "
    "notes; a Protocol of those few members in remember_batch.py cuts it",
    frozenset(
        {"cairn.team.connect", "cairn.team.schema"}
    ): "connect() migrates the schema (schema.migrate), whose migrations raise connect's TeamUnavailable "
    "and grant its MEMBER_ROLE: those two in a module below both cut it",
}

# [tool.importlinter] ignore_imports: the layer contract's exceptions (pyproject.toml). None is left (the
# last, codemap -> memory for the knowledge nodes, went when reading them moved to codemap/knowledge/):
# a module that needs something of a layer above takes it as an argument from its caller instead.
KNOWN_LAYER_EXCEPTIONS: set[str] = set()

# Private names (`_x`) one module takes from another, to burn down: make the name public, or move it.
KNOWN_PRIVATE_IMPORTS: dict[str, str] = {}


def modules(src: Path, package: str = "cairn") -> dict[str, Path]:
    """Dotted module name -> file, for every module of `package` under `src` (a package is its __init__)."""
    out = {}
    for path in sorted((src / package).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def imported(name: str, path: Path, tree: ast.AST, known: dict[str, Path]) -> set[str]:
    """The modules of `known` that module `name` (file `path`) imports anywhere in `tree`."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: `from . import x`, `from ..model import y`
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import cairn.a.b.name`: the module that holds it
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph(src: Path, package: str = "cairn") -> dict[str, set[str]]:
    """Module -> the modules of `package` it imports (top-level, in functions, under TYPE_CHECKING)."""
    known = modules(src, package)
    return {
        name: imported(name, path, ast.parse(path.read_text(encoding="utf-8")), known) for name, path in known.items()
    }


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


@functools.cache
def _src_graph() -> dict[str, set[str]]:
    return import_graph(SRC)


def _show(component: frozenset[str], graph: dict[str, set[str]]) -> str:
    edges = [f"{a} -> {b}" for a in sorted(component) for b in sorted(graph[a] & component)]
    return "{" + ", ".join(sorted(component)) + "}: " + "; ".join(edges)


def test_the_graph_sees_every_kind_of_import(tmp_path: Path):
    """A function-level import, a relative one and one under TYPE_CHECKING each make an edge."""
    pkg = tmp_path / "cairn"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "low.py").write_text("def f():\n    from cairn.sub import high\n    return high\n")
    (pkg / "sub" / "high.py").write_text("from ..low import f\n")
    (pkg / "a.py").write_text("TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from cairn import b\n")
    (pkg / "b.py").write_text("import cairn.a as a\n")
    (pkg / "leaf.py").write_text("import cairn.low\n")
    graph = import_graph(tmp_path)
    assert graph["cairn.low"] == {"cairn.sub.high"} and graph["cairn.sub.high"] == {"cairn.low"}
    assert sorted(map(sorted, cycles(graph))) == [["cairn.a", "cairn.b"], ["cairn.low", "cairn.sub.high"]]


def test_no_new_import_cycle():
    graph = _src_graph()
    new = [c for c in cycles(graph) if not any(c <= known for known in KNOWN_CYCLES)]
    assert not new, (
        "new import cycle(s) between cairn's modules; cut them (pass the function in, move "
        "the shared part down) rather than listing them:\n" + "\n".join(_show(c, graph) for c in new)
    )


def test_listed_cycles_are_current():
    assert all(len(reason) > 40 for reason in KNOWN_CYCLES.values()), "every listed cycle says why it is there"
    graph = _src_graph()
    now = set(cycles(graph))
    stale = [known for known in KNOWN_CYCLES if known not in now]
    assert not stale, (
        "listed cycles that are cut or smaller now: remove or shrink their entries in "
        "KNOWN_CYCLES (today's cycles:\n"
        + "\n".join(_show(c, graph) for c in now if any(c <= k for k in stale))
        + ")\nlisted: "
        + "\n".join(sorted(map(str, map(sorted, stale))))
    )


def test_no_new_layer_exception():
    """The layer contract (docs/ARCHITECTURE.md "Dependencies run one way") holds without exceptions."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    ignored = {entry for contract in contracts for entry in contract.get("ignore_imports", [])}
    assert ignored <= KNOWN_LAYER_EXCEPTIONS, (
        f"new exception(s) to the layer contract: {sorted(ignored - KNOWN_LAYER_EXCEPTIONS)}; a lower layer "
        "that needs something of a higher one takes it as an argument from its caller"
    )
    assert ignored == KNOWN_LAYER_EXCEPTIONS, f"cut: remove {sorted(KNOWN_LAYER_EXCEPTIONS - ignored)} from the list"


def private_imports(src: Path, package: str = "cairn") -> set[str]:
    """ "importer -> module._name" for every private name a module takes from another module of
    `package`: `from m import _name`, or `m._name` on a module bound by an import."""
    known = modules(src, package)
    found: set[str] = set()
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound: dict[str, str] = {}  # local name -> the cairn module it is bound to
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in known:
                        bound[alias.asname or alias.name] = alias.name
            elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "") in known:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    if full in known:
                        bound[alias.asname or alias.name] = full
                    elif alias.name.startswith("_") and not alias.name.startswith("__") and node.module != name:
                        found.add(f"{name} -> {full}")
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in bound
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and bound[node.value.id] != name
            ):
                found.add(f"{name} -> {bound[node.value.id]}.{node.attr}")
    return found


def test_the_private_name_finder(tmp_path: Path):
    pkg = tmp_path / "cairn"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("_x = 1\n_y = 2\nz = 3\n")
    (pkg / "b.py").write_text("from cairn.a import _x, z\nfrom cairn import a\n\ndef f():\n    return a._y + a.z\n")
    assert private_imports(tmp_path) == {"cairn.b -> cairn.a._x", "cairn.b -> cairn.a._y"}


def test_no_new_private_name_crosses_modules():
    found = private_imports(SRC)
    assert found <= set(KNOWN_PRIVATE_IMPORTS), (
        f"private names taken from another module: {sorted(found - set(KNOWN_PRIVATE_IMPORTS))}; make them "
        "public (no underscore) or move them to the module that uses them"
    )
    assert found == set(KNOWN_PRIVATE_IMPORTS), (
        f"cut: remove {sorted(set(KNOWN_PRIVATE_IMPORTS) - found)} from the list"
    )
