"""PDF → pages of lines with boxes, through LiteParse (PDFium). OCR stays off unless asked for."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from indexer.core.errors import DocumentError, FilingsError
from indexer.core.models import Box, Line, Page, TableRegion
from indexer.core.workers import library_workers_isolated
from indexer.ingest.convert import convert_in_worker, html_to_pdf
from indexer.ingest.lines import RawItem, group_lines
from indexer.ingest.memory_guard import MemoryGuard

logger = logging.getLogger(__name__)

# A page with fewer visible characters than this has no usable text layer (scanned, image-only or blank).
MIN_PAGE_CHARS = 8

_PDF_MAGIC = b"%PDF-"


def _check_file(path: Path) -> None:
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            head = handle.read(1024)
    except OSError as exc:
        raise DocumentError(path.name, f"cannot be read ({exc.strerror})") from exc
    if size == 0:
        raise DocumentError(path.name, "is empty (0 bytes); replace it with the complete PDF")
    if _PDF_MAGIC not in head:
        raise DocumentError(path.name, "is not a PDF (no %PDF- header); convert it to PDF or remove it")


def _explain(message: str) -> str:
    lowered = message.lower()
    if "password" in lowered or "encrypt" in lowered:
        return "is encrypted and needs a password; save an unencrypted copy and index that"
    if "invalid pdf" in lowered or "format" in lowered or "xref" in lowered or "trailer" in lowered:
        return "is damaged or truncated (PDFium cannot read it); download it again"
    return f"could not be parsed ({message})"


OCR_LANGUAGES = ("chi_sim", "eng")
_SYSTEM_TESSDATA = (
    "/usr/share/tesseract-ocr/5/tessdata",
    "/usr/share/tesseract-ocr/4.00/tessdata",
    "/usr/share/tessdata",
)


def find_tessdata(explicit: Path | None) -> Path:
    """A local folder with Tesseract's language data for every OCR language; OCR never downloads any."""
    candidates = [explicit] if explicit else []
    if env := os.environ.get("TESSDATA_PREFIX"):
        candidates.append(Path(env))
    candidates += [Path(p) for p in _SYSTEM_TESSDATA]
    for folder in candidates:
        if folder and all((folder / f"{lang}.traineddata").is_file() for lang in OCR_LANGUAGES):
            return folder
    raise FilingsError(
        "--ocr needs Tesseract language data on this machine (chi_sim and eng) and never downloads it: install "
        "Debian's tesseract-ocr tesseract-ocr-chi-sim tesseract-ocr-eng, or pass --tessdata DIR"
    )


def _table_regions(page: int, blocks: list) -> list[TableRegion]:  # type: ignore[type-arg]
    """The parser's table blocks as regions with one vertical band per row."""
    regions = []
    for block in blocks:
        if block.kind != "table" or block.bbox is None:
            continue
        bands = []
        for row in block.rows or []:
            boxes = [cell.bbox for cell in row if cell.bbox is not None and cell.text.strip()]
            if boxes:
                bands.append((min(b.y for b in boxes), max(b.y + b.height for b in boxes)))
        b = block.bbox
        box = Box(page=page, x0=b.x, top=b.y, x1=b.x + b.width, bottom=b.y + b.height)
        regions.append(TableRegion(box=box, row_bands=tuple(bands)))
    return regions


# LiteParse's page complexity reason that means the text layer is not the page's text: a scan with an old,
# hidden OCR layer ("ZOq5年" for 2015年). Such a page is OCR'd with --ocr and, without it, kept out of search
# (listed as unreadable) rather than indexed as noise. ("garbled" is not used: it flags the readable two-column
# cover of the sample broker note; over the 1,557 dev pages "invisible-text-layer" flags none, the scanned
# letter's pages all.)
UNREADABLE_REASONS = frozenset({"invisible-text-layer"})
# A text layer made of control codes is a font's glyph numbers without a Unicode map ("G;8" for "the" beside \x01 for
# a space): not the page's text. Such a page is unreadable the same way when this share of its characters are
# control codes (C0 controls other than tab and line breaks, and the private-use area). A real page has none.
CONTROL_SHARE = 0.05
# The same glyph numbers can also land on printable characters: "G:<>HIG6CI" for "registrant", "I=:" for "the". Such
# a page reads as words broken by symbols. It is unreadable when at least GLYPH_WORD_SHARE of its words (at least
# GLYPH_WORDS_MIN of them, three characters or more with a Latin letter) carry a symbol or control code inside them.
# Measured by words: on the 9,428 dev pages and 23,591 pages of the wide corpus no readable page reaches 0.22 (a
# tenement schedule's "E45/1234", a table's "S&P"); every page of the wide corpus's glyph-numbered text layers
# with that many words is above 0.4.
GLYPH_WORD_SHARE = 0.35
GLYPH_WORDS_MIN = 30
_NOT_IN_A_WORD = frozenset("<>=@;[]^_`{|}~\\#$%&*+/:")


# A parse of one file may take at most this long (the worker process is killed after it), and a file may have at
# most this many pages: a PDF bomb or a pathological page stops one file, not the build.
PARSE_TIMEOUT_S = 300.0
# The OCR pass over a file's unreadable pages may take this much longer per page it reads (Tesseract reads a page in
# 1–3 s on one core): a 180-page report whose text layer is glyph numbers is read, a pathological page is still stopped.
OCR_SECONDS_PER_PAGE = 10.0
MAX_PAGES = 5000
MAX_PARSE_MEMORY_MB = 2048  # resident memory one parse worker may hold
PARSE_WORKERS = 2  # worker processes: a build parses two files at once (see build.parse_documents)


class PdfParser:
    """Parses PDFs into :class:`Page` records. One instance can parse many files; close it (or use ``with``).

    Parsing runs in a LiteParse worker process with a hard deadline, so a file that hangs or crashes PDFium
    costs that file only. Every file is parsed once without OCR; with ``ocr``, only the pages without a usable
    text layer are parsed again with OCR (Tesseract, Chinese + English, local language data) and replace them.
    """

    def __init__(
        self,
        *,
        ocr: bool = False,
        password: str | None = None,
        tessdata: Path | None = None,
        timeout: float | None = None,
        max_pages: int = MAX_PAGES,
        max_memory_mb: float | None = MAX_PARSE_MEMORY_MB,
    ) -> None:
        """``timeout`` (seconds per file) runs parses in worker processes that are killed at the deadline, or
        when they hold more than ``max_memory_mb``; without it, files are parsed in this process (tests,
        benchmarks)."""
        self._password = password
        self._timeout = timeout
        self._max_pages = max_pages
        self.memory = MemoryGuard(max_memory_mb if timeout else None)
        self.memory.start()
        self._ocr_options: dict[str, object] | None = None
        if ocr:
            self._ocr_options = {
                "tessdata_path": str(find_tessdata(tessdata)),
                "ocr_language": "+".join(OCR_LANGUAGES),
            }
        self._parser = self._liteparse(password, workers=PARSE_WORKERS)  # one-off parsers (a file's own
        # password, the OCR pass) get a single worker

    def _liteparse(  # type: ignore[no-untyped-def]
        self,
        password: str | None,
        workers: int = 1,
        options: dict[str, object] | None = None,
        timeout: float | None = None,
    ):
        from liteparse import LiteParse

        timeout = timeout or self._timeout

        with library_workers_isolated():  # its pool's workers must not import from the current folder
            return LiteParse(
                quiet=True,
                password=password,
                extract_blocks=True,  # layout blocks tell where tables are and which lines make a row
                include_complexity=True,  # says which pages carry no usable text layer
                max_pages=self._max_pages + 1,  # one more, to tell a file over the limit
                **({"pool_size": workers, "parse_timeout": timeout} if timeout else {}),  # type: ignore[arg-type]
                **{"ocr_enabled": False, **(options or {})},  # type: ignore[arg-type]
            )

    def close(self) -> None:
        self._parser.close()
        self.memory.stop()

    def __enter__(self) -> PdfParser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read(self, parser, path: Path, timeout: float | None = None) -> list:  # type: ignore[no-untyped-def,type-arg]
        from liteparse import ParseError, ParseTimeoutError

        kills = self.memory.kills
        try:
            with library_workers_isolated():  # a worker restarted after a kill starts isolated too
                result = parser.parse(path)
        except ParseTimeoutError as exc:
            raise DocumentError(
                path.name,
                f"took longer than {timeout or self._timeout:g}s to parse and was stopped; split it or raise "
                "--parse-timeout",
            ) from exc
        except ParseError as exc:
            if self.memory.kills > kills:
                raise DocumentError(
                    path.name,
                    f"needed more than {self.memory.limit_mb:g} MB of memory to parse and was stopped; split it or "
                    "raise --max-parse-memory",
                ) from exc
            raise DocumentError(path.name, _explain(str(exc))) from exc
        if len(result.pages) > self._max_pages or result.total_pages > self._max_pages:
            raise DocumentError(
                path.name,
                f"has {max(result.total_pages, len(result.pages)):,} pages, more than the limit of "
                f"{self._max_pages:,}; split it or raise --max-pages",
            )
        return list(result.pages)

    def convert_html(self, html: Path, pdf: Path) -> int:
        """Convert an HTML filing to ``pdf`` (its page count), under the parse deadline and memory limit when the
        parser has them (in a worker process), else in this process."""
        if self._timeout:
            return convert_in_worker(html, pdf, self._timeout, self.memory)
        return html_to_pdf(html, pdf)

    def parse(self, path: Path, password: str | None = None) -> list[Page]:
        """Return every page of ``path``, numbered from 1; raise :class:`DocumentError` with a reason.
        ``password`` opens this file when it differs from the parser's own."""
        _check_file(path)
        own = password is None or password == self._password
        parser = self._parser if own else self._liteparse(password)
        try:
            pages = [_page(parsed) for parsed in self._read(parser, path)]
            if not pages:
                raise DocumentError(path.name, "has no pages")
            unusable = [page.number for page in pages if not page.has_text or page.unreadable]
            if self._ocr_options is not None and unusable:
                budget = self._timeout + OCR_SECONDS_PER_PAGE * len(unusable) if self._timeout else None
                ocr = self._liteparse(
                    password if password is not None else self._password,
                    options={"ocr_enabled": True, "target_pages": ",".join(map(str, unusable)), **self._ocr_options},
                    timeout=budget,
                )
                try:
                    read = self._read(ocr, path, budget)
                    redone = {p.number: p for p in (_page(item, ocr=True) for item in read)}
                finally:
                    ocr.close()
                pages = [redone.get(page.number, page) for page in pages]
        finally:
            if not own:
                parser.close()
        return pages


def garbled(lines: list[Line]) -> bool:
    """Whether a page's text layer is glyph numbers rather than text (see CONTROL_SHARE)."""
    text = "".join(line.text for line in lines)
    controls = sum(1 for c in text if (c < " " and c not in "\t\n\r") or "\ue000" <= c <= "\uf8ff")
    return bool(text) and (controls >= CONTROL_SHARE * len(text) or _symbol_words(text))


def _symbol_words(text: str) -> bool:
    """Whether enough of the page's words carry a symbol inside them (see GLYPH_WORD_SHARE)."""
    words = [w for w in text.split() if len(w) >= 3 and any("a" <= c.lower() <= "z" for c in w)]
    if len(words) < GLYPH_WORDS_MIN:
        return False
    broken = sum(1 for w in words if any(c in _NOT_IN_A_WORD or c < " " for c in w[1:-1]))
    return broken >= GLYPH_WORD_SHARE * len(words)


def _page(parsed, *, ocr: bool = False) -> Page:  # type: ignore[no-untyped-def]
    """One LiteParse page as a :class:`Page` (lines with boxes, table regions, text-layer verdict)."""
    items = (RawItem(i.text, i.x, i.y, i.width, i.height, i.rotation or 0.0) for i in parsed.text_items)
    lines = group_lines(items, parsed.page_num)
    chars = sum(len(line.text.replace(" ", "")) for line in lines)
    reasons = set(getattr(parsed.complexity, "reasons", None) or ())
    return Page(
        number=parsed.page_num,
        width=parsed.width,
        height=parsed.height,
        lines=lines,
        has_text=chars >= MIN_PAGE_CHARS,
        unreadable=not ocr and chars >= MIN_PAGE_CHARS and (bool(reasons & UNREADABLE_REASONS) or garbled(lines)),
        ocr=ocr,
        regions=_table_regions(parsed.page_num, parsed.blocks or []),
    )
