"""Build an index folder from a folder of PDFs: parse → chunk → tokenize + embed → write → publish."""

from __future__ import annotations

import logging
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from indexer.core.errors import DocumentError, FilingsError
from indexer.core.models import Chunk, DocumentMeta, Page
from indexer.core.tokenize import Tokenizer
from indexer.index.dense import DenseIndex
from indexer.index.embed import Embedder, make_embedder
from indexer.index.layout import Layout
from indexer.index.lexical import Bm25Index, Bm25Settings
from indexer.index.publish import check_index_target, discard, publish, staging_folder
from indexer.index.store import (
    EmbedderInfo,
    Failure,
    Manifest,
    pdf_file,
    read_manifest,
    read_pages,
    sha256_file,
    write_chunks,
    write_manifest,
    write_pages,
    write_pdf,
)
from indexer.index.vector_cache import VectorCache, text_key
from indexer.ingest import metadata
from indexer.ingest.chunk import chunk_document, embedded_text, lexical_text, mark_furniture
from indexer.ingest.convert import is_html
from indexer.ingest.edgar import read_sidecar
from indexer.ingest.parse import PARSE_WORKERS, PdfParser
from indexer.ingest.previous_vectors import previous_vectors
from indexer.ingest.settings import BuildSettings
from indexer.ingest.sources import Source, folder_sources, index_sources, links_note, sources_to_add
from indexer.ingest.tables import with_tables

logger = logging.getLogger(__name__)

# Chunk kinds that are embedded; boilerplate, contents pages and table rows (their line is in a body chunk)
# are BM25-only.
EMBEDDED_KINDS = frozenset({"body"})


# Pages stored by an index are reused for an unchanged file (same sha256) only when they were produced the same
# way: bump PARSER_VERSION whenever parsing, line grouping, furniture marking or table extraction changes.
PARSER_VERSION = 10


def parser_settings(settings: BuildSettings) -> dict[str, object]:
    return {"version": PARSER_VERSION, "ocr": settings.ocr, "chunking": settings.chunking.as_dict()}


@dataclass
class BuildReport:
    index_dir: Path
    documents: int = 0
    pages: int = 0
    pages_without_text: int = 0
    pages_unreadable: int = 0  # a text layer that is not the page's text; not searchable (OCR them with --ocr)
    pages_ocr: int = 0
    chunks: int = 0
    table_rows: int = 0
    embedded: int = 0
    reused_vectors: int = 0  # vectors taken from the index being replaced
    cached_vectors: int = 0  # vectors taken from this machine's vector cache (index/vector_cache.py)
    reused_documents: int = 0  # unchanged files whose pages came from the previous index instead of a parse
    converted: int = 0  # HTML filings converted to PDF
    links_out: list[str] = field(default_factory=list)  # links out of the folder, skipped (see folder_sources)
    failures: list[Failure] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    published: bool = False


def _progress(total: int, unit: str, desc: str, enabled: bool):  # type: ignore[no-untyped-def]
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, desc=desc, file=sys.stderr, disable=not enabled, dynamic_ncols=True)


def embed_chunks(
    chunks: list[Chunk],
    metas: dict[str, DocumentMeta],
    embedder: Embedder,
    previous: dict[str, np.ndarray],
    settings: BuildSettings,
    report: BuildReport,
) -> DenseIndex:
    """The dense index of the embedded chunks: each vector from the index being replaced, else from the machine's
    vector cache, else computed (shortest texts batched together, so little is padded) and kept in the cache as
    it goes, so a build killed half-way loses at most one unflushed batch."""
    rows = [row for row, chunk in enumerate(chunks) if chunk.kind in EMBEDDED_KINDS]
    texts = [
        embedded_text(c.text, c.heading, metas.get(c.document), settings.passage_text)
        for c in (chunks[row] for row in rows)
    ]
    keys = [text_key(text) for text in texts]
    cache = VectorCache.open(settings.cache_dir, embedder.id, embedder.dim)
    vectors = np.zeros((len(rows), embedder.dim), dtype=np.float32)
    todo: list[int] = []
    for pos, key in enumerate(keys):
        known, cached = previous.get(key), cache.get(key)
        if known is not None and known.shape == (embedder.dim,):
            vectors[pos] = known
            report.reused_vectors += 1
        elif cached is not None:
            vectors[pos] = cached
            report.cached_vectors += 1
        else:
            todo.append(pos)
    todo.sort(key=lambda pos: len(texts[pos]))
    try:
        with _progress(len(todo), "chunk", "embedding", settings.progress) as bar:
            for start in range(0, len(todo), settings.batch_size):
                batch = todo[start : start + settings.batch_size]
                vectors[batch] = embedder.embed_passages([texts[pos] for pos in batch])
                cache.put([keys[pos] for pos in batch], vectors[batch])
                bar.update(len(batch))
    finally:
        cache.flush()
    report.embedded = len(rows)
    return DenseIndex.build(vectors, np.array(rows, dtype=np.int64), embedder.dim)


@dataclass
class Parsed:
    meta: DocumentMeta
    pages: list[Page]
    chunks: list[Chunk]
    pdf: Path  # the PDF indexed (the file itself, its conversion, or the previous index's copy)
    original: Path  # the file as given


def _previous_pages(index_dir: Path, settings: BuildSettings) -> dict[str, DocumentMeta]:
    """Documents of the index being replaced whose stored pages can stand in for a parse, by sha256."""
    try:
        manifest = read_manifest(index_dir)
    except FilingsError:
        return {}
    if manifest.parser != parser_settings(settings):
        return {}
    return {meta.sha256: meta for meta in manifest.documents}


_CONVERTING = threading.Lock()


def _pages_of(
    source: Source,
    sha: str,
    parser: PdfParser,
    previous: dict[str, DocumentMeta],
    settings: BuildSettings,
    workdir: Path,
) -> tuple[list[Page], Path, DocumentMeta | None]:
    """(pages, the PDF they come from, the previous index's record of the file if it is unchanged)."""
    known = previous.get(sha)
    if known is not None:
        try:
            pages = read_pages(settings.index_dir, known)
            if len(pages) == known.pages:
                return pages, pdf_file(settings.index_dir, known), known
        except FilingsError as exc:
            logger.warning("re-parsing %s: %s", source.name, exc)
    pdf = source.path
    if is_html(source.path):
        pdf = workdir / f"{sha[:12]}.pdf"
        with _CONVERTING:  # one conversion at a time (each may hold up to --max-parse-memory)
            parser.convert_html(source.path, pdf)
    password = settings.passwords.get(source.name, settings.passwords.get(source.path.name))
    return with_tables(mark_furniture(parser.parse(pdf, password), settings.chunking)), pdf, None


def _edgar_fields(source: Source, known: DocumentMeta | None) -> dict[str, object]:
    """What EDGAR said about a downloaded filing (its sidecar file), which beats what the text suggests."""
    filing = read_sidecar(source.path)
    if filing is None:
        if known is None or known.cik is None:
            return {}
        fields = ("company", "form", "period", "year", "cik", "filing_date", "accession", "title")
        return {name: getattr(known, name) for name in fields}
    period = filing.report_date or filing.filing_date
    return {
        "company": filing.company,
        "form": filing.form,
        "period": period,
        "year": int(period[:4]),
        "cik": filing.cik,
        "filing_date": filing.filing_date,
        "accession": filing.accession,
        "title": f"{filing.company} · {filing.form} · {period}",
        **({"tickers": [filing.ticker]} if filing.ticker else {}),
    }


def parse_documents(sources: list[Source], settings: BuildSettings, report: BuildReport, workdir: Path) -> list[Parsed]:
    """Parse each file (HTML converted to PDF in ``workdir`` first), or reuse the previous index's pages of an
    unchanged one; describe and chunk it."""
    parser = PdfParser(
        ocr=settings.ocr,
        password=settings.password,
        tessdata=settings.tessdata,
        timeout=settings.parse_timeout,
        max_pages=settings.max_pages,
        max_memory_mb=settings.max_parse_memory_mb,
    )
    previous = _previous_pages(settings.index_dir, settings)
    parsed: list[Parsed] = []

    def read(source: Source) -> tuple[str, list[Page], Path, DocumentMeta | None]:
        sha = sha256_file(source.path)
        return (sha, *_pages_of(source, sha, parser, previous, settings, workdir))

    # The next PARSE_WORKERS files are parsed (in LiteParse worker processes) while this one is described and
    # chunked: both cores stay busy, and at most PARSE_WORKERS + 1 documents' pages are held at once.
    with (
        parser,
        _progress(len(sources), "file", "parsing", settings.progress) as bar,
        ThreadPoolExecutor(max_workers=PARSE_WORKERS, thread_name_prefix="parse-ahead") as ahead,
    ):
        upcoming = [ahead.submit(read, source) for source in sources[:PARSE_WORKERS]]
        for position, source in enumerate(sources):
            name = source.name
            current = upcoming.pop(0)
            if position + PARSE_WORKERS < len(sources):
                upcoming.append(ahead.submit(read, sources[position + PARSE_WORKERS]))
            try:
                sha, pages, pdf, known = current.result()
            except (DocumentError, OSError) as exc:
                reason = exc.reason if isinstance(exc, DocumentError) else f"cannot be read ({exc.strerror})"
                report.failures.append(Failure(document=name, reason=reason))
                logger.warning("skipped %s: %s", name, reason)
                bar.update(1)
                continue
            if known is not None:
                report.reused_documents += 1
            elif is_html(source.path):
                report.converted += 1
            described = metadata.describe(name, pages) | _edgar_fields(source, known)
            meta = DocumentMeta(
                document=name,
                sha256=sha,
                pages=len(pages),
                pages_without_text=[p.number for p in pages if not p.has_text],
                pages_unreadable=[p.number for p in pages if p.unreadable],
                pages_ocr=[p.number for p in pages if p.ocr],
                source_format="html" if is_html(source.path) else "pdf",
                **described,  # type: ignore[arg-type]
            )
            chunks = chunk_document(name, sha, pages, settings.chunking)
            parsed.append(Parsed(meta, pages, chunks, pdf, source.path))
            bar.update(1)
            bar.set_postfix(pages=sum(len(p.pages) for p in parsed))
    return parsed


def build_index(settings: BuildSettings) -> BuildReport:
    """Index every PDF of ``settings.docs_dir``; unchanged files are not parsed or embedded again."""
    if settings.docs_dir is None:
        raise FilingsError("build needs the folder of PDFs to index")
    found = folder_sources(settings.docs_dir, settings.follow_links)
    if not found.sources:
        raise FilingsError(
            f"no .pdf or .htm files under {settings.docs_dir}{links_note(found)}; put filings there or pass another "
            "folder"
        )
    return build_from(settings, found.sources, found.links_out)


def add_documents(settings: BuildSettings, paths: list[Path]) -> BuildReport:
    """The index's documents plus the given files (a file with a name already indexed replaces it); without an
    index at ``settings.index_dir``, a new one of the given files."""
    found = sources_to_add(paths, settings.follow_links)
    added = found.sources
    if not added:
        raise FilingsError(f"no .pdf or .htm files in {', '.join(map(str, paths))}{links_note(found)}; nothing to add")
    names = {source.name for source in added}
    if not Layout(settings.index_dir).manifest.exists():
        return build_from(settings, added, found.links_out)
    kept = [s for s in index_sources(settings.index_dir) if s.name not in names]
    return build_from(as_the_index_was_built(settings), kept + added, found.links_out)


def remove_documents(settings: BuildSettings, names: list[str]) -> BuildReport:
    """The index without the named documents; every name must be in it."""
    current = index_sources(settings.index_dir)
    known = {source.name for source in current}
    unknown = [name for name in names if name not in known]
    if unknown:
        raise FilingsError(
            f"not in the index at {settings.index_dir}: {', '.join(unknown)}; its documents are: "
            + ", ".join(sorted(known))
        )
    kept = [source for source in current if source.name not in set(names)]
    if not kept:
        raise FilingsError(
            f"removing {', '.join(names)} would leave the index at {settings.index_dir} empty; "
            "delete the folder instead"
        )
    return build_from(as_the_index_was_built(settings), kept)


def as_the_index_was_built(settings: BuildSettings) -> BuildSettings:
    """An update keeps the index's embedder and what it embeds for a passage (its vectors are only comparable with
    their own model and text) and its OCR setting (``--ocr`` on an update turns OCR on)."""
    manifest = read_manifest(settings.index_dir)
    embedder = manifest.embedder.spec if manifest.embedder is not None else "none"
    passages = manifest.embedder.passage_text if manifest.embedder is not None else settings.passage_text
    ocr = settings.ocr or bool(manifest.parser.get("ocr", False))
    return replace(settings, embedder=embedder, ocr=ocr, passage_text=passages)


def build_from(settings: BuildSettings, sources: list[Source], links_out: list[str] | None = None) -> BuildReport:
    """Build an index of ``sources`` and publish it atomically; the previous index stays intact if anything fails.
    Pages of unchanged files and vectors of unchanged chunks are taken from the previous index. ``links_out`` are
    the links that were skipped (reported)."""
    check_index_target(settings.index_dir)  # before any work: a folder that is not an index is refused
    report = BuildReport(index_dir=settings.index_dir, links_out=list(links_out or []))
    started = time.perf_counter()
    embedder = make_embedder(settings.embedder)
    tokenizer = Tokenizer(settings.cache_dir / "jieba")

    with tempfile.TemporaryDirectory(prefix="filings-convert-") as workdir:
        parsed = parse_documents(sources, settings, report, Path(workdir))
        report.seconds["parse"] = time.perf_counter() - started
        return _index_and_publish(settings, parsed, report, embedder, tokenizer, started)


def write_bm25(folder: Path, chunks: list[Chunk], tokenizer: Tokenizer, settings: Bm25Settings) -> None:
    """The two BM25 indexes of an index folder: passages, and table rows (searched apart, voting for passages)."""
    layout = Layout(folder)
    for path, wanted in ((layout.bm25, False), (layout.table_rows_bm25, True)):
        rows = [row for row, chunk in enumerate(chunks) if (chunk.kind == "table_row") == wanted]
        tokens = tokenizer.tokenize_many([lexical_text(chunks[row]) for row in rows])
        Bm25Index.build(tokens, settings, np.array(rows, dtype=np.int64), len(chunks)).save(path)


def _index_and_publish(
    settings: BuildSettings,
    parsed: list[Parsed],
    report: BuildReport,
    embedder: Embedder | None,
    tokenizer: Tokenizer,
    started: float,
) -> BuildReport:
    if not parsed:
        raise FilingsError(
            "none of the files could be indexed: "
            + "; ".join(f"{f.document} {f.reason}" for f in report.failures)
            + f". The previous index at {settings.index_dir} (if any) is unchanged."
        )
    chunks = [chunk for doc in parsed for chunk in doc.chunks]
    report.documents = len(parsed)
    report.pages = sum(doc.meta.pages for doc in parsed)
    report.pages_without_text = sum(len(doc.meta.pages_without_text) for doc in parsed)
    report.pages_unreadable = sum(len(doc.meta.pages_unreadable) for doc in parsed)
    report.pages_ocr = sum(len(doc.meta.pages_ocr) for doc in parsed)
    report.chunks = len(chunks)
    report.table_rows = sum(1 for chunk in chunks if chunk.kind == "table_row")

    staging = staging_folder(settings.index_dir)
    try:
        t0 = time.perf_counter()
        write_bm25(staging, chunks, tokenizer, settings.bm25)
        report.seconds["tokenize+bm25"] = time.perf_counter() - t0
        embedder_info = None
        if embedder is not None:
            t0 = time.perf_counter()
            previous = previous_vectors(settings.index_dir, embedder.id)
            metas = {doc.meta.document: doc.meta for doc in parsed}
            dense = embed_chunks(chunks, metas, embedder, previous, settings, report)
            dense.save(staging)
            embedder_info = EmbedderInfo(
                spec=settings.embedder, id=embedder.id, dim=embedder.dim, passage_text=settings.passage_text
            )
            report.seconds["embed"] = time.perf_counter() - t0
        for doc in parsed:
            write_pages(staging, doc.meta, doc.pages)
            write_pdf(staging, doc.meta, doc.pdf, doc.original)
        write_chunks(staging, chunks)
        write_manifest(
            staging,
            Manifest(
                embedder=embedder_info,
                tokenizer=tokenizer.settings,
                chunking=settings.chunking.as_dict(),
                bm25=settings.bm25.as_dict(),
                parser=parser_settings(settings),
                documents=[doc.meta for doc in parsed],
                failures=report.failures,
                chunk_count=len(chunks),
                embedded_chunks=report.embedded,
            ),
        )
        publish(staging, settings.index_dir)
        report.published = True
    except OSError as exc:  # a full disk, a quota, a file-size limit, a read-only folder
        raise FilingsError(
            f"writing the index failed ({exc.strerror or exc}: {exc.filename or staging}); the previous index at "
            f"{settings.index_dir} (if any) is unchanged; free some space and build again"
        ) from exc
    finally:
        if not report.published:
            discard(staging)
    report.seconds["total"] = time.perf_counter() - started
    return report
