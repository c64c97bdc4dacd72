"""docs/ARCHITECTURE.md stays a true module map: its tables are exactly what the docstrings say."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _module_map():
    spec = importlib.util.spec_from_file_location("module_map", ROOT / "scripts" / "module_map.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_module_map_is_the_generated_text():
    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    expected = _module_map().render(doc, ROOT / "src" / "cairn")
    missing = [line for line in expected.splitlines() if line not in doc.splitlines()]
    stale = [line for line in doc.splitlines() if line not in expected.splitlines()]
    assert doc == expected, (
        "docs/ARCHITECTURE.md is out of date (python scripts/module_map.py); "
        f"missing: {missing[:5]}, stale: {stale[:5]}"
    )


def test_every_package_has_a_title():
    mod = _module_map()
    packages = {f.parent.relative_to(ROOT / "src").as_posix() for f in (ROOT / "src" / "cairn").rglob("*.py")}
    assert packages <= set(mod.TITLES), sorted(packages - set(mod.TITLES))


def test_one_version_string():
    """pyproject reads cairn.__version__; the plugin manifests (JSON, cannot read it) must repeat it."""
    import json

    from cairn import __version__

    assert 'dynamic = ["version"]' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    plugin = json.loads((ROOT / "plugin" / ".claude-plugin" / "plugin.json").read_text(encoding="utf-8"))
    market = json.loads((ROOT / ".claude-plugin" / "marketplace.json").read_text(encoding="utf-8"))
    assert plugin["version"] == __version__
    assert {p["version"] for p in market["plugins"]} == {__version__}
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
