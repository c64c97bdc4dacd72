"""Turn raw tag captures (definition node + name node) into Definitions.

Grammar-agnostic rules with a few per-language fixes: the span a chunker should cut
(decorators, `export`, templates, Dart's detached bodies), the header-only signature, a
precise kind, and the parent/top_level that come from nesting (or from a Go receiver /
C++ `Class::method` qualifier, which nesting cannot see).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cairn.codemap.model import Definition

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:  # pragma: no cover
    from tree_sitter import Node

MAX_SIGNATURE = 200
_SHORT_DECLARATION_LINES = 8  # body-less declarations up to this many lines are kept whole

# Kinds that own members: a function nested in one of these is a method.
CLASS_LIKE = frozenset(
    {"class", "struct", "interface", "trait", "enum", "union", "mixin", "extension", "object", "scope"}
)
FUNCTION_LIKE = frozenset({"function", "method", "macro"})
# Kinds that are namespaces: their members still count as top level (chunks cut inside them).
NAMESPACE_LIKE = frozenset({"module"})

# Node types that wrap a definition and belong to its span. True = include in the signature too.
_WRAPPERS: dict[str, bool] = {
    "decorated_definition": False,
    "export_statement": True,
    "template_declaration": True,
    "lexical_declaration": True,
    "variable_declaration": True,
    "type_declaration": True,
    "const_declaration": True,
    "var_declaration": True,
}
# OCaml binds names inside `let`/`type`/`module` definitions: the keyword belongs to the signature.
_LANG_WRAPPERS: dict[str, frozenset[str]] = dict.fromkeys(
    ("ocaml", "ocaml_interface"),
    frozenset({"value_definition", "type_definition", "module_definition", "class_definition"}),
)
# Wrappers that may hold several declarations: only part of the span when holding just one.
_LIST_WRAPPERS = frozenset(
    {"lexical_declaration", "variable_declaration", "type_declaration", "const_declaration", "var_declaration"}
)
# Definition node type -> kind, overriding the query's (often generic) capture kind.
_NODE_KINDS: dict[str, str] = {
    "struct_item": "struct",
    "enum_item": "enum",
    "union_item": "union",
    "type_item": "type",
    "struct_specifier": "struct",
    "enum_specifier": "enum",
    "type_definition": "type",
    "trait_declaration": "trait",
    "object_declaration": "object",
    "alias": "method",
}
_BODY_TYPES = frozenset(
    {
        "block", "statement_block", "class_body", "declaration_list", "compound_statement",
        "field_declaration_list", "function_body", "enum_body", "enum_class_body", "interface_body",
        "protocol_body", "body_statement", "enumerator_list", "enum_member_declaration_list",
        "extension_body", "enum_variant_list", "computed_property", "getter", "setter", "do_block",
        "block_start", "template_body", "script_block",
    }
)  # fmt: skip
_TYPE_HOLDERS = frozenset(
    {
        "struct_type",
        "interface_type",
        "struct_specifier",
        "union_specifier",
        "enum_specifier",
        "class_specifier",
        "struct_declaration",
        "enum_declaration",
        "union_declaration",
        "opaque_declaration",
    }
)
# Languages whose body-less multi-line definitions (an @interface, a Fortran module, an F# type)
# are named by their first line; elsewhere a short body-less declaration is kept whole.
_FIRST_LINE_LANGS = frozenset({"objc", "fortran", "fsharp", "powershell", "haskell", "sql", "hcl"})
_HEADER_TYPES = frozenset({"signature", "type_head"})  # a child that is the whole declaration header
_FN_VALUES = frozenset({"arrow_function", "function_expression", "function", "generator_function", "class"})
_C_DECLARATOR_WRAPPERS = frozenset(
    {"pointer_declarator", "reference_declarator", "parenthesized_declarator", "function_declarator"}
)
_LEADING_ATTRIBUTES = frozenset({"attribute_item", "annotation"})
_INNER_ATTRIBUTES = frozenset({"attributes"})  # F# `[<Flags>]` on its own line, inside the definition node
_C_DECLARATION_OWNERS = frozenset({"function_definition", "declaration", "field_declaration"})
_PAREN_SPACE = re.compile(r"\( | \)|, \)|,\)")  # left over from collapsing multi-line parameter lists
_IDENT = re.compile(r"[^\W\d]\w*")


# Lines that say which package or namespace the rest of the file belongs to (Scala `package a.b`,
# C# `namespace A.B;`, PHP `namespace App\Http;`, F# `namespace A.B`) define nothing of the file's
# own, and every file of the package has one: as definitions they headed every symbol list and
# matched every search for the package's name. A namespace with a block (`namespace A { ... }`)
# stays a definition: it scopes what it holds. (language, node type) -> None, or the field that
# makes it a block.
_PACKAGE_LINES: dict[tuple[str, str], str | None] = {
    ("scala", "package_clause"): "body",
    ("php", "namespace_definition"): "body",
    ("csharp", "file_scoped_namespace_declaration"): None,
    ("fsharp", "namespace"): None,
}


def is_package_line(lang: str, node: Node) -> bool:
    """True for a package or namespace line (see _PACKAGE_LINES): not a definition."""
    key = (lang, node.type)
    if key not in _PACKAGE_LINES:
        return False
    block = _PACKAGE_LINES[key]
    return block is None or node.child_by_field_name(block) is None


# Blocks that no named definition owns (a Scala test body `test("x") { val unit = ...; trait A1 }`,
# a lambda): what they define is local, classes included, and as class members these locals
# (`count`, `result`, `config`, a fixture trait `A1`) tied a suite to every file naming the same
# word. language -> (block node types, the named function whose body such a block may be: the
# nesting rules of build_definitions handle that one, node types that end the walk up).
_ANONYMOUS_BLOCKS: dict[str, tuple[frozenset[str], str, frozenset[str]]] = {
    "scala": (
        frozenset({"block", "indented_block", "lambda_expression", "case_block"}),
        "function_definition",
        frozenset({"template_body", "with_template_body", "compilation_unit", "extension_definition"}),
    ),
    # OCaml: `let ... in` is local wherever it is (angstrom's `let demand_input = { run = fun ... ->
    # let succ' ... in ... }` listed succ' as a top-level definition)
    **dict.fromkeys(
        ("ocaml", "ocaml_interface"),
        (
            frozenset({"let_expression", "let_class_expression"}),
            "",
            frozenset({"compilation_unit", "structure", "signature", "object_expression", "class_body_type"}),
        ),
    ),
}


def in_anonymous_block(lang: str, node: Node) -> bool:
    """True when `node` sits in a block no named definition owns (see _ANONYMOUS_BLOCKS)."""
    rule = _ANONYMOUS_BLOCKS.get(lang)
    if rule is None:
        return False
    blocks, function, stops = rule
    cur = node.parent
    while cur is not None and cur.type not in stops and cur.type != function:
        if cur.type in blocks and (cur.parent is None or cur.parent.type != function):
            return True
        cur = cur.parent
    return False


@dataclass
class RawDef:
    """A definition capture on its way to becoming a Definition."""

    kind: str
    node: Node
    name_node: Node


@dataclass
class _Item:
    name: str
    kind: str
    start: int
    end: int
    definition: Definition | None  # None for scope-only items (impl blocks, extensions)


def _fix_node(node: Node) -> Node | None:
    """C/C++ tags capture the function_declarator; the definition is the declaration owning it."""
    if node.type != "function_declarator":
        return node
    cur = node.parent
    while cur is not None and cur.type in _C_DECLARATOR_WRAPPERS:
        cur = cur.parent
    if cur is None or cur.type not in _C_DECLARATION_OWNERS:
        return None  # a parameter or cast, not a definition
    return cur


def _span(node: Node, lang: str = "") -> tuple[Node, Node, int, int]:
    """(outermost wrapper, first node of the span, start byte of the signature, end byte of the span)."""
    outer = node
    sig_start = node.start_byte
    parent = node.parent
    extra = _LANG_WRAPPERS.get(lang, frozenset())
    while parent is not None and (parent.type in _WRAPPERS or parent.type in extra):
        listy = parent.type in _LIST_WRAPPERS or parent.type in extra
        if listy and parent.named_child_count != 1:
            break  # `const a = 1, b = 2`: keep the declarator's own span
        outer = parent
        if _WRAPPERS.get(parent.type, True):
            sig_start = parent.start_byte
        parent = parent.parent
    end = outer.end_byte
    head = node.children[0] if node.child_count else None
    if sig_start == node.start_byte and head is not None and head.type in _INNER_ATTRIBUTES and head.next_sibling:
        sig_start = head.next_sibling.start_byte  # the header is `type ParseSource =`, not `[<Flags>]`
    # Dart: `void f()` and its body are siblings.
    if node.type in ("function_signature", "method_signature"):
        nxt = node.next_named_sibling
        if nxt is not None and nxt.type == "function_body":
            end = nxt.end_byte
    # Rust `#[derive(..)]` / Dart `@override` are siblings before the item but belong to it.
    first = outer
    prev = outer.prev_named_sibling
    while prev is not None and prev.type in _LEADING_ATTRIBUTES:
        first = prev
        prev = prev.prev_named_sibling
    return outer, first, sig_start, end


def _body(node: Node) -> Node | None:
    body = node.child_by_field_name("body")
    if body is not None:
        return body
    for field in ("value", "right"):
        value = node.child_by_field_name(field)
        if value is not None and value.type in _FN_VALUES:
            return value.child_by_field_name("body")
    for child in node.named_children:
        if child.type in _BODY_TYPES:
            return child
    for child in node.named_children:  # one level down: `type X struct {..}`, `typedef struct {..} X;`
        if child.type in _TYPE_HOLDERS:
            inner = child.child_by_field_name("body")
            if inner is None:
                inner = next((g for g in child.children if g.type in _BODY_TYPES or g.type == "{"), None)
            if inner is not None:
                return inner
    return None


def signature(node: Node, sig_start: int, src: bytes, lang: str = "") -> str:
    """The declaration header: text before the body, whitespace collapsed, <= MAX_SIGNATURE chars."""
    body = _body(node)
    header = next((c for c in node.named_children if c.type in _HEADER_TYPES), None)
    if header is not None and (body is None or body.start_byte <= sig_start):
        text = _collapse(src[sig_start : header.end_byte])  # Julia: `function f(x)` / `struct P <: S`
    elif body is not None and body.start_byte > sig_start:
        text = _collapse(src[sig_start : _header_end(node, body)])
        if text.endswith((":", "{", ";")) or (text.endswith("=") and not text.endswith("==")):
            text = text[:-1].rstrip()
    elif node.end_point[0] - node.start_point[0] < _SHORT_DECLARATION_LINES and lang not in _FIRST_LINE_LANGS:
        # Body-less and short (interface method, prototype, type alias): the whole declaration.
        text = _collapse(src[sig_start : node.end_byte]).rstrip(";").rstrip()
    else:
        raw = src[sig_start : node.end_byte]
        text = raw.split(b"\n", 1)[0][: MAX_SIGNATURE * 4].decode("utf-8", errors="replace").strip()
        if text.endswith(";") or (text.endswith("{") and "=" not in text):
            text = text[:-1].rstrip()
    if len(text) > MAX_SIGNATURE:
        text = text[: MAX_SIGNATURE - 1].rstrip() + "…"
    return text


def _header_end(node: Node, body: Node) -> int:
    """Where the header ends: the body, or a comment between them (PowerShell's `function f {` then
    comment lines, OCaml's `let rec prompt input =` then `(* ... *)`: they were the signature's tail)."""
    for child in node.children:
        if child.start_byte >= body.start_byte:
            break
        if child.type == "comment" and child.start_byte > node.start_byte:
            return child.start_byte
    return body.start_byte


def _collapse(raw: bytes) -> str:
    text = " ".join(raw[: MAX_SIGNATURE * 4].decode("utf-8", errors="replace").split())
    if "( " in text or " )" in text or ",)" in text:
        text = _PAREN_SPACE.sub(lambda m: m.group(0).replace(" ", "").replace(",)", ")"), text)
    return text


def _refine_kind(lang: str, kind: str, node: Node) -> str:
    kind = _NODE_KINDS.get(node.type, kind)
    if node.type == "class_declaration":
        if lang == "swift":
            decl = node.child_by_field_name("declaration_kind")
            dk = decl.type if decl is not None else "class"
            return {"struct": "struct", "enum": "enum"}.get(dk, "class")
        if lang == "kotlin":
            for child in node.children:
                if child.type == "interface":
                    return "interface"
                if child.type == "enum_class_body":
                    return "enum"
    elif lang == "fsharp" and node.type == "type_definition" and node.named_child_count:
        return {"anon_type_defn": "class", "interface_type_defn": "interface"}.get(node.named_children[0].type, kind)
    elif node.type == "declaration" and kind == "class":  # c/cpp tags: `union u {..};`
        return "union"
    elif node.type == "type_spec":
        spec = node.child_by_field_name("type")
        if spec is not None:
            return {"struct_type": "struct", "interface_type": "interface"}.get(spec.type, kind)
    return kind


def name_of(text: str) -> str:
    """Last identifier of a qualified/generic name: `a::Foo<T>` -> `Foo`, `$x` -> `x`."""
    head = re.split(r"[<(\[]", text, maxsplit=1)[0]
    parts = _IDENT.findall(head)
    return parts[-1] if parts else ""


def _explicit_parent(lang: str, node: Node, name_node: Node, src: bytes) -> str | None:
    """Owner of a member defined outside its type's body (Go receivers, C++ `Foo::bar`)."""
    if lang == "go" and node.type == "method_declaration":
        receiver = node.child_by_field_name("receiver")
        if receiver is not None:
            stack = [receiver]
            while stack:
                cur = stack.pop()
                if cur.type == "type_identifier":
                    return src[cur.start_byte : cur.end_byte].decode("utf-8", errors="replace")
                stack.extend(reversed(cur.named_children))
    qual = name_node.parent
    if qual is not None and qual.type == "qualified_identifier":
        scope = qual.child_by_field_name("scope")
        if scope is not None:
            return name_of(src[scope.start_byte : scope.end_byte].decode("utf-8", errors="replace")) or None
    return None


def build_definitions(
    lang: str, raw_defs: list[RawDef], scopes: list[tuple[Node, Node]], src: bytes
) -> list[Definition]:
    """Definitions in source order with kind, span, signature, parent and top_level filled in.

    Functions and variables nested inside a function body are dropped (locals and closures are
    noise in a code map); classes nested in functions are kept.
    """
    items: list[_Item] = []
    explicit: dict[int, str] = {}
    for raw in raw_defs:
        node = _fix_node(raw.node)
        if node is None or is_package_line(lang, node) or in_anonymous_block(lang, node):
            continue
        name = src[raw.name_node.start_byte : raw.name_node.end_byte].decode("utf-8", errors="replace").strip()
        if not name:
            continue
        kind = _refine_kind(lang, raw.kind, node)
        outer, first, sig_start, end = _span(node, lang)
        start_row = first.start_point[0]
        end_point = outer.end_point if end == outer.end_byte else _end_point(node)
        end_row = end_point[0] - 1 if end_point[1] == 0 and end_point[0] > start_row else end_point[0]
        made = Definition(
            name=name,
            kind=kind,
            line=start_row + 1,
            end_line=end_row + 1,
            signature=signature(node, sig_start, src, lang),
        )
        owner = _explicit_parent(lang, node, raw.name_node, src)
        if owner:
            explicit[id(made)] = owner
        items.append(_Item(name, kind, first.start_byte, end, made))
    for node, name_node in scopes:
        name = name_of(src[name_node.start_byte : name_node.end_byte].decode("utf-8", errors="replace"))
        if name:
            items.append(_Item(name, "scope", node.start_byte, node.end_byte, None))

    items.sort(key=lambda it: (it.start, -it.end))
    out: list[Definition] = []
    stack: list[tuple[_Item, bool]] = []  # (item, dropped)
    mergeable = False  # the last definition kept was the item just before this one
    for item in items:
        while stack and stack[-1][0].end <= item.start:
            stack.pop()
        enclosing = stack[-1] if stack else None
        dropped = False
        if enclosing is not None and (enclosing[1] or enclosing[0].kind in FUNCTION_LIKE):
            dropped = item.kind not in CLASS_LIKE or enclosing[1]
        if item.kind in CLASS_LIKE or item.kind in FUNCTION_LIKE or item.kind in NAMESPACE_LIKE:
            stack.append((item, dropped))
        definition = item.definition
        if definition is None or dropped:
            mergeable = mergeable and dropped and definition is not None
            continue
        if enclosing is not None:
            definition.parent = enclosing[0].name
            definition.top_level = all(entry.kind in NAMESPACE_LIKE for entry, _ in stack if entry is not item)
            if definition.kind == "function" and enclosing[0].kind in CLASS_LIKE:
                definition.kind = "method"
        owner = explicit.get(id(definition))
        if definition.kind == "method" and not owner and (enclosing is None or enclosing[0].kind in NAMESPACE_LIKE):
            definition.kind = "function"  # e.g. rust `mod m { fn f() {} }`
        if owner and (definition.parent is None or (enclosing is not None and enclosing[0].kind in NAMESPACE_LIKE)):
            definition.parent = owner
            if definition.kind == "function":
                definition.kind = "method"
        previous = out[-1] if out and mergeable else None
        mergeable = True
        if (
            previous is not None
            and previous.name == definition.name
            and previous.kind == definition.kind
            and previous.parent == definition.parent
            and previous.end_line <= definition.line
        ):
            # Clauses of one function (Elixir `def f(0)`/`def f(n)`, Haskell signature + equations,
            # overload signatures): one definition spanning them all, headed by the first.
            previous.end_line = max(previous.end_line, definition.end_line)
            continue
        out.append(definition)
    return out


def _end_point(node: Node) -> tuple[int, int]:
    """End point of a Dart signature's sibling body (the span end computed in _span)."""
    nxt = node.next_named_sibling
    return tuple(nxt.end_point) if nxt is not None else tuple(node.end_point)  # type: ignore[return-value]
