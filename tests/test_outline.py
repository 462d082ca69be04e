"""A filing's outline from the headings in its body, and a section's text in pieces — on the committed samples."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from indexer.core.errors import NotFoundError
from indexer.core.models import Box, Line, Span
from indexer.evidence.outline import Section, _reports, outline
from indexer.evidence.section_text import section_piece
from indexer.ingest.chunk import ChunkSettings, mark_furniture
from indexer.ingest.parse import PdfParser
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import SectionRequest
from tests.conftest import BESTBUY_10Q, BROKER, MGM, SHARED, SIFANG, call_tools

DOWNER = Path(__file__).parent / "pdfs" / "downer_edi_2022_p61-67.pdf"  # see tests/pdfs/README.md
MCDONALDS = Path(__file__).parent / "pdfs" / "mcdonalds_2022_10k_p2_p8-10.pdf"


def _sections(kb: KnowledgeBase, document: str) -> list[tuple[str, str, int, int, int]]:
    """The outline without the notes one by one (tests/test_outline_notes.py has those)."""
    return [(s.kind, s.key, s.level, s.page_start, s.page_end) for s in kb.outline(document) if s.kind != "note"]


def test_a_10q_outline_has_its_parts_items_and_statements(samples_kb: KnowledgeBase) -> None:
    kb = samples_kb
    assert _sections(kb, BESTBUY_10Q.name) == [
        ("part", "I", 1, 3, 24),
        ("item", "1", 2, 3, 14),
        ("statement", "balance_sheet", 3, 3, 3),
        ("statement", "income_statement", 3, 4, 4),
        ("statement", "comprehensive_income", 3, 5, 5),
        ("statement", "cash_flow", 3, 6, 6),
        ("statement", "equity", 3, 7, 7),
        ("notes", "notes", 3, 8, 14),
        ("item", "2", 2, 14, 23),
        ("item", "3", 2, 24, 24),
        ("item", "4", 2, 24, 24),
        ("part", "II", 1, 24, 30),
        ("item", "II.1", 2, 24, 24),  # Part II numbers its Items from 1 again
        ("item", "II.2", 2, 25, 25),
        ("item", "5", 2, 25, 25),
        ("item", "6", 2, 25, 30),
    ]
    titles = {s.key: s.title for s in kb.outline(BESTBUY_10Q.name)}
    assert titles["2"].startswith("Item 2. Management's Discussion and Analysis")
    assert titles["balance_sheet"] == "Condensed Consolidated Balance Sheets"


ETHERNITY = SHARED / "eval" / "dev" / "en" / "pdfs" / "erc_ethernity_networks_e51b7204.pdf"


def test_an_annual_report_of_another_country_has_its_own_sections() -> None:
    """Ethernity Networks' annual report (AIM-listed, no Parts or Items): the sections its contents page (p.3)
    lists, each where the printed page it gives (PDF page = printed + 2) carries its heading, under the usual keys
    where the title is a usual one; the statements beneath them — and not the "Balance Sheet" paragraph of its
    financial review (page 12). Its statement of comprehensive income prints revenue and the loss for the year: it
    is the income statement. Without the contents page, the usual titles alone give five of the eight, and a
    "Principal risks" line inside the directors' report."""
    lines = [page.lines for page in mark_furniture(PdfParser().parse(ETHERNITY), ChunkSettings())]
    sections = [(s.kind, s.key, s.level, s.page_start) for s in outline(lines)]
    assert sections[:8] == [
        ("report", "statutory_and_other_information", 1, 4),
        ("report", "chairmans_statement", 1, 5),
        ("report", "ceo_review", 1, 6),
        ("report", "management_report", 1, 8),  # "Financial Review"
        ("report", "board_of_directors", 1, 16),
        ("report", "governance", 1, 18),
        ("report", "directors_report", 1, 24),
        ("report", "statement_of_directors_responsibilities", 1, 25),
    ]
    bodies = [[line for line in page if not line.furniture] for page in lines]
    titled = [(c.key, c.page) for c in _reports(bodies)]
    assert titled == [("chairmans_statement", 5), ("ceo_review", 6), ("management_report", 8), ("governance", 18),
                      ("directors_report", 24), ("risk_report", 24)]  # fmt: skip
    statements = [(key, level, start) for kind, key, level, start in sections if kind == "statement"]
    assert statements == [("balance_sheet", 2, 30), ("income_statement", 2, 31), ("equity", 2, 32),
                          ("cash_flow", 2, 33)]  # fmt: skip


def test_a_notes_title_with_its_page_number_after_a_bar_starts_the_notes() -> None:
    """Downer EDI's report heads its first notes page "Notes to the consolidated financial statements | 65": the
    page's number after a bar is no entry of a contents page, and the notes start there (p.5 of the cut)."""
    lines = [page.lines for page in mark_furniture(PdfParser().parse(DOWNER), ChunkSettings())]
    sections = [(s.kind, s.key, s.page_start) for s in outline(lines)]
    assert sections == [("statement", "income_statement", 1), ("statement", "balance_sheet", 2),
                        ("statement", "equity", 3), ("statement", "cash_flow", 4), ("notes", "notes", 5)]  # fmt: skip
    notes = outline(lines)[-1]
    assert notes.title == "Notes to the consolidated financial statements" and notes.page_end == 7  # no folio


def test_a_section_indented_under_another_in_the_contents_is_one_level_below_it() -> None:
    """McDonald's prints its 10-K as an annual report, without Item headings: its contents page lists "Management's
    Discussion and Analysis …" (printed page 8, PDF page 2 of the cut) and, indented under it, "Management's View
    of the Business", "Strategic Direction" (9) and "Outlook" (10). The MD&A runs over its sub-sections, which are
    a level below it; before, all four were level 1 and the MD&A ended where its first sub-section began."""
    lines = [page.lines for page in mark_furniture(PdfParser().parse(MCDONALDS), ChunkSettings())]
    sections = [(s.key, s.level, s.page_start, s.page_end) for s in outline(lines)]
    assert sections == [("management_report", 1, 2, 4), ("management_s_view_of_the_business", 2, 2, 3),
                        ("strategic_direction", 2, 3, 4), ("outlook", 2, 4, 4)]  # fmt: skip


def test_a_chinese_annual_report_outline_has_its_chapters(samples_kb: KnowledgeBase) -> None:
    kb = samples_kb
    assert [(s.key, s.title, s.page_start) for s in kb.outline(SIFANG.name)] == [
        ("第一节", "第一节 释义", 4),
        ("第二节", "第二节 公司简介和主要财务指标", 4),
        ("第三节", "第三节 公司业务概要", 8),
        ("第四节", "第四节 经营情况讨论与分析", 10),
    ]  # the 目录 on page 3 lists them too, each with its page number: not headings
    assert [s.key for s in kb.outline(MGM.name)] == ["income_statement", "balance_sheet"]  # a release: statements
    assert kb.outline(BROKER.name) == []  # a research note has none of these headings


def _line(text: str, top: float) -> Line:
    return Line(text=text, box=Box(page=1, x0=50, top=top, x1=400, bottom=top + 10), spans=[])


def test_contents_pages_and_cross_references_are_not_headings() -> None:
    contents = [_line(t, 100 + 12 * i) for i, t in enumerate(
        ["PART I", "Item 1. Business 4", "Item 1A. Risk Factors 8", "Item 7. Management's Discussion 23", "PART II"]
    )]  # fmt: skip
    body = [
        [_line("PART I", 40), _line("Item 1. Business", 60), _line("Item 8. Financial Statements and", 300)],
        [_line("Item 1A. Risk Factors", 40)],
        [_line("Item 7. Management's Discussion and Analysis of results,", 300)],
        [_line("Item 7. Management's Discussion and Analysis", 40)],
        [_line("Item 8. Financial Statements", 40)],
    ]
    found = [(s.key, s.page_start) for s in outline([contents, *body])]
    # the contents page (its lines end in page numbers) is skipped; a line that starts with "Item 8." on page 2 breaks
    # the order of the Items and drops out; one that ends in a comma is a sentence going on, not a heading
    assert found == [("I", 2), ("1", 2), ("1A", 3), ("7", 5), ("8", 6)]


def test_a_section_is_read_in_pieces_through_mcp(samples_index_dir: Path, cache_dir: Path) -> None:
    kb = KnowledgeBase.open(samples_index_dir, cache_dir, with_embedder=False)
    first = kb.read_section(SectionRequest(document=BESTBUY_10Q.name, section="Item 2"))
    assert first.key == "2" and first.pages[0] == 14 and first.text.startswith("[p.14]\nItem 2. Management's")
    pieces, cursor = [first], first.next_cursor
    while cursor is not None:
        piece = kb.read_section(SectionRequest(document=BESTBUY_10Q.name, section="2", cursor=cursor))
        pieces.append(piece)
        cursor = piece.next_cursor
    assert len(pieces) >= 3 and all(len(p.text) <= 12_000 for p in pieces)
    whole = "\n".join(line for p in pieces for line in p.text.splitlines() if not line.startswith("[p."))
    page_23 = kb.page(BESTBUY_10Q.name, 23).text
    assert "Item 3. Quantitative" not in whole and whole.count("Item 2. Management's Discussion") == 1
    assert pieces[-1].pages[-1] == 23 and page_23.splitlines()[-1].strip() in whole  # to the end, nothing after

    outline_result, section, by_title, unknown, bad_cursor = call_tools(samples_index_dir, cache_dir, [
        ("get_outline", {"document": BESTBUY_10Q.name}),
        ("read_section", {"document": SIFANG.name, "section": "第三节"}),
        ("read_section", {"document": BESTBUY_10Q.name, "section": "legal proceedings"}),
        ("read_section", {"document": BESTBUY_10Q.name, "section": "Item 9"}),
        ("read_section", {"document": BESTBUY_10Q.name, "section": "2", "cursor": "x"}),
    ])  # fmt: skip
    text = outline_result.content[0].text
    assert "  - [2] Item 2. Management's Discussion" in text and "· p.14–23" in text
    assert outline_result.structured_content["sections"][0]["key"] == "I"
    assert section.structured_content["pages"] == [8, 9, 10] and "第三节 公司业务概要" in section.content[0].text
    assert by_title.structured_content["key"] == "II.1"
    assert unknown.is_error and "its sections: I (PART I" in unknown.content[0].text
    assert bad_cursor.is_error and "start again without a cursor" in bad_cursor.content[0].text


def test_a_document_without_sections_says_what_to_do(samples_kb: KnowledgeBase) -> None:
    with pytest.raises(NotFoundError, match="read it with get_page"):
        samples_kb.read_section(SectionRequest(document=BROKER.name, section="1"))


_TITLE = re.compile(r"balance sheets?|statements? of", re.I)


def test_statements_are_recognised_by_their_rows_when_no_heading_names_them() -> None:
    """The Best Buy 10-Q with every statement heading taken off its pages (as where a title is printed as a picture):
    the balance sheet, the income statement and the cash flow statement are still found, on their own pages, by the
    rows they print; the pages of the MD&A's tables and the notes are not taken for them."""
    pages = mark_furniture(PdfParser().parse(BESTBUY_10Q), ChunkSettings())
    bare = [[line for line in page.lines if not (_TITLE.search(line.text) and len(line.text) < 80)] for page in pages]
    assert sum(len(page.lines) for page in pages) - sum(len(lines) for lines in bare) >= 4
    found = {s.key: s.page_start for s in outline(bare) if s.kind == "statement"}
    with_titles = {s.key: s.page_start for s in outline([page.lines for page in pages]) if s.kind == "statement"}
    for key in ("balance_sheet", "income_statement", "cash_flow"):
        assert found[key] == with_titles[key]


def _page_lines(number: int, texts: list[str]) -> list[Line]:
    made = []
    for index, text in enumerate(texts):
        box = Box(page=number, x0=50, top=60 + 14 * index, x1=500, bottom=70 + 14 * index)
        made.append(Line(text=text, box=box, spans=[Span(text=text, box=box)]))
    return made


def test_an_income_statement_summary_up_front_gives_way_to_the_statement_among_the_others() -> None:
    """A Japanese annual report's key data at the front headed 'Income statement' (a five-year summary), and its
    IFRS statement of comprehensive income — revenue to profit, with 'profit from operating activities' — among the
    primary statements a hundred pages on: that one is the income statement."""
    summary = [
        "Income statement",
        "Revenue 995,940 1,128,914",
        "Profit before tax 44,933 97,162",
        "Basic earnings per share 89.44 266.83",
    ]
    balance = [
        "Consolidated Statement of Financial Position",
        "Total current assets 900,000 950,000",
        "Total assets 1,300,000 1,400,000",
        "Total liabilities 700,000 720,000",
        "Total equity 600,000 680,000",
    ]
    income = [
        "Consolidated Statement of Comprehensive Income",
        "Revenue 995,940 1,128,914",
        "Cost of sales (643,563) (710,462)",
        "Gross profit 352,377 418,451",
        "Profit from operating activities 47,654 94,479",
        "Profit before tax 44,933 97,162",
        "Profit for the period 30,995 92,302",
    ]
    cash = [
        "Consolidated Statement of Cash Flows",
        "Net cash provided by operating activities 140,000 150,000",
        "Net cash used in investing activities (60,000) (70,000)",
        "Net cash used in financing activities (50,000) (40,000)",
    ]
    filler = ["Our business", "Epson makes printers and projectors for homes and offices."]
    texts = [summary] + [filler] * 99 + [balance, income, cash]
    pages = [_page_lines(n, lines) for n, lines in enumerate(texts, start=1)]
    statements = {s.key: s.page_start for s in outline(pages) if s.kind == "statement"}
    assert statements == {"balance_sheet": 101, "income_statement": 102, "cash_flow": 103}


def test_a_contents_page_without_page_numbers_is_not_the_items() -> None:
    """A utility's 10-K contents lists every Item with its sub-headings and no page numbers; the Items start pages
    later. A page of short Items ('None.') is no contents page."""
    contents = [
        "Contents",
        "PART I",
        "ITEM 1. BUSINESS",
        "Regulatory Environment",
        "Competition",
        "ITEM 1A. RISK FACTORS",
        "ITEM 1B. UNRESOLVED STAFF COMMENTS",
        "ITEM 2. PROPERTIES",
        "ITEM 3. LEGAL PROCEEDINGS",
        "ITEM 4. MINE SAFETY DISCLOSURES",
        "PART II",
        "ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS",
        "ITEM 8. FINANCIAL STATEMENTS AND SUPPLEMENTARY DATA",
    ]
    business = ["PART I", "ITEM 1. BUSINESS", "The Company is a holding company whose subsidiary is a utility."]
    risks = ["ITEM 1A. RISK FACTORS", "Wildfires may harm the Company's business."]
    short = [
        "ITEM 1B. UNRESOLVED STAFF COMMENTS",
        "None.",
        "ITEM 2. PROPERTIES",
        "The Utility owns its plants.",
        "ITEM 3. LEGAL PROCEEDINGS",
        "See Note 14.",
        "ITEM 4. MINE SAFETY DISCLOSURES",
        "Not applicable.",
        "PART II",
        "ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS",
        "Revenue rose in the year.",
    ]
    statements = ["ITEM 8. FINANCIAL STATEMENTS AND SUPPLEMENTARY DATA", "Our statements follow."]
    texts = [contents, business, risks, short, statements]
    sections = outline([_page_lines(n, lines) for n, lines in enumerate(texts, start=1)])
    starts = {s.key: s.page_start for s in sections if s.kind == "item"}
    assert starts == {"1": 2, "1A": 3, "1B": 4, "2": 4, "3": 4, "4": 4, "7": 4, "8": 5}


@pytest.mark.parametrize("cursor", ["²", "١٢", "１２", "-1", "1e3", " 3"])
def test_a_forged_cursor_of_unicode_digits_gets_the_bad_cursor_error(cursor: str) -> None:
    """'²'.isdigit() is true and int('²') raises: every cursor the server did not give is the same clear error."""
    lines = [(1, line) for line in _page_lines(1, ["Item 7. Management's Discussion", "Revenue rose.", "Costs fell."])]
    section = Section(title="Item 7", level=2, page_start=1, page_end=1, kind="item", key="7")
    with pytest.raises(NotFoundError, match="is not one this section gave"):
        section_piece("10k.pdf", section, lines, cursor)


def test_the_outline_is_computed_at_build_time_and_read_back(
    samples_index_dir: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build keeps each document's outline beside its pages; the server reads it instead of computing it on the
    first call of each session, and an index without the file (built before) still gets its outline."""
    from indexer import knowledge_base
    from indexer.evidence.notes import document_outlines
    from indexer.index.layout import Layout
    from indexer.index.reader import load_index

    index = load_index(samples_index_dir, cache_dir)
    meta = index.documents[BESTBUY_10Q.name]
    kept = Layout(index.folder).outlines(meta.sha256)
    assert kept.is_file()
    computed = document_outlines([KnowledgeBase(index).page(meta.document, n).lines for n in range(1, meta.pages + 1)])

    def never(pages: object) -> object:
        raise AssertionError("computed again")

    monkeypatch.setattr(knowledge_base, "document_outlines", never)
    kb = KnowledgeBase(index)
    assert kb.outline(BESTBUY_10Q.name) == computed.sections and computed.sections
    assert any(s.kind == "statement" for s in computed.statements)
    monkeypatch.undo()
    monkeypatch.setattr(knowledge_base, "read_outlines", lambda folder, meta: None)  # an index built before
    assert KnowledgeBase(load_index(samples_index_dir, cache_dir)).outline(BESTBUY_10Q.name) == computed.sections


def test_each_primary_statement_in_the_outline_says_the_periods_its_columns_report(samples_kb: KnowledgeBase) -> None:
    """As get_financials reads the columns: a 10-Q's balance sheet at the quarter's end and the year's, its income
    statement over three and six months, its cash flows over six (each calendar end with its fiscal year)."""
    from indexer.requests import OutlineRequest

    sections = {s.key: s for s in samples_kb.get_outline(OutlineRequest(document=BESTBUY_10Q.name)).sections}
    assert sections["balance_sheet"].periods[:2] == ["2023-07-29 balance FY2024", "2023-01-28 balance FY2023"]
    assert sections["income_statement"].periods[0] == "2023-07-29 3m/6m FY2024"
    assert sections["cash_flow"].periods == ["2023-07-29 6m FY2024", "2022-07-30 6m FY2023"]
    assert all(not s.periods for s in sections.values() if s.kind != "statement")
