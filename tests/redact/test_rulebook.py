"""Every redaction rule names the case that brought it in and the sets that measure it, and the sets
that live in the repository agree (issue 36: redaction rules as data with provenance)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import pytest

from cairn.redact import redact
from cairn.redact.rulebook import HEURISTICS, SETS, fires, rules

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS / "fixtures" / "secrets"))

import corpus  # noqa: E402

RULES = rules()


def _shapes() -> list[str]:
    spec = importlib.util.spec_from_file_location("shapes_test", TESTS / "sessions" / "test_redact.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [text for _, text in module._shapes()]


SECRETS = {
    "corpus": [t for _, t, _ in corpus.secrets()],
    "held-out": [t for _, t, _ in corpus.heldout()[0]],
    "shapes": _shapes(),
}
LOOKALIKES = [t for _, t in corpus.lookalikes()] + [t for _, t in corpus.heldout()[1]]


def test_every_rule_names_its_case_and_known_sets():
    assert len({r.name for r in RULES}) == len(RULES)
    for r in RULES:
        assert r.brought_by.strip() and r.does.strip(), r
        assert r.measured_by or r.kind == "format", r  # a heuristic or a layout is measured by something
        for s in r.measured_by:
            assert s in SETS or (s.startswith("tests/") and (TESTS.parent / s).is_file()), (r.name, s)


def test_every_heuristic_names_code_that_exists():
    for r in HEURISTICS:
        module, _, attr = r.where.rpartition(".")
        owner = importlib.import_module(f"cairn.redact.{module}" if module else "cairn.redact")
        assert hasattr(owner, attr), r


def _fires(rule, text: str) -> bool:
    return fires(rule, text.encode("utf-8", "surrogatepass"))


@pytest.mark.parametrize("rule", [r for r in RULES if r.kind in ("layout", "format")], ids=lambda r: r.name)
def test_a_table_rule_fires_on_the_sets_it_names_and_on_no_lookalike(rule):
    for name, texts in SECRETS.items():
        hits = sum(_fires(rule, t) for t in texts)
        assert (hits > 0) == (name in rule.measured_by), (rule.name, name, hits)
    assert not any(_fires(rule, t) for t in LOOKALIKES), rule.name


PASSWORD = "Xy7#kP2qLm9vR4"
SAS = "sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2031-01-01T00:00:00Z&spr=https&sig=a9Zx%2Bq7Lm4Vw2Np8Rt5Yc3Kd6Hf1Gj0Bs%3D"


@pytest.mark.parametrize(
    ("name", "text", "secret"),
    [
        ("layout:password:15", f"requests.get(url, credentials=('deploy', '{PASSWORD}'))", PASSWORD),
        ("layout:azure-sas:27", f"BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature={SAS}", SAS),
    ],
)
def test_the_layouts_no_generated_set_holds(name, text, secret):
    rule = next(r for r in RULES if r.name == name)
    assert "tests/redact/test_rulebook.py" in rule.measured_by and _fires(rule, text)
    assert secret[:12] not in redact(text)
