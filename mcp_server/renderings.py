"""The text a calling model reads for each tool's result, and the structured content beside it: both compact and
citation-ready by default.

A tool answers twice: the text content carries a rendering — per passage its document, page, section, the text and
one box for the whole passage; per page its text and its tables as plain rows — and ``structuredContent`` carries the
same as data (``briefs.py``), because some clients (Claude Code) show the model only the structured content.
``detail="full"`` puts the whole typed result (every line box, highlight and cell) in the text as JSON and under
``full`` in the structured content; search's ``detail="pages"`` gives one line per hit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel

from indexer.answers import (
    ClaimChecks,
    DocumentList,
    Financials,
    Outline,
    PageRange,
    PageResult,
    QuoteLocation,
    RenderedPage,
    SearchResult,
)
from indexer.core.models import wire, wire_json
from indexer.evidence.section_text import SectionText
from mcp_server.briefs import (
    ClaimsBrief,
    PagePointer,
    PassageBrief,
    QuoteBrief,
    SearchBrief,
    TableBrief,
    box_text,
    claims_brief,
    page_brief,
    passage_head,
    quote_brief,
    search_brief,
)
from mcp_server.catalogue_briefs import DocumentBrief, DocumentsBrief, documents_brief
from mcp_server.file_text import name_text
from mcp_server.outline_briefs import NOTE_TITLE_CHARS, outline_brief, pages_of
from mcp_server.page_briefs import PagesBrief, pages_brief
from mcp_server.statement_briefs import financials_brief, financials_text

FULL_ANSWER_CHARS = 600_000  # one detail="full" answer's JSON (the largest dev page's is 130,000)
COMPACT_ANSWER_CHARS = 100_000  # one compact answer's text


class DetailArgument(NamedTuple):
    """A tool's ``detail`` argument: the forms a caller may ask for (a Literal; compact by default) and its help."""

    forms: Any
    help: str


DETAIL = DetailArgument(Literal["compact", "full"], "full: every box")
SEARCH_DETAIL = DetailArgument(Literal["compact", "pages", "full"], "pages: a line per hit, to survey; full: every box")


def search_text(result: SearchBrief) -> str:
    """The hits best first, each with where to cite it, the matched table row and the passage (cut to share the
    budget when long); in survey mode one line per hit."""
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
    if isinstance(hits[0], PagePointer):
        lines = [
            f"[{rank}] {name_text(hit.document)} p.{hit.page}"
            + (f" · {name_text(hit.section)}" if hit.section else "")
            + f" · {hit.line}"
            for rank, hit in enumerate(hits, start=1)
            if isinstance(hit, PagePointer)
        ]
        return "\n".join([*head, *lines, "Read a page with get_page, or search again with detail='compact'."])
    body = []
    for rank, hit in enumerate(hits, start=1):
        assert isinstance(hit, PassageBrief)
        lines = [passage_head(rank, hit)]
        if hit.bbox is not None:
            lines.append(f"box: {box_text(hit.bbox)}")
        if hit.row is not None:
            lines.append(f"row: {hit.row}")
        lines.append(hit.text)
        body.append("\n".join(lines))
    tail = "Cite as document p.N; get_page reads a whole page, locate_quote verifies a figure and gives its box."
    return "\n\n".join(["\n".join(head), *body, tail])


def table_text(number: int, table: TableBrief) -> str:
    """A table as plain rows: its title, the column headers once, then ``label: value | value``."""
    lines = [f"[table {number}] {name_text(table.title) if table.title else '(untitled)'} · {box_text(table.bbox)}"]
    if any(table.columns):
        lines.append("columns: " + " | ".join(column or "—" for column in table.columns))
    lines.extend(f"{row.label}: " + " | ".join(value or "—" for value in row.values) for row in table.rows)
    return "\n".join(lines)


def page_text(page: PageResult, tables: list[TableBrief], head: str | None = None) -> str:
    """The page's head (``head``, or its document, number and size), its text, then its tables as rows."""
    flags = [
        flag
        for flag, on in (
            ("no text layer (scanned): not searchable", not page.has_text),
            ("text layer is not the page's text: not searchable", page.unreadable),
            ("text read by OCR: check figures", page.ocr),
        )
        if on
    ]
    size = f"({page.width:.0f}×{page.height:.0f} pt)"
    head = head or f"{name_text(page.document)} p.{page.number} of {page.page_count} {size}"
    parts = [head + (f" · {'; '.join(flags)}" if flags else ""), page.text]
    if page.cut:
        parts.insert(1, f"CUT: {page.cut}")
    if tables:
        parts.append(f"Tables on this page ({len(tables)}), as rows:")
        parts.extend(table_text(n, table) for n, table in enumerate(tables, start=1))
    return "\n\n".join(parts)


def pages_text(result: PageRange, brief: PagesBrief) -> str:
    """A range of pages: one line naming them, then each page as :func:`page_text` writes it, headed [p.N]."""
    first, last = result.pages[0], result.pages[-1]
    span = f"p.{first.number}" + (f"–{last.number}" if last.number > first.number else "")
    head = f"{name_text(first.document)} {span} of {first.page_count}, each page headed [p.N]"
    return "\n\n".join(
        [head]
        + [
            page_text(page, shown.tables, f"[p.{page.number}] ({page.width:.0f}×{page.height:.0f} pt)")
            for page, shown in zip(result.pages, brief.pages, strict=True)
        ]
    )


def quote_text(found: QuoteBrief) -> str:
    verdict = "VERIFIED" if found.verified else "NOT VERIFIED"
    where = f"{name_text(found.document)} p.{found.page}"
    lines = [f"{verdict} ({found.match}) on {where}: {found.matched_text!r}" if found.matched_text else
             f"{verdict} on {name_text(found.document)} p.{found.requested_page}"]  # fmt: skip
    if found.note:
        lines.append(f"note: {found.note}")
    if found.context:
        lines.append(f"in: {found.context}")
    if found.bboxes:
        lines.append("boxes: " + "; ".join(box_text(box) for box in found.bboxes))
        if found.boxes_total > len(found.bboxes):
            lines.append(f"… and {found.boxes_total - len(found.bboxes)} more boxes (detail='full' lists them)")
    return "\n".join(lines)


def _document_line(doc: DocumentBrief) -> str:
    company = doc.names[0] + (f" ({' / '.join(doc.names[1:])})" if len(doc.names) > 1 else "") if doc.names else None
    facts = [company, doc.form, doc.period, doc.language, doc.broker]
    line = f"- {name_text(doc.document)}: " + " · ".join(name_text(f) for f in facts if f) + f" · {doc.pages} pages"
    if doc.not_searchable:
        line += f" ({doc.not_searchable} not searchable)"
    if doc.ocr_pages:
        line += f" ({doc.ocr_pages} read by OCR)"
    if doc.unconfirmed:
        line += f" ({', '.join(doc.unconfirmed).replace('_', ' ')} read once, not confirmed)"
    return line


def documents_text(listing: DocumentsBrief) -> str:
    semantic = "keyword + semantic search" if listing.dense_search else "keyword search only"
    if listing.still_embedding:
        semantic += f"; {len(listing.still_embedding)} still being embedded (marked *), found by their words meanwhile"
    head = f"{len(listing.documents)} documents, {listing.chunk_count} passages indexed ({semantic}):"
    waiting = set(listing.still_embedding)
    lines = (_document_line(meta) + (" *" if meta.document in waiting else "") for meta in listing.documents)
    return "\n".join([*([f"NOTE: {listing.note}"] if listing.note else []), head, *lines])


def rendered_text(info: RenderedPage) -> str:
    line = (
        f"{name_text(info.document)} p.{info.page} rendered at {info.width_px}×{info.height_px} px "
        f"({info.scale:.3f} px per pt); {len(info.highlighted)} box(es) highlighted"
    )
    return line if info.quote is None else f"{line}\n{quote_text(quote_brief(info.quote))}"


def outline_text(result: Outline) -> str:
    if not result.sections:
        return f"{name_text(result.document)}: no Part/Item, 节 or statement headings found; read it with get_page."
    notes = sum(section.kind == "note" for section in result.sections)
    counted = f"{len(result.sections) - notes} sections" + (f" and {notes} notes" if notes else "")
    lines = [f"{name_text(result.document)}: {counted} (read one with read_section and its key)"]
    for section in result.sections:
        pages = f"p.{pages_of(section)}"
        title = name_text(section.title[:NOTE_TITLE_CHARS] if section.kind == "note" else section.title)
        parent = " · parent company" if section.parent_only and not section.key.startswith("parent_") else ""
        lines.append(f"{'  ' * (section.level - 1)}- [{section.key}] {title} · {pages}{parent}")
    return "\n".join(lines)


def section_text(piece: SectionText) -> str:
    span = f"p.{piece.page_start}–{piece.page_end}" if piece.page_end > piece.page_start else f"p.{piece.page_start}"
    more = (
        f"\n[continues: read_section with cursor={piece.next_cursor!r}]" if piece.next_cursor else "\n[end of section]"
    )
    return f"{name_text(piece.document)} · {name_text(piece.title)} ({span})\n{piece.text}{more}"


def claims_text(result: ClaimsBrief) -> str:
    """One line per claim, in order: the verdict, the citation and what to do about it."""
    counts = ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in result.counts.items())
    lines = [f"{len(result.checks)} claim(s): {counts}."]
    for check in result.checks:
        where = f"{name_text(check.document)} p.{check.page or check.requested_page}"
        line = f"[{check.claim}] {check.status.upper().replace('_', ' ')} {where} {check.quote!r}"
        if check.status == "verified" and check.bbox is not None:
            line += f" · box {box_text(check.bbox)}"
        if check.note and (check.status != "verified" or check.page != check.requested_page):
            line += f" · {check.note}"
        if check.context:
            line += f" · in: {check.context}"
        lines.append(line)
    return "\n".join(lines)


@dataclass(frozen=True)
class _Form:
    """How one kind of result is answered compactly: its brief (the data), and the text rendered from it."""

    brief: Callable[[Any, str], BaseModel]
    text: Callable[[Any, Any], str]


def _itself(result: BaseModel, detail: str) -> BaseModel:
    return result  # a result that holds no boxes is its own brief (an outline, a section's text)


FORMS: dict[type[BaseModel], _Form] = {
    SearchResult: _Form(lambda r, detail: search_brief(r, survey=detail == "pages"), lambda r, b: search_text(b)),
    PageResult: _Form(lambda r, detail: page_brief(r), lambda r, b: page_text(r, b.tables)),
    PageRange: _Form(lambda r, detail: pages_brief(r), pages_text),
    QuoteLocation: _Form(lambda r, detail: quote_brief(r), lambda r, b: quote_text(b)),
    DocumentList: _Form(lambda r, detail: documents_brief(r), lambda r, b: documents_text(b)),
    Financials: _Form(lambda r, detail: financials_brief(r), lambda r, b: financials_text(b)),
    ClaimChecks: _Form(lambda r, detail: claims_brief(r), lambda r, b: claims_text(b)),
    Outline: _Form(lambda r, detail: outline_brief(r), lambda r, b: outline_text(r)),
    SectionText: _Form(_itself, lambda r, b: section_text(r)),
}
_AS_JSON = _Form(_itself, lambda r, b: wire_json(r))  # a result with no form of its own: itself, as JSON text


def answer_parts(result: BaseModel, detail: str) -> tuple[str, dict[str, Any]]:
    """The text content and the structured content of a result: compact both (the text rendered, the brief as
    data), or with ``detail="full"`` the whole result as JSON text and under ``full`` beside the brief."""
    form = FORMS.get(type(result), _AS_JSON)
    brief = form.brief(result, detail)
    structured = wire(brief)
    answers = len(result.pages) if isinstance(result, PageRange) else 1  # a range: each page one answer's budget
    if detail == "full":
        whole = wire_json(result)
        if len(whole) <= FULL_ANSWER_CHARS * answers:
            if brief is not result:
                structured["full"] = wire(result)
            return whole, structured
        over = (
            f"NOTE: the full answer ({len(whole):,} characters) is over the {FULL_ANSWER_CHARS * answers:,} one answer "
            "holds; the compact one follows. Ask for less (one page, fewer claims, a lower limit) for every box.\n"
        )
        return over + _bounded(form.text(result, brief), answers), structured
    return _bounded(form.text(result, brief), answers), structured


def _bounded(text: str, answers: int = 1) -> str:
    """A compact text within its budget (the tools bound what they return; this is the last guard); ``answers``
    times that for a range of pages."""
    limit = COMPACT_ANSWER_CHARS * answers
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[cut at {limit:,} of {len(text):,} characters: ask for less]"
