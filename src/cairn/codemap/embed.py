"""The static embedding model of the semantic channel: texts -> unit vectors, offline, no torch.

The weights and the tokenizer come inside an installed package (`wordllama`, the `cairn-context[semantic]`
extra: a 32000 x 256 float16 token table, WordLlama "l2_supercat", MIT) and are read from its
files directly: nothing is downloaded, ever, and wordllama's own code (which would fetch a
tokenizer from the network) is never imported. A text's vector is the mean of its tokens' rows,
normalized; identifiers are split into words first (`RateLimiter` -> "rate limiter") so that code
and the words of a request meet. `status()` is cheap (no numpy, no tokenizer): it says whether
the model is there and which version it is; `load()` gives the model or None, never raises.
`inline_hook()` says when not to load it at all (a hook in a fresh process).

A second backend, a sentence transformer on onnxruntime (codemap/embed_onnx.py), is chosen by
`[index] semantic_model = "minilm"`; `status(name)` and `load(name)` take the backend's name, and
the search side picks the backend from the model id the index's vectors carry (`backend_of`).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

from cairn.codemap.embed_base import Status, build, words

TYPE_CHECKING = False  # not typing's: importing typing costs every hook ~4 ms (mypy reads it as True)
if TYPE_CHECKING:
    import numpy as np

    from cairn.codemap.embed_onnx import OnnxModel

PACKAGE = "wordllama"
WEIGHTS = "weights/l2_supercat_256.safetensors"
TOKENIZER = "tokenizers/l2_supercat_tokenizer_config.json"
TENSOR = "embedding.weight"
BATCH = 256
MAX_TOKENS = 512  # a longer text is cut: the mean of its first tokens says what it is about
DEFAULT_BACKEND = "wordllama"
BACKENDS = ("wordllama", "minilm")  # `[index] semantic_model`


def status(backend: str = DEFAULT_BACKEND) -> Status:
    """Find the model package's files without importing it (or numpy)."""
    import importlib.metadata
    import importlib.util

    if backend != DEFAULT_BACKEND:
        if backend == "minilm":
            from cairn.codemap import embed_onnx

            return embed_onnx.status()
        return Status(
            False, reason=f"unknown `[index] semantic_model` {backend[:40]!r} (one of: {', '.join(BACKENDS)})"
        )

    try:
        spec = importlib.util.find_spec(PACKAGE)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        from cairn.util.install_hint import install_hint

        return Status(False, reason=f"the model package is not installed ({install_hint('semantic')})")
    folder = Path(list(spec.submodule_search_locations)[0])
    for rel in (WEIGHTS, TOKENIZER):
        if not (folder / rel).is_file():
            return Status(False, reason=f"the model package has no {rel}", folder=folder)
    try:
        version = importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    size = (folder / WEIGHTS).stat().st_size
    return Status(True, model_id=f"{PACKAGE}-{version}/{Path(WEIGHTS).stem}/{size}", folder=folder)


def backend_of(model_id: str) -> str:
    """Which backend made vectors with this model id (the id `status(...).model_id` gave)."""
    return "minilm" if model_id.startswith("minilm-") else DEFAULT_BACKEND


class Model:
    """A token table and its tokenizer; `embed` gives float32 unit vectors, one row per text."""

    max_chunks = 200  # every declaration: a row of the table is a lookup, not a forward pass

    def __init__(self, st: Status) -> None:
        from tokenizers import Tokenizer

        assert st.folder is not None
        self.id = st.model_id
        self.table = _read_safetensors(st.folder / WEIGHTS, TENSOR)  # float16, 16 MB; rows widened when read
        self.dim = int(self.table.shape[1])
        self.tokenizer = Tokenizer.from_file(str(st.folder / TOKENIZER))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()

    def embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        vocab = self.table.shape[0]
        for start in range(0, len(texts), BATCH):
            part = [words(t) for t in texts[start : start + BATCH]]
            encoded = self.tokenizer.encode_batch(part, add_special_tokens=False)
            ids = [e.ids[:MAX_TOKENS] for e in encoded]
            lengths = np.array([len(x) for x in ids], dtype=np.int64)
            if not lengths.any():
                continue
            flat = np.clip(
                np.fromiter((i for x in ids for i in x), dtype=np.int64, count=int(lengths.sum())), 0, vocab - 1
            )
            # each (text, token) pair once, times its count: code repeats its tokens, and the rows
            # gathered (the costly part) shrink two to three times
            owner = np.repeat(np.arange(len(part), dtype=np.int64), lengths)
            keys, counts = np.unique(owner * vocab + flat, return_counts=True)
            texts_of = keys // vocab
            rows = self.table[keys % vocab].astype(np.float32)
            rows *= counts[:, None].astype(np.float32)
            present = np.nonzero(lengths)[0]
            starts = np.searchsorted(texts_of, present)
            out[start + present] = np.add.reduceat(rows, starts, axis=0)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        np.divide(out, norms, out=out, where=norms > 0)
        return out


_MODEL: Model | None = None
_FAILED: str | None = None
LOAD_IN_HOOK = False  # set by the warm hook server (warm/hook_server.py): there the model loads once and stays


def inline_hook() -> bool:
    """A hook answered in a fresh process (not the warm server): the model's ~0.3-0.5 s load is not
    paid there; the channel is skipped and vectors wait for the next index run outside a hook."""
    import sys

    runner = sys.modules.get("cairn.agents.hooks.runner")  # imported by many commands: ask its flag
    return bool(getattr(runner, "INLINE_PROCESS", False)) and not LOAD_IN_HOOK and not loaded()


def load(backend: str = DEFAULT_BACKEND) -> Model | OnnxModel | None:
    """The model, loaded once per process; None when it is missing or broken (see `failure()`)."""
    global _MODEL, _FAILED
    if backend != DEFAULT_BACKEND:
        if backend == "minilm":
            from cairn.codemap import embed_onnx

            return embed_onnx.load()
        return None
    if _MODEL is None and _FAILED is None:
        _MODEL, _FAILED = build(status(), Model)
    return _MODEL


def failure(backend: str = DEFAULT_BACKEND) -> str | None:
    """Why `load()` gave None, once it was tried."""
    if backend != DEFAULT_BACKEND:
        import sys

        onnx = sys.modules.get("cairn.codemap.embed_onnx")
        tried = onnx.failure() if onnx is not None and backend == "minilm" else None
        return tried or status(backend).reason or None
    return _FAILED


def loaded() -> bool:
    """Some backend's model is in this process (a module never imported loaded nothing)."""
    import sys

    onnx = sys.modules.get("cairn.codemap.embed_onnx")
    return _MODEL is not None or (onnx is not None and onnx.loaded())


def pack(vecs: np.ndarray) -> bytes:
    """Vectors (one row each) as the float16 blob the index and the session archive store."""
    import numpy as np

    return vecs.astype(np.float16).tobytes()


def unpack(blob: bytes) -> np.ndarray:
    """A stored blob back as a flat float16 array (rows of the model's width, one after another)."""
    import numpy as np

    return np.frombuffer(blob, dtype=np.float16)


def _read_safetensors(path: Path, name: str) -> np.ndarray:
    """One tensor of a .safetensors file (an 8-byte header length, a JSON header, raw little-endian data)."""
    import numpy as np

    dtypes = {"F16": np.float16, "F32": np.float32, "BF16": None}
    with open(path, "rb") as fh:
        (n,) = struct.unpack("<Q", fh.read(8))
        if n > 10_000_000:
            raise ValueError("header too large")
        header = json.loads(fh.read(n))
        info = header[name]
        dtype = dtypes.get(info["dtype"])
        if dtype is None:
            raise ValueError(f"unsupported dtype {info['dtype']}")
        begin, end = info["data_offsets"]
        fh.seek(8 + n + begin)
        data = fh.read(end - begin)
    arr = np.frombuffer(data, dtype=np.dtype(dtype).newbyteorder("<"))
    return arr.reshape(info["shape"])
