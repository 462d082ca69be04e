"""Where a build puts what ranks chunks — BM25 over passages and table rows, and the vectors: the index folder's own
files (``local``, the default) or Milvus (``milvus``, :mod:`indexer.index.milvus_storage`). Everything else (pages,
boxes, PDFs, chunks, manifest) is written to the index folder either way."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from indexer.core.errors import FilingsError
from indexer.core.models import TABLE_ROW, Chunk, DocumentMeta, StoredChunk, lexical_text
from indexer.core.tokenize import Tokenizer
from indexer.index.layout import MANIFEST, Layout
from indexer.index.lexical import Bm25Index, Bm25Settings
from indexer.index.storage import BACKENDS, LOCAL
from indexer.index.store import Manifest, MilvusInfo
from indexer.ingest.settings import BuildSettings
from indexer.ingest.vectors import VectorPlan

logger = logging.getLogger(__name__)


def check_backend(name: str) -> None:
    if name not in BACKENDS:
        raise FilingsError(f"unknown backend {name!r}; use one of {', '.join(BACKENDS)}")


def write_lexical(
    folder: Path,
    chunks: Sequence[Chunk],
    tokenizer: Tokenizer,
    settings: BuildSettings,
    documents: Sequence[DocumentMeta],
) -> MilvusInfo | None:
    """BM25 over the passages and, apart, over the table rows (their own IDF; they vote for their passages) and
    over the passages' CJK bigrams: files of ``folder``, or three Milvus collections (then named in the returned
    info, and the passages' tokens written to ``folder`` as the index's vocabulary)."""
    check_backend(settings.backend)
    groups, tokens = _tokens(chunks, tokenizer)
    if settings.backend == LOCAL:
        _write_bm25(folder, len(chunks), groups, tokens, settings.bm25)
        return None
    from indexer.index.milvus_client import connect
    from indexer.index.milvus_storage import collection_prefix, resolve_uri
    from indexer.index.milvus_writer import MilvusWriter

    uri = resolve_uri(settings.milvus_uri, settings.index_dir)
    writer = MilvusWriter(connect(uri), collection_prefix(settings.index_dir), settings.bm25.k1, settings.bm25.b)
    by_row = {
        row: words
        for rows, group in zip(groups, tokens[:2], strict=True)
        for row, words in zip(rows, group, strict=True)
    }
    bigrams = dict(zip(groups[0], tokens[2], strict=True))
    names = writer.write_lexical(chunks, by_row, bigrams, {meta.document: meta for meta in documents})
    vocabulary = sorted({token for words in tokens[0] for token in words})
    Layout(folder).vocabulary.write_text(json.dumps(vocabulary, ensure_ascii=False), encoding="utf-8")
    return MilvusInfo(uri=uri, prefix=writer.prefix, **names)


def _tokens(chunks: Sequence[Chunk], tokenizer: Tokenizer) -> tuple[list[list[int]], list[list[list[str]]]]:
    """The rows of the passages and of the table rows, and the BM25 tokens of each: the passages' words, the table
    rows' words, the passages' CJK bigrams."""
    groups = [[row for row, chunk in enumerate(chunks) if (chunk.kind == TABLE_ROW) == wanted] for wanted in (0, 1)]
    tokens = [tokenizer.tokenize_many([lexical_text(chunks[row]) for row in rows]) for rows in groups]
    return groups, [*tokens, [tokenizer.bigrams(lexical_text(chunks[row])) for row in groups[0]]]


def _write_bm25(
    folder: Path, size: int, groups: list[list[int]], tokens: list[list[list[str]]], bm25: Bm25Settings
) -> None:
    layout = Layout(folder)
    paths = (layout.bm25, layout.table_rows_bm25, layout.bigrams_bm25)
    for path, rows, words in zip(paths, (*groups, groups[0]), tokens, strict=True):
        Bm25Index.build(words, bm25, np.array(rows, dtype=np.int64), size).save(path)


def write_bm25(folder: Path, chunks: Sequence[Chunk], tokenizer: Tokenizer, bm25: Bm25Settings) -> None:
    """The local backend's three BM25 indexes, files of ``folder``: passages, table rows, and the passages' CJK
    bigrams."""
    groups, tokens = _tokens(chunks, tokenizer)
    _write_bm25(folder, len(chunks), groups, tokens, bm25)


def write_vectors(
    folder: Path, chunks: Sequence[StoredChunk], plan: VectorPlan, milvus: MilvusInfo | None
) -> MilvusInfo | None:
    """The vectors ``plan`` knows: FAISS files in ``folder``, or a new Milvus vectors collection (``milvus`` then
    returned naming it; the chunk rows that have a vector are written to ``folder`` either way)."""
    if milvus is None:
        plan.dense().save(folder)
        return None
    from indexer.index.milvus_client import connect
    from indexer.index.milvus_writer import MilvusWriter

    have = np.flatnonzero(plan.known)
    np.save(Layout(folder).dense_rows, plan.rows[have])  # which chunks have a vector, read without asking Milvus
    writer = MilvusWriter(connect(milvus.uri), milvus.prefix)
    name = writer.write_vectors(chunks, plan.rows[have], plan.vectors[have]) if have.size else None
    return milvus.model_copy(update={"vectors": name})


def after_publish(index_dir: Path, milvus: MilvusInfo | None) -> None:
    """With Milvus: the aliases move to the version just published, and the collections no version on disk names
    any more (replaced versions past their grace period, builds that failed) are dropped."""
    if milvus is None:
        return
    from indexer.index.milvus_client import connect
    from indexer.index.milvus_writer import MilvusWriter

    writer = MilvusWriter(connect(milvus.uri), milvus.prefix)
    writer.move_aliases(milvus)
    dropped = writer.drop_unnamed(named_collections(index_dir))
    if dropped:
        logger.info("dropped %d Milvus collections no version names: %s", len(dropped), ", ".join(dropped))


def named_collections(index_dir: Path) -> set[str]:
    """The Milvus collections the versions of ``index_dir`` on disk name (the current one and those retired but
    still in their grace period)."""
    named: set[str] = set()
    for folder in index_dir.parent.glob(f".{index_dir.name}.v-*"):
        try:
            manifest = Manifest.model_validate_json((folder / MANIFEST).read_bytes())
        except (OSError, ValidationError):
            continue
        if manifest.milvus is not None:
            info = manifest.milvus
            named |= {name for name in (info.passages, info.table_rows, info.bigrams, info.vectors) if name}
    return named
