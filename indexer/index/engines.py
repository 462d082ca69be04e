"""The storage engines, one object each: what ranks chunks — BM25 over passages, table rows and the passages' CJK
bigrams, and the vectors — written to the index folder's own files (:class:`LocalEngine`) or to Milvus
(:class:`MilvusEngine`), what happens once a version is published, how a version is opened for search (a
:class:`~indexer.index.storage.Storage`), how its vectors are read back and what verifying it checks beyond the
files' hashes. A build picks its engine from its settings (:func:`engine_for`); a loaded or updated version from its
manifest's storage record (:func:`engine_of`).

A storage record (:data:`StorageRecord`) is what a manifest keeps about the engine: None for local files, the
collections' names for Milvus. A Milvus record is checked to be the index's own before the engine connects
(:mod:`indexer.index.milvus_record`): a manifest is not trusted to say where to connect.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
from pydantic import ValidationError

from indexer.core.errors import FilingsError
from indexer.core.models import TABLE_ROW, DocumentMeta, StoredChunk
from indexer.index.chunk_table import ChunkTable
from indexer.index.dense import DenseIndex
from indexer.index.layout import MANIFEST, Layout
from indexer.index.lexical import Bm25Index, Bm25Settings
from indexer.index.storage import BACKENDS, LOCAL, LocalStorage, Storage
from indexer.index.store import Manifest, MilvusInfo

logger = logging.getLogger(__name__)

StorageRecord = MilvusInfo | None


@dataclass(frozen=True)
class LexicalInput:
    """What BM25 indexes: the chunk rows of the passages and of the table rows, the passages' words, the table
    rows' words and the passages' CJK bigrams (each list in the order of its rows)."""

    passages: list[int]
    table_rows: list[int]
    passage_words: list[list[str]]
    row_words: list[list[str]]
    bigrams: list[list[str]]


class Engine(Protocol):
    def write_lexical(
        self, folder: Path, chunks: Sequence[StoredChunk], lexical: LexicalInput, documents: Sequence[DocumentMeta]
    ) -> StorageRecord:
        """The three BM25 indexes of a new version in ``folder``; the version's storage record."""
        ...

    def write_vectors(
        self, folder: Path, chunks: Sequence[StoredChunk], rows: np.ndarray, vectors: np.ndarray, record: StorageRecord
    ) -> StorageRecord:
        """The vectors of chunk ``rows``; the record naming them."""
        ...

    def after_publish(self, index_dir: Path, record: StorageRecord) -> None:
        """What follows a publication of ``record``'s version at ``index_dir``."""
        ...

    def stored_vectors(self, folder: Path, record: StorageRecord) -> dict[int, np.ndarray]:
        """The vectors a published version holds, by chunk row."""
        ...

    def open(
        self,
        folder: Path,
        record: StorageRecord,
        chunks: ChunkTable,
        tokens_of: Callable[[int], list[str]],
        with_dense: bool,
        previous: Storage | None,
    ) -> Storage:
        """The version at ``folder`` ready to rank its ``chunks`` (``tokens_of``: a chunk's BM25 tokens; what
        ``previous``, an earlier version's storage, holds open is reused where it can be)."""
        ...

    def verify(self, storage: Storage, chunks: ChunkTable, embedded_chunks: int) -> list[tuple[str, str]]:
        """What is wrong with an opened version beyond its files (whose hashes verify checks): (what, problem)."""
        ...


@dataclass(frozen=True)
class LocalEngine:
    """bm25s and FAISS files in the index folder."""

    bm25: Bm25Settings = field(default_factory=Bm25Settings)

    def write_lexical(
        self, folder: Path, chunks: Sequence[StoredChunk], lexical: LexicalInput, documents: Sequence[DocumentMeta]
    ) -> StorageRecord:
        layout = Layout(folder)
        for path, rows, words in (
            (layout.bm25, lexical.passages, lexical.passage_words),
            (layout.table_rows_bm25, lexical.table_rows, lexical.row_words),
            (layout.bigrams_bm25, lexical.passages, lexical.bigrams),
        ):
            Bm25Index.build(words, self.bm25, np.array(rows, dtype=np.int64), len(chunks)).save(path)
        return None

    def write_vectors(
        self, folder: Path, chunks: Sequence[StoredChunk], rows: np.ndarray, vectors: np.ndarray, record: StorageRecord
    ) -> StorageRecord:
        DenseIndex.build(vectors, rows, vectors.shape[1]).save(folder)
        return None

    def after_publish(self, index_dir: Path, record: StorageRecord) -> None:
        return None

    def stored_vectors(self, folder: Path, record: StorageRecord) -> dict[int, np.ndarray]:
        dense = DenseIndex.load(folder)
        return dict(zip(dense.rows.tolist(), dense.vectors(), strict=False))

    def open(
        self,
        folder: Path,
        record: StorageRecord,
        chunks: ChunkTable,
        tokens_of: Callable[[int], list[str]],
        with_dense: bool,
        previous: Storage | None,
    ) -> Storage:
        return LocalStorage.load(folder, len(chunks), with_dense)

    def verify(self, storage: Storage, chunks: ChunkTable, embedded_chunks: int) -> list[tuple[str, str]]:
        return []  # everything is a file of the folder, checked against its hash


@dataclass(frozen=True)
class MilvusEngine:
    """Collections in Milvus (a milvus-lite folder, a milvus-lite server or a cluster at ``uri``); the index folder
    keeps the passages' vocabulary and which chunks have a vector."""

    uri: str
    prefix: str
    bm25: Bm25Settings = field(default_factory=Bm25Settings)

    def _client(self, folder: Path, record: StorageRecord = None):  # type: ignore[no-untyped-def]
        """A client of this engine's Milvus, once its URI and prefix, and ``record``'s, are those of the index
        ``folder`` is or belongs to (a version, a build's staging folder, the index): nothing connects before."""
        from indexer.index.milvus_client import connect
        from indexer.index.milvus_record import check_record, check_storage

        check_storage(folder, self.uri, self.prefix)
        if record is not None:
            check_record(folder, record)
        return connect(self.uri)

    def _writer(self, folder: Path, record: StorageRecord = None):  # type: ignore[no-untyped-def]
        from indexer.index.milvus_writer import MilvusWriter

        return MilvusWriter(self._client(folder, record), self.prefix, self.bm25.k1, self.bm25.b)

    def write_lexical(
        self, folder: Path, chunks: Sequence[StoredChunk], lexical: LexicalInput, documents: Sequence[DocumentMeta]
    ) -> StorageRecord:
        names = self._writer(folder).write_lexical(chunks, lexical, {meta.document: meta for meta in documents})
        frequencies = Counter(token for tokens in lexical.passage_words for token in set(tokens))
        vocabulary = {"passages": len(lexical.passage_words), "frequencies": dict(sorted(frequencies.items()))}
        Layout(folder).vocabulary.write_text(json.dumps(vocabulary, ensure_ascii=False), encoding="utf-8")
        return MilvusInfo(uri=self.uri, prefix=self.prefix, **names)

    def write_vectors(
        self, folder: Path, chunks: Sequence[StoredChunk], rows: np.ndarray, vectors: np.ndarray, record: StorageRecord
    ) -> StorageRecord:
        assert record is not None
        np.save(Layout(folder).dense_rows, rows)  # which chunks have a vector, read without asking Milvus
        name = self._writer(folder, record).write_vectors(chunks, rows, vectors) if rows.size else None
        return record.model_copy(update={"vectors": name})

    def after_publish(self, index_dir: Path, record: StorageRecord) -> None:
        """The aliases move to the version just published, and the collections no version on disk names any more
        (replaced versions past their grace period, builds that failed) are dropped."""
        assert record is not None
        writer = self._writer(index_dir, record)
        writer.move_aliases(record)
        dropped = writer.drop_unnamed(named_collections(index_dir))
        if dropped:
            logger.info("dropped %d Milvus collections no version names: %s", len(dropped), ", ".join(dropped))

    def stored_vectors(self, folder: Path, record: StorageRecord) -> dict[int, np.ndarray]:
        from indexer.index.milvus_storage import read_vectors

        assert record is not None
        return read_vectors(self._client(folder, record), record.vectors) if record.vectors else {}

    def open(
        self,
        folder: Path,
        record: StorageRecord,
        chunks: ChunkTable,
        tokens_of: Callable[[int], list[str]],
        with_dense: bool,
        previous: Storage | None,
    ) -> Storage:
        """The version's collections, loaded; its vocabulary and which chunks have a vector come from the folder (a
        client connected to the same place as ``previous``'s is reused; the record is checked either way)."""
        from indexer.index.milvus_record import check_record
        from indexer.index.milvus_storage import MilvusStorage, PassageWords

        assert record is not None
        if isinstance(previous, MilvusStorage) and previous.info.uri == record.uri:
            check_record(folder, record)
            client = previous.client
        else:
            client = self._client(folder, record)
        layout = Layout(folder)
        vocabulary = PassageWords.read(layout.vocabulary)
        embedded = set(np.load(layout.dense_rows).tolist()) if layout.dense_rows.exists() else set()
        return MilvusStorage(client, record, chunks, vocabulary, tokens_of, embedded, with_dense).loaded()

    def verify(self, storage: Storage, chunks: ChunkTable, embedded_chunks: int) -> list[tuple[str, str]]:
        """Each collection holds as many rows as the version has chunks of its kind."""
        from indexer.index.milvus_storage import MilvusStorage

        assert isinstance(storage, MilvusStorage)
        table_rows = int(np.count_nonzero(chunks.of_kind(TABLE_ROW)))
        passages = len(chunks) - table_rows
        expected = {"passages": passages, "table_rows": table_rows, "bigrams": passages}
        if storage.info.vectors:
            expected["vectors"] = embedded_chunks
        return [
            (kind, f"Milvus holds {count} rows, the index {expected[kind]}; rebuild it")
            for kind, count in storage.row_counts().items()
            if count != expected.get(kind, count)
        ]


def engine_for(backend: str, index_dir: Path, uri: str | None, bm25: Bm25Settings) -> Engine:
    """A build's engine, from its settings (``--backend``, ``--milvus-uri``)."""
    if backend not in BACKENDS:
        raise FilingsError(f"unknown backend {backend!r}; use one of {', '.join(BACKENDS)}")
    if backend == LOCAL:
        return LocalEngine(bm25)
    from indexer.index.milvus_storage import collection_prefix, resolve_uri

    return MilvusEngine(resolve_uri(uri, index_dir), collection_prefix(index_dir), bm25)


def name_uri(uri: str | None) -> None:
    """The operator named ``uri`` (a build's ``--milvus-uri``): this process may connect to it, and send it
    FILINGS_MILVUS_TOKEN, where a storage record names it too."""
    if uri:
        from indexer.index.milvus_client import name_uri as named_by_operator

        named_by_operator(uri)


def engine_of(record: StorageRecord, bm25: Bm25Settings | None = None) -> Engine:
    """The engine a published version's storage record names."""
    settings = bm25 or Bm25Settings()
    return LocalEngine(settings) if record is None else MilvusEngine(record.uri, record.prefix, settings)


def engine_settings(record: StorageRecord) -> tuple[str, str | None]:
    """The backend and URI a build keeps using for an index whose version has ``record``."""
    from indexer.index.storage import MILVUS

    return (MILVUS, record.uri) if record is not None else (LOCAL, None)


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
