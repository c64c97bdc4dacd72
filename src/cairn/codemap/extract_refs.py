"""Count referenced identifiers, dropping noise the graph stage would only have to filter again."""

from __future__ import annotations

import re
from collections import Counter

from cairn.codemap.extract_defs import name_of

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:  # pragma: no cover
    from tree_sitter import Node

_HYPHENATED = re.compile(r"[A-Za-z]\w*(?:-\w+)+$")
_COMMON = "self this super new true false null nil none None True False undefined"
_KEYWORDS_SRC: dict[str, str] = {
    "python": "and as assert async await break class continue def del elif else except finally for "
    "from global if import in is lambda nonlocal not or pass raise return try while with yield "
    "match case type cls print",
    "javascript": "break case catch class const continue debugger default delete do else export extends "
    "finally for function if import in instanceof let return static switch throw try typeof var "
    "void while with yield async await of require arguments",
    "go": "break case chan const continue default defer else fallthrough for func go goto if import "
    "interface map package range return select struct switch type var iota len cap make append panic",
    "rust": "as async await break const continue crate dyn else enum extern fn for if impl in let loop "
    "match mod move mut pub ref return static struct trait type unsafe use where while Self Some Ok Err",
    "java": "abstract assert boolean break byte case catch char class const continue default do double "
    "else enum extends final finally float for if implements import instanceof int interface long "
    "native package private protected public return short static strictfp switch synchronized throw "
    "throws transient try void volatile while var record String Object",
    "kotlin": "as break class continue do else for fun if in interface is object package return throw "
    "try typealias val var when while by init it Unit Any let also apply run with takeIf takeUnless lazy",
    "c": "auto break case char const continue default do double else enum extern float for goto if "
    "inline int long register restrict return short signed sizeof static struct switch typedef union "
    "unsigned void volatile while size_t NULL",
    "csharp": "abstract as base bool break byte case catch char checked class const continue decimal "
    "default delegate do double else enum event explicit extern finally fixed float for foreach goto "
    "if implicit in int interface internal is lock long namespace object operator out override params "
    "private protected public readonly ref return sbyte sealed short sizeof stackalloc static string "
    "struct switch throw try typeof uint ulong unchecked unsafe ushort using virtual void volatile "
    "while var nameof value",
    "ruby": "alias and begin break case class def defined do else elsif end ensure for if in module "
    "next not or redo rescue retry return then undef unless until when while yield puts require "
    "require_relative attr_reader attr_writer attr_accessor private protected public include extend",
    "php": "abstract and array as break callable case catch class clone const continue declare default "
    "do echo else elseif empty enddeclare endfor endforeach endif endswitch endwhile extends final "
    "finally fn for foreach function global goto if implements include instanceof insteadof "
    "interface isset list match namespace or print private protected public readonly require return "
    "static switch throw trait try unset use var while xor yield parent",
    "swift": "associatedtype class deinit enum extension fileprivate func import init inout internal let "
    "open operator private protocol public static struct subscript typealias var break case continue "
    "default defer do else fallthrough for guard if in repeat return switch where while as catch is "
    "rethrows throw throws try",
    "dart": "abstract as assert async await break case catch class const continue covariant default "
    "deferred do dynamic else enum export extends extension external factory final finally for "
    "Function get hide if implements import in interface is late library mixin operator part "
    "required rethrow return set show static switch sync throw try typedef var void while with yield",
}
_KEYWORDS_SRC.update(
    {
        "elixir": "def defp defmodule defmacro defmacrop defprotocol defimpl defstruct defexception defdelegate "
        "defguard defguardp defoverridable defcallback alias import require use quote unquote unquote_splicing "
        "case cond if unless for with try receive raise reraise throw fn do end when and or not in moduledoc "
        "doc spec type typep opaque callback impl behaviour is_map is_nil is_list is_binary is_atom is_integer",
        "haskell": "case class data deriving do else if import in infix infixl infixr instance let module "
        "newtype of then type where return pure fmap show Just Nothing Left Right otherwise",
        "scala": "abstract case catch class def do else extends final finally for forSome if implicit import "
        "lazy match new object override package private protected return sealed throw trait try type val var "
        "while with yield given using enum then println Int Long Double Float Boolean String Unit Any Nothing",
        "groovy": "def class interface enum extends implements import package return new if else for while "
        "switch case try catch finally throw static final private public protected void println it",
        "bash": "if then else elif fi case esac for while until do done in function select time local export "
        "readonly declare typeset unset set shift return exit source echo printf cd test true false read "
        "eval exec trap wait load run @test",
        "zig": "const var fn pub return if else while for switch try catch defer errdefer comptime inline "
        "struct enum union error test usize isize u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 bool void anytype type std",
        "lua": "and break do else elseif end false for function goto if in local nil not or repeat return then "
        "true until while require self pairs ipairs print type tostring tonumber",
        "ocaml": "let in rec and fun function match with type module struct sig end open include val external "
        "if then else begin not ref raise failwith Some None Ok Error int string bool float unit list option",
        "julia": "function end module using import export struct mutable abstract type const return if elseif "
        "else for while do begin let try catch finally macro quote include println Int Float64 String Bool",
        "perl": "my our local sub package use require return if elsif else unless while until for foreach last "
        "next redo shift bless ref defined undef print die warn",
        "hcl": "var local module data each count path terraform",
        "sql": "SELECT FROM WHERE JOIN SUM COUNT MAX MIN AVG",
        "fsharp": "let rec in fun function match with type module open if then else elif for do done while "
        "member this new not yield return async task printfn failwith int string bool float decimal unit list",
        "powershell": "function param begin process end if else elseif foreach for while do switch return "
        "class enum Write-Host Write-Output Write-Verbose Write-Error Import-Module",
        "fortran": "module program use implicit none contains function subroutine end call type integer real "
        "logical character complex intent in out inout parameter allocatable dimension result print",
    }
)
_KEYWORDS_SRC["objc"] = "id instancetype self super nil YES NO alloc init new NSObject NSString"
_KEYWORDS_SRC["typescript"] = (
    _KEYWORDS_SRC["javascript"]
    + " any boolean number string unknown never "
    + ("object symbol bigint type interface enum namespace declare readonly keyof infer implements")
)
_KEYWORDS_SRC["tsx"] = _KEYWORDS_SRC["typescript"]
_KEYWORDS_SRC["objc"] += " " + _KEYWORDS_SRC["c"]
_KEYWORDS_SRC["ocaml_interface"] = _KEYWORDS_SRC["ocaml"]
_KEYWORDS_SRC["cpp"] = (
    _KEYWORDS_SRC["c"]
    + " bool class delete explicit friend mutable namespace new "
    + ("operator private protected public template this throw try catch typename using virtual std")
)

# Built-in type names that reach the tree as plain identifiers: never defined in a repo.
_BUILTIN_TYPES: dict[str, str] = {
    "python": "str int float bool bytes list dict set tuple object frozenset complex bytearray",
    "go": "string int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 uintptr float32 float64 "
    "complex64 complex128 bool byte rune error any",
    "kotlin": "Int Long Short Byte Double Float Char Boolean String Nothing Array",
    "swift": "Int Int8 Int16 Int32 Int64 UInt UInt8 UInt16 UInt32 UInt64 Double Float Bool String "
    "Character Void Any AnyObject Self",
    "dart": "int double num bool dynamic Object Never Null",
    "java": "Integer Long Short Byte Double Float Character Boolean Void",
}
for _lang, _types in _BUILTIN_TYPES.items():
    _KEYWORDS_SRC[_lang] += " " + _types

KEYWORDS: dict[str, frozenset[str]] = {
    lang: frozenset((words + " " + _COMMON).split()) for lang, words in _KEYWORDS_SRC.items()
}


def count_refs(lang: str, nodes: list[Node], def_sites: set[int], src: bytes) -> dict[str, int]:
    """identifier -> number of distinct reference sites, excluding the file's own definition sites."""
    # Hot loop (hundreds of nodes per file): dedupe sites first, decode each distinct name once.
    sites = {node.start_byte: node.end_byte for node in nodes}
    for site in def_sites:
        sites.pop(site, None)
    raw_counts = Counter([src[start:end] for start, end in sites.items()])
    keywords = KEYWORDS.get(lang, frozenset())
    counts: dict[str, int] = {}
    for raw, count in raw_counts.items():
        name = raw.decode("utf-8", errors="replace")
        if not name.isidentifier() and not _HYPHENATED.match(name):  # PowerShell `Get-Item` stays whole
            name = name_of(name)
        if len(name) < 2 or name in keywords:
            continue
        counts[name] = counts.get(name, 0) + count
    return counts
