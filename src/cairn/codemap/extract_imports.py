"""Turn the import nodes captured by `queries/<lang>-imports.scm` into ImportRefs.

Each handler follows the `raw` conventions documented on ImportRef (model.py): the resolver
relies on them, so keep handlers and that docstring in sync.
"""

from __future__ import annotations

from collections.abc import Callable

from cairn.codemap.model import ImportRef

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:  # pragma: no cover
    from tree_sitter import Node

Handler = Callable[["Node", bytes], list[ImportRef]]


def _text(node: Node | None, src: bytes) -> str:
    if node is None:
        return ""
    return src[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] in "\"'`<" and text[-1] in "\"'`>":
        return text[1:-1]
    return text


def _python(node: Node, src: bytes) -> list[ImportRef]:
    line = _line(node)
    if node.type == "import_statement":
        refs = []
        for child in node.children_by_field_name("name"):
            target = child.child_by_field_name("name") if child.type == "aliased_import" else child
            refs.append(ImportRef(raw=_text(target, src), line=line))
        return refs
    module = _text(node.child_by_field_name("module_name"), src).replace(" ", "")
    names: list[str] = []
    for child in node.children_by_field_name("name"):
        target = child.child_by_field_name("name") if child.type == "aliased_import" else child
        names.append(_text(target, src))
    if any(c.type == "wildcard_import" for c in node.named_children):
        names.append("*")
    return [ImportRef(raw=module, line=line, names=names)]


def _js(node: Node, src: bytes) -> list[ImportRef]:
    if node.type == "call_expression":
        args = node.child_by_field_name("arguments")
        string = args.named_children[0] if args is not None and args.named_child_count else None
    else:
        string = node.child_by_field_name("source")
    if string is None or string.type != "string":
        return []
    names: list[str] = []
    if node.type == "import_statement":
        for clause in node.named_children:
            if clause.type != "import_clause":
                continue
            for part in clause.named_children:
                if part.type == "identifier":
                    names.append("default")
                elif part.type == "namespace_import":
                    names.append("*")
                elif part.type == "named_imports":
                    for spec in part.named_children:
                        if spec.type == "import_specifier":
                            names.append(_text(spec.child_by_field_name("name"), src))
    return [ImportRef(raw=_unquote(_text(string, src)), line=_line(node), names=names)]


def _go(node: Node, src: bytes) -> list[ImportRef]:
    path = node.child_by_field_name("path")
    alias = node.child_by_field_name("name")
    names = [_text(alias, src)] if alias is not None else []
    return [ImportRef(raw=_unquote(_text(path, src)), line=_line(node), names=names)]


def _rust_use(tree: Node, prefix: str, src: bytes, out: list[tuple[str, str]]) -> None:
    """Flatten a use-tree into (path, leaf name) pairs."""
    t = tree.type
    join = lambda a, b: f"{a}::{b}" if a else b  # noqa: E731
    if t == "use_as_clause":
        path = _text(tree.child_by_field_name("path"), src)
        full = join(prefix, path)
        out.append((full, full.rsplit("::", 1)[-1]))
    elif t == "use_wildcard":
        inner = tree.named_children[0] if tree.named_child_count else None
        out.append((join(prefix, _text(inner, src)) if inner is not None else prefix, "*"))
    elif t == "scoped_use_list":
        base = join(prefix, _text(tree.child_by_field_name("path"), src))
        lst = tree.child_by_field_name("list")
        if lst is not None:
            _rust_use(lst, base, src, out)
    elif t == "use_list":
        for child in tree.named_children:
            _rust_use(child, prefix, src, out)
    elif t == "self":
        out.append((prefix, prefix.rsplit("::", 1)[-1]))
    else:  # identifier, scoped_identifier, crate, super...
        full = join(prefix, _text(tree, src))
        out.append((full, full.rsplit("::", 1)[-1]))


def _rust(node: Node, src: bytes) -> list[ImportRef]:
    if node.type == "mod_item":
        return [ImportRef(raw=_text(node.child_by_field_name("name"), src), line=_line(node), kind="mod")]
    arg = node.child_by_field_name("argument")
    if arg is None:
        return []
    pairs: list[tuple[str, str]] = []
    _rust_use(arg, "", src, pairs)
    return [
        ImportRef(raw=path.replace(" ", ""), line=_line(node), kind="use", names=[name]) for path, name in pairs if path
    ]


def _java(node: Node, src: bytes) -> list[ImportRef]:
    target = next((c for c in node.named_children if c.type in ("scoped_identifier", "identifier")), None)
    if target is None:
        return []
    raw = _text(target, src)
    if any(c.type == "asterisk" for c in node.named_children):
        raw += ".*"
    return [ImportRef(raw=raw, line=_line(node), names=[raw.rsplit(".", 1)[-1]])]


def _kotlin(node: Node, src: bytes) -> list[ImportRef]:
    target = next((c for c in node.named_children if c.type == "qualified_identifier"), None)
    if target is None:
        return []
    raw = _text(target, src)
    if _text(node, src).rstrip().endswith("*"):
        raw += ".*"
    return [ImportRef(raw=raw, line=_line(node), names=[raw.rsplit(".", 1)[-1]])]


def _c(node: Node, src: bytes) -> list[ImportRef]:
    path = node.child_by_field_name("path")
    if path is None:
        return []
    kind = "system" if path.type == "system_lib_string" else "local"
    if path.type not in ("system_lib_string", "string_literal"):
        return []  # #include MACRO
    return [ImportRef(raw=_unquote(_text(path, src)), line=_line(node), kind=kind)]


def _csharp(node: Node, src: bytes) -> list[ImportRef]:
    alias = node.child_by_field_name("name")
    target = next((c for c in node.named_children if c.type in ("qualified_name", "identifier") and c != alias), None)
    if target is None:
        return []
    names = [_text(alias, src)] if alias is not None else []
    return [ImportRef(raw=_text(target, src), line=_line(node), kind="namespace", names=names)]


def _ruby(node: Node, src: bytes) -> list[ImportRef]:
    method = _text(node.child_by_field_name("method"), src)
    args = node.child_by_field_name("arguments")
    string = args.named_children[0] if args is not None and args.named_child_count else None
    if string is None or any(c.type == "interpolation" for c in string.named_children):
        return []
    kind = "relative" if method == "require_relative" else "module"
    return [ImportRef(raw=_unquote(_text(string, src)), line=_line(node), kind=kind)]


def _php_string(node: Node, src: bytes) -> str | None:
    """The path of a require/include: a literal, or `__DIR__ . '/x.php'` as './x.php'."""
    if node.type in ("string", "encapsed_string"):
        if any(c.type not in ("string_content", "string_value") for c in node.named_children):
            return None
        return _unquote(_text(node, src))
    if node.type == "parenthesized_expression" and node.named_child_count:
        return _php_string(node.named_children[0], src)
    if node.type == "binary_expression":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if left is not None and right is not None and _text(left, src) in ("__DIR__", "dirname(__FILE__)"):
            tail = _php_string(right, src)
            return "./" + tail.lstrip("/") if tail is not None else None
    return None


def _php(node: Node, src: bytes) -> list[ImportRef]:
    line = _line(node)
    if node.type != "namespace_use_declaration":
        arg = node.named_children[0] if node.named_child_count else None
        raw = _php_string(arg, src) if arg is not None else None
        return [ImportRef(raw=raw, line=line, kind="path")] if raw else []
    prefix = ""
    group = node.child_by_field_name("body")
    refs: list[ImportRef] = []
    for child in node.named_children:
        if child.type == "namespace_name" and group is not None:
            prefix = _text(child, src).lstrip("\\") + "\\"
        elif child.type == "namespace_use_clause":
            refs.append(_php_clause(child, "", src, line))
    if group is not None:
        for clause in group.named_children:
            if clause.type == "namespace_use_clause":
                refs.append(_php_clause(clause, prefix, src, line))
    return refs


def _php_clause(clause: Node, prefix: str, src: bytes, line: int) -> ImportRef:
    alias = clause.child_by_field_name("alias")
    target = next((c for c in clause.named_children if c != alias and c.type in ("qualified_name", "name")), None)
    raw = prefix + _text(target, src).lstrip("\\")
    name = _text(alias, src) if alias is not None else raw.rsplit("\\", 1)[-1]
    return ImportRef(raw=raw, line=line, kind="use", names=[name])


def _swift(node: Node, src: bytes) -> list[ImportRef]:
    target = next((c for c in node.named_children if c.type == "identifier"), None)
    if target is None:
        return []
    return [ImportRef(raw=_text(target, src).replace(" ", ""), line=_line(node), kind="module")]


def _dart(node: Node, src: bytes) -> list[ImportRef]:
    stack = [node]
    uri = None
    names: list[str] = []
    while stack:
        cur = stack.pop()
        if cur.type == "uri" and uri is None:
            uri = cur
            continue
        if cur.type == "combinator":
            names.extend(_text(c, src) for c in cur.named_children if c.type == "identifier")
            continue
        stack.extend(reversed(cur.named_children))
    if uri is None:
        return []
    return [ImportRef(raw=_unquote(_text(uri, src)), line=_line(node), names=names)]


def _scala(node: Node, src: bytes) -> list[ImportRef]:
    """`import a.b.C`, `import a.b.{C, D => E}`, `import a.b._` / `a.b.*` -> one ref per name."""
    path = ".".join(_text(c, src) for c in node.children_by_field_name("path") if c.is_named)
    if not path:
        return []
    line = _line(node)
    refs: list[ImportRef] = []
    for child in node.named_children:
        if child.type == "namespace_wildcard":
            refs.append(ImportRef(raw=path + ".*", line=line, names=["*"]))
        elif child.type == "namespace_selectors":
            for sel in child.named_children:
                target = sel.named_children[0] if sel.type == "arrow_renamed_identifier" else sel
                name = _text(target, src)
                if name and name != "_":
                    refs.append(ImportRef(raw=f"{path}.{name}", line=line, names=[name]))
    return refs or [ImportRef(raw=path, line=line, names=[path.rsplit(".", 1)[-1]])]


def _plain(node: Node, src: bytes) -> list[ImportRef]:
    """The captured node IS the imported name or path (a string, a module name): its text, unquoted.

    The default for languages whose query captures exactly that node (see Lang.imports), so a new
    language needs no handler of its own.
    """
    text = _text(node, src)
    if node.type in ("string", "string_literal", "interpreted_string_literal", "raw_string") or text[:1] in "\"'":
        text = _unquote(text)
    text = " ".join(text.split())
    return [ImportRef(raw=text, line=_line(node))] if text else []


# Handler names (Lang.imports in the language registry) -> handler.
HANDLERS: dict[str, Handler] = {
    "plain": _plain,
    "python": _python,
    "js": _js,
    "go": _go,
    "rust": _rust,
    "java": _java,
    "kotlin": _kotlin,
    "c": _c,
    "csharp": _csharp,
    "ruby": _ruby,
    "php": _php,
    "swift": _swift,
    "dart": _dart,
    "scala": _scala,
}


def extract_imports(lang: str, nodes: list[Node], src: bytes) -> list[ImportRef]:
    """ImportRefs for the captured import nodes, in source order, one bad node never spoiling the rest."""
    from cairn.codemap.languages import BY_NAME

    spec = BY_NAME.get(lang)
    handler = HANDLERS.get(spec.imports) if spec is not None else None
    if handler is None:
        return []
    out: list[ImportRef] = []
    seen: set[str] = set()
    plain = handler is _plain
    for node in sorted(nodes, key=lambda n: n.start_byte):
        try:
            for ref in handler(node, src):
                if ref.raw and not (plain and ref.raw in seen):  # a name used twice is one import
                    seen.add(ref.raw)
                    out.append(ref)
        except (AttributeError, IndexError, ValueError, RecursionError):
            continue
    return out
