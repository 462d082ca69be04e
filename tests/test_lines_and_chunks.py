import itertools

from indexer.core.models import Box, Line, Page, Span
from indexer.ingest.chunk import (
    ChunkSettings,
    chunk_document,
    chunk_page,
    estimate_tokens,
    is_boilerplate,
    is_contents_page,
    mark_furniture,
)
from indexer.ingest.lines import RawItem, group_lines


def _line(text: str, top: float, page: int = 1, x0: float = 50.0) -> Line:
    box = Box(page=page, x0=x0, top=top, x1=x0 + 6 * len(text), bottom=top + 10)
    return Line(text=text, box=box, spans=[Span(text=text, box=box)])


def test_items_on_one_baseline_form_one_line_left_to_right() -> None:
    items = [
        RawItem("1,175,301,034.32", 179.0, 470.1, 84.1, 10.5),
        RawItem("营业收入", 63.8, 469.7, 42.1, 10.5),
        RawItem("-4.49", 384.4, 470.1, 26.4, 10.5),
        RawItem("下一行", 63.8, 484.5, 30.0, 10.5),
    ]
    lines = group_lines(items, page=5)
    assert [line.text for line in lines] == ["营业收入 1,175,301,034.32 -4.49", "下一行"]
    first = lines[0].box
    assert (first.page, first.x0, first.top, first.x1) == (5, 63.8, 469.7, 384.4 + 26.4)
    assert [s.text for s in lines[0].spans] == ["营业收入", "1,175,301,034.32", "-4.49"]


def test_text_set_vertically_is_a_line_of_its_own() -> None:
    """The geometry of an ASX margin watermark (rotated 270°, 548 points tall) beside two statement rows."""
    items = [
        RawItem("Revenue", 30.0, 134.0, 40.0, 11.2),
        RawItem("14,761,523", 453.7, 134.0, 50.0, 11.2),
        RawItem("For personal use only", -4.0, 126.0, 67.0, 548.0, rotation=270.0),
        RawItem("Other income", 30.0, 146.5, 55.0, 11.2),
        RawItem("1,535,954", 455.0, 146.5, 48.0, 11.2),
    ]
    lines = group_lines(items, page=16)
    assert sorted(line.text for line in lines) == [
        "For personal use only",
        "Other income 1,535,954",
        "Revenue 14,761,523",
    ]


def test_adjacent_items_join_without_a_space() -> None:
    lines = group_lines([RawItem("Net", 10, 10, 20, 10), RawItem("income", 30.5, 10, 40, 10)], page=1)
    assert lines[0].text == "Netincome"
    lines = group_lines([RawItem("Net", 10, 10, 20, 10), RawItem("income", 34, 10, 40, 10)], page=1)
    assert lines[0].text == "Net income"


def test_blank_items_are_dropped() -> None:
    assert group_lines([RawItem("  ", 0, 0, 5, 5)], page=1) == []


def test_running_headers_and_page_numbers_are_furniture() -> None:
    pages = [
        Page(
            number=n,
            width=600,
            height=800,
            lines=[
                _line("ACME Corp Quarterly Report", 20, n),
                _line(f"Body text of page {n}", 300, n),
                _line(str(n), 780, n),
            ],
        )
        for n in range(1, 6)
    ]
    marked = mark_furniture(pages, ChunkSettings())
    for page in marked:
        assert [line.furniture for line in page.lines] == [True, False, True]
    chunks = chunk_page("doc.pdf", "ab" * 32, marked[2], ChunkSettings())
    assert [c.text for c in chunks] == ["Body text of page 3"]


def test_long_pages_split_with_overlap_and_keep_line_boxes() -> None:
    lines = [_line(f"Line {i} " + "revenue grew strongly " * 8, 40 + 12 * i) for i in range(40)]
    page = Page(number=7, width=600, height=800, lines=lines)
    settings = ChunkSettings(max_tokens=120, overlap_lines=1)
    chunks = chunk_page("doc.pdf", "cd" * 32, page, settings)
    assert len(chunks) > 3
    assert all(c.page == 7 for c in chunks)
    assert all(estimate_tokens(c.text) <= 120 + estimate_tokens(lines[0].text) for c in chunks)
    for before, after in itertools.pairwise(chunks):
        assert after.text.splitlines()[0] == before.text.splitlines()[-1]  # one line of overlap
    assert all(len(c.boxes) == len(c.text.splitlines()) for c in chunks)
    covered = {line for c in chunks for line in c.text.splitlines()}
    assert covered == {line.text for line in lines}
    assert len({c.chunk_id for c in chunks}) == len(chunks)


def test_contents_page_is_detected() -> None:
    entries = ["Business 3", "Risk Factors 9", "Properties 21", "Legal Proceedings 22", "Market 23", "MD&A 25"]
    lines = [_line("Table of Contents", 40)] + [_line(t, 60 + 15 * i) for i, t in enumerate(entries)]
    assert is_contents_page(lines)
    assert not is_contents_page([_line("Revenue was $9,583 million in the quarter", 60 + i * 15) for i in range(8)])


def test_a_statement_with_dotted_leaders_is_no_contents_page() -> None:
    # Adobe's FY2015 balance sheet runs dotted leaders to its figures, as a contents page runs them to page numbers
    rows = ["Cash and cash equivalents", "Short-term investments", "Trade receivables", "Prepaid expenses", "Goodwill"]
    lines = [_line("CONSOLIDATED BALANCE SHEETS", 40)] + [
        _line(f"{label}{'.' * 40} $ {876 + i},560 $ 1,117,{400 + i}", 60 + 15 * i) for i, label in enumerate(rows)
    ]
    assert not is_contents_page(lines)
    dotted = [_line(f"{label}{'.' * 40} {12 + 3 * i}", 60 + 15 * i) for i, label in enumerate(rows)]
    assert is_contents_page(dotted)


def test_disclaimers_are_boilerplate_but_figures_are_not() -> None:
    assert is_boilerplate(
        "分析师声明：本人具有中国证券业协会授予的证券投资咨询执业资格。请务必阅读正文之后的免责条款。"
    )
    assert not is_boilerplate("营业收入 1,175,301,034.32 1,230,537,181.80 -4.49")


def _page(number: int, texts: list[str]) -> Page:
    return Page(
        number=number, width=612, height=792, lines=[_line(t, 60 + 14 * i, number) for i, t in enumerate(texts)]
    )


def test_a_passage_never_spans_two_parts_of_a_filing_and_a_blank_page_keeps_its_place() -> None:
    sentence = "The Company designs, manufactures and sells commercial aircraft to airlines around the world each year."
    pages = [
        _page(1, ["PART I", "Item 1. Business", sentence, sentence]),
        _page(2, []),  # a blank page (a scanned insert, a separator)
        _page(3, [sentence, sentence, "Item 1A. Risk Factors", sentence, sentence, "Item 1B. Unresolved Comments"]),
        _page(4, ["Item 2. Properties", sentence, "Item 3. Legal Proceedings", sentence, sentence]),
    ]
    chunks = chunk_document("10-K.pdf", "ab" * 32, pages, ChunkSettings())
    on = {p: [(c.section, c.text.split("\n")[0]) for c in chunks if c.page == p] for p in (1, 2, 3, 4)}
    assert on[1] == [("business", "PART I")]  # a Part's heading is no passage of its own: it joins the Item's
    assert on[2] == []
    # the end of Item 1, then Item 1A with the heading of Item 1B too short to stand alone
    assert on[3] == [("business", sentence), ("risk_factors", "Item 1A. Risk Factors")]
    assert on[4] == [(None, "Item 2. Properties"), ("legal", "Item 3. Legal Proceedings")]
    assert len({c.chunk_id for c in chunks}) == len(chunks)
