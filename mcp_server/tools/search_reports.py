"""search_reports: passages found by words and meaning, best first, each with its document, page and box."""

from __future__ import annotations

from pydantic import BaseModel, Field

from indexer.answers import (
    SearchHead,
    SearchResult,
)
from indexer.core.models import BODY, Box, wire_json
from indexer.search.request import SearchRequest
from indexer.search.retrieve import Hit
from mcp_server.briefs import box_text, enclosing, page_citation, shortened
from mcp_server.file_text import name_text
from mcp_server.renderings import SEARCH_DETAIL, Form
from mcp_server.snippets import matched_passage
from mcp_server.tool_registry import CITE, Declared, ToolDocs

SEARCH_TEXT_BUDGET = 6_600  # characters of passages and rows shown for a top-5 search (more hits: MIN_PER_HIT each)


MIN_PER_HIT = 400


ROW_CHARS = 200  # the matched table row as text (headers included), cut beyond this


HEADER_CHARS = 60  # a column header shown with its cell, at most


PASSAGE_CHARS = 320  # a hit's matched sentences or rows and its row hint (search is most of what agents read)


MIN_PASSAGE_CHARS = 160  # … of which the passage keeps at least this


SURVEY_CHARS = 1_500  # a survey (detail="pages") of 10 hits, in either rendering


SURVEY_SLACK = 40  # … less this for the escapes a client's JSON may add


MIN_SURVEY_LINE_CHARS = 24


SURVEY_LINE_CHARS = 120  # a survey hit's best sentence, at most


class PassageBrief(BaseModel):
    """A hit as shown: where to cite it, the passage text (cut to share the answer's budget) and one box."""

    document: str
    page: int = Field(description="1-based page to cite")
    printed: int | None = Field(description="the page number printed on that page, where it differs")
    section: str | None = Field(description="income_statement, balance_sheet, mdna, notes, … if known")
    parent_only: bool = Field(description="from a statement or note of the parent company alone, not the group's")
    kind: str | None = Field(description="null for body text; contents, boilerplate (ranked last) or table_row")
    score: float
    weak: bool = Field(description="shares none of the question's key terms: a near miss, not the answer")
    bbox: Box | None = Field(description="one box around the passage's lines (PDF points, top-left origin)")
    row: str | None = Field(description="the table row on the page that best matches the query, with its headers")
    text: str = Field(
        description="the sentences or rows of the passage that match the query, as printed (… marks what is left out)"
    )


class PagePointer(BaseModel):
    """A hit in survey mode (``detail="pages"``): where it is, and its best sentence."""

    document: str
    page: int
    section: str | None
    line: str = Field(description="the sentence or row of the passage that matches best, cut")


class SearchBrief(SearchHead):
    hits: list[PassageBrief] | list[PagePointer]


def _row_text(hit: Hit) -> str | None:
    row = hit.table_row
    if row is None:
        return None
    cells = " | ".join(
        f"{cell.header}: {cell.text}" if cell.header and len(cell.header) <= HEADER_CHARS else cell.text
        for cell in row.cells
    )  # a "header" longer than a heading is prose read above the table
    return shortened(f"{row.label} | {cells}" if cells else row.text, ROW_CHARS)


def passage_head(rank: int, brief: PassageBrief) -> str:
    """A hit's first line in the text: rank, citation, section and kind, score."""
    section = name_text(brief.section) if brief.section else None
    parent = "parent company" if brief.parent_only else None
    labels = [
        label for label in (section, parent, brief.kind, "WEAK: shares no key term" if brief.weak else None) if label
    ]
    return (
        f"[{rank}] {name_text(brief.document)} {page_citation(brief.page, brief.printed)}"
        + "".join(f" · {label}" for label in labels)
        + (f" · score {brief.score:.4f}")
    )


def _passage(rank: int, hit: Hit, budget: int) -> PassageBrief:
    brief = PassageBrief(
        document=hit.document,
        page=hit.page,
        printed=hit.source.printed_page,
        section=hit.section,
        parent_only=hit.parent_only,
        kind=hit.kind if hit.kind != BODY else None,
        score=round(hit.score, 4),
        weak=hit.weak,
        bbox=enclosing(hit.boxes),
        row=_row_text(hit),
        text="",
    )
    room = min(budget, PASSAGE_CHARS) - (len(brief.row) if brief.row else 0)
    brief.text = matched_passage(hit.content, _terms(hit), max(room, MIN_PASSAGE_CHARS))
    return brief


def _terms(hit: Hit) -> list[str]:
    """The query's terms and figures as the passage prints them (its highlights)."""
    return list(dict.fromkeys(h.text for h in hit.highlights))


def _pointer(hit: Hit, limit: int) -> PagePointer:
    line = matched_passage(hit.content, _terms(hit), limit).replace("\n", " ")
    return PagePointer(document=hit.document, page=hit.page, section=hit.section, line=line)


def _survey_line_chars(result: SearchResult) -> int:
    """What each survey line's sentence may hold so that the survey fits SURVEY_CHARS in either rendering (its
    structuredContent, the larger, counted without the sentences), at most SURVEY_LINE_CHARS."""
    hits = result.hits
    bare = [PagePointer(document=h.document, page=h.page, section=h.section, line="") for h in hits]
    head = SearchBrief(**result.model_dump(include=set(SearchHead.model_fields)), hits=bare)
    room = SURVEY_CHARS - SURVEY_SLACK - len(wire_json(head))
    return max(min(SURVEY_LINE_CHARS, room // max(len(hits), 1)), MIN_SURVEY_LINE_CHARS)


def search_brief(result: SearchResult, survey: bool = False) -> SearchBrief:
    hits = result.hits
    per_hit = max(SEARCH_TEXT_BUDGET // max(len(hits), 1), MIN_PER_HIT)
    shown: list[PassageBrief] | list[PagePointer]
    if survey:
        line_chars = _survey_line_chars(result)  # once: it measures the whole survey
        shown = [_pointer(hit, line_chars) for hit in hits]
    else:
        shown = [_passage(rank, hit, per_hit) for rank, hit in enumerate(hits, start=1)]
    return SearchBrief(**result.model_dump(include=set(SearchHead.model_fields)), hits=shown)


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


DOCS = ToolDocs(
    does=(
        "hybrid search (BM25 + e5, query expansion across English and Chinese, routing, fusion) with "
        "`company`, `year`, `form`, `broker`, `documents` filters and a regex mode: the best passage of each "
        "page with document, 1-based page, one box per line, highlights and the best-matching table row"
    ),
    arguments=(
        '`query`, `top_k` (1–20, default 5), `documents` (file-name glob such as `"*2022*"`), `company` '
        "(name, ticker or stock code), `year`, `form` (`10-K`, `10-Q`, `8-K`, `earnings release`, `年报`, "
        "`研报`), `broker` (research notes of one broker), `use_regex`, `detail` (`compact`, `pages`, `full`)"
    ),
    returns=(
        "compact: `hits [{document, page, printed, section, parent_only, kind, score, weak, bbox, row, "
        "text}]` (`parent_only`: from a statement or note of the parent company alone, such as a 母公司资产负债表; "
        'the text says "parent company") (one box around the passage; the matched table row as text; the '
        "sentences or rows that match) or, with `pages`, `hits [{document, page, section, line}]`; `full`: "
        "the best passage of each page, best first: `content`, `source {document, page, printed_page, title, "
        "company}`, `bboxes [{page, x0, top, x1, bottom}]` (one per line), `highlights [{text, bbox}]` (the "
        "query's terms and figures, or the regex matches, inside the passage), `page_width`, `page_height`, "
        "`score`, `chunk_id`, `kind`, `section`, `table_row {text, label, cells [{column, header, text, "
        "bboxes}], bboxes}` (the best-matching table row on the page, with its column headers; see "
        "[Tables](#tables-rows-as-evidence)), `weak` (the passage shares none of the question's key terms, or "
        "the note applies); and per result `searched_documents`, `dense_search`, `still_embedding` (how many "
        "of the searched documents are not embedded yet) and `note` (see [When the answer is not "
        "there](#when-the-answer-is-not-there))"
    ),
)


TOOL = Declared(
    "search_reports",
    "Search the filings: keywords (BM25) and meaning, fused; English and Chinese terms and periods are expanded "
    "(1Q25 ↔ 2025年第一季度, capex ↔ 资本开支). Each page's best passage, best first, with document, page, "
    "section and a box. A company, year or form named in the query narrows it, as do the filters. To "
    f"compare filings, search each. {CITE}",
    SearchBrief,
    request=SearchRequest,
    full=SearchResult,
    detail=SEARCH_DETAIL,
    with_coverage=True,
    forms={
        SearchResult: Form(lambda r, detail: search_brief(r, survey=detail == "pages"), lambda r, b: search_text(b))
    },
    docs=DOCS,
)
