"""Secrets named on another line or in another field (issue 35, item 10, misses): a label's or a command's
next line, a CSV column under its header, a table cell beside its name, and webhook URLs; and the
code and output that look like them come out unchanged."""

from __future__ import annotations

import pytest

from cairn.redact import redact

TOKEN = "q7Vd2LmX9pKs4RtY8wNb3HcZ"  # generated-looking, no provider prefix
PASSWORD = "Hunter2Secret!"
UUID = "3f1c6f0e-2b7a-4f6e-9c1d-5a8b7e6d4c3b"


@pytest.mark.parametrize(
    ("text", "value", "kept"),
    [
        (f"API key:\n sk-{TOKEN}", TOKEN, "if password:\n    pass\n"),
        (f"password:\n{PASSWORD}", PASSWORD, "if not token:\n    raise_missing_token_error()\n"),
        (f"  **Password:**\n\n  `{PASSWORD}`", PASSWORD, "def password(self):\n    return self._password\n"),
        (f"Your new access token:\n{TOKEN}\n", TOKEN, "class Token:\n    __slots__ = ()\n"),
        (f"db_password:\n  {PASSWORD}\n", PASSWORD, "root-keys:\n  - name: a\n"),
        # the output of a command that prints a secret
        (f"$ echo $TOKEN\n{TOKEN}", TOKEN, "$ echo token\ntoken\n"),
        (f'user@host:~$ echo "${{GITHUB_TOKEN}}"\n{TOKEN}\n', TOKEN, "$ ls secrets\napi_key_2024.txt\n"),
        (
            f"PS C:\\> echo $env:API_KEY\n{TOKEN}",
            TOKEN,
            'import (\n\t"github.com/org/tool/v8/cmd/generate/secrets"\n\t"github.com/org/tool/v8/config"\n)\n',
        ),
        (
            f"$ printenv DB_PASSWORD\n{PASSWORD}",
            PASSWORD,
            "abc123:detect/detect_test.go:generic-api-key:37\n9f8e7d6c5b4a:checks_test.go:aws-access-token:19\n",
        ),
        (f"$ cat /var/run/secrets/kubernetes.io/serviceaccount/token\n{TOKEN}", TOKEN, ""),
        (f"$ heroku auth:token\n {UUID}", UUID, ""),
        (f"⏺ Bash(heroku auth:token)\n  ⎿  {UUID}", UUID, ""),
        (f"$ aws ecr get-login-password --region eu-west-1\n{TOKEN}{TOKEN}", TOKEN, ""),
        (f"$ gh auth token\n{TOKEN}", TOKEN, ""),
    ],
)
def test_a_secret_alone_on_the_line_after_its_label_or_its_command(text, value, kept):
    assert value not in redact(text)
    assert redact(kept) == kept


def test_the_aws_console_credentials_csv_row():
    secret_key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYz9QpL3vT2a"
    text = (
        "User name,Password,Access key ID,Secret access key,Console login link\n"
        f"alice,{PASSWORD},AKIAIOSFODNN7ABCDXYZ,{secret_key},https://123456789012.signin.aws.amazon.com/console\n"
    )
    out = redact(text)
    assert PASSWORD not in out and secret_key[:12] not in out and "AKIAIOSFODNN7ABCDXYZ" not in out
    assert out.startswith("User name,Password,Access key ID,Secret access key,Console login link\nalice,")
    assert out.endswith(",https://123456789012.signin.aws.amazon.com/console\n")
    quoted = f'"Access key ID","Secret access key"\n"AKIAIOSFODNN7ABCDXYZ","{secret_key}"\n'
    assert secret_key[:12] not in redact(quoted)
    imports = (
        "from ._functools import method_cache, pass_none\nfrom ._itertools import always_iterable, unique_everseen\n"
    )
    assert redact(imports) == imports  # not a CSV header: blanks after the commas, names of more than four words


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "$ npm token create\n┌────────┬──────────────────────────────────────┐\n"
            f"│ token  │ {UUID} │\n├────────┼──────────────────────────────────────┤\n",
            UUID,
        ),
        (f"| Variable | Value |\n|---|---|\n| Password | {PASSWORD} |\n", PASSWORD),
        (f"Variable name | Initial Value\nsanity auth token |{TOKEN}{TOKEN}\n", TOKEN),
    ],
)
def test_a_secret_in_the_table_cell_beside_its_name(text, secret):
    assert secret not in redact(text)
    alternation = "    r'request-color|request-pass|request-text|request-list|'\n"  # not a table row
    assert redact(alternation) == alternation


@pytest.mark.parametrize(
    ("url", "kept"),
    [
        (
            "https://outlook.office.com/webhook/a1b2c3d4-e5f6-4a8b-9c0d-e1f2a3b4c5d6@f1e2d3c4-b5a6-4980-8a2b-3c4d5e6f7a8b"
            "/IncomingWebhook/9f8e7d6c5b4a39281706f5e4d3c2b1a0/a1b2c3d4-e5f6-4a8b-9c0d-e1f2a3b4c5d6",
            "https://outlook.office.com/webhook/",
        ),
        (
            "https://contoso.webhook.office.com/webhookb2/a1b2c3d4-e5f6-4a8b-9c0d-e1f2a3b4c5d6@f1e2d3c4-b5a6-4980-8a2b-"
            "3c4d5e6f7a8b/IncomingWebhook/9f8e7d6c5b4a39281706f5e4d3c2b1a0/a1b2c3d4-e5f6-4a8b-9c0d-e1f2a3b4c5d6/V2"
            + TOKEN,
            "https://contoso.webhook.office.com/webhookb2/",
        ),
        ("https://mattermost.example.com/hooks/xq8fz3kpl0avbn7mr2ty9wee1a", "https://mattermost.example.com/hooks/"),
        (f"https://chat.example.org/hooks/64c0a1f7e4b0d7a1b2c3d4e5/{TOKEN}", "https://chat.example.org/hooks/"),
        (f"https://open.feishu.cn/open-apis/bot/v2/hook/{UUID}", "https://open.feishu.cn/open-apis/bot/v2/hook/"),
        (f"https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key={UUID}", "webhook/send?key="),
        (
            "https://maker.ifttt.com/trigger/deploy/with/key/dAbC3fGhIjK7MnOpQrStU",
            "https://maker.ifttt.com/trigger/deploy",
        ),
    ],
)
def test_a_webhook_urls_id_and_token_are_masked(url, kept):
    out = redact(f"curl -X POST -d @msg.json {url}")
    assert out.startswith("curl -X POST -d @msg.json ") and kept in out
    tail = url[len(kept) :] if url.startswith(kept) else url.split(kept)[1]
    assert tail[-12:] not in out and "REDACTED" in out
    for other in (
        "https://github.com/pre-commit/pre-commit-hooks/blob/3f1c6f0e2b7a4f6e9c1d5a8b7e6d4c3b2a1f0e9d/README.md",
        "https://api.github.com/repos/octo/app/hooks/12345678/pings",
    ):
        assert redact(other) == other  # no hook segment before the hash; an id alone


@pytest.mark.parametrize(
    "text",
    [
        "--- PASS: TestSessionMentionsProject/returns_true_when_workspace_root_matches (0.01s)",  # go test -v
        "RedactSecrets:      !noRedactSecrets,",  # a negated identifier
    ],
)
def test_test_output_and_negations_are_kept(text):
    assert redact(text) == text
