#!/usr/bin/env python3
"""What cairn's MCP server costs a client every session, in tokens, before any call.

A client loads the server's instructions, the tools/list answer (names, titles, descriptions,
input schemas, annotations) and the resource templates into the context of every session.
This builds the server for a throwaway project (a temp CAIRN_HOME: nothing written elsewhere),
fetches exactly those through the SDK's in-process client, and counts them as the JSON text a
client receives: with cairn's own estimate (cairn.text.budget, what tests/agents/test_mcp_cost.py
holds under a budget) and, with --tokenizer, with a real tokenizer: the legacy Claude
`tokenizer.json` of the anthropic==0.34.2 wheel, read by the `tokenizers` package of another
interpreter (--tokenizer-python), so neither becomes a dependency of cairn:
    python3 -m venv /tmp/tok && /tmp/tok/bin/pip install tokenizers
    pip download --no-deps anthropic==0.34.2 && unzip -o anthropic-0.34.2-*.whl anthropic/tokenizer.json
(tiktoken is not used: its encodings are downloaded at first use from outside the package index.)

To measure another code (main before a change), put its src first: PYTHONPATH=/tmp/old/src;
the payload is then fetched with this checkout's cost.py, which only needs the mcp SDK.

Usage: python bench/mcp_tool_cost.py [--tokenizer tokenizer.json --tokenizer-python PY] [--json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import benchlib

COUNT = (
    "import json, sys\nfrom tokenizers import Tokenizer\n"
    "tok = Tokenizer.from_file(sys.argv[1])\n"
    "print(json.dumps([len(tok.encode(t).ids) for t in json.load(sys.stdin)]))\n"
)


def cost_module():
    """cairn.agents.mcp.cost of the code under test, else this checkout's (a code from before it)."""
    try:
        from cairn.agents.mcp import cost

        return cost
    except ImportError:
        path = benchlib.SRC / "cairn" / "agents" / "mcp" / "cost.py"
        spec = importlib.util.spec_from_file_location("mcp_cost", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


def real_counts(texts: list[str], tokenizer: str, python: str) -> list[int]:
    out = subprocess.run(
        [python, "-c", COUNT, tokenizer], input=json.dumps(texts), capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tokenizer", help="a tokenizer.json (the legacy Claude one, see the docstring)")
    ap.add_argument("--tokenizer-python", default=sys.executable, help="an interpreter that has `tokenizers`")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CAIRN_HOME"] = str(Path(tmp) / "home")
        os.environ["CAIRN_WARM"] = "0"
        project = Path(tmp) / "project"
        (project / ".git").mkdir(parents=True)
        from cairn.agents.mcp.server import build_server
        from cairn.text.budget import estimate_tokens

        cost = cost_module()
        payload = cost.session_payload(build_server(str(project)))

    parts = {name: cost.as_text(value) for name, value in payload.items()}
    tools = {t["name"]: cost.as_text(t) for t in payload["tools"]}
    rows = {**parts, **{f"  {name}": text for name, text in tools.items()}}
    real = real_counts(list(rows.values()), args.tokenizer, args.tokenizer_python) if args.tokenizer else None
    table = [
        {"part": name, "chars": len(text), "estimate": estimate_tokens(text), "real": real[i] if real else None}
        for i, (name, text) in enumerate(rows.items())
    ]
    total = {
        "part": "total (instructions + tools + resource templates)",
        "chars": sum(len(t) for t in parts.values()),
        "estimate": sum(estimate_tokens(t) for t in parts.values()),
        "real": sum(real[: len(parts)]) if real else None,
    }
    table.append(total)
    if args.json:
        print(json.dumps({"tools": len(tools), "rows": table}, indent=1))
        return
    print(f"{len(tools)} tools; tokens a client loads every session (real: {args.tokenizer or 'not counted'})")
    print(f"{'part':52} {'chars':>7} {'estimate':>9} {'real':>6}")
    for row in table:
        print(f"{row['part']:52} {row['chars']:>7} {row['estimate']:>9} {row['real'] if row['real'] else '-':>6}")


if __name__ == "__main__":
    main()
