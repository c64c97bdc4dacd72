"""Redaction: every fake secret shape is masked with its kind, ordinary code is left alone."""

from __future__ import annotations

import base64
import json
import random
import re
import string
from pathlib import Path

import pytest

from cairn.redact import redact, redact_obj
from cairn.redact.shape import looks_random

CORPUS = Path(__file__).resolve().parents[1] / "fixtures" / "secrets"
_ALNUM = string.ascii_letters + string.digits
_B64 = string.ascii_letters + string.digits + "+/"


def _fill(kind: str, n: int, rnd: random.Random) -> str:
    if kind == "a":
        body = [rnd.choice(_ALNUM) for _ in range(n)]
        if n >= 3:  # guarantee the mix of classes real keys have
            body[0], body[1], body[2] = rnd.choice(string.ascii_uppercase), rnd.choice(string.digits), "q"
        return "".join(body)
    if kind == "h":
        return "".join(rnd.choice("0123456789abcdef") for _ in range(n - 1)) + "7"
    if kind == "u":
        return "".join(rnd.choice(string.ascii_uppercase + string.digits) for _ in range(n - 1)) + "Q"
    if kind == "b":
        return "".join(rnd.choice(_B64) for _ in range(n - 2)) + "a9"
    if kind == "d":
        return "".join(rnd.choice(string.digits) for _ in range(n))
    raise AssertionError(kind)


def _jwt(rnd: random.Random) -> str:
    def part(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    sig = base64.urlsafe_b64encode(bytes(rnd.getrandbits(8) for _ in range(32))).decode().rstrip("=")
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part({'sub': rnd.randint(1, 99999), 'iat': 1700000000})}.{sig}"


def expand(template: str, rnd: random.Random) -> str:
    """Assemble a fake credential from a template (see tests/fixtures/secrets/README.md)."""
    text = template.replace("\\n", "\n").replace("{lit-n}", "\\n").replace("{jwt}", _jwt(rnd))
    return re.sub(r"\{([ahubd])(\d+)\}", lambda m: _fill(m.group(1), int(m.group(2)), rnd), text)


def _shapes() -> list[tuple[str, str]]:
    rnd = random.Random(20260211)
    rows = []
    for line in (CORPUS / "shapes.tsv").read_text().splitlines():
        if line.strip():
            kind, template = line.split("\t", 1)
            rows.append((kind, expand(template, rnd)))
    return rows


SHAPES = _shapes()


def _secret_parts(text: str) -> list[str]:
    """The random runs of a shape (the parts that must vanish)."""
    return [t for t in re.findall(r"[A-Za-z0-9+/_\-]{10,}", text) if looks_random(t) or len(t) >= 24]


def test_corpus_is_big_enough():
    assert len(SHAPES) >= 30
    assert len({k for k, _ in SHAPES}) >= 20


@pytest.mark.parametrize(("kind", "text"), SHAPES, ids=[f"{i}-{k}" for i, (k, _) in enumerate(SHAPES)])
def test_every_secret_shape_is_masked(kind: str, text: str):
    out = redact(text)
    assert "[REDACTED:" in out, out
    for part in _secret_parts(text):
        if part not in ("BEGIN", "END") and not part.isalpha():
            assert part not in out, (part, out)


def test_ordinary_code_is_left_alone():
    for line in (CORPUS / "ordinary.txt").read_text().splitlines():
        assert redact(line) == line


def test_ordinary_corpus_as_one_text_is_left_alone():
    text = (CORPUS / "ordinary.txt").read_text()
    assert redact(text) == text


def test_redaction_is_idempotent_and_keeps_context():
    text = "\n".join(t for _, t in SHAPES)
    once = redact(text)
    assert redact(once) == once
    assert "git remote set-url origin https://" in once
    assert "postgres://app:[REDACTED:url-password]@db.internal:5432/prod" in once


def test_redact_obj_walks_json():
    kind, secret = next(s for s in SHAPES if s[0] == "github-token")
    payload = {"tool_input": {"command": secret, "n": 3}, "list": [secret, None]}
    out = redact_obj(payload)
    assert "[REDACTED:github-pat]" in out["tool_input"]["command"]
    assert out["tool_input"]["n"] == 3 and out["list"][1] is None


def test_prose_near_secret_words_is_kept():
    for text in (
        "the password reset flow",
        "my api key rotation plan",
        "token budget of 2000",
        "session 258c7280-ae70-4798-800f-63464d01a85d ended",
    ):
        assert redact(text) == text
