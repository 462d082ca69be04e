"""Query side: load an index folder and answer searches, pages and document lists.

No MCP here: the server, ``filings-index search`` and the tests call these functions directly.
"""

from __future__ import annotations

import fnmatch
import logging
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from indexer.dense import DenseIndex
from indexer.embed import Embedder, EmbedderError, make_embedder
from indexer.errors import IndexLoadError, NotFoundError, QueryError
from indexer.fusion import RankedList, reciprocal_rank_fusion
from indexer.lexical import Bm25Index
from indexer.models import Box, Chunk, DocumentMeta, Page
from indexer.routing import route
from indexer.store import Manifest, read_chunks, read_manifest, read_pages
from indexer.tokenize import TOKENIZER_ID, Tokenizer

logger = logging.getLogger(__name__)

MAX_QUERY_CHARS = 2000
# Retrieval depth per retriever before fusion, as a multiple of the requested hits.
RECALL_FACTOR = 10
MIN_RECALL = 50
# Boilerplate and contents chunks keep this share of their fused score, so real passages rank first.
DEMOTION = {"boilerplate": 0.3, "contents": 0.3, "body": 1.0}


class Hit(BaseModel):
    chunk_id: str
    document: str
    page: int
    page_width: float
    page_height: float
    content: str
    boxes: list[Box]
    score: float
    kind: str
    bm25_rank: int | None = Field(default=None, description="rank in the BM25 list, 1-based; None if absent")
    dense_rank: int | None = Field(default=None, description="rank in the dense list, 1-based; None if absent")


@dataclass
class LoadedIndex:
    folder: Path
    manifest: Manifest
    chunks: list[Chunk]
    bm25: Bm25Index
    dense: DenseIndex | None
    embedder: Embedder | None
    tokenizer: Tokenizer
    documents: dict[str, DocumentMeta]
    chunk_document_rows: dict[str, np.ndarray]
    _page_cache: dict[str, list[Page]]
    _page_lock: threading.Lock


def load_index(folder: Path, cache_dir: Path, *, with_embedder: bool = True) -> LoadedIndex:
    """Load everything a search needs; rebuild tokenizer and embedder from the manifest."""
    manifest = read_manifest(folder)
    if manifest.tokenizer.get("id") != TOKENIZER_ID:
        raise IndexLoadError(
            f"index at {folder} was tokenized with {manifest.tokenizer.get('id')!r}, this version uses "
            f"{TOKENIZER_ID!r}; rebuild it with `filings-index build`"
        )
    tokenizer = Tokenizer(cache_dir / "jieba")
    tokenizer.warm_up()
    chunks = read_chunks(folder)
    if len(chunks) != manifest.chunk_count:
        raise IndexLoadError(
            f"index at {folder} is incomplete ({len(chunks)} of {manifest.chunk_count} chunks); rebuild it"
        )
    bm25 = Bm25Index.load(folder / "bm25", len(chunks))
    dense = embedder = None
    if manifest.embedder is not None and with_embedder:
        try:
            embedder = make_embedder(manifest.embedder.spec)
        except EmbedderError as exc:
            raise IndexLoadError(f"cannot load the embedder this index was built with: {exc}") from exc
        if embedder is None or embedder.id != manifest.embedder.id:
            found = embedder.id if embedder is not None else "none"
            raise IndexLoadError(
                f"index at {folder} was embedded with {manifest.embedder.id}, but {found} is installed; "
                "install the same version or rebuild the index"
            )
        dense = DenseIndex.load(folder)
    rows_by_doc: dict[str, list[int]] = {}
    for row, chunk in enumerate(chunks):
        rows_by_doc.setdefault(chunk.document, []).append(row)
    return LoadedIndex(
        folder=folder,
        manifest=manifest,
        chunks=chunks,
        bm25=bm25,
        dense=dense,
        embedder=embedder,
        tokenizer=tokenizer,
        documents={meta.document: meta for meta in manifest.documents},
        chunk_document_rows={doc: np.array(rows, dtype=np.int64) for doc, rows in rows_by_doc.items()},
        _page_cache={},
        _page_lock=threading.Lock(),
    )


def _names(index: LoadedIndex) -> str:
    return ", ".join(sorted(index.documents))


def select_documents(index: LoadedIndex, documents: str | None, company: str | None) -> list[str] | None:
    """Names matching a file-name glob and/or a company; ``None`` when no filter was given."""
    if not documents and not company:
        return None
    names = list(index.documents)
    if documents:
        pattern = documents.strip().lower()
        names = [
            n for n in names if fnmatch.fnmatch(n.lower(), pattern) or fnmatch.fnmatch(Path(n).name.lower(), pattern)
        ]
        if not names:
            raise QueryError(f"no document matches documents={documents!r}; indexed documents: {_names(index)}")
    if company:
        wanted = company.strip().lower()
        names = [
            n
            for n in names
            if wanted in n.lower()
            or wanted in (index.documents[n].company or "").lower()
            or wanted == (index.documents[n].stock_code or "")
        ]
        if not names:
            companies = sorted({m.company for m in index.documents.values() if m.company})
            raise QueryError(f"no document of company={company!r}; companies in the index: {', '.join(companies)}")
    return names


def _allowed_rows(index: LoadedIndex, names: list[str] | None) -> np.ndarray | None:
    if names is None:
        return None
    parts = [index.chunk_document_rows[n] for n in names if n in index.chunk_document_rows]
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)


def check_query(query: str) -> str:
    text = " ".join(query.split())
    if not text:
        raise QueryError(
            "the query is empty; pass words or figures to look for, e.g. 'total revenue 2022' or '营业收入'"
        )
    if len(text) > MAX_QUERY_CHARS:
        raise QueryError(
            f"the query has {len(text)} characters; keep it under {MAX_QUERY_CHARS} (a question or key terms)"
        )
    return text


def search(
    index: LoadedIndex,
    query: str,
    top_k: int = 5,
    documents: str | None = None,
    company: str | None = None,
) -> list[Hit]:
    """Hybrid search: BM25 and dense lists fused by reciprocal rank, boilerplate demoted, best first."""
    text = check_query(query)
    allowed = _allowed_rows(index, select_documents(index, documents, company))
    depth = max(MIN_RECALL, top_k * RECALL_FACTOR)
    tokens = index.tokenizer.tokenize(text)
    weights = route(text)
    lists: list[RankedList] = []
    bm25_rows, _ = index.bm25.top_k(tokens, depth, allowed)
    lists.append(RankedList("bm25", bm25_rows.tolist(), weights.bm25_weight))
    if index.dense is not None and index.embedder is not None:
        dense_rows, _ = index.dense.top_k(index.embedder.embed_query(text), depth, allowed)
        lists.append(RankedList("dense", dense_rows.tolist(), weights.dense_weight))
    elif not tokens:
        raise QueryError(
            f"the query {text!r} has no searchable words and this index has no dense vectors; use words or figures"
        )
    fused = reciprocal_rank_fusion(lists)
    ranks = [{row: rank for rank, row in enumerate(r.rows, start=1)} for r in lists]
    scored = sorted(
        ((score * DEMOTION.get(index.chunks[row].kind, 1.0), row) for row, score in fused), key=lambda x: -x[0]
    )
    hits = []
    for score, row in scored[:top_k]:
        chunk = index.chunks[row]
        hits.append(
            Hit(
                chunk_id=chunk.chunk_id,
                document=chunk.document,
                page=chunk.page,
                page_width=chunk.page_width,
                page_height=chunk.page_height,
                content=chunk.text,
                boxes=chunk.boxes,
                score=round(score, 6),
                kind=chunk.kind,
                bm25_rank=ranks[0].get(row),
                dense_rank=ranks[1].get(row) if len(ranks) > 1 else None,
            )
        )
    return hits


def document_meta(index: LoadedIndex, document: str) -> DocumentMeta:
    meta = index.documents.get(document)
    if meta is None:
        raise NotFoundError(f"unknown document {document!r}; call list_documents, valid names are: {_names(index)}")
    return meta


def get_page(index: LoadedIndex, document: str, page: int) -> Page:
    """One page with its lines and boxes; only documents of this index, pages 1..N."""
    meta = document_meta(index, document)
    if not 1 <= page <= meta.pages:
        raise NotFoundError(f"page {page} is out of range: {document} has pages 1 to {meta.pages}")
    with index._page_lock:
        pages = index._page_cache.get(document)
        if pages is None:
            pages = read_pages(index.folder, meta)
            if len(index._page_cache) >= 8:
                index._page_cache.pop(next(iter(index._page_cache)))
            index._page_cache[document] = pages
    return pages[page - 1]
