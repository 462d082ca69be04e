"""Company, form and period end are established only where two places in the filing print them."""

from indexer.core.models import Box, Line, Page, Span
from indexer.ingest.chunk import ChunkSettings, mark_furniture
from indexer.ingest.cover_agreement import core, is_name, places, settle_company
from indexer.ingest.metadata import describe
from indexer.ingest.parse import PdfParser
from tests.conftest import BESTBUY_10Q, SIFANG
from tests.test_established import WITH_NOTES as ELIXIR


def _described(pdf):  # type: ignore[no-untyped-def]
    return describe(pdf.name, mark_furniture(PdfParser().parse(pdf), ChunkSettings()))


def test_a_ten_q_cover_agrees_with_its_signatures_page() -> None:
    meta = _described(BESTBUY_10Q)
    assert meta["company"] == "BEST BUY CO., INC." and meta["company_verified"] is True
    where = {place.where: place for place in meta["established"]["company"]}  # type: ignore[index]
    assert where["cover"].page == 1 and where["signature"].page == 26
    assert where["signature"].text == "BEST BUY CO., INC." and where["signature"].bbox.top > 0
    assert meta["form_verified"] is True and meta["period_end_verified"] is True
    (end,) = meta["established"]["period_end"]  # type: ignore[index]
    assert end.page == 3 and "July 29, 2023" in end.text  # the balance sheet's column header


def test_a_nianbao_short_name_agrees_with_its_profile() -> None:
    meta = _described(SIFANG)
    assert meta["company"] == "四方科技" and meta["company_verified"] is True
    assert {(p.where, p.page) for p in meta["established"]["company"]} >= {("profile", 4)}  # type: ignore[index]
    assert meta["period_end"] == "2019-12-31" and meta["period_end_verified"] is True


def test_a_name_from_five_statement_pages_alone_is_not_established() -> None:
    meta = _described(ELIXIR)  # pages 30-34 of an annual report: no cover, no running header on so few pages
    assert meta["company_verified"] is False
    assert "company" not in meta["established"]  # type: ignore[operator]


def test_headings_roles_and_descriptions_are_not_names() -> None:
    for phrase in ("Management's", "a German stock corporation", "Chief Executive Officer", "Annual Report"):
        assert not is_name(phrase), phrase
    assert is_name("Commerzbank Aktiengesellschaft") and is_name("四方科技")
    assert core("The Boeing Company") == " boeing " and core("MGM Resorts International and Subsidiaries") == (
        " mgm resorts international "
    )


def _page(number: int, texts: list[str], furniture: bool = False) -> Page:
    lines = []
    for row, text in enumerate(texts):
        box = Box(page=number, x0=50, top=40 + 20 * row, x1=400, bottom=52 + 20 * row)
        lines.append(Line(text=text, box=box, spans=[Span(text=text, box=box)], furniture=furniture))
    return Page(number=number, width=612, height=792, lines=lines)


def test_the_first_candidate_two_places_print_wins() -> None:
    pages = [
        _page(1, ["Management's Report", "Acme Holdings plc", "a subsidiary of Big Parent Corp"]),
        _page(2, ["Acme Holdings plc Annual Report 2023"], furniture=True),
        _page(3, ["To the members of Acme Holdings plc", "Opinion"]),
    ]
    found = places(pages, cover_pages={1})
    settled = settle_company(["Management's", "Big Parent Corp", "Acme Holdings plc"], found)
    assert settled.value == "Acme Holdings plc" and settled.verified
    assert [(p.where, p.page) for p in settled.places] == [("cover", 1), ("header", 2), ("auditor_report", 3)]
    alone = settle_company(["Big Parent Corp"], found)  # printed on the cover only
    assert alone.value == "Big Parent Corp" and not alone.verified


def test_thousands_of_self_naming_lines_cost_a_bounded_number_of_names(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """12 pages of 900 lines each naming another company as a filing names itself ("To the members of Company 17
    Limited"): each name was looked for in every naming place (names × places); now the first 40 are weighed."""
    import time

    from indexer.ingest import cover_agreement
    from tests.hostile_docs import many_names

    pdf = tmp_path / "names.pdf"
    pdf.write_bytes(many_names(900, pages=12))
    pages = mark_furniture(PdfParser().parse(pdf), ChunkSettings())
    assert len(cover_agreement.self_named(pages)) == cover_agreement.MAX_NAMES
    started = time.monotonic()
    described = describe(pdf.name, pages)
    assert time.monotonic() - started < 10
    assert not str(described["company"]).lower().startswith("to the members")  # an addressee line is not a name
