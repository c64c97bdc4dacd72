"""Look-alikes from gitleaks' own rule tests that cairn used to mask, and Fly.io's comma-separated tokens.

Found by `python bench/redact_bench.py gitleaks` (gitleaks' literal false positives); the strings
here are written for this test in the same shapes, not copied.
"""

from __future__ import annotations

import random
import string

import pytest

from cairn.redact import redact
from cairn.redact.assign import name_strength
from cairn.redact.shape import is_alphabet, is_filler, is_member, is_wordy


@pytest.mark.parametrize(
    "text",
    [
        'api_key = "zz9_' + "x" * 43 + '"',  # a token's prefix, then filler
        "ACME_API_KEY=acme-" + "x" * 40,
        'API_TOKEN="tok_' + "1" * 40 + '="',
        "client_secret=Ab12Q~" + "y" * 34,
        'const alphabetKey = "0123456789abcdefghijklmnopqrstuvwxyz_-."',  # an alphabet, not a key
        'const keyChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"',
        "PairingKeyVerifiers = X25519.PairingKeyVerifiers",  # a qualified name
        "toolchain-master-keying:arm64-osx=skip",  # `keying` is not `key`
        "curl -u <user:password> https://example.com/api",  # the placeholder curl's docs write
        "- (id)hf_preferredContentSizeCategoryForDisplayLayout;",  # an Objective-C selector, not a token
        # a Freenet key whose middle has the Azure client secret's shape, but runs on past it
        '<Trust Identity="USK@a2bn3Lh6Kte2-TgBSNKorbsKkuAt34ckoLmgx0ndXO0,7~p8Q~3wIHjX9DT0yCNfQmr9oxmYrDZoQVLOdNg~yk0,AQACAAE/x/2"/>',
    ],
)
def test_lookalikes_stay(text):
    assert redact(text) == text


def _b64(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits + "+/") for _ in range(n))


@pytest.mark.parametrize("prefix", ["fm1r", "fm2"])
def test_flyio_token_list_is_masked_whole(prefix):
    rng = random.Random(7)
    first, second = f"{prefix}_{_b64(rng, 180)}", f"{prefix}_{_b64(rng, 120)}=="
    for text in (f'ENV FLY_API_TOKEN="FlyV1 {first},{second}"', f"#   FLY_API_TOKEN: FlyV1 {first},{second}"):
        out = redact(text)
        assert first[10:40] not in out and second[10:40] not in out, out


def test_alphabet_under_a_strong_name_is_still_masked():
    # a fake token written by hand in a test is treated as a secret under `secret`, `password`
    assert "ghp_abcdef" not in redact("secret ghp_abcdefghijklmnopqrstuvwxyz0123456789AB leaked")
    assert "klmnop" not in redact('password = "abcdefghijklmnop"')


def test_azure_client_secret_at_a_sentence_end_is_masked():
    rng = random.Random(11)
    for _ in range(50):  # ~ and _ inside the secret, eight places around it
        secret = (
            "".join(rng.choice(string.ascii_letters) for _ in range(3))
            + "8Q~"
            + _b64(rng, 34).replace("+", "~").replace("/", "_")
        )
        for text in (
            f"the client secret is {secret}.",
            f"client secret {secret}. Then restart.",
            f"({secret})",
            secret,
            f'"{secret}"',
            f"{secret},x",
            f"<s>{secret}</s>",
            f"set it to {secret}\n",
        ):
            assert secret[6:30] not in redact(text), text


def test_huggingface_token_still_masked():
    rng = random.Random(3)
    token = "hf_" + "".join(rng.choice(string.ascii_letters) for _ in range(34))
    assert token not in redact(f"HF_TOKEN={token}")
    assert token not in redact(f"huggingface-cli login --token {token}")


def test_filler_and_member_shapes():
    assert is_filler("pplx-" + "x" * 40) and is_alphabet("abcdefghijklmnopqrstuvwxyz0123456789")
    assert not is_filler("Twt" + "A" * 21 + _b64(random.Random(1), 90))  # a bearer token's run of A's
    assert not is_alphabet("sk_live_1234567890abcdefXq")  # a short run of digits inside a key stays a key
    assert is_member("Ed25519.BlindKeySignatures") and not is_member("SG.abcDEF123ghiJKL.mnoPQR456stuVWX789")
    for name in ("SECRETKEY", "DBPASSWORD", "client_secrets", "passwords", "myApiKey"):
        assert name_strength(name) == "strong", name
    for name in ("master-keying", "secretary", "passwordless"):
        assert name_strength(name) is None, name


def test_generated_tokens_are_not_taken_for_names():
    """Random mixed-case tokens used to pass as camelCase names (`c2TfGGFukuewyPyLtxqm`: long
    enough parts) and stay in the text after a weak name; most of their letter pairs are rare."""
    rng = random.Random(5)
    alphabet = string.ascii_letters + string.digits
    left = []
    for _ in range(100):
        token = "".join(rng.choice(alphabet) for _ in range(24))
        for text in (f"Using Key={token}", f"X-Auth-Token: {token}", f'{{"key": "{token}"}}'):
            if token[2:14] in redact(text):
                left.append(text)
    assert len(left) <= 6, left  # 8 of 1,000 at this length in bench/redact_bench.py weak-names; 56 before


@pytest.mark.parametrize(
    "name",
    [
        "SSECustomerKeySHA256",
        "encryptionKey2",
        "k8sSchema",
        "getUserAccountSettingsV2",
        "WriteGameSessionLogsToS3Bucket",
        "EnableIPv6",
        "jinja2",
        "krb5",
    ],
)
def test_names_made_of_words_stay_wordy(name):
    assert is_wordy(name)


@pytest.mark.parametrize(
    "text",
    [
        "pass_context = jinja2.pass_context",
        "'gss_krb5_lucid_key', 'gss_krb5_rfc1964_keydata'",
        '--set kraken.kubeconfig.token.token="sha256~XXXXXXXXXX_PUT_YOUR_TOKEN_HERE_XXXXXXXXXXXX"',
    ],
)
def test_code_and_instructions_stay(text):
    assert redact(text) == text


def test_jenkins_encrypted_secret_is_masked():
    rng = random.Random(9)
    value = "AQAAABAAAAAQ" + _b64(rng, 44) + "="
    for text in (f"<secret>{{{value}}}</secret>", f"      <password>{{{value}}}</password>"):
        assert value[12:40] not in redact(text), text


@pytest.mark.parametrize(
    "text",
    [
        "    args: Command line arguments to pass to :py:func:`pytest.main`.",  # `pass` the verb
        "Generic type for storing a secret as plain-text when serializing to json.",
        "__slots__ = ('scheme', 'user', 'password', 'host', 'tld', 'host_type', 'port')",  # a list of names
        "    'global', 'if', 'include', 'lambda', 'pass', 'print', 'raise',",
        'MovedAttribute("HTTPPasswordMgr", "urllib2", "urllib.request"),',
        '"initial": {"key_sha256": "bb1636883c2707b51c5b7fc26c6927af4430f2e0785a8c7bc886337f919f9edf", "pos": 9},',
        "Signature: 8a477f597d28d172789f06886806bc55",  # CACHEDIR.TAG's published signature
    ],
)
def test_prose_lists_and_published_values_stay(text):
    assert redact(text) == text


@pytest.mark.parametrize(
    "text,value",
    [
        ("the password is hunter22", "hunter22"),
        ('os.environ.setdefault("DB_PASSWORD", "s3cr3t-Pa55")', "s3cr3t-Pa55"),
        ('setenv("API_TOKEN", "tok_9fQ2xL7vB4nM8kP3wZ6r", 1);', "tok_9fQ2xL7vB4nM8kP3wZ6r"),
        ('[("DB_PASSWORD", "hunter2-prod")]', "hunter2-prod"),
        ('subprocess.run(["mysql", "--password", "hunter2x", "-h", "db"])', "hunter2x"),  # argv goes on
        ('args = ["login", "--token", "tok_9fQ2xL7vB4nM8kP3wZ6r", "--verbose"]', "tok_9fQ2xL7vB4nM8kP3wZ6r"),
    ],
)
def test_named_values_in_prose_and_calls_are_still_masked(text, value):
    assert value not in redact(text)
