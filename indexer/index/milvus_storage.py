"""Milvus as the storage under an index: the same client for a milvus-lite data folder beside the index, a local
milvus-lite server and a Milvus cluster.

What Milvus holds, per published version (each a collection, named in the version's manifest):
- ``…_passages``: every chunk that is not a table row — BM25 over our own tokens, with the filter fields;
- ``…_table_rows``: the table rows, in their own collection so their IDF is their own (as the local backend keeps
  two BM25 indexes);
- ``…_bigrams``: the passages' CJK character bigrams (an exact Chinese phrase), their own IDF as well;
- ``…_vectors``: the embedded passages' vectors (a vector publication makes a new one; the others are shared).

Our tokenizer decides the words on both sides: a chunk's tokens are sent as one text, each token made of word
characters only (``10-k`` → ``10_k``), which the engine's ``standard`` analyzer splits back into the same tokens
(milvus-lite has no whitespace analyzer). A reader keeps the collections its manifest names, so a version stays
whole while a build writes the next; publishing is the index folder's rename (as for the local backend), then the
aliases ``…_passages``/``…_table_rows``/``…_bigrams``/``…_vectors`` move to the new collections for other clients.
Collections that no version on disk names any more are dropped by the next publication (a build killed half-way
leaves collections that nothing names: dropped then too). Fusion, routing, highlights, quotes, pages and PDFs stay
ours, and so do the pages, boxes and PDFs: in the index folder.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from indexer.index.chunk_table import ChunkTable
from indexer.index.dense import HNSW_EF_SEARCH
from indexer.index.lexical import idf
from indexer.index.milvus_client import MilvusStorageError, short
from indexer.index.store import MilvusInfo

logger = logging.getLogger(__name__)

LITE_SUFFIX = ".milvus.db"  # the default: a milvus-lite data folder beside the index (.NAME.milvus.db)
ANALYZER = "standard"
INSERT_BATCH = 1000  # rows per insert call (a gRPC message stays well under its size limit)
MAX_TEXT_BYTES = 65_535  # Milvus VARCHAR limit
MAX_LIMIT = 16_384  # Milvus's cap on a search's limit
ALIASES = ("passages", "table_rows", "bigrams", "vectors")

_NON_WORD = re.compile(r"\W", re.UNICODE)


@dataclass(frozen=True)
class PassageWords:
    """The index folder's record of the passages' words (``vocabulary.json``): which words BM25 knows and in how
    many of the ``passages`` each is printed (an index built before it kept the counts has a bare list of words:
    every known word then weighs the same where :meth:`MilvusStorage.rarity` is asked)."""

    frequencies: dict[str, int]
    passages: int

    @classmethod
    def read(cls, path: Path) -> PassageWords:
        found = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(found, list):
            return cls(dict.fromkeys(map(str, found), 0), 0)
        return cls({str(k): int(v) for k, v in found["frequencies"].items()}, int(found["passages"]))


def milvus_token(token: str) -> str:
    """A token as Milvus's ``standard`` analyzer keeps it whole: word characters only, lower case."""
    return _NON_WORD.sub("_", token.lower())


def field_text(tokens: Sequence[str]) -> str:
    """A chunk's tokens as the one text the engine's BM25 analyses (cut at Milvus's VARCHAR limit)."""
    text = " ".join(milvus_token(t) for t in tokens)
    if len(text.encode("utf-8")) <= MAX_TEXT_BYTES:
        return text
    cut = text.encode("utf-8")[:MAX_TEXT_BYTES].decode("utf-8", errors="ignore")
    return cut.rsplit(" ", 1)[0]


_STRING_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def expression_string(value: str) -> str:
    """``value`` as a double-quoted string in a Milvus filter expression. Only the escapes Milvus and milvus-lite
    both read (backslash, quote, newline, return, tab); every other character, a control character included, goes
    as it is (JSON's ``\\u0001`` is an error in milvus-lite)."""
    return '"' + "".join(_STRING_ESCAPES.get(ch, ch) for ch in value) + '"'


def expression_strings(values: Sequence[str]) -> str:
    """A list of strings for an ``in`` expression."""
    return "[" + ", ".join(expression_string(v) for v in values) + "]"


def default_lite_path(index_dir: Path) -> Path:
    """The milvus-lite data folder an index uses when no URI is given: beside it, as its versions are."""
    return index_dir.parent / f".{index_dir.name}{LITE_SUFFIX}"


def resolve_uri(uri: str | None, index_dir: Path) -> str:
    """What the client connects to: a URI as given (``http://host:19530``, a ``.db`` path, made absolute), or the
    default milvus-lite folder beside the index."""
    if not uri:
        return str(default_lite_path(index_dir.absolute()))
    return uri if "://" in uri else str(Path(uri).absolute())


def collection_prefix(index_dir: Path) -> str:
    """The prefix of an index's collections: its name and a hash of its path (two indexes of one name in two
    folders share a cluster without meeting). The path is made absolute and its ``..`` taken out, links left as they
    are: a build's staging folder beside the index names the same index (indexer/index/milvus_record.py)."""
    name = _NON_WORD.sub("_", index_dir.name)[:40] or "index"
    digest = hashlib.sha256(os.path.abspath(index_dir).encode()).hexdigest()[:8]
    return f"filings_{name}_{digest}"


def collection_pattern(prefix: str, kinds: Sequence[str] = ALIASES) -> re.Pattern[str]:
    """The names a writer gives the collections of ``kinds`` of the index with ``prefix``:
    ``PREFIX_<yyyymmddhhmmss>_<6 hex>_<kind>`` (indexer/index/milvus_writer.py)."""
    return re.compile(rf"{re.escape(prefix)}_\d{{14}}_[0-9a-f]{{6}}_(?:{'|'.join(map(re.escape, kinds))})")


def read_vectors(client: Any, collection: str) -> dict[int, np.ndarray]:
    """Every vector of a vectors collection, by chunk row (read in pages). The collection is loaded first: a
    milvus-lite folder opened by a new process (an `add` after the build) holds its collections released."""
    out: dict[int, np.ndarray] = {}
    try:
        client.load_collection(collection)
        iterator = client.query_iterator(collection, batch_size=1000, output_fields=["row", "vector"])
        try:
            while page := iterator.next():
                for record in page:
                    out[int(record["row"])] = np.asarray(record["vector"], dtype=np.float32)
        finally:
            iterator.close()
    except Exception as exc:  # pymilvus raises many types
        raise MilvusStorageError(
            f"the vectors in the Milvus collection {collection} cannot be read ({short(exc)})"
        ) from exc
    return out


def _ties_by_row(hits: list[tuple[float, int]]) -> np.ndarray:
    """The rows in the engine's order, equal scores by ascending row (as the local backend breaks ties; texts
    printed twice score the same)."""
    ordered: list[int] = []
    run: list[int] = []
    last: float | None = None
    for distance, row in hits:
        if last is not None and not np.isclose(distance, last, rtol=1e-6, atol=1e-9):
            ordered += sorted(run)
            run = []
        run.append(row)
        last = distance
    return np.array(ordered + sorted(run), dtype=np.int64)


class MilvusStorage:
    """The search side: BM25 over passages and table rows and the nearest vectors, in Milvus, in chunk-row space.

    ``allowed`` rows become a filter expression: the documents they cover when they are all of those documents'
    rows (a search scoped to filings), a section of those documents (a routed list), else the rows themselves.
    """

    def __init__(
        self,
        client: Any,
        info: MilvusInfo,
        chunks: ChunkTable,
        vocabulary: PassageWords,
        tokens_of: Callable[[int], list[str]],
        embedded: set[int],
        with_dense: bool = True,
    ) -> None:
        self.client = client
        self._with_dense = with_dense
        self.info = info
        self._vocabulary = vocabulary.frequencies
        self._passages = vocabulary.passages
        self._tokens_of = tokens_of
        document_of, names = chunks.codes("document")  # names sorted, codes 0…
        self._documents = names
        self._document_of = document_of
        self._rows_per_document = np.bincount(self._document_of, minlength=len(names))
        section_of, sections = chunks.codes("section")  # sorted; -1 for none
        self._sections = sections
        self._section_of = section_of + 1  # 0: none
        self._embedded = embedded  # the chunk rows with a vector (the version's dense_rows.npy)

    def loaded(self) -> MilvusStorage:
        """This storage with its collections loaded (milvus-lite releases them when it closes)."""
        info = self.info
        for name in (info.passages, info.table_rows, info.bigrams, info.vectors):
            if not name:
                continue
            try:
                self.client.load_collection(name)
            except Exception as exc:  # pymilvus raises many types
                raise self._changed(name, f"it cannot be loaded: {short(exc)}") from exc
        return self

    def row_counts(self) -> dict[str, int]:
        """Rows in each of the version's collections, as the engine counts them."""
        counts = {}
        for kind in ALIASES:
            if name := getattr(self.info, kind):
                try:
                    counts[kind] = int(self.client.query(name, filter="", output_fields=["count(*)"])[0]["count(*)"])
                except Exception as exc:  # pymilvus raises many types
                    raise self._changed(name, f"it cannot be counted: {short(exc)}") from exc
        return counts

    @property
    def dense_search(self) -> bool:
        """Whether the index has an embedder (its vectors may still be coming: search then uses BM25 alone)."""
        return self._with_dense

    def expression(self, allowed: np.ndarray | None) -> str:
        """The Milvus filter for ``allowed`` chunk rows ('' for all)."""
        if allowed is None:
            return ""
        if allowed.size == 0:
            return "row < 0"
        docs = np.unique(self._document_of[allowed])
        names = expression_strings([self._documents[d] for d in docs])
        whole = int(self._rows_per_document[docs].sum())
        if allowed.size == whole:
            return "" if docs.size == len(self._documents) else f"document in {names}"
        sections = np.unique(self._section_of[allowed])
        if sections.size == 1 and sections[0] > 0:
            in_docs = np.isin(self._document_of, docs)
            if allowed.size == int(np.count_nonzero(in_docs & (self._section_of == sections[0]))):
                section = expression_string(self._sections[int(sections[0]) - 1])
                scope = "" if docs.size == len(self._documents) else f" and document in {names}"
                return f"section == {section}{scope}"
        return f"row in {json.dumps(allowed.astype(int).tolist())}"

    def _search(
        self, collection: str, data: list[Any], field: str, depth: int, allowed: np.ndarray | None
    ) -> np.ndarray:
        expression = self.expression(allowed)
        if expression == "row < 0" or depth <= 0:
            return np.empty(0, dtype=np.int64)
        try:
            result = self.client.search(
                collection,
                data=data,
                anns_field=field,
                limit=min(depth, MAX_LIMIT),
                filter=expression,
                output_fields=["row"],
                search_params={"params": {"ef": max(HNSW_EF_SEARCH, depth)}} if field == "vector" else None,
            )
        except Exception as exc:  # pymilvus raises many types
            raise self._changed(collection, f"its search failed: {short(exc)}") from exc
        try:
            rows = _ties_by_row([(float(hit["distance"]), int(hit["row"])) for hit in result[0]])
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise self._changed(collection, f"it answered without rows ({short(exc)})") from exc
        if rows.size and (rows.min() < 0 or rows.max() >= len(self._document_of)):
            raise self._changed(collection, "it holds rows this index version does not have")
        if allowed is not None and rows.size and not np.isin(rows, allowed).all():
            raise self._changed(collection, "it answered rows outside the filter")
        return rows

    def _changed(self, collection: str, what: str) -> MilvusStorageError:
        """The error for a collection that is not what the index version wrote (dropped, altered, or the engine
        stopped): what to run, not a stack trace."""
        return MilvusStorageError(
            f"the Milvus collection {collection} at {self.info.uri} is not what this index version wrote ({what}); "
            "it may have been dropped or changed, or Milvus may have stopped: run `filings-index verify --index "
            "INDEX` to check, then rebuild with `filings-index build DOCS --index INDEX --backend milvus`"
        )

    def _bm25(self, collection: str, tokens: list[str], depth: int, allowed: np.ndarray | None) -> np.ndarray:
        if not tokens:
            return np.empty(0, dtype=np.int64)
        return self._search(collection, [field_text(tokens)], "sparse", depth, allowed)

    def passages(self, tokens: list[str], depth: int, allowed: np.ndarray | None) -> np.ndarray:
        # tokens no passage holds score nothing either way; leaving them out spares a search that finds nothing
        return self._bm25(self.info.passages, [t for t in tokens if t in self._vocabulary], depth, allowed)

    def table_rows(self, tokens: list[str], depth: int, allowed: np.ndarray | None) -> np.ndarray | None:
        # all of them: the vocabulary is the passages' (a word of a table row only must still find it)
        return self._bm25(self.info.table_rows, tokens, depth, allowed)

    def bigrams(self, tokens: list[str], depth: int, allowed: np.ndarray | None) -> np.ndarray:
        return self._bm25(self.info.bigrams, tokens, depth, allowed)

    def nearest(self, vector: np.ndarray, depth: int, allowed: np.ndarray | None) -> np.ndarray:
        if not self.info.vectors or not self._with_dense:
            return np.empty(0, dtype=np.int64)
        return self._search(self.info.vectors, [vector.astype(np.float32).tolist()], "vector", depth, allowed)

    def knows(self, token: str) -> bool:
        return token in self._vocabulary

    def rarity(self, tokens: list[str]) -> dict[str, float]:
        known = [t for t in tokens if t in self._vocabulary]
        if not self._passages:
            return dict.fromkeys(known, 1.0)
        return {t: idf(self._passages, self._vocabulary[t]) for t in known}

    def held(self, row: int, tokens: set[str]) -> set[str]:
        return tokens & set(self._tokens_of(row))

    def held_counts(self, rows: np.ndarray, tokens: set[str]) -> np.ndarray:
        return np.array([len(self.held(int(row), tokens)) for row in rows], dtype=np.int64)

    def embedded(self, row: int) -> bool:
        return row in self._embedded
