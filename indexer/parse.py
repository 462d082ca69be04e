"""PDF → pages of lines with boxes, through LiteParse (PDFium). OCR stays off unless asked for."""

from __future__ import annotations

import logging
import os
from pathlib import Path

from indexer.errors import DocumentError, FilingsError
from indexer.lines import RawItem, group_lines
from indexer.models import Page, TableRegion

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


def _table_regions(blocks: list) -> list[TableRegion]:  # type: ignore[type-arg]
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
        box = block.bbox
        regions.append(
            TableRegion(x0=box.x, top=box.y, x1=box.x + box.width, bottom=box.y + box.height, row_bands=tuple(bands))
        )
    return regions


class PdfParser:
    """Parses PDFs into :class:`Page` records. One instance can parse many files."""

    def __init__(self, *, ocr: bool = False, password: str | None = None, tessdata: Path | None = None) -> None:
        from liteparse import LiteParse

        self._ocr = ocr
        options: dict[str, object] = {}
        if ocr:
            options = {"tessdata_path": str(find_tessdata(tessdata)), "ocr_language": "+".join(OCR_LANGUAGES)}
        self._parser = LiteParse(
            ocr_enabled=ocr,
            quiet=True,
            password=password,
            extract_blocks=True,  # layout blocks tell where tables are and which lines make a row
            **options,  # type: ignore[arg-type]
        )

    def parse(self, path: Path) -> list[Page]:
        """Return every page of ``path``, numbered from 1; raise :class:`DocumentError` with a reason."""
        from liteparse import ParseError

        _check_file(path)
        try:
            result = self._parser.parse(path)
        except ParseError as exc:
            raise DocumentError(path.name, _explain(str(exc))) from exc
        pages: list[Page] = []
        for parsed in result.pages:
            items = (RawItem(i.text, i.x, i.y, i.width, i.height) for i in parsed.text_items)
            lines = group_lines(items, parsed.page_num)
            chars = sum(len(line.text.replace(" ", "")) for line in lines)
            pages.append(
                Page(
                    number=parsed.page_num,
                    width=parsed.width,
                    height=parsed.height,
                    lines=lines,
                    has_text=chars >= MIN_PAGE_CHARS,
                    regions=_table_regions(parsed.blocks or []),
                )
            )
        if not pages:
            raise DocumentError(path.name, "has no pages")
        return pages
