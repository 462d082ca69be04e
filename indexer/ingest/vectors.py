"""Which passages of an index version have vectors, and where each comes from: the version being replaced, this
machine's vector cache, or (still to do) the model."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from indexer.core.models import BODY, DocumentMeta, StoredChunk
from indexer.index.dense import DenseIndex
from indexer.index.vector_cache import VectorCache, text_key
from indexer.ingest.chunk import embedded_text

# Chunk kinds that are embedded; boilerplate, contents pages and table rows (their line is in a body chunk)
# are BM25-only.
EMBEDDED_KINDS = frozenset({BODY})


@dataclass
class VectorPlan:
    """The embedded chunks of a version (``rows``), the text each is embedded as, and the vectors known so far
    (``known[i]``: row ``rows[i]`` has ``vectors[i]``)."""

    rows: np.ndarray
    documents: list[str]  # the document of each of ``rows``
    texts: list[str]
    keys: list[str]
    vectors: np.ndarray
    known: np.ndarray
    reused: int = 0  # known from the version being replaced
    cached: int = 0  # known from the vector cache
    _same_text: dict[str, list[int]] | None = field(default=None, repr=False)  # key → positions, made on first fill

    def pending(self) -> list[int]:
        """Positions still to embed, one per distinct text (a paragraph repeated verbatim is embedded once),
        document by document (each becomes semantic_ready at the next publication, not all at the end), shortest
        first within a document (a batch of similar lengths pads little)."""
        first: dict[str, int] = {}
        for pos in np.flatnonzero(~self.known).tolist():
            first.setdefault(self.keys[pos], pos)
        order = {name: rank for rank, name in enumerate(dict.fromkeys(self.documents))}
        return sorted(first.values(), key=lambda pos: (order[self.documents[pos]], len(self.texts[pos])))

    def fill(self, positions: list[int], vectors: np.ndarray) -> None:
        """Record the vectors of ``positions``, and of every other position with the same text."""
        if self._same_text is None:
            self._same_text = {}
            for pos, key in enumerate(self.keys):
                self._same_text.setdefault(key, []).append(pos)
        for pos, vector in zip(positions, vectors, strict=True):
            same = self._same_text[self.keys[pos]]
            self.vectors[same] = vector
            self.known[same] = True

    def dense(self) -> DenseIndex:
        """The dense index of the rows with a vector (a document still being embedded is left out)."""
        have = np.flatnonzero(self.known)
        return DenseIndex.build(self.vectors[have], self.rows[have], self.vectors.shape[1])

    def ready_documents(self, every: Sequence[str]) -> set[str]:
        """Documents whose embedded chunks all have a vector (one with none to embed is ready too)."""
        waiting = {self.documents[pos] for pos in np.flatnonzero(~self.known)}
        return {name for name in every if name not in waiting}


def plan_vectors(
    chunks: Sequence[StoredChunk],
    metas: dict[str, DocumentMeta],
    dim: int,
    passage_text: str,
    previous: Mapping[str, np.ndarray],
    cache: VectorCache,
    own: Mapping[int, np.ndarray] | None = None,
) -> VectorPlan:
    """Each embedded chunk's vector from ``own`` (the version's own vectors by chunk row, when the plan is for a
    published version), else ``previous`` (the version being replaced, by text key), else the cache, else
    pending."""
    rows = [row for row, chunk in enumerate(chunks) if chunk.kind in EMBEDDED_KINDS]
    texts = [embedded_text(c.text, c.heading, metas.get(c.document), passage_text) for c in (chunks[r] for r in rows)]
    plan = VectorPlan(
        rows=np.array(rows, dtype=np.int64),
        documents=[chunks[row].document for row in rows],
        texts=texts,
        keys=[text_key(text) for text in texts],
        vectors=np.zeros((len(rows), dim), dtype=np.float32),
        known=np.zeros(len(rows), dtype=bool),
    )
    own = own or {}
    for pos, key in enumerate(plan.keys):
        reused = own.get(rows[pos])
        if reused is None:
            reused = previous.get(key)
        if reused is not None and reused.shape == (dim,):
            plan.vectors[pos], plan.reused = reused, plan.reused + 1
            plan.known[pos] = True
            continue
        cached = cache.get(key)
        if cached is not None:
            plan.vectors[pos], plan.cached = cached, plan.cached + 1
            plan.known[pos] = True
    return plan


def with_readiness(documents: Sequence[DocumentMeta], ready: set[str]) -> list[DocumentMeta]:
    return [meta.model_copy(update={"semantic_ready": meta.document in ready}) for meta in documents]
