"""A build's reading of its files: parse each (or take an unchanged file's pages from the previous index),
describe it, chunk it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from indexer.core.errors import DocumentError, FilingsError
from indexer.core.folios import folio_runs, read_folios
from indexer.core.models import Chunk, DocumentMeta, Page
from indexer.evidence.notes import Outlines, document_outlines
from indexer.evidence.periods import ReportPeriod
from indexer.index.store import Failure, pdf_file, read_manifest, read_pages, sha256_file
from indexer.ingest import metadata
from indexer.ingest.chunk import ChunkSettings, chunk_document, mark_furniture
from indexer.ingest.convert import is_html
from indexer.ingest.edgar import read_sidecar
from indexer.ingest.parse import PARSE_WORKERS, PdfParser
from indexer.ingest.report import BuildReport, progress_bar
from indexer.ingest.reported import eight_k_items, reported_periods
from indexer.ingest.settings import BuildSettings
from indexer.ingest.sources import Source
from indexer.ingest.tables import with_tables

logger = logging.getLogger(__name__)


# Pages stored by an index are reused for an unchanged file (same sha256) only when they were produced the same
# way: bump PARSER_VERSION whenever parsing, line grouping, furniture marking or table extraction changes.
PARSER_VERSION = 18


def parser_settings(settings: BuildSettings) -> dict[str, object]:
    return {"version": PARSER_VERSION, "ocr": settings.ocr, "chunking": settings.chunking.as_dict()}


@dataclass
class Parsed:
    meta: DocumentMeta
    pages: list[Page]
    chunks: list[Chunk]
    pdf: Path  # the PDF indexed (the file itself, its conversion, or the previous index's copy)
    original: Path  # the file as given
    stored: bool = False  # ``pdf`` is the previous version's own copy (unchanged file): linked, not copied again
    outlines: Outlines | None = None  # computed once here, kept beside the pages for the tools


def read_pdf(parser: PdfParser, pdf: Path, password: str | None, chunking: ChunkSettings) -> list[Page]:
    """One PDF's pages as a build keeps them: parsed, furniture marked, tables found."""
    return with_tables(mark_furniture(parser.parse(pdf, password), chunking))


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
    parse_pdf: Callable[[Path, str | None], list[Page]],
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
    return parse_pdf(pdf, password), pdf, None


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


def _parse_function(settings: BuildSettings, parser: PdfParser) -> tuple[Callable[[Path, str | None], list[Page]], int]:
    """How a PDF is parsed (here, or as a Ray task) and how many files are kept in flight."""
    if settings.ray is not None:  # each PDF parsed by a Ray task; as many in flight as the cluster has CPUs
        from indexer.ingest.ray_parse import RayParsing

        on_ray = RayParsing(settings)
        return (lambda pdf, password: on_ray.submit(pdf, password).result()), on_ray.slots
    return (lambda pdf, password: read_pdf(parser, pdf, password, settings.chunking)), PARSE_WORKERS


def parse_documents(sources: list[Source], settings: BuildSettings, report: BuildReport, workdir: Path) -> list[Parsed]:
    """Parse each file (HTML converted to PDF in ``workdir`` first), or reuse the previous index's pages of an
    unchanged one; describe and chunk it."""
    parser = PdfParser(**settings.parser_options())
    previous = _previous_pages(settings.index_dir, settings)
    parsed: list[Parsed] = []
    parse_pdf, window = _parse_function(settings, parser)

    def read(source: Source) -> tuple[str, list[Page], Path, DocumentMeta | None]:
        sha = sha256_file(source.path)
        return (sha, *_pages_of(source, sha, parser, previous, settings, workdir, parse_pdf))

    # The next files are parsed (in LiteParse worker processes, or Ray tasks) while this one is described and
    # chunked: both cores stay busy, and at most ``window`` + 1 documents' pages are held at once.
    with (
        parser,
        progress_bar(len(sources), "file", "parsing", settings.progress) as bar,
        ThreadPoolExecutor(max_workers=window, thread_name_prefix="parse-ahead") as ahead,
    ):
        upcoming = [ahead.submit(read, source) for source in sources[:window]]
        for position, source in enumerate(sources):
            current = upcoming.pop(0)
            if position + window < len(sources):
                upcoming.append(ahead.submit(read, sources[position + window]))
            try:
                sha, pages, pdf, known = current.result()
            except (DocumentError, OSError) as exc:
                reason = exc.reason if isinstance(exc, DocumentError) else f"cannot be read ({exc.strerror})"
                report.failures.append(Failure(document=source.name, reason=reason))
                logger.warning("skipped %s: %s", source.name, reason)
                bar.update(1)
                continue
            if known is not None:
                report.reused_documents += 1
            elif is_html(source.path):
                report.converted += 1
            parsed.append(_described(source, sha, pages, pdf, known, settings))
            bar.update(1)
            bar.set_postfix(pages=sum(len(p.pages) for p in parsed))
    return parsed


def _described(
    source: Source, sha: str, pages: list[Page], pdf: Path, known: DocumentMeta | None, settings: BuildSettings
) -> Parsed:
    """A parsed file with its metadata and chunks."""
    name = source.name
    meta = DocumentMeta(
        document=name,
        sha256=sha,
        pages=len(pages),
        pages_without_text=[p.number for p in pages if not p.has_text],
        pages_unreadable=[p.number for p in pages if p.unreadable],
        pages_ocr=[p.number for p in pages if p.ocr],
        source_format="html" if is_html(source.path) else "pdf",
        folios=folio_runs(read_folios([page.lines for page in pages])),
        **(metadata.describe(name, pages) | _edgar_fields(source, known)),  # type: ignore[arg-type]
    )
    outlines = document_outlines([page.lines for page in pages])
    report = ReportPeriod(None if meta.form == "8-K" else meta.period_end, meta.year)  # an 8-K is dated, no period
    meta = meta.model_copy(update={
        "periods": reported_periods(pages, outlines.statements, report),
        "items": eight_k_items(pages) if meta.form == "8-K" else [],
    })  # fmt: skip
    chunks = chunk_document(name, sha, pages, settings.chunking, outlines.sections)
    return Parsed(meta, pages, chunks, pdf, source.path, stored=known is not None, outlines=outlines)
