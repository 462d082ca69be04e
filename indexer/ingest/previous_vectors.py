"""The vectors of the index a build replaces, keyed as the vector cache keys them (the text each was made from),
or of a published version, by chunk row."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np

from indexer.core.errors import FilingsError
from indexer.core.models import DocumentMeta
from indexer.index.chunk_table import ChunkTable
from indexer.index.engines import StorageRecord, engine_of
from indexer.index.layout import Layout
from indexer.index.store import storage_record
from indexer.index.vector_cache import text_key
from indexer.ingest.chunk import PASSAGE_TEXTS, PLAIN_PASSAGES, embedded_text

logger = logging.getLogger(__name__)


def previous_vectors(index_dir: Path, embedder_id: str) -> dict[str, np.ndarray]:
    """Vectors of the index being replaced, by the key of the text each was made from (vector_cache.text_key),
    when it used the same embedder: an index copied from another machine brings its vectors along.

    Read leniently (raw JSON, any schema version) so that an upgrade of the index format does not cost a
    re-embedding: only the embedder, the documents, the chunks' texts and the vectors are used.
    """
    try:
        manifest = json.loads(Layout(index_dir).manifest.read_text(encoding="utf-8"))
        info = manifest.get("embedder") or {}
        if info.get("id") != embedder_id:
            return {}
        passage_text = info.get("passage_text", PLAIN_PASSAGES)
        if passage_text not in PASSAGE_TEXTS:
            return {}  # made from a text this version does not know how to rebuild
        metas = {d["document"]: _lenient_meta(d) for d in manifest["documents"]}
        keys = [
            text_key(embedded_text(text, heading, metas.get(document), passage_text))
            for text, heading, document in _stored_texts(Layout(index_dir))
        ]
        by_row = stored_vectors(index_dir, storage_record(manifest))
    except (OSError, ValueError, KeyError, TypeError, RuntimeError, FilingsError) as exc:
        if Layout(index_dir).manifest.exists():
            logger.warning("not reusing vectors from %s: %s", index_dir, exc)
        return {}
    return {keys[row]: vector for row, vector in by_row.items() if row < len(keys)}


def _stored_texts(layout: Layout) -> list[tuple[str, str | None, str]]:
    """Each chunk's text, heading and document: from the chunk table, or the JSON lines of a schema-2 index."""
    if layout.chunks.is_dir():
        table = ChunkTable(layout.chunks)
        headings, heading_names = table.codes("heading")
        documents, document_names = table.codes("document")
        return [
            (table.text(row), heading_names[h] if h >= 0 else None, document_names[d])
            for row, (h, d) in enumerate(zip(headings.tolist(), documents.tolist(), strict=True))
        ]
    with layout.legacy_chunks.open(encoding="utf-8") as handle:
        stored = [json.loads(line) for line in handle if line.strip()]
    return [(c["text"], c.get("heading"), c["document"]) for c in stored]


def stored_vectors(index_dir: Path, record: StorageRecord) -> dict[int, np.ndarray]:
    """The vectors a version holds, by chunk row, read from the engine its storage record names."""
    return engine_of(record).stored_vectors(index_dir, record)


def own_vectors(index_dir: Path, record: StorageRecord) -> dict[int, np.ndarray]:
    """The vectors a published version holds, by chunk row: that version's own chunks need no text rebuilt and
    no key computed to be matched (empty if its vectors cannot be read)."""
    try:
        return stored_vectors(index_dir, record)
    except (OSError, ValueError, RuntimeError, FilingsError) as exc:
        logger.warning("not reusing vectors from %s: %s", index_dir, exc)
        return {}


def _lenient_meta(raw: dict[str, object]) -> DocumentMeta | None:
    """A document's metadata from a manifest of any schema version, or None (its header then differs, and its
    vectors are embedded again rather than reused under another text)."""
    try:
        return DocumentMeta.model_validate(raw)
    except ValueError:
        return None
