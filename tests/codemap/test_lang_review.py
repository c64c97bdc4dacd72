"""Defects found checking each grammar of the last release on a real repository (issue 35, item 12).

Each test names the repository where the defect showed.
"""

from __future__ import annotations

from pathlib import Path

from cairn.codemap.imports import ResolverContext, build_context, resolve_import
from cairn.codemap.model import ImportRef
from cairn.codemap.parse import parse_source


def _ctx(root: Path, files: list[str]) -> ResolverContext:
    for rel in files:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("")
    return build_context(root, files)


def _res(ctx: ResolverContext, lang: str, path: str, raw: str) -> list[str]:
    return resolve_import(ctx, lang, path, ImportRef(raw=raw, line=1))


def test_zig_imports_a_module_by_its_name(tmp_path: Path) -> None:
    """Hejsil/zig-clap: the examples' `@import("clap")` (the module build.zig names after clap.zig)."""
    ctx = _ctx(tmp_path, ["clap.zig", "clap/parsers.zig", "example/help.zig", "build.zig", "src/util.jl"])
    assert _res(ctx, "zig", "example/help.zig", "clap") == ["clap.zig"]
    assert _res(ctx, "zig", "example/help.zig", "std") == []
    assert _res(ctx, "zig", "example/help.zig", "util") == []  # a Julia file is no Zig module


def test_fortran_modules_in_preprocessed_files(tmp_path: Path) -> None:
    """jacobwilliams/json-fortran: every module is in a `.F90` file; `use json_kinds` found none."""
    ctx = _ctx(tmp_path, ["src/json_kinds.F90", "src/json_value_module.F90", "src/json_module.F90"])
    assert _res(ctx, "fortran", "src/json_module.F90", "json_kinds") == ["src/json_kinds.F90"]
    assert _res(ctx, "fortran", "src/json_module.F90", "iso_fortran_env") == []


PESTER = b"""function Get-CIDebugFlag {
    # Returns $true when a known CI system has its debug logging switch enabled.
    # Mirrors the CI detection used for Output.CIFormat.
    param($Name)
    & $SafeCommands['Where-Object'] { $_ }
    . $PSScriptRoot\\functions\\Output.ps1
}

function any_ ($InputObject) { # inlining version
    & "$PSScriptRoot\\..\\build.ps1"
}
"""


def test_powershell_signatures_and_script_imports() -> None:
    """pester/Pester: the comments after `{` were the signature's tail, and every `& $cmd` an import."""
    parsed = parse_source("powershell", PESTER)
    assert [(d.name, d.signature) for d in parsed.defs] == [
        ("Get-CIDebugFlag", "function Get-CIDebugFlag"),
        ("any_", "function any_ ($InputObject)"),
    ]
    assert [i.raw for i in parsed.imports] == ["$PSScriptRoot\\functions\\Output.ps1", "$PSScriptRoot\\..\\build.ps1"]


ARGU_TYPES = b"""namespace Argu

/// Predefined CLI prefixes to be added
[<RequireQualifiedAccess>]
module CliPrefix =
    /// Double Dash prefix '--'
    let [<Literal>] DoubleDash = "--"

/// Source from which to parse arguments
[<Flags>]
type ParseSource =
    | None          = 0
    | CommandLine   = 2
"""


def test_fsharp_attributes_are_not_the_signature() -> None:
    """fsprojects/Argu: `[<Flags>]` was the whole signature of `type ParseSource`, and a
    `let [<Literal>]` value was no definition."""
    got = [(d.name, d.kind, d.line, d.signature) for d in parse_source("fsharp", ARGU_TYPES).defs]
    assert got == [
        ("CliPrefix", "module", 4, "module CliPrefix ="),
        ("DoubleDash", "constant", 7, "let [<Literal>] DoubleDash"),
        ("ParseSource", "type", 10, "type ParseSource ="),
    ]


def test_a_bracketing_macro_line_does_not_swallow_the_declaration_after_it() -> None:
    """AFNetworking: AFURLSessionManager.h had no definition: NS_ASSUME_NONNULL_BEGIN ate its @interface."""
    objc = (
        b"NS_ASSUME_NONNULL_BEGIN\n\n@interface AFURLSessionManager : NSObject <NSSecureCoding>\n"
        b"- (void)invalidateSessionCancelingTasks:(BOOL)cancel;\n@end\n\nNS_ASSUME_NONNULL_END\n"
    )
    assert [(d.name, d.kind, d.line) for d in parse_source("objc", objc).defs] == [
        ("AFURLSessionManager", "class", 3),
        ("invalidateSessionCancelingTasks", "method", 4),
    ]
    cpp = b"QT_BEGIN_NAMESPACE\nclass QWidget { public: void show(); };\nQT_END_NAMESPACE\n"
    assert [(d.name, d.kind) for d in parse_source("cpp", cpp).defs] == [("QWidget", "class"), ("show", "method")]
    enum = b"enum Phase {\nPHASE_BEGIN,\nPHASE_END\n};\nint f(void);\n"  # an enumerator blanked: the enum still parses
    assert [d.name for d in parse_source("cpp", enum).defs] == ["Phase", "f"]


ANGSTROM = b"""let rec prompt input pos fail succ =
  (* [prompt] should only call [succ] if it has received more input. *)
  let parser_uncommitted_bytes = Input.parser_uncommitted_bytes input in
  succ input pos parser_uncommitted_bytes

let demand_input =
  { run = fun input pos more fail succ ->
    let succ' input' pos' more' = succ input' pos' more' ()
    and fail' input' pos' more' = fail input' pos' more' [] "not enough input" in
    prompt input pos fail' succ'
  }

class counter = let start = 0 in object
  method incr = start + 1
end
"""


def test_ocaml_local_lets_and_signatures() -> None:
    """inhabitedtype/angstrom: `let succ' ... in` inside a record was a top-level definition, and
    the comment opening a body was the tail of `let rec prompt`'s signature."""
    got = [(d.name, d.kind, d.line, d.signature) for d in parse_source("ocaml", ANGSTROM).defs]
    assert got == [
        ("prompt", "function", 1, "let rec prompt input pos fail succ"),
        ("demand_input", "constant", 6, "let demand_input"),
        ("counter", "class", 13, "class counter"),
        ("incr", "method", 14, "method incr"),
    ]


def test_haskell_methods_of_a_qualified_instance() -> None:
    """haskell/aeson: `instance Fail.MonadFail IResult where fail err = ...` listed `fail` as a
    top-level function, and a method bound without arguments (`return = pure`) was no definition."""
    src = b"""module A where
instance Fail.MonadFail IResult where
    fail err = IError [] err
instance Monad IResult where
    return = pure
"""
    parsed = parse_source("haskell", src)
    assert [(d.name, d.kind, d.parent, d.top_level) for d in parsed.defs] == [
        ("A", "module", None, True),
        ("fail", "method", "MonadFail", False),
        ("return", "method", "Monad", False),
    ]
    assert parsed.refs.get("MonadFail") == 1


def test_groovy_static_import_of_a_class_of_its_own_package(tmp_path: Path) -> None:
    """nextflow-io/nf-validation: `import static SamplesheetConverter.getHeader` in package
    nextflow.validation named no file."""
    root = "plugins/nf-validation/src/main/nextflow/validation/"
    for name in ("SchemaValidator", "SamplesheetConverter"):
        (tmp_path / root).mkdir(parents=True, exist_ok=True)
        (tmp_path / root / f"{name}.groovy").write_text(f"package nextflow.validation\n\nclass {name} {{}}\n")
    ctx = build_context(tmp_path, [root + "SchemaValidator.groovy", root + "SamplesheetConverter.groovy"])
    assert _res(ctx, "groovy", root + "SchemaValidator.groovy", "SamplesheetConverter.getHeader") == [
        root + "SamplesheetConverter.groovy"
    ]
    assert _res(ctx, "java", root.replace(".groovy", ".java") + "X.java", "SamplesheetConverter") == []


PERL_TEST_UNIT = b"""
my $dom = Mojo::DOM->new('<div><p id="a">Test</p><p id="b">123</p></div>');
is $dom->at('#a')->text, 'Test', 'right text';
like $dom->to_string, qr/<p id="b">123<\\/p>/, 'right result';
is_deeply [map { $_->{id} } $dom->find('p')->each], ['a', 'b'], 'right ids';
"""


def test_a_scanner_that_looks_back_parses_at_the_speed_of_a_plain_parse() -> None:
    """mojolicious/mojo: its 280 Perl files took 44 s to index. Perl's scanner asks the read
    callback for a chunk ~20,000 times in a 150 KB test file; each answer copied 64 KB."""
    import time

    from cairn.codemap.languages import get_parser
    from cairn.codemap.parse import _parse_tree

    src = PERL_TEST_UNIT * (80_000 // len(PERL_TEST_UNIT))
    parser = get_parser("perl")

    def best(run) -> float:  # noqa: ANN001 - a callable
        times = []
        for _ in range(3):
            start = time.perf_counter()
            run()
            times.append(time.perf_counter() - start)
        return min(times)

    plain = best(lambda: parser.parse(src))
    guarded = best(lambda: _parse_tree(parser, src))  # read through the callback, with the deadline
    assert guarded < 5 * plain + 0.05, (guarded, plain)  # it was ~25x
