"""The parser never raises and degrades gracefully: bad bytes, broken syntax, unknown languages."""

from __future__ import annotations

import pickle
import subprocess
import sys
from multiprocessing import get_context
from pathlib import Path

import pytest

from cairn.codemap import parse as parse_mod
from cairn.codemap.languages import GRAMMARS
from cairn.codemap.model import ParsedFile
from cairn.codemap.parse import MAX_PARSE_BYTES, parse_file_task, parse_source

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "langs"


@pytest.mark.parametrize("lang", sorted(GRAMMARS) + ["markdown"])
def test_empty_file(lang: str) -> None:
    parsed = parse_source(lang, b"")
    assert parsed == ParsedFile(lang)


def test_invalid_utf8_does_not_crash() -> None:
    src = b"def caf\xe9():\n    return \xff\xfe\n\nclass Ok:\n    def m(self):\n        go()\n"
    parsed = parse_source("python", src)
    assert parsed.error is None
    assert ("Ok", "class") in [(d.name, d.kind) for d in parsed.defs]
    assert all(isinstance(d.signature, str) for d in parsed.defs)
    assert parsed.refs.get("go") == 1
    md = parse_source("markdown", b"# T\xffitle\n\ntext [a](x\xfe.md)\n")
    assert md.defs[0].name == "T\ufffditle"


@pytest.mark.parametrize("lang", ["python", "javascript", "typescript", "go", "rust", "java", "c", "ruby"])
def test_random_bytes_never_raise(lang: str) -> None:
    import random

    rng = random.Random(7)
    for _ in range(5):
        blob = bytes(rng.randrange(256) for _ in range(2000))
        parsed = parse_source(lang, blob)
        assert isinstance(parsed, ParsedFile) and parsed.lang == lang


def test_syntax_errors_keep_partial_definitions() -> None:
    src = b"""
class Good:
    def fine(self):
        return 1

def broken(:
    pass

def after():
    return Good()
"""
    parsed = parse_source("python", src)
    assert parsed.error is None
    names = [d.name for d in parsed.defs]
    assert "Good" in names and "fine" in names and "after" in names
    js = parse_source("javascript", b"function ok() { return 1 }\nlet = = 5;\nfunction later() { ok() }\n")
    assert [d.name for d in js.defs] == ["ok", "later"] and js.refs == {"ok": 1}


def test_unknown_and_text_languages_have_no_defs() -> None:
    assert parse_source("yaml", b"a: 1\n") == ParsedFile("yaml")
    assert parse_source("no-such-lang", b"whatever") == ParsedFile("no-such-lang")


def test_str_source_is_accepted() -> None:
    parsed = parse_source("python", "def héllo():\n    pass\n")
    assert [d.name for d in parsed.defs] == ["héllo"]


def test_oversized_file_is_left_to_text_indexing() -> None:
    parsed = parse_source("javascript", b"x;" * (MAX_PARSE_BYTES // 2 + 1))
    assert parsed.defs == [] and parsed.error and "not parsed" in parsed.error


def test_internal_failure_becomes_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(lang: str, src: bytes) -> ParsedFile:
        raise RuntimeError("grammar exploded")

    monkeypatch.setattr(parse_mod, "_parse_code", boom)
    parsed = parse_source("python", b"x = 1", "pkg/mod.py")
    assert parsed.lang == "python" and parsed.defs == []
    assert parsed.error == "RuntimeError in pkg/mod.py: grammar exploded"


@pytest.mark.parametrize("fixture", sorted(p.name for p in FIXTURES.glob("sample.*") if p.suffix != ".md"))
def test_fast_path_agrees_with_matches_path(fixture: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """captures()-based pairing must give exactly what the per-match fallback gives."""
    from cairn.codemap.languages import language_for_path

    path = FIXTURES / fixture
    lang = language_for_path(path)
    fast = parse_source(lang, path.read_bytes())
    monkeypatch.setattr(parse_mod, "_collect_fast", lambda compiled, caps: None)
    slow = parse_source(lang, path.read_bytes())
    assert fast == slow and fast.defs


def test_parse_file_task_from_path_and_bytes(tmp_path: Path) -> None:
    f = tmp_path / "m.go"
    f.write_bytes(b"package m\n\nfunc Run() {}\n")
    rel, parsed = parse_file_task(("src/m.go", str(f), None))
    assert rel == "src/m.go" and parsed.lang == "go" and [d.name for d in parsed.defs] == ["Run"]
    rel, parsed = parse_file_task(("x.rb", b"def hi; end\n", "ruby"))
    assert [d.name for d in parsed.defs] == ["hi"]
    rel, parsed = parse_file_task(("gone.py", str(tmp_path / "missing.py"), "python"))
    assert parsed.error and parsed.error.startswith("FileNotFoundError")
    assert pickle.loads(pickle.dumps(parsed)) == parsed


def test_parse_file_task_in_a_process_pool() -> None:
    tasks = [(p.name, str(p), None) for p in sorted(FIXTURES.glob("sample.*"))]
    with get_context("spawn").Pool(2) as pool:
        results = dict(pool.map(parse_file_task, tasks))
    assert set(results) == {name for name, _, _ in tasks}
    assert all(r.error is None and r.defs for r in results.values())
    assert results["sample.rs"] == parse_source("rust", (FIXTURES / "sample.rs").read_bytes())


def test_importing_languages_does_not_import_tree_sitter() -> None:
    code = "import sys, cairn.codemap.languages, cairn.codemap.parse; print('tree_sitter' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_typescript_namespaces_are_modules() -> None:
    src = b"namespace Foo.Bar {\n  export function f() {}\n}\n"
    parsed = parse_source("typescript", src)
    assert [(d.name, d.kind, d.parent, d.top_level) for d in parsed.defs] == [
        ("Foo.Bar", "module", None, True),
        ("f", "function", "Foo.Bar", True),
    ]


def test_nested_functions_dropped_nested_classes_kept() -> None:
    src = b"""def factory():
    def helper():
        pass
    class Local:
        def method(self):
            pass
    return Local
"""
    parsed = parse_source("python", src)
    assert [(d.name, d.kind, d.parent, d.top_level) for d in parsed.defs] == [
        ("factory", "function", None, True),
        ("Local", "class", "factory", False),
        ("method", "method", "Local", False),
    ]


def test_pathological_inputs_stay_bounded() -> None:
    deep = parse_source("rust", b"use a::" + b"{b::" * 2000 + b"c" + b"}" * 2000 + b";\n")
    assert deep.error is None
    many = parse_source("go", b"package x\n" + b"".join(b"func F%d() { G%d() }\n" % (i, i) for i in range(3000)))
    assert len(many.defs) == 3000 and len(many.refs) == 3000


def test_python_class_constants_but_not_fields() -> None:
    src = b"class Color(Enum):\n    RED = 1\n    GREEN = 2\n    lower = 3\n    label: str = 'x'\n"
    parsed = parse_source("python", src)
    assert [(d.name, d.kind, d.parent, d.top_level) for d in parsed.defs] == [
        ("Color", "class", None, True),
        ("RED", "constant", "Color", False),
        ("GREEN", "constant", "Color", False),
    ]


def test_c_unions_and_typedefs() -> None:
    parsed = parse_source("c", b"union val { int i; float f; };\ntypedef union { int x; } U;\n")
    assert [(d.name, d.kind, d.signature) for d in parsed.defs] == [
        ("val", "union", "union val"),
        ("U", "type", "typedef union"),
    ]


@pytest.mark.parametrize("lang", ["javascript", "typescript", "tsx"])
def test_class_field_functions_are_methods(lang: str) -> None:
    src = b"class Panel extends Base {\n  handle = (e) => {\n    go(e);\n  };\n  state = {};\n}\n"
    parsed = parse_source(lang, src)
    assert [(d.name, d.kind, d.line, d.end_line, d.parent) for d in parsed.defs] == [
        ("Panel", "class", 1, 6, None),
        ("handle", "method", 2, 4, "Panel"),
    ]
    assert parsed.refs == {"Base": 1, "go": 1}


def test_rust_attributes_belong_to_the_item() -> None:
    src = b'/// Doc\n#[derive(Debug)]\n#[serde(rename_all = "camelCase")]\npub struct P {\n    x: i32,\n}\n'
    (struct,) = parse_source("rust", src).defs
    assert (struct.name, struct.line, struct.end_line, struct.signature) == ("P", 2, 6, "pub struct P")


def test_parse_bench_smoke(capsys: pytest.CaptureFixture[str]) -> None:
    from cairn.codemap.parse_bench import main

    main([str(FIXTURES)])
    out = capsys.readouterr().out
    n = sum(1 for p in FIXTURES.iterdir() if p.is_file())
    assert f"1 process: {n} files" in out and "rust" in out and "markdown" in out
