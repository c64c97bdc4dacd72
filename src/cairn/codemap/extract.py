"""Turn one file on disk into everything the index stores about it (runs in worker processes).

Pure function of (root, path): read, hash, classify, parse with tree-sitter, cut chunks and
expand identifiers for full-text search. Returns a picklable FileRecord; never raises.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from cairn.codemap.doc_role import document_role
from cairn.codemap.html_text import visible_text
from cairn.codemap.markdown import NOTE_DIR, note_search_text
from cairn.codemap.model import ParsedFile
from cairn.codemap.scan import looks_binary, looks_generated
from cairn.codemap.textdefs import flat_spans, is_program, text_definitions
from cairn.text.tokens import expand_identifiers, path_text


@dataclass
class ChunkRecord:
    kind: str  # def | section
    name: str
    line: int
    end_line: int
    signature: str


@dataclass
class FileRecord:
    path: str
    size: int
    mtime_ns: int
    hash: str = ""
    lang: str | None = None
    kind: str = "text"
    lines: int = 0
    skip: str | None = None  # reason the file is not indexed (binary, generated...)
    parsed: ParsedFile | None = None
    body: str = ""  # expanded whole-file text for FTS
    fts_path: str = ""  # searchable words of the path
    fts_names: str = ""  # expanded names of the definitions
    fts_packed: bytes = b""  # the three FTS values compressed (fts_rows.pack), made here to spare the indexer
    chunks: list[ChunkRecord] = field(default_factory=list)
    role: str | None = None  # "log" for chat histories, diaries, changelogs (codemap/doc_role.py)
    rows: StoredRows | None = None  # `parsed` and `chunks` as table rows (`stored_file`), in their stead


@dataclass
class StoredRows:
    """A file's rows of `symbols`, `refs`, `imports` and `chunks` less the file id, as the writer inserts
    them: made in the parser process (keys, JSON), so the single writer only writes, and plain tuples
    pickle in a third of the time of the dataclasses they come from (docs/benchmarks.md#cold-index)."""

    parse_error: str | None
    symbols: list[tuple] = field(default_factory=list)  # name, kind, line, end_line, signature, parent, top_level, key
    refs: list[tuple[str, int]] = field(default_factory=list)  # name, count
    imports: list[tuple] = field(default_factory=list)  # raw, kind, line, names (JSON or None)
    chunks: list[tuple] = field(default_factory=list)  # kind, name, line, end_line, signature


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def extract_file(root: str, path: str, size: int, mtime_ns: int, parse_error: str | None = None) -> FileRecord:
    """Read and analyse one file. Errors become a `skip` reason, never an exception.

    `parse_error` set: do not parse (the parser crashed on this file before), index it as text.
    """
    rec = _extract(root, path, size, mtime_ns, parse_error)
    if not rec.skip:
        from cairn.codemap.fts_rows import pack

        rec.fts_packed = pack(rec.fts_path, rec.fts_names, rec.body)
    return rec


def _extract(root: str, path: str, size: int, mtime_ns: int, parse_error: str | None) -> FileRecord:
    rec, data = _read(root, path, size, mtime_ns)
    if not rec.skip:
        _analyse(rec, data, parse_error)
    return rec


def _read(root: str, path: str, size: int, mtime_ns: int) -> tuple[FileRecord, bytes]:
    """The record with what the path and the bytes say at a glance (size, hash, skip, language)."""
    from cairn.codemap.languages import language_for_path

    rec = FileRecord(path=path, size=size, mtime_ns=mtime_ns)
    try:
        with open(os.path.join(root, path), "rb") as fh:
            data = fh.read()
    except OSError as exc:
        rec.skip = f"unreadable: {exc.strerror or exc}"
        return rec, b""
    rec.size = len(data)
    rec.hash = content_hash(data)
    if looks_binary(data):
        rec.skip = "binary"
        return rec, data
    gen = looks_generated(data, path)
    if gen:
        rec.skip = gen
        return rec, data
    rec.lang = language_for_path(path, data[:8192])
    return rec, data


def _analyse(rec: FileRecord, data: bytes, parse_error: str | None) -> str:
    """Fill what the content gives (text, parse, chunks, role); returns the redacted text."""
    from cairn.codemap.languages import CODE_LANGUAGES, kind_of
    from cairn.redact import redact

    path, lang = rec.path, rec.lang
    raw_text = data.decode("utf-8", errors="replace")
    page = raw_text if lang == "html" else ""
    if page:  # its words, not its markup (html_text.py)
        raw_text = visible_text(raw_text)
    text = redact(raw_text)  # the index keeps no secret: not in its text, nor in a signature
    has_secret = text != raw_text
    lines_of = page or text
    rec.lines = lines_of.count("\n") + (0 if lines_of.endswith("\n") or not lines_of else 1)
    rec.kind = kind_of(lang)
    if lang in CODE_LANGUAGES and parse_error:
        rec.parsed = ParsedFile(lang=lang, error=parse_error)
    elif lang in CODE_LANGUAGES and not is_fixture(path):
        try:
            from cairn.codemap.parse import parse_source

            rec.parsed = parse_source(lang, data, path)
        except Exception as exc:  # a grammar bug must not lose the file: index it as text
            rec.parsed = ParsedFile(lang=lang, error=f"{type(exc).__name__}: {exc}")
    if has_secret and rec.parsed:
        _redact_parsed(rec.parsed, redact)
    rec.role = document_role(path, rec.kind, text)
    if path.startswith(NOTE_DIR) and lang == "markdown":
        rec.body = expand_identifiers(note_search_text(text))  # not the titles of the notes it links to
    else:
        rec.body = expand_identifiers(text)
    rec.fts_path = path_text(path)
    if (rec.parsed is None or rec.parsed.error) and rec.kind != "doc" and is_program(lang, text[:2]):
        _text_parse(rec, text)  # no grammar, or a broken one: declaration-shaped lines still name things
        return text
    if rec.parsed:
        rec.fts_names = expand_identifiers(" ".join(d.name for d in rec.parsed.defs))
    if rec.parsed and rec.parsed.defs:
        for d in rec.parsed.defs:
            if d.top_level or d.kind == "heading":
                rec.chunks.append(
                    ChunkRecord("section" if d.kind == "heading" else "def", d.name, d.line, d.end_line, d.signature)
                )
    return text


def is_fixture(path: str) -> bool:
    """A file in a folder of test inputs (`testdata/`, `fixtures/`, `__fixtures__/`, `__snapshots__/`): the
    data a test reads, not code to navigate. It is indexed by its text, path and declaration lines, without a
    parse: 2,217 of terraform's 4,278 parsed files (HCL configurations under testdata/); no figure of
    the development sets moved (docs/benchmarks.md#cold-index-40)."""
    return _FIXTURE_DIR.search(path) is not None


_FIXTURE_DIR = re.compile(r"(?:^|/)(?:testdata|fixtures|__fixtures__|__snapshots__)/")


def _redact_parsed(parsed: ParsedFile, redact: Callable[[str], str]) -> None:
    """The parser read the file as written: in a file that held a secret, every string it took from
    the source (a definition's name, parent and signature, an import, a used identifier) passes the
    redactor too, as the text did. A heading `# Setup ghp_...` or a constant named like a token would
    otherwise reach `symbols`, `chunks`, `imports`, `refs` and the names column of the text index."""
    for d in parsed.defs:
        d.name, d.signature = redact(d.name), redact(d.signature)
        if d.parent:
            d.parent = redact(d.parent)
    for imp in parsed.imports:
        imp.raw, imp.names = redact(imp.raw), [redact(n) for n in imp.names]
    refs: dict[str, int] = {}
    for name, count in parsed.refs.items():
        key = redact(name)
        refs[key] = refs.get(key, 0) + count
    parsed.refs = refs


def _text_parse(rec: FileRecord, text: str) -> None:
    """Definitions and chunks of a program file from its declaration lines (see textdefs.py)."""
    defs = text_definitions(text)
    error = rec.parsed.error if rec.parsed else None
    rec.parsed = ParsedFile(lang=rec.lang or "text", defs=defs, error=error)
    rec.fts_names = expand_identifiers(" ".join(d.name for d in defs))
    rec.chunks = [ChunkRecord("def", d.name, d.line, end, d.signature) for d, end in flat_spans(defs)]


def as_rows(rec: FileRecord) -> FileRecord:
    """`rec` with its definitions, references, imports and chunks turned into `rows` (what is stored)."""
    import json

    from cairn.codemap.model import symbol_key

    parsed, rec.parsed = rec.parsed, None
    rows = StoredRows(parsed.error if parsed else None)
    if parsed:
        rows.symbols = [
            (d.name, d.kind, d.line, d.end_line, d.signature, d.parent, int(d.top_level), symbol_key(d.name, d.kind))
            for d in parsed.defs
        ]
        rows.refs = list(parsed.refs.items())
        rows.imports = [(i.raw, i.kind, i.line, json.dumps(i.names) if i.names else None) for i in parsed.imports]
    rows.chunks = [(c.kind, c.name, c.line, c.end_line, c.signature) for c in rec.chunks]
    rec.chunks = []
    rec.rows = rows
    return rec


# Identical files are analysed once per run of `stored_files`: a copy takes the first one's rows and
# text, and only what its path decides (role, path words, FTS copy) is its own. Small ones (fixtures,
# empty files, copied configs: 761 of terraform's 5,447 files, nearly all fixed cost per file) by number;
# large ones (a docs build's second copy, saved transcripts: 40 MB of the 20k tree) only when another
# file of the call has the same size, by the bytes held (holding every large analysis cost terraform 15 MB).
SAME_MAX_BYTES = 4096
SAME_MAX_FILES = 1024  # then forgotten and begun again: copies sit near each other (~14 MB held at most)
SAME_LARGE_BYTES = 32 << 20  # of large files' source held (their text and body: ~3x that), then begun again


class _Copies:
    """The analyses of this run's files, by what decides them (see `_stored`), for their copies."""

    def __init__(self, twin_sizes: frozenset[int] = frozenset()) -> None:
        self.twin_sizes = twin_sizes  # sizes over SAME_MAX_BYTES that more than one file of the call has
        self.small: dict[tuple, tuple] = {}
        self.large: dict[tuple, tuple] = {}
        self.large_bytes = 0

    def get(self, key: tuple, size: int) -> tuple | None:
        return (self.small if size <= SAME_MAX_BYTES else self.large).get(key)

    def put(self, key: tuple, size: int, analysis: tuple) -> None:
        if size <= SAME_MAX_BYTES:
            if len(self.small) >= SAME_MAX_FILES:
                self.small.clear()
            self.small[key] = analysis
        elif size in self.twin_sizes and size <= SAME_LARGE_BYTES:
            if self.large_bytes + size > SAME_LARGE_BYTES:
                self.large.clear()
                self.large_bytes = 0
            self.large[key] = analysis
            self.large_bytes += size


def stored_file(root: str, path: str, size: int, mtime_ns: int, parse_error: str | None = None) -> FileRecord:
    """`extract_file`, as rows to store (`as_rows`): what the index run takes from a parser process."""
    return _stored(root, path, size, mtime_ns, parse_error, None)


def stored_files(args: Iterable[tuple[str, str, int, int]]) -> Iterator[FileRecord]:
    """`stored_file` of each (root, path, size, mtime_ns), in order; a file identical to one before it
    in this call (within `_Copies`' bounds) is not read into a parse again."""
    args = list(args)
    sizes = Counter(a[2] for a in args if a[2] > SAME_MAX_BYTES)
    copies = _Copies(frozenset(size for size, n in sizes.items() if n > 1))
    for root, path, size, mtime_ns in args:
        yield _stored(root, path, size, mtime_ns, None, copies)


def _stored(
    root: str, path: str, size: int, mtime_ns: int, parse_error: str | None, copies: _Copies | None
) -> FileRecord:
    from cairn.codemap.fts_rows import pack

    rec, data = _read(root, path, size, mtime_ns)
    if rec.skip:
        return as_rows(rec)
    key = (rec.hash, rec.lang, parse_error, path.startswith(NOTE_DIR), is_fixture(path))  # what _analyse reads
    copy = copies.get(key, len(data)) if copies is not None else None
    if copy is None:
        text = _analyse(rec, data, parse_error)
        as_rows(rec)
        if copies is not None and rec.rows is not None and not rec.rows.parse_error:
            copies.put(key, len(data), (rec.lines, rec.kind, rec.body, rec.fts_names, rec.rows, text))
    else:  # the rows are shared: the writer only reads them
        rec.lines, rec.kind, rec.body, rec.fts_names, rec.rows, text = copy
        rec.role = document_role(path, rec.kind, text)
        rec.fts_path = path_text(path)
    rec.fts_packed = pack(rec.fts_path, rec.fts_names, rec.body)
    return rec


def extract_many(args: list[tuple[str, str, int, int]]) -> list[FileRecord]:
    """Batch entry point for a process pool (fewer round trips than one task per file)."""
    return list(stored_files(args))
