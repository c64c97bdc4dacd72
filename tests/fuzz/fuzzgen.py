"""Seeded generators of hostile inputs: hook stdin, transcript lines, knowledge notes, config files.

Every case comes from `random.Random(f"{kind}:{seed}:{i}")`, so case i of a run is replayed by
asking for it again (`case(kind, seed, i)`), whatever ran before it. The inputs are real shapes
broken the ways real files and agents break them: fields of the wrong type, values out of
range, text that is not UTF-8 or holds lone surrogates, JSON nested thousands deep, truncated
or spliced bytes, paths that name other users' homes, devices or nothing at all.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from cairn.codemap.knowledge.node import KNOWN_KEYS

STRINGS = [
    "",
    " ",
    "x",
    "README.md",
    "src/shop/cart.py",
    "../../etc/passwd",
    "/dev/null",
    "/proc/self/status",
    "~nonexistentuser",
    "~nonexistentuser/src",
    "~root/x",
    "C:\\Windows\\win.ini",
    "a\x00b",
    "\x00",
    "line\nbreak",
    "tab\there",
    "\ud83d",
    "cut \ud83d emoji",
    "\udc80\udcff",
    "\U0001f600",
    "é" * 20,
    "\u202e\u200b\ufeff",
    "' OR 1=1 --",
    '"quoted"',
    "NEAR(a b)",
    "*",
    "-",
    "--help",
    "-v",
    "%s%n",
    "${HOME}",
    "$(rm -rf /)",
    "`id`",
    "<system-reminder>x</system-reminder>",
    "<!-- cairn:recall -->",
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_" + "a" * 36,
    "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----",
    "2024-13-45",
    "2024-02-30T25:61:00Z",
    "9999-99-99",
    "1e999",
    "NaN",
    "true",
    "null",
    "[]",
    "{}",
]
NUMBERS = [0, -1, 1, 2, 7, 255, 2**31, -(2**31), 2**63, 10**30, -(10**30), 0.5, -0.0, 1e308, 3.14]


def deep(rng: random.Random, depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value] if rng.random() < 0.5 else {"k": value}
    return value


def rand_string(rng: random.Random) -> str:
    r = rng.random()
    if r < 0.6:
        return rng.choice(STRINGS)
    if r < 0.75:
        return "".join(
            chr(
                rng.choice(
                    [
                        rng.randrange(0x20, 0x7F),
                        rng.randrange(0, 0x20),
                        rng.randrange(0x80, 0x3000),
                        rng.randrange(0xD800, 0xE000),
                        rng.randrange(0x10000, 0x10FFFF),
                    ]
                )
            )
            for _ in range(rng.randrange(1, 40))
        )
    if r < 0.85:
        return rng.choice(STRINGS) * rng.randrange(100, 3000)  # long
    return " ".join(
        rng.choice(["coupon", "retry", "cart", "apply", "webhook", "index", "why", "where"])
        for _ in range(rng.randrange(1, 12))
    )


def rand_value(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if r < 0.08:
        return None
    if r < 0.16:
        return rng.random() < 0.5
    if r < 0.3:
        return rng.choice(NUMBERS)
    if r < 0.6:
        return rand_string(rng)
    if r < 0.75 and depth < 3:
        return [rand_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))]
    if r < 0.9 and depth < 3:
        return {rand_string(rng)[:20]: rand_value(rng, depth + 1) for _ in range(rng.randrange(0, 4))}
    return deep(rng, rng.choice([10, 100, 900, 3000]), rand_string(rng))


def mutate_json(rng: random.Random, obj: Any) -> Any:
    """`obj` (a JSON object) with one to three fields replaced, removed or added."""
    if not isinstance(obj, dict):
        return obj
    obj = dict(obj)
    for _ in range(rng.randrange(1, 4)):
        keys = list(obj)
        r = rng.random()
        if keys and r < 0.6:
            key = rng.choice(keys)
            if isinstance(obj[key], dict) and rng.random() < 0.5:
                obj[key] = mutate_json(rng, obj[key])
            else:
                obj[key] = rand_value(rng)
        elif keys and r < 0.8:
            del obj[rng.choice(keys)]
        else:
            obj[rand_string(rng)[:30]] = rand_value(rng)
    return obj


def dumps(rng: random.Random, obj: Any) -> bytes:
    """JSON bytes as a writer might produce them (lone surrogates as escapes, NaN allowed)."""
    try:
        return json.dumps(obj, ensure_ascii=rng.random() < 0.5, allow_nan=True).encode("utf-8", "surrogatepass")
    except (ValueError, RecursionError):  # deeper than json.dumps goes: write the nesting by hand
        return b'{"deep": ' + b"[" * 3000 + b"]" * 3000 + b"}"


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """Byte-level damage: truncation, flipped or inserted bytes, splices, deep wrappers, BOMs."""
    r = rng.random()
    if r < 0.2 and data:
        return data[: rng.randrange(len(data))]
    if r < 0.35 and data:
        b = bytearray(data)
        for _ in range(rng.randrange(1, 6)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if r < 0.45:
        i = rng.randrange(len(data) + 1)
        return data[:i] + rng.choice([b"\xff\xfe", b"\xc3", b"\x00", b"\\ud83d", b'"', b"}", b"]]]", b"\n"]) + data[i:]
    if r < 0.55:
        n = rng.choice([500, 1000, 5000, 50000])
        return b'{"a":' + b"[" * n + b"]" * n + b"}" if rng.random() < 0.5 else b"[" * n + data + b"]" * n
    if r < 0.62:
        return b"\xef\xbb\xbf" + data
    if r < 0.7:
        return rng.choice(
            [
                b"",
                b"null",
                b"[]",
                b"1",
                b'"text"',
                b"{}",
                b"{",
                b"\x00" * 10,
                b"1e99999",
                b"9" * 5000,
                b'{"a": NaN, "b": -Infinity}',
                b'{"a":1, "a":2}',
            ]
        )
    return data + rng.choice([b" trailing", b"\n{}", b"\x00", b","])


# ------------------------------------------------------------------ hook stdin

EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "PreCompact", "SessionEnd"]
TOOLS = ["Read", "Edit", "Write", "Bash", "Grep", "Glob", "Task", "WebFetch", "NotebookEdit", "mcp__cairn__search"]


def hook_case(rng: random.Random, ctx: dict) -> tuple[str | None, bytes]:
    """(event argument, stdin bytes) for one hook run. `ctx`: project, subdir, file, transcript,
    big_file (paths in the fuzz project)."""
    event = rng.choice(EVENTS)
    cwd = rng.choice([ctx["project"]] * 6 + [ctx["subdir"], ctx["file"], ctx["empty"], rand_string(rng)])
    transcript = rng.choice([ctx["transcript"]] * 4 + [ctx["bad_transcript"], ctx["project"], rand_string(rng)])
    base: dict[str, Any] = {
        "session_id": rng.choice(["s-1", "s-2", rand_string(rng)]),
        "transcript_path": transcript,
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": event,
    }
    tool = rng.choice(TOOLS)
    extra = {
        "SessionStart": {"source": rng.choice(["startup", "resume", "clear", "compact"])},
        "UserPromptSubmit": {
            "prompt": rng.choice(
                [
                    "where is the coupon applied to the cart total",
                    "why does checkout retry twice? see src/shop/cart.py and #12",
                    rand_string(rng),
                ]
            )
        },
        "PreToolUse": {
            "tool_name": tool,
            "tool_input": {"file_path": rng.choice([ctx["big_file"], ctx["file"], rand_string(rng)])},
        },
        "PostToolUse": {
            "tool_name": tool,
            "tool_input": {"file_path": ctx["file"], "command": "ls"},
            "tool_response": {"stdout": "ok", "filePath": ctx["file"]},
        },
        "Stop": {"stop_hook_active": rng.random() < 0.2},
        "PreCompact": {"trigger": rng.choice(["auto", "manual"]), "custom_instructions": ""},
        "SessionEnd": {"reason": rng.choice(["clear", "logout", "prompt_input_exit", "other"])},
    }[event]
    base.update(extra)
    r = rng.random()
    if r < 0.5:
        base = mutate_json(rng, base)
        data = dumps(rng, base)
    elif r < 0.8:
        data = mutate_bytes(rng, dumps(rng, base))
    else:
        data = dumps(rng, base)
    arg = rng.choice([event, event, None, rng.choice(EVENTS), "session-start", "bogus", "_refresh", "_ingest"])
    return arg, data


# ------------------------------------------------------------------ transcript lines


def _record(rng: random.Random) -> dict:
    uuid = f"u-{rng.randrange(10**9)}"
    ts = rng.choice(["2026-11-01T10:00:00.000Z", "2026-11-01T10:00:01Z", rand_string(rng)])
    kind = rng.choice(["user", "assistant", "assistant", "system", "summary", "progress", "file-history-snapshot"])
    if kind == "user":
        content: Any = rng.choice(
            [
                "fix the retry in the checkout",
                [{"type": "text", "text": "look at src/shop/cart.py"}],
                [{"type": "tool_result", "tool_use_id": "t1", "content": "file contents " * 30, "is_error": False}],
            ]
        )
    elif kind == "assistant":
        content = rng.choice(
            [
                [{"type": "text", "text": "I will read the cart."}],
                [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": rng.choice(TOOLS),
                        "input": {"file_path": "/p/src/shop/cart.py", "command": "pytest -q"},
                    }
                ],
                [{"type": "thinking", "thinking": "hmm"}],
            ]
        )
    else:
        content = "API Error: overloaded" if kind == "system" else "summary of the session"
    rec: dict[str, Any] = {
        "type": kind,
        "uuid": uuid,
        "parentUuid": None,
        "sessionId": "fuzz-session",
        "timestamp": ts,
        "cwd": "/p",
        "gitBranch": "main",
        "isSidechain": rng.random() < 0.1,
        "message": {
            "role": kind,
            "content": content,
            "model": "claude-sonnet-4-5",
            "usage": {
                "input_tokens": 10,
                "output_tokens": 5,
                "cache_read_input_tokens": 100,
                "cache_creation_input_tokens": 3,
            },
        },
    }
    if kind == "summary":
        rec["summary"] = "what happened"
    if kind == "system":
        rec["subtype"] = rng.choice(["api_error", "compact_boundary", "informational"])
        rec["content"] = content
    return rec


def transcript_line(rng: random.Random) -> bytes:
    """One transcript line (without its newline) as Claude Code writes it, or broken."""
    rec = _record(rng)
    r = rng.random()
    if r < 0.45:
        data = dumps(rng, mutate_json(rng, rec))
    elif r < 0.6:
        msg = rec.get("message")
        if isinstance(msg, dict):
            msg = dict(msg)
            msg["content"] = rand_value(rng)
            rec["message"] = msg
        data = dumps(rng, rec)
    elif r < 0.9:
        data = mutate_bytes(rng, dumps(rng, rec))
    else:
        data = dumps(rng, rec)
    return data.replace(b"\n", b" ")


# ------------------------------------------------------------------ notes

NOTE = """---
id: {id}
type: gotcha
status: active
title: Coupon applied twice on retry
files:
- src/shop/cart.py
symbols: []
links:
- rel: relates-to
  target: checkout-flow
commit: 0123456789abcdef0123456789abcdef01234567
created: '2026-11-01T10:00:00Z'
updated: '2026-11-02T10:00:00Z'
tags:
- checkout
cites:
- path: src/shop/cart.py
  commit: 0123456789abcdef0123456789abcdef01234567
  sha1: da39a3ee5e6b4b0d3255bfef95601890afd80709
---

# Coupon applied twice on retry

The retry loop applies the coupon again.

## Links

- relates-to [[checkout-flow]]
"""
YAML_VALUES = [
    "2024-13-45",
    "2024-02-30",
    "2024-01-01 25:00:00",
    "1e999",
    ".nan",
    "-.inf",
    "0x1F",
    "0o17",
    "!!binary AAAA",
    "!!python/object:os.system x",
    "&a [*a]",
    "*undefined",
    "{a: [b, {c: d}]}",
    "[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]",
    "? [a, b]\n  : c",
    "|\n  block\n  text",
    "'unterminated",
    '"\\ud83d"',
    '"\\x00"',
    "~",
    "null",
    "yes",
    "no",
    "on",
    "''",
    "[]",
    "{}",
    "- a\n- b",
    "12:30:00",
    "!!timestamp 2024-99-99",
    "!!int abc",
    "!!float x",
    "!!set {a, b}",
    "!!omap [a: 1]",
    "<<: {a: 1}",
]
KEYS = [*KNOWN_KEYS, "custom"]  # the node file's own keys, and one it does not know


def note_text(rng: random.Random, i: int) -> bytes:
    """A knowledge node file as cairn writes it, then edited by a careless hand (or a tool)."""
    text = NOTE.format(id=f"fuzz-note-{i}")
    lines = text.split("\n")
    r = rng.random()
    if r < 0.5:  # one value replaced
        for _ in range(rng.randrange(1, 3)):
            key = rng.choice(KEYS)
            idx = next((j for j, ln in enumerate(lines) if ln.startswith(f"{key}:")), None)
            value = (
                rng.choice(YAML_VALUES)
                if rng.random() < 0.7
                else dumps(rng, rand_value(rng)).decode("utf-8", "surrogatepass")[:400]
            )
            if idx is None:
                lines.insert(2, f"{key}: {value}")
            else:
                lines[idx] = f"{key}: {value}"
        data = "\n".join(lines).encode("utf-8", "surrogatepass")
    elif r < 0.65:  # a deep value
        n = rng.choice([50, 500, 5000])
        lines.insert(3, "custom: " + "[" * n + "]" * n)
        data = "\n".join(lines).encode()
    elif r < 0.9:
        data = mutate_bytes(rng, text.encode())
    else:
        data = rng.choice(
            [
                b"",
                b"---\n",
                b"---\n---\n",
                b"no frontmatter\n# Title\n",
                b"---\n: :\n---\n",
                b"---\n- a list\n---\n",
                text.encode().replace(b"---\n", b"", 1),
            ]
        )
    return data


# ------------------------------------------------------------------ configs

CONFIG_KEYS = {
    "index": ["max_file_bytes", "workers", "history"],
    "search": ["rrf_k", "budget", "limit"],
    "memory": ["adr_globs", "adr_exclude"],
    "sessions": ["backup_keep"],
    "hooks.recall": [
        "enabled",
        "budget",
        "max_items",
        "min_terms",
        "min_weight",
        "score_floor",
        "sessions",
        "tracker_files",
    ],
    "hooks.session_start": ["budget", "map_budget", "refresh_seconds", "decisions", "tasks"],
    "hooks.meter": ["enabled", "window", "share"],
    "hooks.read_guard": ["enabled", "max_lines", "max_bytes"],
    "hooks.harvest": ["enabled", "min_explore", "max_per_session"],
    "hooks.archive": ["enabled"],
    "hooks.journal": ["enabled"],
    "hooks.session_record": ["enabled"],
}
TOML_VALUES = [
    '"text"',
    '""',
    "0",
    "-5",
    "1",
    "9223372036854775807",
    "1.5",
    "-0.0",
    "inf",
    "nan",
    "true",
    "false",
    "[]",
    '["a", 1]',
    '["docs/**/*.md"]',
    "{a = 1}",
    "1979-05-27",
    "07:32:00",
    "1979-05-27T07:32:00Z",
    '"\\u0000"',
    "[[1], [2]]",
    '"~nonexistentuser"',
    "0x10",
    "1e400",
]


def config_text(rng: random.Random) -> bytes:
    """A config.toml: known tables with values of every TOML type, or a broken file."""
    r = rng.random()
    parts: list[str] = []
    for section in rng.sample(list(CONFIG_KEYS), rng.randrange(1, 4)):
        parts.append(f"[{section}]")
        for key in rng.sample(CONFIG_KEYS[section], rng.randrange(1, len(CONFIG_KEYS[section]) + 1)):
            parts.append(f"{key} = {rng.choice(TOML_VALUES)}")
    if rng.random() < 0.15:
        parts.insert(
            0,
            rng.choice(
                [
                    "index = 5",
                    "hooks = 1",
                    'memory = "x"',
                    "search = []",
                    "routes = 3",
                    "prices = true",
                    "[[routes]]\nslug = 1",
                    "[hooks]\nrecall = 5",
                    '[[routes]]\nslug = "x"\nprefixes = ["/"]',
                    "[prices.x]\ninput = -1",
                ]
            ),
        )
    text = "\n".join(parts) + "\n"
    if r < 0.2:
        return mutate_bytes(rng, text.encode())
    return text.encode()


KINDS: dict[str, Callable[..., Any]] = {
    "hook": hook_case,
    "transcript": transcript_line,
    "note": note_text,
    "config": config_text,
}


def rng_for(kind: str, seed: int, i: int) -> random.Random:
    return random.Random(f"{kind}:{seed}:{i}")


def case(kind: str, seed: int, i: int, ctx: dict | None = None) -> Any:
    """Case i of a run of `kind` with `seed`, as the harness made it (a hook case needs the
    harness's `ctx` of paths; any dict of strings replays its shape)."""
    rng = rng_for(kind, seed, i)
    if kind == "hook":
        return hook_case(
            rng,
            ctx
            or {
                k: "/nonexistent"
                for k in ("project", "subdir", "file", "empty", "transcript", "bad_transcript", "big_file")
            },
        )
    if kind == "note":
        return note_text(rng, i)
    return KINDS[kind](rng)
