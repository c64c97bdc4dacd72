"""The phrase channel: text pasted into a prompt leads to the file that holds it verbatim."""

from __future__ import annotations

from cairn.codemap.index_db import open_index
from cairn.codemap.indexer import index_project
from cairn.project import project_for_root
from cairn.search.engine import search_code
from cairn.search.phrases import _grams, phrase_channel
from helpers import make_git_repo

FILES = {
    "src/sync.py": "def sync(dirs):\n    for d in dirs:\n        log.info('creating debug directory label %s', d)\n"
    "        make(d)\n",
    **{
        f"src/mod_{i}.py": f"def handler_{i}(directory, label, debug):\n    # label the directory for debug\n"
        f"    return directory + label + str(debug)\n"
        for i in range(12)
    },
}


def test_a_pasted_log_line_finds_the_file_that_prints_it(tmp_path):
    root = make_git_repo(tmp_path / "repo", FILES)
    project = project_for_root(root)
    index_project(project)
    con = open_index(project)
    prompt = (
        "this is all wrong, look at what sync printed when I ran it twice in a row: "
        "2026/02/23 07:46:58 INFO creating debug directory label=/tmp/x and then it stopped"
    )
    scores, why = phrase_channel(con, prompt)
    fid = con.execute("SELECT id FROM files WHERE path = 'src/sync.py'").fetchone()[0]
    assert set(scores) == {fid} and why[fid] == "creating debug directory"
    hits, _ = search_code(con, prompt, root=root)
    assert hits[0].path == "src/sync.py"
    assert 'holds the words "creating debug directory" verbatim' in hits[0].why
    con.close()


def test_short_requests_and_function_words_make_no_phrases():
    assert _grams("creating debug directory label") == []  # its own wording, not pasted text
    long = "please could you have a look at the way that this one is done and then tell me what you think"
    assert _grams(long) == []  # no run of three content words
    assert _grams("ok " * 12 + "parse config file twice") == ["parse config file", "config file twice"]


def test_a_quoted_label_is_a_phrase_whatever_the_length(tmp_path):
    files = {
        "ui/ContextTab.tsx": "export function ContextTab() {\n  return <Button>Display all</Button>;\n}\n",
        **{
            f"ui/Page{i}.tsx": f"export function Page{i}() {{\n  return <List display={{mode}} all={{true}} />;\n}}\n"
            for i in range(10)
        },
    }
    root = make_git_repo(tmp_path / "app", files)
    project = project_for_root(root)
    index_project(project)
    con = open_index(project)
    hits, _ = search_code(con, 'Use "Display all" only on this page', root=root)
    assert hits[0].path == "ui/ContextTab.tsx"
    assert 'holds the words "display all" verbatim' in hits[0].why
    con.close()
