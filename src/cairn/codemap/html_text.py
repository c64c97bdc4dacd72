"""The words of an HTML page that the search index keeps: its text and scripts, not its markup.

Markup is most of an HTML file's bytes (generated API docs: 118 MB of pages held 25 MB of text in
the 20k-file benchmark tree) and none of what a request asks for: tag and attribute names, style
sheets, comments. Indexing it cost a fifth of a cold index's extraction CPU (redaction and word
expansion run over every byte) and filled the full-text index with `div`, `class` and `span`.
What stays: the text between tags, inline scripts (code), and the template expressions a
server-side template writes inside tags (`href="{% url 'domain-detail' %}"`), which name views and
variables a request may ask for.
"""

from __future__ import annotations

import re

# What `<style\b.*?</style\s*>|<!--.*?-->` (re.S | re.I) removes, found without its quadratic cost:
# a start with no end after it made the regex scan the rest of the page again from each such start.
_DROP_START = re.compile(r"<(?:style\b|!--)", re.I)
_STYLE_END = re.compile(r"</style\s*>", re.I)
_TAG = re.compile(r"<[^>]*>")  # used only up to the page's last `>`: every `<` there has an end
_TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}")
MAX_TEMPLATE_TAG = 4096  # _TEMPLATE retries from each `{` to the line's end: tags longer than this keep no parts
_BLANK_LINES = re.compile(r"(?<![ \t])[ \t]*\n\s*")  # indentation and runs of empty lines (never tried
# inside a run of blanks: each try there ran to the run's end)


def _template_parts(m: re.Match[str]) -> str:
    tag = m.group()
    return f" {' '.join(_TEMPLATE.findall(tag))} " if "{" in tag and len(tag) <= MAX_TEMPLATE_TAG else " "


def _drop(html: str) -> str:
    """`html` with style sheets and comments replaced by a space, each end searched for once."""
    parts: list[str] = []
    pos = 0
    no_end = {"style": len(html) + 1, "comment": len(html) + 1}  # no end after this position
    for m in _DROP_START.finditer(html):
        if m.start() < pos:
            continue
        kind = "comment" if m.group().startswith("<!") else "style"
        if m.start() >= no_end[kind]:
            continue
        if kind == "comment":
            at = html.find("-->", m.end())
            end = at + 3 if at >= 0 else -1
        else:
            found = _STYLE_END.search(html, m.end())
            end = found.end() if found else -1
        if end < 0:
            no_end[kind] = m.start()
            continue
        parts += [html[pos : m.start()], " "]
        pos = end
    parts.append(html[pos:])
    return "".join(parts)


def visible_text(html: str) -> str:
    """`html` without style sheets, comments and tags: its text, scripts and template expressions,
    one line per run of lines (the page's line count is taken from the page itself)."""
    out = _drop(html)
    last = out.rfind(">") + 1  # after the last `>` no `<` starts a tag
    head, tail = out[:last], out[last:]
    if "{{" in out or "{%" in out:  # a server-side template: keep what its tags compute
        head = _TAG.sub(_template_parts, head)
    else:
        head = _TAG.sub(" ", head)
    return _BLANK_LINES.sub("\n", head + tail)
