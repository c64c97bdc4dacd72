"""A plain word of a sentence that is also a file's name ("blocks", "plugins") is a word of the
question, not the name of that file (issue 35 item 13: on terraform, "how are dynamic blocks
expanded in a module?" put the JSON renderer `blocks.go` first). A request that does name the
file ("blocks.py", "the blocks file", a bare "blocks") still finds it first."""

from __future__ import annotations

import pytest

from cairn.codemap.indexer import index_project, open_index
from cairn.project import resolve_project
from cairn.search.engine import search_code
from cairn.search.names import name_channel
from cairn.search.query import _name_keys, analyze
from cairn.search.ranking import DEFAULT_RANKING
from helpers import make_git_repo

TERMS = DEFAULT_RANKING.terms

# Like terraform: the word "blocks" names a renderer of plan output that has nothing to do with
# how dynamic blocks are expanded, and "plugins" a schema cache that does not launch plugins.
TREE = {
    "render/blocks.py": '"""Plan output as text: one row per nested value of a resource."""\n\n\n'
    'class Blocks:\n    """Rows of the rendered plan."""\n\n'
    "    def render(self, rows):\n        return '\\n'.join(str(r) for r in rows)\n",
    "lang/expand.py": '"""Dynamic blocks of a module are expanded into one block per element of their for_each."""\n\n\n'
    'def expand_dynamic(body, module):\n    """Each dynamic block of the module, expanded."""\n'
    "    return [block for block in body if block.dynamic]\n",
    "schemas/plugins.py": '"""Schemas of the available plugins, kept for reuse."""\n\n\n'
    'class Plugins:\n    """Known provider schemas."""\n\n'
    "    def schema(self, name):\n        return self.schemas[name]\n",
    "plugin/discovery.py": '"""Plugin binaries on disk: discovered in the plugin folders, then launched."""\n\n\n'
    'def find_plugins(dirs):\n    """Every plugin executable discovered in dirs."""\n'
    "    return [d for d in dirs if d.startswith('terraform-provider-')]\n\n\n"
    'def launch(plugin):\n    """Start the plugin process."""\n    return plugin\n',
}
# Other files on the topic, as a real tree has them.
TREE["instances/expander.py"] = (
    '"""Module instances, expanded by count and for_each."""\n\n\n'
    "def expand_module(module, keys):\n    return [module.instance(k) for k in keys]\n"
)
TREE["lang/dynamic_values.py"] = (
    '"""Values known only when the plan is applied: dynamic, not expanded yet."""\n\n\n'
    "def is_dynamic(value):\n    return value.unknown\n"
)
TREE["lang/dynblock.py"] = (
    '"""A dynamic block: its for_each and content, expanded with the module\'s values."""\n\n\n'
    "def dynamic_block(spec, module):\n    return spec.content(module)\n"
)
TREE["lang/blocktoattr.py"] = (
    '"""Nested blocks written as attributes, expanded to blocks before the dynamic ones."""\n\n\n'
    "def fixup(body):\n    return body\n"
)
for _n, _doc in (
    ("for_each", "for_each of a dynamic block, expanded per key"),
    ("content", "the content of each expanded dynamic block"),
    ("iterator", "the iterator a dynamic block's content sees while expanded"),
    ("nested", "nested dynamic blocks, expanded from the outside in"),
    ("count", "count and for_each: how a module call is expanded"),
):
    TREE[f"lang/dynamic_{_n}.py"] = f'"""{_doc.capitalize()}."""\n\n\ndef {_n}(block):\n    return block.{_n}\n'
for _n, _doc in (
    ("launcher", "a plugin process, launched with its handshake"),
    ("meta", "what is known of a discovered plugin: its name and version"),
    ("meta_set", "the set of discovered plugins, newest version first"),
    ("find_dirs", "the folders where plugins are discovered"),
    ("client", "the client side of a launched plugin process"),
):
    TREE[f"plugin/{_n}.py"] = f'"""{_doc.capitalize()}."""\n\n\ndef {_n}(plugin):\n    return plugin.{_n}\n'
# Two more files named after "plugins" (terraform has three), and a tree large enough for the
# words to be as common as they are there: "module" in every file, "blocks" in one in five,
# "plugins" in one in eight (a plain word that rare counted as a name before).
TREE["command/plugins.py"] = "def plugin_dirs(home):\n    return [home + '/plugins']\n"
TREE["cliconfig/plugins.py"] = "def plugin_cache_dir(cfg):\n    return cfg.get('plugin_cache_dir')\n"
for _i in range(190):
    _words = "the module" + (" and its blocks" if _i % 5 == 0 else "") + (", for plugins" if _i % 8 == 1 else "")
    TREE[f"internal/area{_i // 10}/step{_i}.py"] = (
        f'"""Step {_i} of {_words}."""\n\n\ndef step{_i}(module):\n    return module.step{_i}\n'
    )


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    root = make_git_repo(tmp_path_factory.mktemp("plain") / "tf", TREE)
    project = resolve_project(root)
    index_project(project)
    c = open_index(project)
    yield c, project.root
    c.close()


def _top(con, text: str) -> list[str]:
    c, root = con
    hits, _ = search_code(c, text, root=root, limit=5)
    return [h.path for h in hits]


@pytest.mark.parametrize(
    ("sentence", "namesake", "wanted", "naming"),
    [
        (
            "how are dynamic blocks expanded in a module?",
            "render/blocks.py",
            "lang/expand.py",
            ("blocks.py", "the blocks file", "blocks", "the blocks?", "open the blocks file please"),
        ),
        (
            "where do plugins get discovered and launched?",
            "schemas/plugins.py",
            "plugin/discovery.py",
            ("schemas/plugins.py", "plugins.py in schemas"),
        ),
    ],
)
def test_a_plain_word_of_a_sentence_is_no_file_name(con, sentence, namesake, wanted, naming):
    """Before, the name channel put the namesake first ("named in the request: blocks.py")."""
    top = _top(con, sentence)
    assert top[0] == wanted, top
    for request_text in naming:  # a request that names the file still finds it
        assert _top(con, request_text)[0] == namesake, request_text


def test_the_name_channel_keeps_no_file_named_only_by_a_plain_word(con):
    c, _ = con
    q = analyze(c, "how are dynamic blocks expanded in a module?")
    ids = {r[0]: r[1] for r in c.execute("SELECT id, path FROM files")}
    named, _ = name_channel(c, q.name_keys)
    assert "render/blocks.py" not in {ids[f] for f in named}
    named, _ = name_channel(c, analyze(c, "the blocks file").name_keys)
    assert "render/blocks.py" in {ids[f] for f in named}


def test_name_key_strength_of_a_plain_word_by_its_place(con):
    assert dict(_name_keys("how are dynamic blocks expanded"))["blocks"] == TERMS.key_word
    assert dict(_name_keys("show me the blocks file"))["blocks"] == TERMS.key_named
    assert dict(_name_keys("the blocks.py file"))["blocks"] == TERMS.key_ident
    c, _ = con
    for one_word in ("blocks", "the blocks?"):
        assert dict(analyze(c, one_word).name_keys)["blocks"] == TERMS.key_named
    keys = dict(analyze(c, "how are dynamic blocks expanded in a module?").name_keys)
    assert keys["blocks"] < TERMS.key_word < TERMS.key_named
