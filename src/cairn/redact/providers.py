"""Provider token formats: gitleaks' maintained rules (gitleaks_rules.py), run the way gitleaks runs them.

One RE2 set pass finds which rule keywords occur in the lowered text; only those rules run, each
compiled the first time it is needed. A hit is kept when its secret (the rule's secret group, or
the first non-empty group) passes the rule's entropy threshold and no allowlist (the global one,
then the rule's own, on the secret, the match or the line) lets it go. The span masked is the
secret itself, so `aws_access_key_id = ` stays readable before `[REDACTED:aws-access-token]`.

`SKIPPED` rules are left to cairn's own detectors: `generic-api-key` guesses from a name and a
value's entropy alone, which damages look-alikes (`secret: SignatureKey`, lockfile hashes);
`assign.py` does that job with shape checks. `private-key` runs from a BEGIN line to the next
`KEY-----` anywhere after it, so a key cut short swallows the text up to a later key; blocks.py
masks each block exactly.
"""

from __future__ import annotations

from cairn.redact.rx import LazyRegex, keyword_set
from cairn.redact.shape import entropy

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    from typing import Any

CHUNK = 8192
SKIPPED = frozenset({"generic-api-key", "private-key"})


class Rule:
    __slots__ = ("id", "regex", "group", "entropy", "allow")

    def __init__(self, row: tuple) -> None:
        rid, regex, group, ent, _keywords, allow = row
        self.id = rid
        self.regex = LazyRegex(regex.encode())
        self.group = group
        self.entropy = ent
        self.allow = [
            (target, [LazyRegex(r.encode()) for r in regexes], stopwords) for target, regexes, stopwords in allow
        ]


class RuleSet:
    """A table of gitleaks-format rules with its keyword prefilter, built on first use."""

    def __init__(
        self,
        rows: list[tuple],
        global_regexes: tuple = (),
        global_stopwords: tuple = (),
        skip: frozenset[str] = frozenset(),
        needles: list[bytes] | tuple = (),
    ) -> None:
        self.rows = [r for r in rows if r[0] not in skip]
        # Other detectors' literals (layouts.py's needles), found by the same keyword pass: `findings` tells
        # which the text holds, so the text is not walked again for them. None holds a line break, so each
        # occurrence lies inside one chunk (a chunk ends just after one) and the chunks' union is the text's.
        self.needles = list(needles)
        self.global_allow = ("secret", [LazyRegex(r.encode()) for r in global_regexes], global_stopwords)
        self._rules: list[Rule] | None = None
        self._keywords: list[bytes] = []
        self._by_keyword: list[list[int]] = []
        self._always: list[int] = []
        self._set: Any = None  # an RE2 Set (google-re2 ships no type information)

    def _build(self) -> None:
        """Build the rules and the keyword set; `_rules` is set last, so another thread (a hook's
        background refresh, the MCP server's workers) never sees a half-built table."""
        index: dict[bytes, int] = {}
        keywords: list[bytes] = []
        by_keyword: list[list[int]] = []
        always: list[int] = []
        for i, row in enumerate(self.rows):
            if not row[4]:
                always.append(i)
            for kw in row[4]:
                k = kw.encode()
                if k not in index:
                    index[k] = len(keywords)
                    keywords.append(k)
                    by_keyword.append([])
                by_keyword[index[k]].append(i)
        self._keywords, self._by_keyword, self._always = keywords, by_keyword, always
        self._set = keyword_set(keywords + self.needles)
        self._rules = [Rule(row) for row in self.rows]

    def candidates(self, lower: bytes, needles: set[int] | None = None) -> list[Rule]:
        """The rules whose keywords `lower` holds; `needles` (if given) gets the indices of the needles it holds."""
        if self._rules is None:
            self._build()
        assert self._rules is not None
        hit = set(self._always)
        nk = len(self._by_keyword)
        for k in self._set.Match(lower) or ():
            if k < nk:
                hit.update(self._by_keyword[k])
            elif needles is not None:
                needles.add(k - nk)
        return [self._rules[i] for i in sorted(hit)]

    def findings(
        self, data: bytes, lower: bytes | None = None, needles: set[int] | None = None
    ) -> list[tuple[int, int, str]]:
        """(start, end, rule id) of every secret the rules find in `data`; `needles` (if given) gets the
        indices of the needles (`self.needles`) that `lower` holds.

        Long texts are cut at line ends into chunks of about CHUNK bytes, each with its own keyword
        pass, so a rule scans only the chunks that hold one of its keywords (provider tokens never
        span lines; multi-line blocks are blocks.py's job).
        """
        lower = data.lower() if lower is None else lower
        out: list[tuple[int, int, str]] = []
        start, n = 0, len(data)
        while start < n:
            end = -1 if n - start <= CHUNK else data.find(b"\n", start + CHUNK)
            end = n if end == -1 else end + 1
            self._chunk(data, lower, start, end, out, needles)
            start = end
        return out

    def _chunk(self, data: bytes, lower: bytes, start: int, end: int, out: list, needles: set[int] | None) -> None:
        for rule in self.candidates(lower[start:end] if (start, end) != (0, len(data)) else lower, needles):
            for m in rule.regex.finditer(data, start, end):
                span = _secret_span(data, m, rule.group)
                if span is None:
                    continue
                secret = data[span[0] : span[1]]
                if rule.entropy and entropy(secret.decode("utf-8", "replace")) <= rule.entropy:
                    continue
                if _allowed(self.global_allow, data, m, secret) or any(
                    _allowed(a, data, m, secret) for a in rule.allow
                ):
                    continue
                out.append((span[0], span[1], rule.id))


def _secret_span(data: bytes, m: list, group: int) -> tuple[int, int] | None:
    """The rule's secret group, else the first non-empty group, else the match less its newlines."""
    n = len(m) - 1
    if n >= 1:
        if group:
            if group > n or m[group][0] < 0:
                return None
            return m[group]
        for s, e in m[1:]:
            if s >= 0 and e > s:
                return s, e
    s, e = m[0]
    while e > s and data[e - 1 : e] == b"\n":  # gitleaks trims newlines off a match
        e -= 1
    return (s, e) if e > s else None


def _allowed(allow: tuple, data: bytes, m: list, secret: bytes) -> bool:
    target_kind, regexes, stopwords = allow
    if stopwords:
        low = secret.decode("utf-8", "replace").lower()
        if any(w in low for w in stopwords):
            return True
    if not regexes:
        return False
    if target_kind == "match":
        target = data[m[0][0] : m[0][1]]
    elif target_kind == "line":
        start = data.rfind(b"\n", 0, m[0][0]) + 1
        end = data.find(b"\n", m[0][1])
        target = data[start : end if end != -1 else len(data)]
    else:
        target = secret
    return any(rx.search(target) is not None for rx in regexes)


_RULES: RuleSet | None = None


def provider_rules() -> RuleSet:
    """cairn's provider table: gitleaks' default rules less SKIPPED, then extra_rules.py; its keyword pass
    also finds layouts.py's needles (`redact.find` hands them to `layouts.spans`)."""
    global _RULES
    if _RULES is None:
        from cairn.redact import extra_rules
        from cairn.redact import gitleaks_rules as g
        from cairn.redact.layouts import NEEDLES

        _RULES = RuleSet(g.RULES + extra_rules.RULES, g.GLOBAL_REGEXES, g.GLOBAL_STOPWORDS, SKIPPED, NEEDLES)
    return _RULES
