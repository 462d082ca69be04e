"""Pages → page-aware chunks. Running headers/footers, contents pages and legal boilerplate are marked.

A chunk is a run of consecutive lines on one page, cut at roughly ``max_tokens`` estimated embedder
tokens with ``overlap_lines`` lines of overlap. Furniture lines (headers, footers, page numbers) stay in
the page text for ``get_page`` but are left out of chunks so they cannot crowd out real hits.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass

from indexer.core.geometry import ROW_IN_PASSAGE_PT
from indexer.core.models import BODY, BOILERPLATE, CONTENTS, TABLE_ROW, Chunk, DocumentMeta, Line, Page, StoredChunk
from indexer.core.text import CJK, ENDS_WITH_PAGE_REF
from indexer.evidence.outline import Section
from indexer.ingest.page_labels import passage_labels
from indexer.ingest.tables import row_text


@dataclass(frozen=True)
class ChunkSettings:
    max_tokens: int = 300
    overlap_lines: int = 2
    band: float = 0.09  # top/bottom share of the page where running headers and footers live
    repeat_share: float = 0.3  # a band line repeated on this share of pages (and at least 3) is furniture

    def as_dict(self) -> dict[str, object]:
        return {
            "max_tokens": self.max_tokens,
            "overlap_lines": self.overlap_lines,
            "band": self.band,
            "repeat_share": self.repeat_share,
        }


_LATIN_WORD = re.compile(r"[A-Za-z]+|\d[\d,.]*")
_PAGE_NUMBER = re.compile(
    r"^(?:page\s*)?[-–—(]?\s*\d{1,4}\s*[-–—)]?(?:\s*(?:of|/)\s*\d{1,4})?$|^第\s*\d+\s*页(?:\s*共\s*\d+\s*页)?$",
    re.IGNORECASE,
)
_CONTENTS_TITLE = re.compile(r"^\s*(?:table of contents|contents|index|目\s*录)\s*$", re.IGNORECASE)
_BOILERPLATE = re.compile(
    r"免责(?:条款|声明)|分析师(?:声明|承诺)|投资评级(?:说明|标准)|法律声明|特别声明|请务必阅读|"
    r"analyst certification|important disclosures|safe harbor|forward-looking statements?|"
    r"this report (?:is|has been) (?:prepared|distributed)|not an offer",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d")
_FIGURE = re.compile(r"\d{1,3}(?:,\d{3})+|\d\.\d{2}\b")  # a printed amount, not a page number


def estimate_tokens(text: str) -> int:
    """A cheap, embedder-independent token estimate (XLM-R-like: ~1 per CJK char, ~1.3 per word)."""
    cjk = len(CJK.findall(text))
    words = len(_LATIN_WORD.findall(text))
    return cjk + (words * 13 + 9) // 10


def _signature(text: str) -> str:
    return _DIGITS.sub("#", " ".join(text.lower().split()))


def _in_band(line: Line, page: Page, band: float) -> bool:
    return line.box.top < band * page.height or line.box.bottom > (1 - band) * page.height


def _upright(line: Line) -> bool:
    """Text set vertically: a line far taller than it is wide (lines.py keeps such text on a line of its own)."""
    return line.box.bottom - line.box.top > 2 * (line.box.x1 - line.box.x0)


def _marginal(line: Line, page: Page, band: float) -> bool:
    """Where furniture is printed: the header and footer bands, or set vertically down a margin (an ASX "For
    personal use only" watermark)."""
    return _in_band(line, page, band) or _upright(line)


def mark_furniture(pages: list[Page], settings: ChunkSettings) -> list[Page]:
    """Return pages whose running header/footer, page-number and repeated margin-watermark lines have
    ``furniture=True``."""
    counts: Counter[str] = Counter()
    for page in pages:
        counts.update({_signature(line.text) for line in page.lines if _marginal(line, page, settings.band)})
    threshold = max(3, int(settings.repeat_share * len(pages)))
    repeated = {sig for sig, count in counts.items() if count >= threshold}
    marked: list[Page] = []
    for page in pages:
        lines = []
        for line in page.lines:
            furniture = (_upright(line) and _signature(line.text) in repeated) or (
                _in_band(line, page, settings.band)
                and (_signature(line.text) in repeated or bool(_PAGE_NUMBER.match(line.text.strip())))
            )
            lines.append(line.model_copy(update={"furniture": furniture}) if furniture != line.furniture else line)
        marked.append(page.model_copy(update={"lines": lines}))
    return marked


def is_contents_page(lines: list[Line]) -> bool:
    """A table-of-contents page: a contents heading near the top and mostly lines ending in page numbers, or
    mostly dotted leaders to page numbers. A statement's dotted leaders run to figures ("Cash ..... $ 876,560"):
    a page with many such figures is no contents page."""
    body = [line for line in lines if not line.furniture]
    if len(body) < 5:
        return False
    if sum(1 for line in body if _FIGURE.search(line.text)) > 0.2 * len(body):
        return False
    titled = any(_CONTENTS_TITLE.match(line.text) for line in body[:6])
    refs = sum(1 for line in body if ENDS_WITH_PAGE_REF.search(line.text))
    dotted = sum(1 for line in body if re.search(r"\.{4,}|…{2,}", line.text))
    return (titled and refs >= 0.4 * len(body)) or dotted >= max(5, 0.5 * len(body))


def is_boilerplate(text: str) -> bool:
    """Legal/disclaimer text with few figures: kept, but not embedded and ranked last."""
    hits = len(_BOILERPLATE.findall(text))
    figures = len(re.findall(r"(?<![\d,])(?:\d[\d,]*\.\d+|\d{1,3}(?:,\d{3})+)", text))
    return hits >= 1 and figures <= 2 and (hits >= 2 or estimate_tokens(text) < 400)


def _chunk_id(doc_sha: str, page: int, ordinal: int) -> str:
    return f"{doc_sha[:12]}-p{page}-{ordinal}"


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _make_chunk(
    document: str, doc_sha: str, page: Page, ordinal: int, lines: list[Line], kind: str, section: str | None
) -> Chunk:
    text = "\n".join(line.text for line in lines)
    if kind == BODY and is_boilerplate(text):
        kind = BOILERPLATE
    return Chunk(
        chunk_id=_chunk_id(doc_sha, page.number, ordinal),
        document=document,
        page=page.number,
        page_width=page.width,
        page_height=page.height,
        text=text,
        boxes=[line.box for line in lines],
        kind=kind,
        section=section,
        content_hash=content_hash(text),
    )


def chunk_page(
    document: str,
    doc_sha: str,
    page: Page,
    settings: ChunkSettings,
    section: str | None = None,
    lines: list[Line] | None = None,
    first: int = 0,
) -> list[Chunk]:
    """Split one page's non-furniture lines (or ``lines`` of them) into chunks of about ``max_tokens``, with
    overlap; ``first`` is the first chunk's ordinal on the page."""
    body = [line for line in page.lines if not line.furniture] if lines is None else lines
    if not body:
        return []
    kind = CONTENTS if is_contents_page(page.lines) else BODY
    chunks: list[Chunk] = []
    current: list[Line] = []
    size = 0
    start_of_new = 0  # lines of ``current`` carried over as overlap
    for line in body:
        cost = estimate_tokens(line.text)
        if current and size + cost > settings.max_tokens and len(current) > start_of_new:
            chunks.append(_make_chunk(document, doc_sha, page, first + len(chunks), current, kind, section))
            overlap = current[-settings.overlap_lines :] if settings.overlap_lines else []
            if sum(estimate_tokens(x.text) for x in overlap) > settings.max_tokens // 3:
                overlap = []
            current = list(overlap)
            start_of_new = len(current)
            size = sum(estimate_tokens(x.text) for x in current)
        current.append(line)
        size += cost
    if len(current) > start_of_new or not chunks:
        chunks.append(_make_chunk(document, doc_sha, page, first + len(chunks), current, kind, section))
    return chunks


def table_row_chunks(document: str, doc_sha: str, page: Page, body: list[Chunk]) -> list[Chunk]:
    """One chunk per table row, its header repeated (see :func:`row_text`), pointing at the body chunk that
    holds the row's printed line (``parent``), with the section of that chunk."""
    chunks: list[Chunk] = []
    for t, table in enumerate(page.tables):
        for r, row in enumerate(table.rows):
            text = row_text(table, row)
            first = row.boxes[0]
            parent = next((c for c in body if any(abs(b.top - first.top) < ROW_IN_PASSAGE_PT for b in c.boxes)), None)
            chunks.append(
                Chunk(
                    chunk_id=f"{doc_sha[:12]}-p{page.number}-t{t}r{r}",
                    document=document,
                    page=page.number,
                    page_width=page.width,
                    page_height=page.height,
                    text=text,
                    boxes=row.boxes,
                    kind=TABLE_ROW,
                    section=parent.section if parent else None,
                    heading=parent.heading if parent else None,
                    content_hash=content_hash(text),
                    parent=parent.chunk_id if parent else None,
                    table_ref=(t, r),
                )
            )
    return chunks


def chunk_document(
    document: str, doc_sha: str, pages: list[Page], settings: ChunkSettings, sections: list[Section] | None = None
) -> list[Chunk]:
    """All chunks of a document, each page's passages followed by its table rows, each passage labelled with the
    part of the filing it is printed in (ingest/page_labels.py: a passage never spans two, ``sections`` its
    outline); certification, signature and exhibit pages are boilerplate, pages of definitions glossary."""
    chunks: list[Chunk] = []
    for page, spans in zip(pages, passage_labels(pages, sections), strict=True):
        if page.unreadable:
            continue  # its text layer is noise: not searchable until OCR'd (--ocr)
        if is_contents_page(page.lines):
            chunks.extend(chunk_page(document, doc_sha, page, settings, None))
            continue
        body = [line for line in page.lines if not line.furniture]
        ends = [span.start for span in spans[1:]] + [len(body)]
        page_chunks: list[Chunk] = []
        for span, end in zip(spans, ends, strict=True):
            label = span.label
            passages = chunk_page(document, doc_sha, page, settings, label.section, body[span.start : end],
                                  len(page_chunks))  # fmt: skip
            update: dict[str, object] = {"heading": label.heading} if label.heading else {}
            if label.kind:
                update["kind"] = label.kind
            page_chunks += [c.model_copy(update=update) for c in passages] if update else passages
        chunks.extend(page_chunks)
        chunks.extend(table_row_chunks(document, doc_sha, page, page_chunks))
    return chunks


# What is embedded for a passage, recorded in the manifest as the embedder's ``passage_text``; a new way gets a new
# name, so no vector made from another text is reused.
WHOLE_PASSAGES = "header/1"  # a one-line header (passage_header), then the passage's whole text
PLAIN_PASSAGES = "plain"  # the passage's text alone (indexes built before the header, or `build --plain-passages`)
# The header, then the passage's opening, up to OPENING_TOKENS (`build --embed-opening`): the model's cost grows
# with the tokens it reads, a passage's opening says what it is about, and BM25 reads every word. On the dev set it
# embeds 1.6x faster, hybrid hit@5 +0.014 and MRR -0.018 (English, shared); so not the default (docs/indexing.md).
OPENING_PASSAGES = "header+opening/1"
DEFAULT_PASSAGE_TEXT = WHOLE_PASSAGES
PASSAGE_TEXTS = (WHOLE_PASSAGES, PLAIN_PASSAGES, OPENING_PASSAGES)
# Tokens are estimated: a CJK character ~0.7 of a token (XLM-R pieces), other text ~4 characters a token.
OPENING_TOKENS = 220
_CJK_COST, _OTHER_COST = 0.7, 0.25
_HEADING_CHARS = 80


def passage_header(meta: DocumentMeta | None, heading: str | None) -> str:
    """One line naming where a passage is printed — company, form, fiscal year and the section's heading as printed
    ("Best Buy Co., Inc. 10-K FY2023. Consolidated Statements of Cash Flows") — so that a passage's vector also
    says whose filing and which statement it comes from (a page of figures rarely names either)."""
    parts: list[str] = []
    if meta is not None:
        year = None if meta.year is None else (f"{meta.year}年" if meta.language == "zh" else f"FY{meta.year}")
        parts = [p for p in (meta.company, meta.form, year) if p]
    head = " ".join(parts)
    if heading:
        heading = " ".join(heading.split())[:_HEADING_CHARS]
        head = f"{head}. {heading}" if head else heading
    return head


def dense_text(chunk: StoredChunk, meta: DocumentMeta | None) -> str:
    """What the dense model embeds for a chunk by default: its :func:`passage_header`, then its text."""
    return embedded_text(chunk.text, chunk.heading, meta, DEFAULT_PASSAGE_TEXT)


def opening(text: str, tokens: float = OPENING_TOKENS) -> str:
    """The start of ``text`` up to about ``tokens`` model tokens, cut at a space when there is one nearby."""
    spent = 0.0
    for end, char in enumerate(text):
        spent += _CJK_COST if CJK.match(char) else _OTHER_COST
        if spent > tokens:
            space = text.rfind(" ", max(0, end - 40), end)
            return text[: space if space > 0 else end]
    return text


def embedded_text(text: str, heading: str | None, meta: DocumentMeta | None, passage_text: str) -> str:
    """What is embedded for a chunk's text and heading under an index's ``passage_text`` setting (one of
    :data:`PASSAGE_TEXTS`)."""
    header = "" if passage_text == PLAIN_PASSAGES else passage_header(meta, heading)
    if passage_text == OPENING_PASSAGES:
        text = opening(text)
    return f"{header}\n{text}" if header else text
