"""The text a calling model reads for each tool's result: compact and citation-ready.

A tool answers twice: ``structuredContent`` carries the full typed result (every line box, highlight and cell) and
the text content carries this rendering — per passage its document, page, section, the text and one box for the whole
passage; per page its text and its tables as plain rows. ``detail="full"`` puts the whole JSON result in the text
instead, for clients that show the model only text and want every box.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from indexer.core.models import Box, DocumentMeta, Table, wire_json
from indexer.evidence.outline import SectionText
from indexer.search.retrieve import Hit
from mcp_server.types import (
    DocumentList,
    Financials,
    Outline,
    PageResult,
    QuoteLocation,
    RenderedPage,
    SearchResult,
)

Detail = Literal["compact", "full"]
DETAIL_HELP = (
    "compact (default): text to read and cite — passages, pages and tables as text, one box per passage; "
    "full: the whole typed result (every line box, highlight and cell) as JSON text. structuredContent is always full."
)

SEARCH_TEXT_BUDGET = 7_000  # characters of passages and rows shown for a top-5 search (more hits: MIN_PER_HIT each)
MIN_PER_HIT = 400
ROW_CHARS = 300  # the matched table row as text (headers included), cut beyond this
CUT = "…"


def _points(value: float) -> str:
    return f"{value:.0f}"


def box_text(box: Box) -> str:
    """A box as a citation: ``p.19 [x0 36, top 120, x1 576, bottom 210]`` (PDF points, top-left origin)."""
    return (
        f"p.{box.page} [x0 {_points(box.x0)}, top {_points(box.top)}, x1 {_points(box.x1)}, "
        f"bottom {_points(box.bottom)}]"
    )


def enclosing(boxes: Iterable[Box]) -> Box | None:
    """One box around all of ``boxes`` that are on the first one's page."""
    boxes = list(boxes)
    if not boxes:
        return None
    page = boxes[0].page
    out = boxes[0]
    for box in boxes[1:]:
        if box.page == page:
            out = out.union(box)
    return out


def _shortened(text: str, limit: int, around: str | None = None) -> str:
    """``text`` cut to about ``limit`` characters, keeping the part around ``around`` (a matched figure or term)
    when there is one; cuts are marked with an ellipsis."""
    text = text.strip()
    if len(text) <= limit:
        return text
    start = 0
    if around:
        at = text.find(around)
        if at > limit // 3:
            start = min(at - limit // 3, len(text) - limit)
    piece = text[start : start + limit]
    return (CUT if start > 0 else "") + piece.strip() + (CUT if start + limit < len(text) else "")


def _hit_text(rank: int, hit: Hit, budget: int) -> str:
    where = f"{hit.source.document} p.{hit.source.page}"
    kind = hit.kind if hit.kind != "body" else None
    labels = [label for label in (hit.section, kind, "WEAK: shares no key term" if hit.weak else None) if label]
    head = f"[{rank}] {where}" + (f" · {' · '.join(labels)}" if labels else "") + f" · score {hit.score:.4f}"
    lines = [head]
    box = enclosing(hit.boxes)
    if box is not None:
        lines.append(f"box: {box_text(box)}")
    if hit.table_row is not None:
        row = hit.table_row
        cells = " | ".join(f"{cell.header}: {cell.text}" if cell.header else cell.text for cell in row.cells)
        lines.append(f"row: {_shortened(f'{row.label} | {cells}' if cells else row.text, ROW_CHARS)}")
    used = sum(len(line) + 1 for line in lines)
    first = hit.highlights[0].text if hit.highlights else None
    lines.append(_shortened(hit.content, max(budget - used, MIN_PER_HIT // 2), around=first))
    return "\n".join(lines)


def search_text(result: SearchResult) -> str:
    """The hits best first, each with where to cite it, the matched table row and the passage (cut to share the
    budget when long)."""
    hits = result.hits
    scope = f"{result.searched_documents} document{'s' if result.searched_documents != 1 else ''}"
    semantic = "keyword + semantic" if result.dense_search else "keyword only"
    if result.dense_search and result.still_embedding:
        semantic += f"; {result.still_embedding} of them still being embedded, found by their words"
    head = [f'{len(hits)} passage{"s" if len(hits) != 1 else ""} for "{result.query}" from {scope} ({semantic}).']
    if result.note:
        head.insert(0, f"NOTE: {result.note}")
    if not hits:
        return "\n".join([*head, "Nothing matched: try other terms, fewer filters, or list_documents."])
    per_hit = max(SEARCH_TEXT_BUDGET // len(hits), MIN_PER_HIT)
    body = [_hit_text(rank, hit, per_hit) for rank, hit in enumerate(hits, start=1)]
    tail = "Cite as document p.N; get_page reads a whole page, locate_quote verifies a figure and gives its box."
    return "\n\n".join(["\n".join(head), *body, tail])


def table_text(number: int, table: Table) -> str:
    """A table as plain rows: its title, the column headers once, then ``label: value | value``."""
    lines = [f"[table {number}] {table.title or '(untitled)'} · {box_text(table.box)}"]
    if any(table.columns):
        lines.append("columns: " + " | ".join(column or "—" for column in table.columns))
    for row in table.rows:
        values = [""] * len(table.columns)
        for cell in row.cells:
            if cell.column < len(values):
                values[cell.column] = cell.text
        label = f"{row.group} › {row.label}" if row.group else row.label
        lines.append(f"{label}: " + " | ".join(value or "—" for value in values))
    return "\n".join(lines)


def page_text(page: PageResult) -> str:
    flags = [
        flag
        for flag, on in (
            ("no text layer (scanned): not searchable", not page.has_text),
            ("text layer is not the page's text: not searchable", page.unreadable),
            ("text read by OCR: check figures", page.ocr),
        )
        if on
    ]
    head = f"{page.document} p.{page.number} of {page.page_count} ({page.width:.0f}×{page.height:.0f} pt)"
    parts = [head + (f" · {'; '.join(flags)}" if flags else ""), page.text]
    if page.tables:
        parts.append(f"Tables on this page ({len(page.tables)}), as rows:")
        parts.extend(table_text(n, table) for n, table in enumerate(page.tables, start=1))
    return "\n\n".join(parts)


def quote_text(found: QuoteLocation) -> str:
    verdict = "VERIFIED" if found.verified else "NOT VERIFIED"
    where = f"{found.document} p.{found.page}"
    lines = [f"{verdict} ({found.match}) on {where}: {found.matched_text!r}" if found.matched_text else
             f"{verdict} on {found.document} p.{found.requested_page}"]  # fmt: skip
    if found.note:
        lines.append(f"note: {found.note}")
    if found.boxes:
        lines.append("boxes: " + "; ".join(box_text(box) for box in found.boxes[:20]))
        if len(found.boxes) > 20:
            lines.append(f"… and {len(found.boxes) - 20} more boxes (detail='full' lists them)")
    return "\n".join(lines)


def _document_line(meta: DocumentMeta) -> str:
    facts = [meta.company, meta.form, meta.period or (str(meta.year) if meta.year else None), meta.language]
    if meta.broker:
        facts.append(f"{meta.broker} {meta.rating or ''}".strip())
    line = f"- {meta.document}: " + " · ".join(f for f in facts if f) + f" · {meta.pages} pages"
    unsearchable = len(meta.pages_without_text) + len(meta.pages_unreadable)
    if unsearchable:
        line += f" ({unsearchable} not searchable)"
    if meta.pages_ocr:
        line += f" ({len(meta.pages_ocr)} read by OCR)"
    return line


def documents_text(listing: DocumentList) -> str:
    semantic = "keyword + semantic search" if listing.dense_search else "keyword search only"
    if listing.still_embedding:
        semantic += f"; {len(listing.still_embedding)} still being embedded (marked *), found by their words meanwhile"
    head = f"{len(listing.documents)} documents, {listing.chunk_count} passages indexed ({semantic}):"
    waiting = set(listing.still_embedding)
    lines = (_document_line(meta) + (" *" if meta.document in waiting else "") for meta in listing.documents)
    return "\n".join([head, *lines])


def rendered_text(info: RenderedPage) -> str:
    line = (
        f"{info.document} p.{info.page} rendered at {info.width_px}×{info.height_px} px "
        f"({info.scale:.3f} px per pt); {len(info.highlighted)} box(es) highlighted"
    )
    return line if info.quote is None else f"{line}\n{quote_text(info.quote)}"


def outline_text(result: Outline) -> str:
    if not result.sections:
        return f"{result.document}: no Part/Item, 节 or statement headings found; read it with get_page."
    lines = [f"{result.document}: {len(result.sections)} sections (read one with read_section and its key)"]
    for section in result.sections:
        pages = f"p.{section.page_start}" + (f"–{section.page_end}" if section.page_end > section.page_start else "")
        lines.append(f"{'  ' * (section.level - 1)}- [{section.key}] {section.title} · {pages}")
    return "\n".join(lines)


def section_text(piece: SectionText) -> str:
    span = f"p.{piece.page_start}–{piece.page_end}" if piece.page_end > piece.page_start else f"p.{piece.page_start}"
    more = (
        f"\n[continues: read_section with cursor={piece.next_cursor!r}]" if piece.next_cursor else "\n[end of section]"
    )
    return f"{piece.document} · {piece.title} ({span})\n{piece.text}{more}"


def financials_text(result: Financials) -> str:
    """Rows grouped by document, statement and page; per label its periods and printed figures (the typed rows with
    values in units, periods as dates and boxes are in structuredContent)."""
    head = f"{result.total_rows} figure(s) from {len(result.documents)} document(s)"
    lines = [head + (f" · NOTE: {result.note}" if result.note else "")]
    groups: dict[tuple[str, str, int], dict[str, list[str]]] = {}
    units: dict[tuple[str, str, int], str] = {}
    for row in result.rows:
        key = (row.document, row.statement, row.page)
        concept = f" [{row.concept}]" if row.concept else ""
        shown = f"{row.period or '(no header)'}: {row.value_printed}" + ("" if row.verified else " (unverified)")
        if row.scale is None:
            shown += " (no scale printed: not a value in units)"
        if row.xbrl_agrees is False:
            shown += f" (XBRL {row.xbrl_concept} tags {row.xbrl_value})"
        groups.setdefault(key, {}).setdefault(f"{row.label}{concept}", []).append(shown)
        if row.unit == "currency":
            units.setdefault(key, " ".join(part for part in (row.currency, row.scale) if part))
    for (document, statement, page), labels in groups.items():
        unit = units.get((document, statement, page))
        lines.append(f"\n{document} p.{page} · {statement}" + (f" · in {unit}" if unit else ""))
        lines.extend(f"- {label}: " + " | ".join(figures) for label, figures in labels.items())
    lines.append(
        "\nCite as document p.N. Each row's value in units, period end, fiscal year and boxes are in "
        "structuredContent (detail='full' prints them)."
    )
    return "\n".join(lines)


Answer = SearchResult | PageResult | QuoteLocation | DocumentList | Outline | SectionText | Financials


def as_text(result: Answer, detail: Detail) -> str:
    """The text content of a result: its compact rendering, or with ``detail="full"`` its whole JSON."""
    if detail == "full":
        return wire_json(result)
    if isinstance(result, SearchResult):
        return search_text(result)
    if isinstance(result, PageResult):
        return page_text(result)
    if isinstance(result, QuoteLocation):
        return quote_text(result)
    if isinstance(result, Outline):
        return outline_text(result)
    if isinstance(result, SectionText):
        return section_text(result)
    if isinstance(result, Financials):
        return financials_text(result)
    return documents_text(result)
