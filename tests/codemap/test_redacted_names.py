"""The local index keeps no secret either: not in its text, nor in the names the parser took from a
file that held one (definitions, parents, signatures, imports, used identifiers, the names column)."""

from __future__ import annotations

from cairn.project import project_for_root
from helpers import dump_index

TOKEN = "ghp_R8xk2PqL5vN9mT3wY7zB4cF6hJ1sD0aE8gK2"
AWS = "AKIAIOSFODNN7EXAMPLF"

FILES = {
    "app.py": f'GITHUB_TOKEN = "{TOKEN}"\ndef connect(token="{TOKEN}", marker="plainmarkerword"):\n'
    f"    return {TOKEN}\nclass {TOKEN}:\n    def run(self):\n        pass\n",
    "notes.md": f"# Setup {TOKEN}\nUse the key {AWS}\n## Heading {AWS}\n",
    "main.go": f'package main\nimport "github.com/user:{TOKEN}@example.com/x"\nfunc main() {{}}\n',
    "clean.py": "def plain_function():\n    return 1\n",
}


def test_the_local_index_stores_no_secret_in_names_imports_or_refs(tmp_path, run_cli):
    root = tmp_path / "sec"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    assert run_cli("index", "--root", str(root), cwd=root).returncode == 0
    db = project_for_root(root).index_path()
    dump, raw = dump_index(db), db.read_bytes()
    assert "plainmarkerword" in dump and "Setup" in dump and "plain_function" in dump  # the dump reads it all
    assert "connect" in dump and "run" in dump  # names without a secret stay searchable
    for secret in (TOKEN, AWS):
        assert secret not in dump, secret
        assert secret.lower()[4:16] not in dump.lower()  # nor its lower-cased, expanded pieces
        assert secret.encode() not in raw.replace(b"\x00", b"")
