"""Damage on common code and output (issue 35, item 10): values that name an option, a mechanism or a
path after a secret-ish name, and NUL-separated records, come out unchanged; the secrets beside them
do not."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cairn.redact import redact

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from helpers import make_git_repo  # noqa: E402

SECRET = "Xy7#kP2qLm9vR4"
TOKEN = "q7Vd2LmX9pKs4RtY8wNb3HcZ"


@pytest.mark.parametrize(
    ("kept", "masked"),
    [
        ("fetch(url, { credentials: 'include' })", f"fetch(url, {{ credentials: '{SECRET}' }})"),
        ("fetch(url, {credentials: \"same-origin\", mode: 'cors'})", f"{{credentials: \"{SECRET}\", mode: 'cors'}}"),
        ("const opts = { credentials: 'omit' };", f"const opts = {{ credentials: '{SECRET}' }};"),
        ("new Worker(url, { type: 'module', credentials: 'same-origin' })", f"credentials: '{SECRET}' }})"),
        ("credentials: 'include' as RequestCredentials,", f"credentials: '{SECRET}' as RequestCredentials,"),
        ('send cookies by providing the option `{credentials: "include"}` to fetch.', f'`{{credentials: "{SECRET}"}}`'),
        ("CREDENTIALS=include", f"CREDENTIALS={SECRET}"),
        ("    secrets: 'inherit'", f"    secrets: '{SECRET}'"),
    ],
)
def test_an_options_documented_value_is_not_a_secret(kept, masked):
    assert redact(kept) == kept
    assert SECRET not in redact(masked)


@pytest.mark.parametrize(
    ("kept", "masked"),
    [
        ("password_encryption = 'scram-sha-256'", f"password_encryption_key = '{SECRET}'"),  # postgresql.conf
        ("passwordHasher: 'argon2id'", f"passwordHash3r: '{SECRET}'"),
        ("credential.helper=manager-core", f"credential={SECRET}"),
        ('secret_engine = "kv-v2"', f'secret = "{SECRET}"'),
        (
            "Symfony\\Component\\Security\\Core\\User\\PasswordAuthenticatedUserInterface: 'auto'",
            f"App\\Entity\\User\\Password: '{SECRET}'",
        ),
        ("'password' => 'required|string|min:8|confirmed',", f"'password' => '{SECRET}',"),  # Laravel validation rules
        ("password: 'required|min:6',", "password: 'required|x7#min:6',"),
        ("secret_key_base: @secret", f"secret_key_base: @{SECRET}"),  # an Elixir module attribute
        ("proxy_pass http://127.0.0.1:8080/;", f"mysql --pass {SECRET}"),  # nginx directives
        ("fastcgi_pass unix:/run/php/php8.1-fpm.sock;", f"PASS {SECRET}"),
        ("- We also need to pass `batch=1` as a query parameter.", f"the password is `{SECRET}` now"),
    ],
)
def test_a_mechanism_a_rule_list_or_a_reference_is_not_a_secret(kept, masked):
    assert redact(kept) == kept
    assert SECRET not in redact(masked) and "x7#min" not in redact(masked)


@pytest.mark.parametrize(
    "text",
    [
        "created cookie-session-expiry-ec2fdd  .cairn/knowledge/cookie-session-expiry-ec2fdd.md",
        "created password-reset-token-flow-c8c949  .cairn/knowledge/password-reset-token-flow-c8c949.md",
    ],
)
def test_a_relative_path_is_not_a_secret(text):
    assert redact(text) == text
    assert TOKEN not in redact(text.split()[1] + " " + TOKEN)


def test_remember_prints_the_notes_own_path(tmp_path, run_cli):
    root = make_git_repo(tmp_path / "app", {"README.md": "app\n"})
    assert run_cli("init", cwd=root).returncode == 0
    for title in ("Cookie session expiry", "password reset token flow 2024"):
        r = run_cli("remember", title, "--type", "gotcha", "--body", "x", cwd=root)
        assert r.returncode == 0, r.stderr
        assert "REDACTED" not in r.stdout and ".cairn/knowledge/" in r.stdout, r.stdout


def test_nul_separated_records_are_read_one_by_one():
    env = ["HOME=/root", "PWD=/home/u", "LANG=C.UTF-8", "SHELL=/bin/bash", f"API_TOKEN={TOKEN}", "TERM=xterm"]
    text = "\0".join(env) + "\0"
    out = redact(text)
    assert TOKEN not in out
    assert out == text.replace(TOKEN, "[REDACTED:token]")
    assert redact("A=1\0TOKEN=abc\0PWD=/home/u\0LANG=C.UTF-8") == "A=1\0TOKEN=abc\0PWD=/home/u\0LANG=C.UTF-8"
