"""Secret redaction: the one function every way into and out of cairn passes text through.

`redact(text)` masks every secret it recognises with `[REDACTED:<kind>]`: private-key blocks
(blocks.py), provider token formats from gitleaks' maintained rules (providers.py over the
generated gitleaks_rules.json), secrets found by their surroundings (layouts.py: URLs, headers,
command lines, credential-file layouts, webhook URLs), secrets by assignment (assign.py, with
shape.py's checks so references, placeholders, code, hashes and versions survive) and secrets
named on another line or in another field (records.py: a label's or a command's next line, a CSV
column, a table cell). NUL-separated records (`env -0`) are read as lines. Detectors report byte
spans over the same UTF-8 text, so one detector's miss or hit never hides another's; the spans
are merged and replaced once. All matching is RE2 (linear time, rx.py), compiled lazily, so
importing this package costs nothing until the first call.
"""

from __future__ import annotations

PLACEHOLDER = "[REDACTED:{}]"
_MARK = b"[REDACTED:"


def find(text: str) -> list[tuple[int, int, str]]:
    """(start, end, kind) byte spans of the secrets in `text` encoded as UTF-8, merged and sorted."""
    from cairn.redact import assign, blocks, layouts, records
    from cairn.redact.providers import provider_rules

    data = text.encode("utf-8", "surrogatepass")
    if b"\x00" in data:  # NUL-separated records (`env -0`, `find -print0`): read one by one, as lines
        data = data.replace(b"\x00", b"\n")
    lower = data.lower()
    found = blocks.spans(data)
    needles: set[int] = set()  # layouts' needles, found by the providers' keyword pass (one walk for both)
    found += provider_rules().findings(data, lower, needles)
    found += layouts.spans(data, lower, needles)
    found += assign.spans(data)
    found += records.spans(data, lower)
    return _merge(data, found)


def _marks(data: bytes) -> list[tuple[int, int]]:
    """Placeholders already in the text: never masked again, never part of a new span."""
    out, pos = [], data.find(_MARK)
    while pos != -1:
        end = data.find(b"]", pos, pos + 80)
        end = end + 1 if end != -1 else pos + len(_MARK)
        out.append((pos, end))
        pos = data.find(_MARK, end)
    return out


def _merge(data: bytes, found: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    found.sort(key=lambda s: (s[0], -s[1]))
    marks = _marks(data) if _MARK in data else []
    out: list[tuple[int, int, str]] = []
    i = 0
    for s, e, kind in found:
        if e <= s:
            continue
        while i < len(marks) and marks[i][1] <= s:
            i += 1
        if i < len(marks) and marks[i][0] < e:
            continue  # touches a placeholder: already redacted
        if out and s < out[-1][1]:
            ps, pe, pkind = out[-1]
            out[-1] = (ps, max(pe, e), pkind)
        else:
            out.append((s, e, kind))
    return out


def redact(text: str, *, keep_lines: bool = False) -> str:
    """`text` with every recognised secret replaced by `[REDACTED:<kind>]`.

    `keep_lines`: a masked span keeps its line breaks (after the placeholder), so line numbers
    of the text around it stay true (file regions shown with numbers).
    """
    if not text or len(text) < 6:
        return text
    spans = find(text)
    if not spans:
        return text
    data = text.encode("utf-8", "surrogatepass")
    parts: list[bytes] = []
    last = 0
    for s, e, kind in spans:
        parts.append(data[last:s])
        parts.append(PLACEHOLDER.format(kind).encode())
        if keep_lines:
            parts.append(b"\n" * data.count(b"\n", s, e))
        last = e
    parts.append(data[last:])
    return b"".join(parts).decode("utf-8", "surrogatepass")


def prepare() -> None:
    """Import and compile what `redact` uses before its first real call: a command that will print a
    large output does it while it waits for another process (`cairn xray` on every core, in a thread)."""
    find("prepare: password = hunter22 token=ghp_x Authorization: Bearer x https://u:p@example.com")


def redact_obj(obj: object) -> object:
    """Redact every string inside a JSON-like value (hook payloads, log records)."""
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        return {k: redact_obj(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [redact_obj(v) for v in obj]
    return obj
