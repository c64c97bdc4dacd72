"""Imports that cross repositories become edges: Python and npm packages, Terraform module sources."""

from __future__ import annotations

from helpers import write_tree


def _workspace(run_cli, tmp_path, trees: dict[str, dict[str, str]]):
    from cairn.workspace.members import load

    roots = [write_tree(tmp_path / name, files) for name, files in trees.items()]
    for root in roots:
        assert run_cli("index", "--root", str(root)).returncode == 0
    assert run_cli("workspace", "add", "--no-index", *map(str, roots)).returncode == 0
    return load()


def _edges(ws):
    from cairn.workspace.edges import cross_edges

    return {(e.src, e.src_path, e.dst, e.dst_path, e.kind) for e in cross_edges(ws)}


def test_python_and_npm_packages_defined_in_a_sibling(run_cli, tmp_path):
    ws = _workspace(
        run_cli,
        tmp_path,
        {
            "cli-lib": {
                "pyproject.toml": '[project]\nname = "cli-lib"\nversion = "1"\n',
                "src/cli_lib/__init__.py": "def command():\n    pass\n",
                "src/cli_lib/testing.py": "class Runner:\n    pass\n",
            },
            "web-ui": {
                "package.json": '{"name": "@acme/ui", "main": "src/index.ts"}',
                "src/index.ts": "export function button(): string { return 'b' }\n",
            },
            "app": {
                "main.py": "import cli_lib\nfrom cli_lib.testing import Runner\n",
                "page.ts": "import { button } from '@acme/ui'\nexport const b = button()\n",
            },
        },
    )
    found = _edges(ws)
    assert ("app", "main.py", "cli-lib", "src/cli_lib/__init__.py", "python package") in found
    assert ("app", "main.py", "cli-lib", "src/cli_lib/testing.py", "python package") in found
    assert ("app", "page.ts", "web-ui", "src/index.ts", "npm package") in found


def test_terraform_module_sources_naming_a_sibling(run_cli, tmp_path):
    ws = _workspace(
        run_cli,
        tmp_path,
        {
            "terraform-aws-network": {
                "main.tf": 'variable "cidr" {}\n',
                "modules/subnet/main.tf": 'variable "az" {}\n',
            },
            "common-modules": {"dns/main.tf": 'variable "zone" {}\n'},
            "infra": {
                "live/main.tf": 'module "dns" {\n  source = "../../common-modules/dns"\n}\n'
                'module "subnet" {\n  source = "git::https://github.com/acme/terraform-aws-network.git//modules/subnet?ref=v1"\n}\n'
                'module "net" {\n  source = "acme/network/aws"\n}\n',
            },
        },
    )
    found = _edges(ws)
    assert ("infra", "live/main.tf", "common-modules", "dns/main.tf", "terraform module") in found
    assert ("infra", "live/main.tf", "terraform-aws-network", "modules/subnet/main.tf", "terraform module") in found
    assert ("infra", "live/main.tf", "terraform-aws-network", "main.tf", "terraform module") in found


def test_a_project_outside_the_workspace_gives_no_edge(run_cli, tmp_path):
    lib = write_tree(tmp_path / "lib", {"go.mod": "module example.com/lib\n", "lib.go": "package lib\n"})
    assert run_cli("index", "--root", str(lib)).returncode == 0  # indexed, but never added
    ws = _workspace(
        run_cli,
        tmp_path,
        {
            "svc": {"go.mod": "module example.com/svc\n", "main.go": 'package main\n\nimport "example.com/lib"\n'},
            "other": {"go.mod": "module example.com/other\n", "o.go": "package other\n"},
        },
    )
    assert _edges(ws) == set()
