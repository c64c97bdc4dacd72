"""Understand a request before searching: which words are distinctive, which name things.

Real requests are long and chatty ("ok now can you look at why the export still breaks when...").
Each term gets a weight from how rare it is in this repository (document frequency from the FTS
index) and from its shape (identifier-like or path-like words name things), so common words
cannot pull the ranking, and the graph carries more weight when little is distinctive.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from cairn.search.index_cache import IndexCache, for_index
from cairn.search.ranking import DEFAULT_RANKING, LongQuery, Terms
from cairn.text.tokens import (
    CODE_NAME,
    STOPWORDS,
    fold,
    fts_quote,
    name_key,
    query_terms,
    split_identifier,
    term_counts,
)

TYPE_CHECKING = False  # not typing's (import cost on every hook); mypy reads it as True
if TYPE_CHECKING:
    from cairn.search.long_query import Regions

_IDENT = CODE_NAME  # code-shaped tokens (text/tokens.py says why it is written as it is)
_RAW_TOKEN = re.compile(r"[\w][\w.\-/]*[\w]|[\w]+", re.UNICODE)
MAX_IDENT_CHARS = 256  # a 20 KB word is no name; also bounds _IDENT.finditer's retries per start to 256**2


def _ident_matches(text: str) -> Iterator[re.Match[str]]:
    """_IDENT matches, looked for inside each token of at most MAX_IDENT_CHARS (a 20 KB word is no name)."""
    for m in _RAW_TOKEN.finditer(text):
        if len(m.group(0)) <= MAX_IDENT_CHARS:
            yield from _IDENT.finditer(m.group(0))


@dataclass
class Term:
    text: str
    df: int
    weight: float  # 0..~3; 0 = ignored
    identifier: bool = False
    expansion: bool = False


@dataclass
class Symbol:
    """A token of the request that may name a definition: `Conn`, `Plug.Conn`, `applyCoupon`, `(.:?)`."""

    token: str  # as written, qualifier included
    key: str  # lookup key of its last segment (codemap.model.symbol_key)
    strength: float  # ranking.Terms.sym_*
    last: str = ""  # its last segment as written (case kept)


@dataclass
class Query:
    text: str
    terms: list[Term] = field(default_factory=list)
    name_keys: list[tuple[str, float]] = field(default_factory=list)  # (key, strength: ranking.Terms.key_*)
    symbols: list[Symbol] = field(default_factory=list)  # names of definitions the request may mean
    n_files: int = 0
    long: bool = False  # read as a long, report-shaped request (long_query.py)

    @property
    def main(self) -> list[Term]:
        return [t for t in self.terms if not t.expansion and t.weight > 0]

    @property
    def expansion(self) -> list[Term]:
        return [t for t in self.terms if t.expansion and t.weight > 0]

    @property
    def distinctive(self) -> int:
        """How many request terms are rare enough to steer the search."""
        return sum(1 for t in self.main if t.weight >= 1.0)


def _df(con: sqlite3.Connection, term: str, memo: dict[str, int]) -> int:
    """Files whose path, names or body hold `term`. No column filter: the table has those three
    columns only, and a filter of all three costs FTS5 a position list per row (1.7-3.6x the count)."""
    if term in memo:
        return memo[term]
    try:
        df = con.execute("SELECT COUNT(*) FROM files_fts WHERE files_fts MATCH ?", (fts_quote(term),)).fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    memo[term] = df
    return df


def file_count(con: sqlite3.Connection, cache: IndexCache | None = None) -> int:
    """Files in the index (memoized per index state)."""
    return int(
        (cache or for_index(con)).value(
            "files", lambda: con.execute("SELECT COUNT(*) FROM files").fetchone()[0], file_list_only=True
        )
    )


def _weight(df: int, n: int, identifier: bool, r: Terms) -> float:
    if df == 0:
        return 0.0
    share = df / max(n, 1)
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    w = idf / math.log(1 + n) if n > 1 else 1.0  # 0..1, 1 = unique to a file
    w = r.floor + r.span * w
    if share > r.common_share:  # a term in that many files says little about any of them
        w *= r.common_factor
    if identifier:
        w *= r.identifier_factor
    return round(w, 3)


def _name_keys(text: str, r: Terms = DEFAULT_RANKING.terms) -> list[tuple[str, float]]:
    """Keys to look up in symbol and file names, each with its strength by where it came from in
    the request: a token shaped like code (applyCoupon, cupom.ts, src/cart), plain words that join
    into a name ("apply coupon" -> applycoupon), one plain word that is a name too (ranking.Terms.key_*).
    A plain word names a file when the request calls it a file ("the blocks file"; and when it is the
    request's one word: _analyze); inside a sentence it is only a word ("where are plugins launched")."""
    keys: dict[str, float] = {}
    words: list[str] = []
    toks = [m.group(0) for m in _RAW_TOKEN.finditer(text)]
    for i, tok in enumerate(toks):
        ident = len(tok) <= MAX_IDENT_CHARS and _code_shaped(tok)
        named = i + 1 < len(toks) and toks[i + 1].lower() == "file"
        if ident and "." in tok and "/" not in tok and not _is_file_name(tok):
            ident = bool(_IDENT.fullmatch(tok.replace(".", "")))  # `lazy.nvim` is a project name, `Plug.Conn` a name
        for piece in re.split(r"[/\\]", tok):
            if "." in piece and ident:  # a file name keys on its stem, `Plug.Conn` on `Conn` and on the whole
                stems = [piece.split(".", 1)[0]] if _is_file_name(piece) else [piece.rsplit(".", 1)[-1], piece]
            else:
                stems = [piece]
            for stem in stems:
                k = name_key(stem)
                if len(k) >= 3:
                    keys[k] = max(keys.get(k, 0.0), r.key_ident if ident else r.key_named if named else r.key_word)
        words.extend(p for p in split_identifier(fold(tok)) if p)
    for n in (2, 3):
        for i in range(len(words) - n + 1):
            k = "".join(words[i : i + n])
            if len(k) >= 6:
                keys[k] = max(keys.get(k, 0.0), r.key_ngram)
    return list(keys.items())


def _key_strength(key: str, strength: float, weights: dict[str, float], named: str, r: Terms) -> float:
    """A plain word's key counts by its rarity here, unless it is the request's one word."""
    if strength != r.key_word:
        return strength
    return r.key_named if key == named else strength * min(1.0, weights.get(key, 1.0))


_SYM_TOKEN = re.compile(r"\([^\w\s()]{1,5}\)|[A-Za-z_][\w]*(?:(?:::|->|[.#])[A-Za-z_][\w]*)*[?!]?")
_QUALIFIED = re.compile(r"::|->|[.#]")


def _code_shaped(tok: str) -> bool:
    """camelCase, snake_case, a path or a file name; not an acronym written in capitals (SQL, HTTP)."""
    return bool(_IDENT.fullmatch(tok)) and not (tok.isupper() and tok.isalpha())


def _is_file_name(tok: str) -> bool:
    from cairn.codemap.languages import EXTENSIONS

    ext = "." + tok.rsplit(".", 1)[-1].lower() if "." in tok else ""
    return ext in EXTENSIONS


def _symbols(text: str, r: Terms = DEFAULT_RANKING.terms) -> list[Symbol]:
    """Tokens of the request that may name definitions, each with how likely that is by its shape and
    place: the whole request (`Conn`), a code-shaped token in a sentence (`Ecto.Schema`), a
    capitalized word ("the Session"), a capitalized first word, a plain word (ranking.Terms.sym_*)."""
    from cairn.codemap.model import symbol_key

    stripped = text.strip().strip("`'\"")
    out: dict[str, Symbol] = {}
    bare = bool(_SYM_TOKEN.fullmatch(stripped))
    for i, m in enumerate(_SYM_TOKEN.finditer(stripped)):
        tok = m.group(0)
        if tok.startswith("("):
            strength, last = (r.sym_bare if bare else r.sym_code), tok[1:-1]
        else:
            last = _QUALIFIED.split(tok)[-1].rstrip("?!")
            if _is_file_name(tok):
                continue  # a file name (`conn.ex`), looked up by the name channel
            if bare:
                strength = r.sym_bare
            elif _QUALIFIED.search(tok) or (_IDENT.fullmatch(tok) and not tok.isupper()) or "_" in tok.strip("_"):
                strength = r.sym_code
            elif tok[:1].isupper() and len(tok) > 1:
                strength = r.sym_first if i == 0 else r.sym_capital
            elif len(tok) >= 3 and tok.lower() not in STOPWORDS:
                strength = r.sym_word
            else:
                continue
        key = symbol_key(last)
        if len(key) >= 2 and (key not in out or out[key].strength < strength):
            out[key] = Symbol(tok, key, strength, last)
    return list(out.values())


NOT_LONG = LongQuery(min_words=0)
MAX_QUERIES = 1000  # analyzed requests a warm process keeps per index state


def analyze(
    con: sqlite3.Connection,
    text: str,
    extra_terms: list[str] | None = None,
    weights: Terms = DEFAULT_RANKING.terms,
    report: bool = False,
) -> Query:
    """Turn a request (and the caller's related terms) into weighted terms and name keys. The
    short forms code gives to what the request says in full ("openid connect" -> `oidc`,
    text/abbreviations.py) count as related terms too. Memoized per index state (the prompt hook's
    gate and its search analyze the same prompt): callers only read the Query. `report`: the caller
    found the request long and report-shaped before it cut the report's boilerplate."""
    memo = for_index(con).table("queries", MAX_QUERIES)
    key = (text, tuple(extra_terms) if extra_terms is not None else None, weights, report)
    q = memo.get(key)
    if q is None:
        q = memo[key] = _analyze(con, text, extra_terms, weights, report)
    return q


def is_long(text: str, r: LongQuery) -> bool:
    """long_query.is_long, with long_query imported only for a request of `r.min_words` words or more:
    the prompt hook's requests are short, and a cold hook process should not pay for the module."""
    if not r.min_words or len(text.split(None, r.min_words)) < r.min_words:
        return False
    from cairn.search import long_query

    return long_query.is_long(text, r)


def _analyze(
    con: sqlite3.Connection, text: str, extra_terms: list[str] | None, r: Terms, report: bool = False
) -> Query:
    if (report and r.long.min_words) or is_long(text, r.long):  # a pasted report: its names weigh most (long_query.py)
        from cairn.search import long_query

        where = long_query.regions(text, r.long)
        body = long_query.scrub(text) if r.long.scrub else text
        q = _analyze(con, body, extra_terms, replace(r, long=NOT_LONG))
        _reweigh(q.terms, where, r.long)
        if r.long.code_names != 1.0 and where.strings:  # `reader="nrrdreader"`: a string selecting a class
            _code_names(con, q, where, r)
        if r.long.repeats:  # what a report keeps writing is what it is about (flat BM25 counts it too)
            counts = term_counts(body)
            for term in q.terms:
                if not term.expansion and counts.get(term.text, 0) > 1:
                    term.weight = round(term.weight * (1 + r.long.repeats * math.log(counts[term.text])), 3)
        title = long_query.title(text) if r.long.title_names != 1.0 else ""
        if title:  # the names the title gives: what it is about
            keys = {k for k, _ in _name_keys(title, r)}
            syms = {s.key for s in _symbols(title, r)}
            q.name_keys = [(k, v * r.long.title_names if k in keys else v) for k, v in q.name_keys]
            q.symbols = [
                replace(s, strength=s.strength * r.long.title_names) if s.key in syms else s for s in q.symbols
            ]
        q.text, q.long = text, True
        return q
    if r.abbreviations:
        from cairn.text.abbreviations import short_forms

        shorts = short_forms(text)
        if shorts:
            extra_terms = list(extra_terms or []) + shorts
    cache = for_index(con)
    n = file_count(con, cache)
    q = Query(text=text, n_files=n)
    shaped = [m.group(0) for m in _ident_matches(text) if _code_shaped(m.group(0))]
    idents = {name_key(t) for t in shaped} | {p for t in shaped for p in split_identifier(t)}
    seen: set[str] = set()
    for t in query_terms(text):
        df = _df(con, t, cache.df)
        q.terms.append(Term(t, df, _weight(df, n, t in idents, r), identifier=t in idents))
        seen.add(t)
    for t in query_terms(" ".join(extra_terms or [])):
        if t in seen:
            continue
        df = _df(con, t, cache.df)
        q.terms.append(Term(t, df, _weight(df, n, False, r), expansion=True))
        seen.add(t)
    q.symbols = _symbols(text, r)
    weights = {t.text: t.weight for t in q.terms}
    named = ""
    if len(q.terms) == 1:  # a one-word request names something, whatever its case ("plugins", "the plugins?")
        weights, named = {}, name_key(q.terms[0].text)
    q.name_keys = [(k, _key_strength(k, s, weights, named, r)) for k, s in _name_keys(text, r)]
    q.name_keys += [(k, r.key_ngram) for k in (name_key(t) for t in (extra_terms or [])) if len(k) >= 3]
    return q


def _code_names(con: sqlite3.Connection, q: Query, where: Regions, r: Terms) -> None:
    """A one-word string of the report's code that is the name of one of the project's classes or functions
    (`reader="nrrdreader"` for `NrrdReader`: a string selecting it) weighs `code_names` times more and keys
    that name as code does."""
    found = set()
    for t in q.terms:
        if t.expansion or t.identifier or t.text not in where.strings or t.weight <= 0:
            continue
        row = con.execute(
            "SELECT 1 FROM symbols WHERE key = ? AND kind IN ('class', 'function', 'method') LIMIT 1", (t.text,)
        ).fetchone()
        if row:
            t.weight = round(t.weight * r.long.code_names, 3)
            found.add(t.text)
    if found:
        q.name_keys = [(k, max(v, r.key_ident) if k in found else v) for k, v in q.name_keys]


def _reweigh(terms: list[Term], where: Regions, r: LongQuery) -> None:
    """A long report's terms: each rarity weight times its region's factor (long_query.py); the
    caller's related terms unchanged, a number (`x86_64` -> 86, a version) dropped."""
    for t in terms:
        if t.expansion or t.weight <= 0:
            continue
        if t.text.isdigit():
            t.weight = 0.0
            continue
        in_code, in_quoted = t.text in where.code, t.text in where.quoted
        if t.identifier and (in_code or in_quoted):
            f = r.code_ident
        elif in_code:
            f = r.code_word
        elif in_quoted:
            f = r.quoted
        else:
            f = r.prose
        t.weight = round(t.weight * f, 3)
