"""The command that adds an extra (`semantic`, `team`) to *this* copy of cairn, for errors and doctor.

The distribution is `cairn-context`: on the package index `cairn` and `cairn-memory` are other
projects, so `pip install 'cairn[semantic]'` would install one of them. The right command depends on
how this copy was installed (a uv or pipx tool environment, a venv, from a clone or a wheel), which
the install itself records (PEP 610 `direct_url.json`): read only when a hint is needed.
"""

from __future__ import annotations

import json
import shlex
import sys

DISTRIBUTION = "cairn-context"


def install_source() -> tuple[str, bool]:
    """What this copy was installed from (a clone's folder or a wheel file, else the distribution's
    name) and whether it is an editable install."""
    try:
        from importlib.metadata import distribution

        record = json.loads(distribution(DISTRIBUTION).read_text("direct_url.json") or "{}")
    except Exception:  # not installed as a distribution: run from a source tree?
        from pathlib import Path

        root = Path(__file__).resolve().parents[3]  # <root>/src/cairn/util/install_hint.py
        return (str(root), True) if (root / "pyproject.toml").is_file() else (DISTRIBUTION, False)
    url = str(record.get("url", ""))
    if not url.startswith("file://"):
        return DISTRIBUTION, False
    from urllib.parse import unquote, urlparse

    return unquote(urlparse(url).path), bool((record.get("dir_info") or {}).get("editable"))


def install_hint(extra: str) -> str:
    """One command, to paste as is, that installs `extra` into the environment running cairn now."""
    source, editable = install_source()
    spec = shlex.quote(f"{source}[{extra}]")
    prefix = sys.prefix.replace("\\", "/")
    if "/uv/tools/" in prefix:
        return f"uv tool install --reinstall {spec}"
    if "/pipx/venvs/" in prefix:
        return f"pipx install --force {spec}"
    return f"{shlex.quote(sys.executable)} -m pip install {'-e ' if editable else ''}{spec}"
