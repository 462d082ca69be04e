"""Build an index folder from a folder of PDFs: parse → chunk → tokenize → publish (searchable by its words), then
embed → publish again (semantic search); see :mod:`indexer.ingest.embedding`."""

from __future__ import annotations

import logging
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from indexer.core.errors import FilingsError
from indexer.core.models import TABLE_ROW, Chunk, DocumentMeta
from indexer.core.recipe import DEFAULT_RECIPE, recipe_id
from indexer.core.tokenize import Tokenizer
from indexer.index.drift import recorded
from indexer.index.embed import DEFAULT_EMBEDDER, E5_SPECS, Embedder, make_embedder
from indexer.index.engines import StorageRecord, engine_settings
from indexer.index.layout import MANIFEST, Layout
from indexer.index.lock import holding
from indexer.index.publish import check_index_target, discard, publish, staging_folder
from indexer.index.store import (
    EmbedderInfo,
    Manifest,
    read_manifest,
    write_chunks,
    write_manifest,
    write_outlines,
    write_pages,
    write_pdf,
)
from indexer.index.vector_cache import VectorCache
from indexer.ingest.backend import after_publish, write_lexical, write_vectors
from indexer.ingest.documents import Parsed, parse_documents, parser_settings
from indexer.ingest.embedding import embed_pending
from indexer.ingest.previous_vectors import previous_vectors
from indexer.ingest.report import BuildReport
from indexer.ingest.settings import BuildSettings
from indexer.ingest.sources import Source, folder_sources, index_sources, links_note, sources_to_add
from indexer.ingest.vectors import plan_vectors, with_readiness

logger = logging.getLogger(__name__)


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
    return _in_two_phases(settings, lambda: (settings, found.sources), found.links_out)


def add_documents(settings: BuildSettings, paths: list[Path]) -> BuildReport:
    """The index's documents plus the given files (a file with a name already indexed replaces it); without an
    index at ``settings.index_dir``, a new one of the given files."""
    found = sources_to_add(paths, settings.follow_links)
    added = found.sources
    if not added:
        raise FilingsError(f"no .pdf or .htm files in {', '.join(map(str, paths))}{links_note(found)}; nothing to add")
    names = {source.name for source in added}

    def compose() -> tuple[BuildSettings, list[Source]]:
        if not Layout(settings.index_dir).manifest.exists():
            return settings, added
        kept = [s for s in index_sources(settings.index_dir) if s.name not in names]
        return as_the_index_was_built(settings), kept + added

    return _in_two_phases(settings, compose, found.links_out)


def remove_documents(settings: BuildSettings, names: list[str]) -> BuildReport:
    """The index without the named documents; every name must be in it."""

    def compose() -> tuple[BuildSettings, list[Source]]:
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
        return as_the_index_was_built(settings), kept

    return _in_two_phases(settings, compose)


def embed_index(settings: BuildSettings) -> BuildReport:
    """Embed what the index's current version has no vectors for (after a build was killed while embedding, or
    was told to leave it to another process that then died), publishing as it goes."""
    used = as_the_index_was_built(settings)
    report = BuildReport(index_dir=settings.index_dir)
    manifest = read_manifest(settings.index_dir)
    report.documents, report.chunks = len(manifest.documents), manifest.chunk_count
    report.pages = sum(meta.pages for meta in manifest.documents)
    embedder = embedder_for(used)
    if embedder is None:
        raise FilingsError(
            f"the index at {settings.index_dir} was built without an embedder; build it again with --embedder onnx "
            "(or st:MODEL) for semantic search"
        )
    try:
        _embed_phase(used, embedder, report)
    finally:
        _closed(embedder)
    report.embedded = int(read_manifest(settings.index_dir).embedded_chunks)
    return report


def embedder_for(settings: BuildSettings) -> Embedder | None:
    """The build's embedder: the model here, or (``--ray``) the same model on Ray actors."""
    if settings.embedder == "none":
        return None
    if settings.ray is not None:
        from indexer.index.ray_embedder import RayEmbedder

        return RayEmbedder(settings.embedder, settings.cache_dir, settings.ray)
    return make_embedder(settings.embedder, settings.cache_dir)


def embedder_to_build_with(index_dir: Path, named: str | None) -> str:
    """The embedder a ``build`` uses: the one named; else the engine the index at ``index_dir`` was embedded with,
    when it runs the bundled model (its vectors stay, and switching engines is a choice the user makes by naming
    one); else the default."""
    if named is not None:
        return named
    try:
        manifest = read_manifest(index_dir) if (index_dir / MANIFEST).is_file() else None
    except FilingsError:
        manifest = None  # a damaged index is rebuilt with the default
    kept = manifest.embedder.spec if manifest is not None and manifest.embedder is not None else None
    if kept in E5_SPECS and kept != DEFAULT_EMBEDDER:
        logger.warning(
            "%s keeps its %s vectors: pass --embedder %s to embed it again on the faster engine (the same model)",
            index_dir,
            kept,
            DEFAULT_EMBEDDER,
        )
        return str(kept)
    return DEFAULT_EMBEDDER


def _closed(embedder: Embedder | None) -> None:
    """Give back what the build's embedder holds (a Ray embedder's actors)."""
    if embedder is not None:
        embedder.close()


def as_the_index_was_built(settings: BuildSettings) -> BuildSettings:
    """An update keeps the index's embedder and what it embeds for a passage (its vectors are only comparable with
    their own model and text), its OCR setting (``--ocr`` on an update turns OCR on) and its backend."""
    manifest = read_manifest(settings.index_dir)
    embedder = manifest.embedder.spec if manifest.embedder is not None else "none"
    passages = manifest.embedder.passage_text if manifest.embedder is not None else settings.passage_text
    ocr = settings.ocr or bool(manifest.parser.get("ocr", False))
    backend, uri = engine_settings(manifest.storage)
    return replace(settings, embedder=embedder, ocr=ocr, passage_text=passages, backend=backend, milvus_uri=uri)


def _in_two_phases(
    settings: BuildSettings,
    compose: Callable[[], tuple[BuildSettings, list[Source]]],
    links_out: list[str] | None = None,
) -> BuildReport:
    """Searchable first, semantic after: under the index lock (builders queue on it, so no update is lost), the
    version ``compose`` describes — read from the current one — is published with every vector already known;
    then, without the lock, the missing vectors are embedded and published (:mod:`indexer.ingest.embedding`)."""
    check_index_target(settings.index_dir)  # before any work: a folder that is not an index is refused
    started = time.perf_counter()
    embedder = None
    try:
        with holding(settings.index_dir, "index", settings.wait_for_lock):
            used, sources = compose()
            embedder = embedder_for(used)
            report = build_from(used, sources, links_out, embedder)
        report.seconds["searchable"] = time.perf_counter() - started
        if embedder is not None and report.pending_vectors:
            said = (
                f"{settings.index_dir} is searchable by its words ({report.documents} documents, after "
                f"{report.seconds['searchable']:.1f}s); embedding {report.pending_vectors} passages for semantic search"
            )
            if settings.progress:
                print(said, file=sys.stderr, flush=True)  # beside the progress bars, which are on stderr too
            logger.info(said)
            _embed_phase(used, embedder, report)
            if report.embedding_left_to is None:
                report.embedded = int(read_manifest(settings.index_dir).embedded_chunks)
    finally:
        _closed(embedder)  # its Ray actors, if any
    report.seconds["total"] = time.perf_counter() - started
    return report


def _embed_phase(settings: BuildSettings, embedder: Embedder, report: BuildReport) -> None:
    run = embed_pending(settings, embedder)
    report.computed_vectors, report.embedding_left_to = run.computed, run.left_to
    report.versions += run.published
    report.seconds["embed"] = run.seconds


def build_from(
    settings: BuildSettings,
    sources: list[Source],
    links_out: list[str] | None = None,
    embedder: Embedder | None = None,
) -> BuildReport:
    """Build an index of ``sources`` with the vectors already known (from the previous index or the vector cache)
    and publish it atomically; the previous index stays intact if anything fails. Pages of unchanged files are
    taken from the previous index. ``links_out`` are the links that were skipped (reported). Call it holding the
    index lock; the vectors still missing are :func:`indexer.ingest.embedding.embed_pending`'s."""
    check_index_target(settings.index_dir)
    report = BuildReport(index_dir=settings.index_dir, links_out=list(links_out or []))
    started = time.perf_counter()
    tokenizer = Tokenizer(settings.cache_dir / "jieba")

    with tempfile.TemporaryDirectory(prefix="filings-convert-") as workdir:
        parsed = parse_documents(sources, settings, report, Path(workdir))
        report.seconds["parse"] = time.perf_counter() - started
        return _index_and_publish(settings, parsed, report, embedder, tokenizer, started)


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
    _count(report, parsed, chunks)
    staging = staging_folder(settings.index_dir)
    try:
        record = _write_version(staging, settings, parsed, chunks, report, embedder, tokenizer)
        publish(staging, settings.index_dir)
        report.published = True
        report.versions += 1
        after_publish(settings.index_dir, record)
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


def _count(report: BuildReport, parsed: list[Parsed], chunks: list[Chunk]) -> None:
    report.documents = len(parsed)
    report.pages = sum(doc.meta.pages for doc in parsed)
    report.pages_without_text = sum(len(doc.meta.pages_without_text) for doc in parsed)
    report.pages_unreadable = sum(len(doc.meta.pages_unreadable) for doc in parsed)
    report.pages_ocr = sum(len(doc.meta.pages_ocr) for doc in parsed)
    report.chunks = len(chunks)
    report.table_rows = sum(1 for chunk in chunks if chunk.kind == TABLE_ROW)


def _write_version(
    staging: Path,
    settings: BuildSettings,
    parsed: list[Parsed],
    chunks: list[Chunk],
    report: BuildReport,
    embedder: Embedder | None,
    tokenizer: Tokenizer,
) -> StorageRecord:
    """Everything of the new version into ``staging``, its manifest last; its storage record."""
    t0 = time.perf_counter()
    documents = [doc.meta for doc in parsed]
    record = write_lexical(staging, chunks, tokenizer, settings, documents)
    report.seconds["tokenize+bm25"] = time.perf_counter() - t0
    embedder_info = None
    if embedder is not None:
        t0 = time.perf_counter()
        documents, record = _known_vectors(staging, chunks, documents, embedder, settings, report, record)
        embedder_info = EmbedderInfo(
            spec=embedder.spec, id=embedder.id, dim=embedder.dim, passage_text=settings.passage_text
        )
        report.seconds["vectors"] = time.perf_counter() - t0
    else:
        documents = with_readiness(documents, set())  # an index without an embedder has no semantic search
    for doc in parsed:
        write_pages(staging, doc.meta, doc.pages)
        if doc.outlines is not None:
            write_outlines(staging, doc.meta, doc.outlines.kept())
        write_pdf(staging, doc.meta, doc.pdf, doc.original, stored=doc.stored)
    write_chunks(staging, chunks)
    manifest = Manifest(
        embedder=embedder_info,
        tokenizer=tokenizer.settings,
        vocabulary=recorded(),
        recipe={"id": recipe_id(DEFAULT_RECIPE), "values": DEFAULT_RECIPE.model_dump(mode="json")},
        chunking=settings.chunking.as_dict(),
        bm25=settings.bm25.as_dict(),
        parser=parser_settings(settings),
        documents=documents,
        failures=report.failures,
        chunk_count=len(chunks),
        embedded_chunks=report.embedded,
    ).with_storage(record)
    write_manifest(staging, manifest)
    return record


def _known_vectors(
    staging: Path,
    chunks: list[Chunk],
    documents: list[DocumentMeta],
    embedder: Embedder,
    settings: BuildSettings,
    report: BuildReport,
    record: StorageRecord,
) -> tuple[list[DocumentMeta], StorageRecord]:
    """Write the dense index of the vectors already known — the previous index's, then the vector cache's — and
    say which documents it covers; the rest is embedded after publishing."""
    previous = previous_vectors(settings.index_dir, embedder.id)
    cache = VectorCache.open(settings.cache_dir, embedder.id, embedder.dim)
    metas = {meta.document: meta for meta in documents}
    plan = plan_vectors(chunks, metas, embedder.dim, settings.passage_text, previous, cache)
    record = write_vectors(staging, chunks, plan, record)
    report.reused_vectors, report.cached_vectors = plan.reused, plan.cached
    report.embedded = int(plan.known.sum())
    report.pending_vectors = len(plan.rows) - report.embedded
    return with_readiness(documents, plan.ready_documents(list(metas))), record
