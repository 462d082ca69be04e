"""The ``hashing`` embedder: bag-of-words vectors of hashed tokens, for tests and smoke runs, never for quality.

No model, no download, no state: a text's words (NFKC, lower-cased runs of letters and digits) and its CJK
characters with each pair of neighbours are hashed with BLAKE2b (the same on every machine and in every process,
unlike ``hash()``) into :data:`HASHING_DIM` signed buckets, and the counts are L2-normalised. Two texts are close
when they share words, as in BM25, so semantic search over these vectors measures nothing about semantics. What it
exercises is every path a real embedder takes (its spec and id in the manifest, the vector cache, FAISS or Milvus,
the query side rebuilt from the manifest, fusion) in milliseconds instead of minutes.

The dimension is deliberately not e5-small's 384, so code that assumes one model's width fails under it. The id's
version (``@1``) changes whenever the vectors would, so a vector cache never mixes two versions.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache
from itertools import pairwise

import numpy as np

from indexer.index.embed import HASHING

HASHING_DIM = 256
HASHING_VERSION = 1  # bump when tokens, hashing or weighting change: the vectors are cached by the id

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKENS = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")
_ONE_CJK = re.compile(rf"[{_CJK}]")
_EMPTY = "\x00"  # the one feature of a text whose tokens are none (or cancel out): every vector has unit length


def tokens(text: str) -> list[str]:
    """The features hashed for ``text``: its words, its CJK characters and each pair of adjacent CJK characters."""
    found = list(_TOKENS.finditer(unicodedata.normalize("NFKC", text).lower()))
    pairs = [
        a.group() + b.group()
        for a, b in pairwise(found)
        if a.end() == b.start() and _ONE_CJK.fullmatch(a.group()) and _ONE_CJK.fullmatch(b.group())
    ]
    return [match.group() for match in found] + pairs


@lru_cache(maxsize=1 << 16)
def _bucket(token: str) -> tuple[int, float]:
    """The bucket a token adds to and the sign it adds with."""
    value = int.from_bytes(hashlib.blake2b(token.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big")
    return value % HASHING_DIM, 1.0 if value >> 63 else -1.0


class HashingEmbedder:
    """Token-hash bag-of-words vectors: deterministic, instant, and only as good as word overlap."""

    def __init__(self) -> None:
        self.dim = HASHING_DIM
        self.id = f"{HASHING}:bag-of-words-{HASHING_DIM}@{HASHING_VERSION}"
        self.spec = HASHING

    def embed_passages(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts)  # symmetric: a query and a passage with the same words get the same vector

    def close(self) -> None:
        return None  # nothing is held

    def _embed(self, texts: list[str]) -> np.ndarray:
        vectors = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in tokens(text):
                bucket, sign = _bucket(token)
                vectors[row, bucket] += sign
            if not vectors[row].any():
                vectors[row, _bucket(_EMPTY)[0]] = 1.0
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.ascontiguousarray(vectors / np.maximum(norms, 1e-12))
