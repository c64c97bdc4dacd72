"""Every rule of redact/ with the case that brought it in and the sets that measure it.

The table-driven detectors carry their own provenance: each `layouts.Layout` row and each row of
`extra_rules.PROVENANCE`. The rules written as code (assign.py's names, shape.py's value checks,
records.py's neighbouring lines and fields, blocks.py, the gitleaks rules left out) are the
`HEURISTICS` rows below, each naming the code that implements it. `rules()` lists all of them;
`python bench/redact_bench.py rules` prints them with what the sets say, and
tests/redact/test_rulebook.py checks that every row names real code and known sets, and that a
rule said to be measured by the corpus fires on it. Never imported when redacting.
"""

from __future__ import annotations

from collections import namedtuple

# The sets a rule can be measured by, and the command that measures it; a test file is a set too.
SETS = {
    "corpus": "python bench/redact_bench.py eval  (tests/fixtures/secrets/corpus.py: secrets and look-alikes)",
    "held-out": "python bench/redact_bench.py eval --held-out  (written after tuning, measured as it came)",
    "shapes": "tests/sessions/test_redact.py over tests/fixtures/secrets/shapes.tsv",
    "gitleaks-cases": "python bench/redact_bench.py gitleaks GITLEAKS_GIT_DIR  (gitleaks' rule tests: tps and fps)",
    "trufflehog-cases": "python bench/redact_bench.py trufflehog TRUFFLEHOG_GIT_DIR  (trufflehog's detector tests)",
    "scan": "python bench/redact_bench.py scan TREE  (every span on a real tree: the false positives)",
    "weak-names": "python bench/redact_bench.py weak-names  (generated tokens after key, token, auth)",
}

# name; kind (layout, format, heuristic); where: the code, `module.attribute` under cairn.redact (or a layout's
# index); does; brought_by: the case that brought it in; measured_by: SETS names or test files
Rule = namedtuple("Rule", "name kind where does brought_by measured_by")

_I13 = "issue 13 (b0dfaec)"
_I35 = "issue 35 item 10"
HEURISTICS: tuple[Rule, ...] = tuple(
    Rule(name, "heuristic", where, does, brought_by, measured_by)
    for name, where, does, brought_by, measured_by in (
        (
            "secret-words",
            "assign._WORDS",
            "the words that can open a secret's name (pass, secret, api key, token...)",
            "8733ac6 (the session archive): password assignments in several syntaxes",
            ("corpus", "held-out"),
        ),
        (
            "name-strength",
            "assign.name_strength",
            "a strong name (password, secret, api key) takes any value, a weak one (token, key, auth) only a generated one",
            f"{_I13}: `secret: SignatureKey` shown to agents as [REDACTED:secret]",
            ("corpus", "held-out", "scan"),
        ),
        (
            "not-secret-heads",
            "assign._NOT_SECRET_HEADS",
            "a name whose head noun is about the secret (key_id, token_count, password_hash) or handles it "
            "(password_encryption, passwordHasher, credential.helper) takes nothing",
            f"{_I13}: look-alikes next to secret names; {_I35} (19d0a97): mechanisms",
            ("corpus", "scan", "tests/redact/test_web_damage.py"),
        ),
        (
            "not-secret-modifiers",
            "assign._NOT_SECRET_MODIFIERS",
            "public_key, cache_key, sort_key, csrf_token, max_tokens: not the secret",
            f"{_I13}: look-alikes",
            ("corpus", "scan"),
        ),
        (
            "word-endings",
            "assign._WORD_ENDINGS",
            "keying, secretary, passwordless: a secret word that starts another",
            "118774c: gitleaks' rule tests (false positives)",
            ("gitleaks-cases",),
        ),
        (
            "option-values",
            "assign._OPTION_VALUES",
            "fetch's credentials: 'include' | 'same-origin' | 'omit', secrets: inherit are documented values",
            f"{_I35} (19d0a97): `credentials: 'include'` masked in recall and MCP answers",
            ("scan", "tests/redact/test_web_damage.py"),
        ),
        (
            "validation-rule-lists",
            "assign._RULE_LIST",
            "'password' => 'required|string|min:8' is a rule list",
            f"{_I35} (19d0a97): the kin of option values",
            ("tests/redact/test_web_damage.py",),
        ),
        (
            "bare-value",
            "assign.judge",
            "a value after a blank or a word must be a flag's, not a word, and have a digit (strong) or be generated (weak)",
            "a86d9ab (issue 13, fourth probe): generated values after a weak name and a space",
            ("corpus", "held-out", "scan"),
        ),
        (
            "prose-separators",
            "assign._PROSE_SEPS",
            "a value after is/was/are/to/as passes the bare value's tests",
            "2424fe1: 'arguments to pass to :func:', 'secret as plain-text' (site-packages 129 -> 30 spans)",
            ("scan",),
        ),
        (
            "pass-verb",
            "assign.judge",
            "lowercase `pass` before a bare value is the verb (nginx proxy_pass, 'pass `x=1`')",
            f"{_I35} (19d0a97): trpc's docs, rack's nginx example",
            ("scan", "tests/redact/test_web_damage.py"),
        ),
        (
            "list-goes-on",
            "assign._LIST_GOES_ON",
            "('NAME', 'value') followed by a third string is a list of names",
            "2424fe1: __slots__ and pygments' keyword lists; eb95eee: an argv list goes on after --password VALUE",
            ("scan", "tests/redact/test_fill_and_names.py"),
        ),
        (
            "value-names-the-name",
            "assign._squash",
            "SECRET_SUFFIX_KEY = 'secretSuffix': the value names the name",
            "2746a9b: false positives on real code",
            ("scan",),
        ),
        (
            "uuid-tokens",
            "assign._uuid_secret",
            "a UUID under *_token, *_secret, api_key is a token (CODECOV_TOKEN)",
            "d82abf2 (issue 13, third probe): UUID tokens under token and api-key names",
            ("held-out",),
        ),
        (
            "go-test-output",
            "assign.spans",
            "`--- PASS: TestName (0.00s)` is go test's output, not a password",
            f"{_I35} (ba56d57): 6,846 spans on specstory's agent transcripts",
            ("scan", "tests/redact/test_named_elsewhere.py"),
        ),
        (
            "references",
            "shape._REFERENCE",
            "${VAR}, ${{ secrets.X }}, secretKeyRef, os.environ[...] name a secret",
            f"{_I13}: CI secret references masked",
            ("corpus", "held-out"),
        ),
        (
            "placeholders",
            "shape._PLACEHOLDER",
            "changeme, xxx, your-api-key, <token>, YOUR_TOKEN",
            f"{_I13}: look-alikes",
            ("corpus", "held-out"),
        ),
        (
            "placeholder-inside",
            "shape._PLACEHOLDER_INSIDE",
            "an instruction or six x inside a longer value",
            "38a68b2: `sha256~XXXXXXXXXX_PUT_YOUR_TOKEN_HERE`",
            ("gitleaks-cases",),
        ),
        (
            "filler",
            "shape.is_filler",
            "half a value one repeated character: typed to fill a format",
            "118774c: gitleaks' rule tests (pplx-xxxx..., glc_1111...)",
            ("gitleaks-cases",),
        ),
        (
            "alphabet",
            "shape.is_alphabet",
            "runs of consecutive characters (a character set) under a weak name",
            "118774c: gitleaks' rule tests (keyChars = ...)",
            ("gitleaks-cases",),
        ),
        (
            "wordy-names",
            "shape.is_wordy",
            "an identifier made of words (common letter pairs, bigrams.py) is code",
            "2746a9b: wordy camelCase; 38a68b2: generated tokens passed for camelCase names",
            ("weak-names", "scan"),
        ),
        (
            "code",
            "shape.is_code",
            "settings.SECRET, getpass(), self.token, @attr, !flag: code",
            f"{_I13}: `secret: SignatureKey`; {_I35} (19d0a97): Elixir's @secret",
            ("corpus", "scan"),
        ),
        (
            "member",
            "shape.is_member",
            "Ed25519.BlindKeySignatures: a qualified name ending in words",
            "118774c: gitleaks' rule tests (false positives)",
            ("gitleaks-cases",),
        ),
        (
            "not-secret-data",
            "shape.is_not_secret_data",
            "digests with their algorithm, versions, dates, paths",
            f"{_I13}: package versions and hashes; {_I35} (19d0a97): a note's own path in remember's output",
            ("corpus", "tests/redact/test_web_damage.py"),
        ),
        (
            "looks-random",
            "shape.looks_random",
            "long, letters and digits mixed, high entropy, not a path or a UUID",
            "8733ac6 (the session archive)",
            ("corpus", "held-out", "weak-names"),
        ),
        (
            "public-values",
            "shape.PUBLIC_VALUES",
            "published constants that look generated (CACHEDIR.TAG's signature)",
            "2424fe1: every cache folder's CACHEDIR.TAG in site-packages",
            ("scan",),
        ),
        (
            "label-next-line",
            "records._LABEL",
            "`API key:` then the secret alone on the next line",
            f"{_I35} (ba56d57)",
            ("scan", "tests/redact/test_named_elsewhere.py"),
        ),
        (
            "command-output",
            "records._naming",
            "a command naming a secret (echo $TOKEN, cat ~/.vault-token, heroku auth:token) then its output line",
            f"{_I35} (ba56d57)",
            ("scan", "tests/redact/test_named_elsewhere.py"),
        ),
        (
            "csv-columns",
            "records._csv_spans",
            "a CSV column under a secret's name (the AWS console's credentials.csv)",
            f"{_I35} (ba56d57)",
            ("scan", "tests/redact/test_named_elsewhere.py"),
        ),
        (
            "table-cells",
            "records._cell_spans",
            "`| token | VALUE |`: npm token create, markdown tables",
            f"{_I35} (ba56d57); trufflehog's sanity test",
            ("scan", "trufflehog-cases", "tests/redact/test_named_elsewhere.py"),
        ),
        (
            "nul-records",
            "find",
            "NUL-separated records (env -0) are read as lines",
            f"{_I35} (19d0a97): everything after a NUL masked",
            ("tests/redact/test_web_damage.py",),
        ),
        (
            "private-key-blocks",
            "blocks.spans",
            "PEM, OpenSSH, PGP, PuTTY and base64-wrapped key blocks, cut short too",
            f"{_I13}: EC private keys leaked",
            ("corpus", "held-out", "shapes"),
        ),
        (
            "gitleaks-rules-left-out",
            "providers.SKIPPED",
            "gitleaks' generic-api-key (a name and entropy alone) and private-key (to the next KEY----- anywhere)",
            f"{_I13}: lockfile hashes and `secret: SignatureKey` damaged",
            ("corpus", "gitleaks-cases"),
        ),
    )
)


def rules() -> list[Rule]:
    """Every rule: the layouts, the extra token formats, then the heuristics written as code."""
    from cairn.redact import extra_rules, layouts

    out = [
        Rule(f"layout:{r.kind}:{i}", "layout", f"layouts.LAYOUTS[{i}]", r.needle.decode(), r.brought_by, r.measured_by)
        for i, r in enumerate(layouts.LAYOUTS)
    ]
    for row in extra_rules.RULES:
        commit, measured = extra_rules.PROVENANCE[row[0]]
        out.append(Rule(row[0], "format", "extra_rules.RULES", row[0], extra_rules.BROUGHT_BY[commit], measured))
    return out + list(HEURISTICS)


def fires(rule: Rule, data: bytes) -> bool:
    """Does this layout or token-format rule, alone, mask something in `data`? (Heuristics work only together.)"""
    from cairn.redact import extra_rules, layouts
    from cairn.redact.providers import RuleSet

    if rule.kind == "layout":
        _needle, rx, group, kind, check = layouts.COMPILED[int(rule.where.split("[")[1].rstrip("]"))]
        return bool(layouts.layout_hits(data, rx, group, kind, check))
    if rule.kind == "format":
        return bool(RuleSet([row for row in extra_rules.RULES if row[0] == rule.name]).findings(data))
    raise ValueError(f"{rule.name} is a heuristic: it has no hits of its own")
