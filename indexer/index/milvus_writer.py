"""The write side of the Milvus storage (:mod:`indexer.index.milvus_storage`): a version's collections, their
schema and indexes, the aliases moved to them, and the collections no version names any more dropped."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from indexer.core.models import DocumentMeta, StoredChunk
from indexer.index.dense import APPROXIMATE_ABOVE, HNSW_EF_CONSTRUCTION, HNSW_M
from indexer.index.engines import LexicalInput
from indexer.index.milvus_storage import (
    ALIASES,
    ANALYZER,
    INSERT_BATCH,
    MAX_TEXT_BYTES,
    collection_pattern,
    field_text,
)
from indexer.index.store import MilvusInfo


def _schema(client: Any, with_text: bool, dim: int | None) -> Any:
    from pymilvus import DataType, Function, FunctionType

    schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("row", DataType.INT64, is_primary=True)
    schema.add_field("document", DataType.VARCHAR, max_length=1024)
    schema.add_field("section", DataType.VARCHAR, max_length=256)
    if with_text:
        schema.add_field("company", DataType.VARCHAR, max_length=512)
        schema.add_field("fiscal_year", DataType.INT64)
        schema.add_field("form", DataType.VARCHAR, max_length=64)
        schema.add_field("broker", DataType.VARCHAR, max_length=256)
        schema.add_field("language", DataType.VARCHAR, max_length=16)
        schema.add_field(
            "tokens",
            DataType.VARCHAR,
            max_length=MAX_TEXT_BYTES,
            enable_analyzer=True,
            analyzer_params={"type": ANALYZER},
        )
        schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
        schema.add_function(
            Function(
                name="bm25",
                function_type=FunctionType.BM25,
                input_field_names=["tokens"],
                output_field_names=["sparse"],
            )
        )
    if dim is not None:
        schema.add_field("vector", DataType.FLOAT_VECTOR, dim=dim)
    return schema


def _index_params(client: Any, with_text: bool, dim: int | None, k1: float, b: float, vectors: int = 0) -> Any:
    params = client.prepare_index_params()
    if with_text:
        bm25 = {"bm25_k1": k1, "bm25_b": b}
        params.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25", params=bm25)
        for param in params:  # pymilvus sends them flattened; milvus-lite reads only a JSON "params" (Milvus: both)
            if param.field_name == "sparse":
                param._configs["params"] = bm25
    if dim is not None:  # as the local backend: exact up to APPROXIMATE_ABOVE vectors, an HNSW graph above
        if vectors > APPROXIMATE_ABOVE:
            graph = {"M": HNSW_M, "efConstruction": HNSW_EF_CONSTRUCTION}
            params.add_index("vector", index_type="HNSW", metric_type="IP", params=graph)
        else:
            params.add_index("vector", index_type="FLAT", metric_type="IP")
    return params


def _filter_fields(meta: DocumentMeta | None) -> dict[str, object]:
    """A document's fields that filters name (company, year, form, broker, language), for other clients' queries."""
    return {
        "company": (meta.company or "") if meta else "",
        "fiscal_year": (meta.year or 0) if meta else 0,
        "form": (meta.form or "") if meta else "",
        "broker": (meta.broker or "") if meta else "",
        "language": (meta.language or "") if meta else "",
    }


@dataclass
class MilvusWriter:
    """Writes a version's collections; call under the index lock (one writer per index)."""

    client: Any
    prefix: str
    k1: float = 1.2
    b: float = 0.75

    def _new_name(self, kind: str) -> str:
        return f"{self.prefix}_{time.strftime('%Y%m%d%H%M%S')}_{uuid.uuid4().hex[:6]}_{kind}"

    def _create(self, kind: str, with_text: bool, dim: int | None, vectors: int = 0) -> str:
        name = self._new_name(kind)
        self.client.create_collection(name, schema=_schema(self.client, with_text, dim))
        # sync=False: the engine builds the index as it loads the collection (milvus-lite cannot be waited on)
        params = _index_params(self.client, with_text, dim, self.k1, self.b, vectors)
        self.client.create_index(name, params, sync=False)
        return name

    def _insert(self, name: str, records: Iterator[dict[str, object]]) -> None:
        batch: list[dict[str, object]] = []
        for record in records:
            batch.append(record)
            if len(batch) >= INSERT_BATCH:
                self.client.insert(name, batch)
                batch = []
        if batch:
            self.client.insert(name, batch)
        self.client.flush(name)
        self.client.load_collection(name)

    def write_lexical(
        self, chunks: Sequence[StoredChunk], lexical: LexicalInput, metas: dict[str, DocumentMeta]
    ) -> dict[str, str]:
        """The passages, table-rows and bigrams collections of ``chunks`` (each the rows ``lexical`` gives it, with
        their tokens), by kind."""
        names = {}
        for kind, rows, words in (
            ("passages", lexical.passages, lexical.passage_words),
            ("table_rows", lexical.table_rows, lexical.row_words),
            ("bigrams", lexical.passages, lexical.bigrams),
        ):
            name = self._create(kind, with_text=True, dim=None)
            self._insert(
                name,
                (
                    {
                        "row": row,
                        "document": chunks[row].document,
                        "section": chunks[row].section or "",
                        "tokens": field_text(tokens),
                        **_filter_fields(metas.get(chunks[row].document)),
                    }
                    for row, tokens in zip(rows, words, strict=True)
                ),
            )
            names[kind] = name
        return names

    def write_vectors(self, chunks: Sequence[StoredChunk], rows: np.ndarray, vectors: np.ndarray) -> str:
        """A vectors collection of ``rows`` (chunk rows) with ``vectors``."""
        name = self._create("vectors", with_text=False, dim=int(vectors.shape[1]), vectors=len(vectors))
        self._insert(
            name,
            (
                {
                    "row": int(row),
                    "document": chunks[int(row)].document,
                    "section": chunks[int(row)].section or "",
                    "vector": vector.tolist(),
                }
                for row, vector in zip(rows, vectors, strict=True)
            ),
        )
        return name

    def move_aliases(self, info: MilvusInfo) -> None:
        """The index's aliases now name ``info``'s collections (for other clients; readers use the manifest)."""
        existing = set(self.client.list_aliases().get("aliases", []))
        for kind in ALIASES:
            collection = getattr(info, kind)
            if not collection:
                continue
            alias = f"{self.prefix}_{kind}"
            if alias in existing:
                self.client.alter_alias(collection, alias)
            else:
                self.client.create_alias(collection, alias)

    def drop_unnamed(self, named: set[str]) -> list[str]:
        """Drop this index's collections that no version on disk names (a replaced version's, or those of a build
        that failed); any other collection is left alone."""
        pattern = collection_pattern(self.prefix)
        dropped = []
        for name in self.client.list_collections():
            if pattern.fullmatch(name) and name not in named:
                self.client.drop_collection(name)
                dropped.append(name)
        return dropped
