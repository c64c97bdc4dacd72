"""A report that uses a public API (a facade: `jinja2.Template`, `attrs.define`, `console.print(Panel(...))`)
is answered by the module whose text its words match best, when the facade is first only by the other
channels (issue 38: attrs#1427 `_next_gen.py` before `_make.py`, rich#3569 `console.py` before `panel.py`);
a file the report points at (a named module, a frame, a definition it names) stays first."""

from __future__ import annotations

from cairn.search.content_first import lift
from cairn.search.engine import search_code
from cairn.search.hit import Hit
from cairn.search.ranking import DEFAULT_RANKING, override
from helpers import indexed_repo


def _hits() -> list[Hit]:
    return [
        Hit(1, "pkg/facade.py", 0.11, "code"),
        Hit(2, "pkg/other.py", 0.10, "code"),
        Hit(3, "pkg/work.py", 0.09, "code"),
    ]


def test_the_texts_first_goes_above_a_first_hit_that_ranks_low_in_the_text():
    hits = _hits()
    lift(hits, {"text": [3, 2, 4, 1], "modules": [1, 3]}, 2, set())
    assert [h.path for h in hits] == ["pkg/work.py", "pkg/facade.py", "pkg/other.py"]
    assert hits[0].score > hits[1].score
    assert "the report's words match its text best" in hits[0].why


def test_a_first_hit_the_text_ranks_well_stays():
    hits = _hits()
    lift(hits, {"text": [3, 1]}, 2, set())  # the first hit is the text's 2nd: the channels agree enough
    assert hits[0].path == "pkg/facade.py"


def test_a_first_hit_the_report_points_at_and_not_at_the_texts_first_stays():
    for pointer in ("name", "mention", "modules", "trace", "tested"):
        hits = _hits()
        lift(hits, {"text": [3, 2, 4, 5, 1], pointer: [1, 7]}, 2, set())
        assert hits[0].path == "pkg/facade.py", pointer


def test_a_named_wrappers_callee_stays_first_and_off_means_off():
    hits = _hits()
    lift(hits, {"text": [3, 2, 4, 5, 1]}, 2, {1})  # delegates.py lifted it on purpose
    assert hits[0].path == "pkg/facade.py"
    hits = _hits()
    lift(hits, {"text": [3, 2, 4, 5, 1]}, 0, set())
    assert hits[0].path == "pkg/facade.py"


def test_a_frame_of_the_reports_stack_is_not_lifted_by_its_pasted_lines():
    hits = _hits()
    lift(hits, {"text": [3, 2, 4, 5, 1], "trace": [3]}, 2, set())  # work.py's match is the stack's code line
    assert hits[0].path == "pkg/facade.py"


_FILLER = "".join(f"def helper_{i}(value):\n    return value\n\n\n" for i in range(4))
FILES = {
    "tpl/__init__.py": "from .environment import Environment, Template\n",
    "tpl/environment.py": "from .lexer import Lexer\n\n\nclass Environment:\n"
    '    """The settings shared by the templates of an application."""\n\n'
    "    def __init__(self, **options):\n        self.options = options\n\n"
    "    def from_string(self, source):\n        return Template(source, self)\n\n\n"
    "class Template:\n"
    '    """A compiled template; render it with its variables."""\n\n'
    "    def __init__(self, source, environment=None, **options):\n"
    "        self.environment = environment or Environment(**options)\n"
    "        self.source = source\n\n"
    "    def render(self, **context):\n"
    "        return ''.join(Lexer(self.environment).tokeniter(self.source))\n",
    "tpl/legacy.py": "class Template:\n    '''The old template class.'''\n",  # two files define it (pydantic's v1 copy)
    "tpl/lexer.py": "import re\n\n\nclass Lexer:\n"
    "    def __init__(self, environment):\n        self.lstrip = environment.options.get('lstrip_blocks')\n\n"
    "    def tokeniter(self, source):\n"
    "        for token in re.split(r'({%.*?%})', source):\n"
    "            if token.startswith('{%'):\n"
    "                continue\n"
    "            if self.lstrip and token.endswith(' '):\n"
    "                # strip the whitespace before a block, and the space before the end block\n"
    "                token = token.rstrip(' ')\n"
    "            yield token\n\n"
    "    def strip_space(self, token, preserve):\n"
    "        # the space before an endfor block on the same line is preserved\n"
    "        return token if preserve else token.rstrip()\n",
    "tpl/nodes.py": "class Node:\n    pass\n\n\nclass For(Node):\n    pass\n",
    "tpl/filters.py": "def do_trim(value):\n    # strip the whitespace of a value: the space before and after it, on the same line\n"
    "    return value.strip()\n\n\ndef do_indent(value, width=4):\n"
    "    # the space at the start of each line but the first, the output of a block\n"
    "    return value.replace('\\n', '\\n' + ' ' * width)\n",
    **{f"tpl/util_{i}.py": _FILLER for i in range(5)},
}
REPORT = (
    "lstrip_blocks doesn't preserve space before end block on the same line\n\n"
    "Look at the following template code:\n\n"
    "```python\nimport tpl\n\n"
    "print(tpl.Template('{% for k in items %}{{ k }} {% endfor %}', lstrip_blocks=True).render(items=[1, 2]))\n"
    "```\n\n"
    "Up to 2.10 this rendered `1 2 ` with the space before the end block preserved. Now the whitespace "
    "before `{% endfor %}` is stripped and the output is `12`: the space on the same line as the end "
    "block is removed although lstrip should only strip the whitespace at the start of a line, not "
    "the space between a variable and the endfor tag.\n"
)


def test_a_report_using_the_public_class_finds_the_module_doing_the_work(tmp_path):
    """pydantic#5595's shape in jinja#1138's words: the report calls `tpl.Template(...)` (a name two files
    define); the facade was first, the lexer whose text holds the report's behaviour (whitespace, space,
    block, strip) is first now."""
    con, root = indexed_repo(tmp_path / "tpl", FILES)
    try:
        hits, q = search_code(con, REPORT, root=root, limit=5)
        assert q.long
        paths = [h.path for h in hits]
        assert paths[:2] == ["tpl/lexer.py", "tpl/environment.py"], paths  # the facade stays next
        assert "the report's words match its text best" in hits[0].why
        off = override(DEFAULT_RANKING, {"terms.long.text_first": 0})
        hits, _ = search_code(con, REPORT, root=root, limit=5, ranking=off)
        assert hits[0].path == "tpl/environment.py"  # without the rule: the facade first
    finally:
        con.close()
