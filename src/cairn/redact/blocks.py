"""Private-key blocks of every algorithm: PEM, OpenSSH, PGP, PuTTY, and base64-wrapped PEM.

`-----BEGIN <ALG> PRIVATE KEY-----` (RSA, EC, DSA, OPENSSH, ENCRYPTED, none), `-----BEGIN PGP
PRIVATE KEY BLOCK-----`, a PuTTY `.ppk` file's `Private-Lines`, and a PEM key base64-encoded
once more (kubeconfig `client-key-data`, Kubernetes Secrets) are masked from the header to the
END line, or, when the block was cut short, to the end of its base64 lines. Public keys and
certificates are left alone. Linear: each header is found once, the END line after it is
searched once and reused by every header before it, and the body scan is bounded.
"""

from __future__ import annotations

import base64
import binascii

from cairn.redact.rx import compile_bytes

MAX_BODY = 64 * 1024  # no real key block is longer
_HEADER = compile_bytes(rb"-----BEGIN ((?:[A-Z0-9]+ ){0,3})PRIVATE KEY( BLOCK)?-----")
# base64 body lines (real newlines or JSON-escaped ones), armour headers (Proc-Type, Comment)
_BODY = compile_bytes(
    rb"(?:(?:\r?\n|(?:\\+r)?\\+n)(?:[A-Za-z0-9+/=]+|(?:Proc-Type|DEK-Info|Comment|Version|Hash|Charset): [^\r\n\\]*|[ \t]*))*"
)
_PUTTY = compile_bytes(rb"Private-Lines: (\d{1,3})(?:\r?\n|(?:\\+r)?\\+n)")
_B64_LINE = compile_bytes(rb"[A-Za-z0-9+/=]+(?:\r?\n|(?:\\+r)?\\+n)?")
# "-----BEGIN " base64-encoded starts LS0tLS1CRUdJTi; the header names what follows
_WRAPPED = compile_bytes(rb"LS0tLS1CRUdJTi[A-Za-z0-9+/]+={0,2}")


def spans(data: bytes) -> list[tuple[int, int, str]]:
    """(start, end, kind) byte spans of private-key material in `data`."""
    out: list[tuple[int, int, str]] = []
    if b"PRIVATE KEY" in data:
        out += _pem_spans(data)
    if b"Private-Lines:" in data:
        out += _putty_spans(data)
    if b"LS0tLS1CRUdJTi" in data:
        out += _wrapped_spans(data)
    return out


def _pem_spans(data: bytes) -> list[tuple[int, int, str]]:
    out: list[tuple[int, int, str]] = []
    next_end = -2  # -2: not searched yet; -1: no END line after this point
    last = 0
    for m in _HEADER.finditer(data):
        (start, head_end), (a0, a1), (b0, b1) = m[0], m[1], m[2]
        if start < last:
            continue
        if next_end != -1 and next_end < head_end:
            next_end = data.find(b"-----END ", head_end)
        end = -1
        if next_end != -1 and next_end - head_end <= MAX_BODY:
            alg, block = data[a0:a1] if a0 >= 0 else b"", data[b0:b1] if b0 >= 0 else b""
            tail = b"-----END " + alg + b"PRIVATE KEY" + block + b"-----"
            if data.startswith(tail, next_end):
                end = next_end + len(tail)
        if end == -1:  # cut short (or a broken block): its body lines
            body = _BODY.match(data, head_end, min(len(data), head_end + MAX_BODY))
            end = body[0][1] if body is not None else head_end
        out.append((start, end, "private-key"))
        last = end
    return out


def _putty_spans(data: bytes) -> list[tuple[int, int, str]]:
    out = []
    for m in _PUTTY.finditer(data):
        pos, lines = m[0][1], int(data[m[1][0] : m[1][1]])
        for _ in range(min(lines, 200)):
            line = _B64_LINE.match(data, pos, min(len(data), pos + 200))
            if line is None or line[0][1] == pos:
                break
            pos = line[0][1]
        while pos > m[0][1] and data[pos - 1 : pos] in (b"\n", b"\r"):
            pos -= 1  # the line break after the last line is not key material
        if pos > m[0][1]:
            out.append((m[0][1], pos, "private-key"))
    return out


def _wrapped_spans(data: bytes) -> list[tuple[int, int, str]]:
    out = []
    for m in _WRAPPED.finditer(data):
        start, end = m[0]
        head = data[start : min(end, start + 96)]
        try:
            text = base64.b64decode(head[: len(head) // 4 * 4] + b"==", validate=False)
        except (binascii.Error, ValueError):
            continue
        if b"PRIVATE KEY" in text:
            out.append((start, end, "private-key"))
    return out
