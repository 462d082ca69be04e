"""locate_quote on real pages: tiers, number forms, digit boundaries, short quotes, neighbours, boxes."""

import pytest

from indexer.core.errors import QueryError
from indexer.core.models import Box, Line, Page, Span
from indexer.evidence.quotes import check_quote, locate, locate_on_page
from indexer.index.reader import LoadedIndex, document_meta, get_page
from tests.conftest import BESTBUY_10Q, SIFANG, text_under


def _page(*rows: list[str]) -> Page:
    lines = []
    for n, row in enumerate(rows):
        spans, x = [], 50.0
        for text in row:
            box = Box(page=1, x0=x, top=100 + 20 * n, x1=x + 6 * len(text), bottom=110 + 20 * n)
            spans.append(Span(text=text, box=box))
            x += 6 * len(text) + 12
        line_box = spans[0].box.union(spans[-1].box)
        lines.append(Line(text=" ".join(s.text for s in spans), box=line_box, spans=spans))
    return Page(number=1, width=600, height=800, lines=lines)


def test_exact_figure_in_a_chinese_table_and_its_box(samples_index: LoadedIndex) -> None:
    page = get_page(samples_index, SIFANG.name, 5)
    found = locate_on_page(page, "1,175,301,034.32")
    assert (found.verified, found.match, found.matched_text) == (True, "exact", "1,175,301,034.32")
    assert len(found.boxes) == 1
    assert text_under(SIFANG, 5, found.boxes, level="chars") == "1,175,301,034.32"


def test_multi_line_sentence_gets_one_box_per_line(samples_index: LoadedIndex) -> None:
    lines = [line.text for line in get_page(samples_index, BESTBUY_10Q.name, 17).lines]
    start = next(n for n, text in enumerate(lines) if "decrease in revenue" in text.lower())
    quote = lines[start] + " " + lines[start + 1]
    found = locate(lambda n: get_page(samples_index, BESTBUY_10Q.name, n), 30, 17, quote)
    assert found.verified and found.match == "exact" and len(found.boxes) == 2
    assert found.boxes[0].bottom <= found.boxes[1].top + 1
    under = text_under(BESTBUY_10Q, 17, found.boxes, level="chars").replace(" ", "")
    assert under == quote.replace(" ", "")


def test_a_changed_digit_or_another_number_is_never_verified(samples_index: LoadedIndex) -> None:
    page = get_page(samples_index, SIFANG.name, 5)
    for wrong in ("1,175,301,034.33", "1,230,537,181.81", "175,301,034.32", "1,175,301,034"):
        assert not locate_on_page(page, wrong).verified, wrong


def test_number_notations_are_reconciled() -> None:
    page = _page(["Revenue", "$52,000 million"], ["Net loss", "(1,234)"], ["净利润", "12,000万", "增长", "12.5%"])
    assert locate_on_page(page, "52.00B revenue").match == "numeric"
    assert locate_on_page(page, "$52 billion").verified
    assert locate_on_page(page, "net loss -1,234").verified
    assert locate_on_page(page, "净利润1.2亿").verified
    assert locate_on_page(page, "增长 12.5 %").verified
    assert not locate_on_page(page, "$53 billion").verified


def test_full_width_digits_and_cjk_keep_in_alphanumeric_tier() -> None:
    page = _page(["营业收入：", "1,175,301,034.32", "元"])
    assert locate_on_page(page, "营业收入１，１７５，３０１，０３４．３２元").verified
    assert locate_on_page(page, "营业收入 1,175,301,034.32元").verified


def test_short_quote_must_be_unique() -> None:
    page = _page(["Margin", "4%"], ["Growth", "4%"], ["Stores", "209"])
    ambiguous = locate_on_page(page, "4%")
    assert not ambiguous.verified and "ambiguous" in ambiguous.note and len(ambiguous.boxes) == 2
    assert locate_on_page(page, "209").verified
    assert not locate_on_page(page, "20").verified  # inside 209: a digit boundary


def test_neighbouring_page_is_tried_and_reported(samples_index: LoadedIndex) -> None:
    count = document_meta(samples_index, SIFANG.name).pages
    found = locate(lambda n: get_page(samples_index, SIFANG.name, n), count, 4, "1,175,301,034.32")
    assert found.verified and found.page == 5 and "neighbouring page 5" in found.note


def test_token_tier_is_not_verified() -> None:
    page = _page(["Capital", "expenditures", "were", "$1,577", "million"])
    found = locate_on_page(page, "Capital expenditures fell sharply to $1,577 million")
    assert found.match == "token" and not found.verified and found.boxes


@pytest.mark.parametrize("quote", ["", "   ", "x" * 5000])
def test_bad_quotes(quote: str) -> None:
    with pytest.raises(QueryError, match="quote"):
        check_quote(quote)
