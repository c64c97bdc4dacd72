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

_DROP = re.compile(r"<style\b.*?</style\s*>|<!--.*?-->", re.S | re.I)
_TAG = re.compile(r"<[^>]*>")
_TEMPLATE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}")
_BLANK_LINES = re.compile(r"[ \t]*\n\s*")  # what the tags leave: indentation and runs of empty lines


def _template_parts(m: re.Match[str]) -> str:
    tag = m.group()
    return f" {' '.join(_TEMPLATE.findall(tag))} " if "{" in tag else " "


def visible_text(html: str) -> str:
    """`html` without style sheets, comments and tags: its text, scripts and template expressions,
    one line per run of lines (the page's line count is taken from the page itself)."""
    out = _DROP.sub(" ", html)
    if "{{" in out or "{%" in out:  # a server-side template: keep what its tags compute
        out = _TAG.sub(_template_parts, out)
    else:
        out = _TAG.sub(" ", out)
    return _BLANK_LINES.sub("\n", out)
