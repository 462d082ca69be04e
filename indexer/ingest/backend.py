"""Where a build puts what ranks chunks: the tokens it computes here (the tokenizer's words of passages and table
rows, the passages' CJK bigrams), handed to the storage engine the build's settings or the replaced version's
storage record name (:mod:`indexer.index.engines`). Everything else (pages, boxes, PDFs, chunks, manifest) is
written to the index folder whatever the engine."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from indexer.core.models import TABLE_ROW, Chunk, DocumentMeta, StoredChunk, lexical_text
from indexer.core.tokenize import Tokenizer
from indexer.index.engines import LexicalInput, LocalEngine, StorageRecord, engine_for, engine_of
from indexer.index.lexical import Bm25Settings
from indexer.ingest.settings import BuildSettings
from indexer.ingest.vectors import VectorPlan


def lexical_input(chunks: Sequence[Chunk], tokenizer: Tokenizer) -> LexicalInput:
    """The rows of the passages and of the table rows, and the BM25 tokens of each: the passages' words, the table
    rows' words, the passages' CJK bigrams."""
    passages = [row for row, chunk in enumerate(chunks) if chunk.kind != TABLE_ROW]
    table_rows = [row for row, chunk in enumerate(chunks) if chunk.kind == TABLE_ROW]
    return LexicalInput(
        passages=passages,
        table_rows=table_rows,
        passage_words=tokenizer.tokenize_many([lexical_text(chunks[row]) for row in passages]),
        row_words=tokenizer.tokenize_many([lexical_text(chunks[row]) for row in table_rows]),
        bigrams=[tokenizer.bigrams(lexical_text(chunks[row])) for row in passages],
    )


def write_lexical(
    folder: Path,
    chunks: Sequence[Chunk],
    tokenizer: Tokenizer,
    settings: BuildSettings,
    documents: Sequence[DocumentMeta],
) -> StorageRecord:
    """BM25 over the passages and, apart, over the table rows (their own IDF; they vote for their passages) and
    over the passages' CJK bigrams, in the engine the build's settings name; the new version's storage record."""
    engine = engine_for(settings.backend, settings.index_dir, settings.milvus_uri, settings.bm25)
    return engine.write_lexical(folder, chunks, lexical_input(chunks, tokenizer), documents)


def write_bm25(folder: Path, chunks: Sequence[Chunk], tokenizer: Tokenizer, bm25: Bm25Settings) -> None:
    """The local files' three BM25 indexes in ``folder``: passages, table rows, and the passages' CJK bigrams."""
    LocalEngine(bm25).write_lexical(folder, chunks, lexical_input(chunks, tokenizer), [])


def write_vectors(
    folder: Path, chunks: Sequence[StoredChunk], plan: VectorPlan, record: StorageRecord
) -> StorageRecord:
    """The vectors ``plan`` knows, in the engine ``record`` names (a document still being embedded left out)."""
    have = np.flatnonzero(plan.known)
    return engine_of(record).write_vectors(folder, chunks, plan.rows[have], plan.vectors[have], record)


def after_publish(index_dir: Path, record: StorageRecord) -> None:
    """What the engine does once ``record``'s version is published (Milvus: aliases moved, orphans dropped)."""
    engine_of(record).after_publish(index_dir, record)
