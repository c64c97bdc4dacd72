"""Resolution speed on a synthetic 6,000-file, 50,000-import repository (Python, TS, Go, Rust)."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

from cairn.codemap.imports import build_context, resolve_import
from cairn.codemap.model import ImportRef

N_PER_LANG = 1500
IMPORTS = 50_000


def synthetic_repo(root: Path) -> tuple[list[str], list[tuple[str, str, ImportRef]]]:
    """Files listed (not written: resolution never reads sources), configs on disk."""
    (root / "web").mkdir()
    (root / "web/tsconfig.json").write_text('{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"]}}}')
    (root / "svc").mkdir()
    (root / "svc/go.mod").write_text("module example.com/svc\n")
    (root / "core").mkdir()
    (root / "core/Cargo.toml").write_text('[package]\nname = "core"\n')
    files: list[str] = []
    py = [f"app/p{i // 50}/m{i}.py" for i in range(N_PER_LANG)]
    files += py + [f"app/p{k}/__init__.py" for k in range(N_PER_LANG // 50)] + ["app/__init__.py"]
    ts = [f"web/src/d{i // 40}/c{i}.ts" for i in range(N_PER_LANG)]
    go = [f"svc/pkg/g{i // 10}/f{i}.go" for i in range(N_PER_LANG)]
    rs = ["core/src/lib.rs"] + [f"core/src/r{i // 30}/x{i}.rs" for i in range(N_PER_LANG - 1)]
    files += ts + go + rs
    rng = random.Random(7)
    todo: list[tuple[str, str, ImportRef]] = []
    while len(todo) < IMPORTS:
        i, j = rng.randrange(N_PER_LANG), rng.randrange(N_PER_LANG)
        todo.append(("python", py[i], ImportRef(f"app.p{j // 50}.m{j}", 1)))
        todo.append(("python", py[i], ImportRef(f".m{(i // 50) * 50}", 1, names=["x"])))
        todo.append(("python", py[i], ImportRef("os.path", 1)))
        todo.append(("typescript", ts[i], ImportRef(f"@/d{j // 40}/c{j}", 1)))
        todo.append(("typescript", ts[i], ImportRef(f"../d{j // 40}/c{j}.js", 1)))
        todo.append(("typescript", ts[i], ImportRef("react", 1)))
        todo.append(("go", go[i], ImportRef(f"example.com/svc/pkg/g{j // 10}", 1)))
        todo.append(("go", go[i], ImportRef("fmt", 1)))
        todo.append(("rust", rs[max(i, 1)], ImportRef(f"crate::r{j // 30}::x{j}::{{Foo, Bar}}", 1, kind="use")))
        todo.append(("rust", rs[max(i, 1)], ImportRef("std::collections::HashMap", 1, kind="use")))
    return files, todo


def _resolve_all(tmp_path: Path) -> tuple[list, list, list, float, float]:
    files, todo = synthetic_repo(tmp_path)
    t0 = time.perf_counter()
    ctx = build_context(tmp_path, files)
    t1 = time.perf_counter()
    results = [resolve_import(ctx, lang, f, imp) for lang, f, imp in todo]
    t2 = time.perf_counter()
    return files, todo, results, t1 - t0, t2 - t1


def test_fifty_thousand_imports_resolve(tmp_path: Path) -> None:
    files, todo, results, _, _ = _resolve_all(tmp_path)
    resolved = sum(1 for r in results if r)
    assert len(files) >= 6000 and len(todo) >= IMPORTS
    assert 0.58 * len(todo) < resolved < 0.61 * len(todo)  # 6 of every 10 are local (minus self-imports)


@pytest.mark.perf
def test_fifty_thousand_imports_resolve_well_under_a_second(tmp_path: Path) -> None:
    _, todo, _, build, resolve = _resolve_all(tmp_path)
    print(f"build {build:.3f}s, resolve {len(todo)} imports {resolve:.3f}s")
    assert build < 1.0
    assert resolve < 2.0  # about 0.3 s on a 2-core laptop; generous for loaded CI machines
