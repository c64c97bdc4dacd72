"""The redactor's shortcuts change nothing: each is run beside the path it replaces, on every fixture text.

Two shortcuts make a cold index cheaper (docs/benchmarks.md#cold-index): layouts.py finds which of
its needles a text holds with one RE2 set pass instead of one `in` per needle, and assign.py skips
`_value_span` for a weak name followed by a short bare word (`class="token operator"`), which
`_value_span` would refuse. The texts: the generated secrets corpus (both sets, several seeds), the
files under tests/fixtures, and all of them joined (long texts cross layouts' and providers' chunks).
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

from cairn.redact import assign, find, layouts, redact

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
sys.path.insert(0, str(FIXTURES / "secrets"))

import corpus  # noqa: E402


def _texts() -> list[str]:
    texts: list[str] = []
    for seed in (corpus.SEED, 1, 2):
        texts += [t[1] for t in corpus.secrets(seed)] + [t[1] for t in corpus.lookalikes(seed)]
    sec, look = corpus.heldout()
    texts += [t[1] for t in sec] + [t[1] for t in look]
    for p in sorted(FIXTURES.rglob("*")):
        if p.is_file() and p.stat().st_size < 1_000_000:
            texts.append(p.read_bytes().decode("utf-8", "replace"))
    texts += ["\n".join(texts), " ".join(texts).upper()]
    return texts


TEXTS = _texts()


def _old_layout_spans(data: bytes, lower: bytes) -> list[tuple[int, int, str]]:
    """layouts.spans as it was: one `needle in lower` per layout."""
    out = []
    for needle, rx, group, kind, check in layouts.COMPILED:
        if needle not in lower:
            continue
        out += layouts.layout_hits(data, rx, group, kind, check)
    return out


def test_layout_needles_found_in_one_pass_are_the_ones_in_the_text():
    assert len(TEXTS) > 1000
    for text in TEXTS:
        data = text.encode("utf-8", "surrogatepass")
        lower = data.lower()
        assert layouts._present(lower) == {i for i, n in enumerate(layouts.NEEDLES) if n in lower}
        assert layouts.spans(data, lower) == _old_layout_spans(data, lower)


def test_the_providers_keyword_pass_finds_the_layout_needles_the_text_holds():
    """One keyword pass over each chunk serves both detectors: the needles it reports are the ones in the
    text (long texts cross the providers' chunks), and every span is the one layouts' own pass gives."""
    from cairn.redact.providers import provider_rules

    rules = provider_rules()
    assert rules.needles == layouts.NEEDLES and not any(b"\n" in n for n in layouts.NEEDLES)
    many = 0
    for text in TEXTS:
        data = text.encode("utf-8", "surrogatepass")
        lower = data.lower()
        needles: set[int] = set()
        assert rules.findings(data, lower, needles) == rules.findings(data, lower)
        assert needles == {i for i, n in enumerate(layouts.NEEDLES) if n in lower}
        assert layouts.spans(data, lower, needles) == _old_layout_spans(data, lower)
        many += len(needles) > 3
    assert many > 100


def test_weak_short_bare_shortcut_changes_no_span(monkeypatch):
    new = [find(t) for t in TEXTS]
    monkeypatch.setattr(assign, "_WEAK_SHORT_BARE", re.compile(rb"(?!)"))  # never matches: the old path
    old = [find(t) for t in TEXTS]
    assert new == old
    assert sum(1 for spans in new if spans) > 300  # the corpus holds secrets: the comparison is not empty


def _weak_hits(data: bytes):
    """(end of name, name, flag) of every weak name assign.spans would try, as it finds them."""
    done_until = -1
    for hit in assign._WORDS.finditer(data):
        h0, h1 = hit[0]
        end = assign._ident_end(data, h1)
        if end <= done_until:
            continue
        done_until = end
        lo = max(0, h0 - 64)
        start = h0 - assign._ident_end(data[lo:h0][::-1], 0)
        raw = data[start:end]
        name = raw.lstrip(b"-.").rstrip(b"-.").decode("ascii", "replace")
        if name and assign.name_strength(name) == "weak":
            yield end, name, raw.startswith(b"-"), start


_ALPHABET = [
    " ",
    " ",
    "\t",
    ":",
    "=",
    "+",
    ">",
    '"',
    "'",
    "`",
    "\\",
    "]",
    "is",
    "was",
    "are",
    "to",
    "as",
    ";",
    "<",
    "(",
    ")",
    "{",
    "[",
    "&",
    "|",
    "\n",
    "\r",
    "\f",
    "\v",
    "a",
    "Z",
    "7",
    "_",
    "-",
    ".",
    "é",
    "x" * 19,
    "q" * 20,
    "AbC9xYz12QwErTy7Lm0Pp",
    ",",
]


@pytest.mark.parametrize("seed", range(3))
def test_weak_short_bare_is_always_a_refusal(seed):
    """Wherever the shortcut fires after a weak name (not a flag), `_value_span` says no: on the
    fixture texts and on random tails built from the bytes the separator and value rules look at."""
    rng = random.Random(seed)
    texts = TEXTS[seed::3] + [
        rng.choice(["token", "key", "SESSION", "auth"])
        + rng.choice(["", " ", "\t", " " * 47, " " * 48])
        + "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(0, 12)))
        for _ in range(8000)
    ]
    fired = 0
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        for end, name, flag, start in _weak_hits(data):
            if not flag and assign._WEAK_SHORT_BARE.match(data, end) is not None:
                fired += 1
                assert assign._value_span(data, end, name, "weak", flag, start) is None, (text, end)
    assert fired > 2000


def test_redact_output_unchanged_on_a_secret_behind_a_weak_name():
    # a long generated value after `token ` is still masked; a short word is not
    assert redact("token AbC9xYz12QwErTy7Lm0PpQ") != "token AbC9xYz12QwErTy7Lm0PpQ"
    assert redact('<span class="token operator">') == '<span class="token operator">'
