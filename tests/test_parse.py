"""Parsing the committed real PDFs: page numbers, text and boxes, checked against pdfplumber."""

from pathlib import Path

import pytest

from indexer.core.errors import DocumentError
from indexer.ingest.chunk import ChunkSettings
from indexer.ingest.documents import read_pdf
from indexer.ingest.metadata import describe
from indexer.ingest.parse import PdfParser
from tests.conftest import BESTBUY_10Q, BROKER, ROOT, SIFANG, text_under

WATERMARKED = ROOT / "tests" / "pdfs" / "watermark_statement.pdf"  # made for the tests: src/watermark_statement.html


@pytest.fixture(scope="module")
def parser() -> PdfParser:
    return PdfParser()


def test_pages_are_numbered_from_one_with_their_size(parser: PdfParser) -> None:
    pages = parser.parse(BESTBUY_10Q)
    assert [p.number for p in pages] == list(range(1, 31))
    assert (pages[0].width, pages[0].height) == (612.0, 792.0)


def test_first_page_of_the_10q_reads_form_and_registrant(parser: PdfParser) -> None:
    page = parser.parse(BESTBUY_10Q)[0]
    texts = [line.text for line in page.lines]
    assert "FORM 10-Q" in texts
    assert "BEST BUY CO., INC." in texts
    assert "For the quarterly period ended July 29, 2023" in texts


@pytest.mark.parametrize(
    ("pdf", "page_number", "needle"), [(BESTBUY_10Q, 1, "BEST BUY CO., INC."), (SIFANG, 5, "营业收入")]
)
def test_line_boxes_cover_the_same_words_as_pdfplumber(
    parser: PdfParser, pdf: Path, page_number: int, needle: str
) -> None:
    page = parser.parse(pdf)[page_number - 1]
    line = next(line for line in page.lines if line.text.startswith(needle))
    under_box = text_under(pdf, page_number, [line.box])
    assert under_box.replace(" ", "") == line.text.replace(" ", "")


def test_every_box_lies_inside_its_page(parser: PdfParser) -> None:
    for pdf in (BESTBUY_10Q, BROKER):
        for page in parser.parse(pdf):
            for line in page.lines:
                b = line.box
                assert b.page == page.number
                assert -1 <= b.x0 <= b.x1 <= page.width + 1
                assert -1 <= b.top <= b.bottom <= page.height + 1


def test_chinese_annual_report_table_row_keeps_its_figures(parser: PdfParser) -> None:
    page = parser.parse(SIFANG)[4]
    row = next(line for line in page.lines if line.text.startswith("营业收入"))
    assert row.text == "营业收入 1,175,301,034.32 1,230,537,181.80 -4.49 1,008,714,515.86"


def test_a_watermark_set_down_the_margin_stays_out_of_the_lines_and_rows(parser: PdfParser) -> None:
    """An ASX filing carries "For personal use only" rotated down the left margin of every page: its box spans most
    of the page's height, and grouped as a horizontal line it pulled every line beside it into one."""
    pages = read_pdf(parser, WATERMARKED, None, ChunkSettings())
    marks_of = lambda page: [line for line in page.lines if "personal use" in line.text]  # noqa: E731
    for page in pages:
        marks = marks_of(page)
        assert len(marks) == 1 and marks[0].furniture
        assert marks[0].box.bottom - marks[0].box.top > 250  # set vertically down the page
    assert [line.text for line in pages[0].lines if line not in marks_of(pages[0])] == [
        "WATTLE GRID TECHNOLOGIES LTD", "ABN: 12 345 678 901", "ANNUAL REPORT", "2024",
    ]  # fmt: skip
    revenue = next(row for table in pages[1].tables for row in table.rows if row.label == "Revenue")
    assert [cell.text for cell in revenue.cells][-2:] == ["12,480,310", "10,912,044"]
    assert text_under(WATERMARKED, 2, revenue.boxes).replace(" ", "") == "Revenue412,480,31010,912,044"  # note 4
    assets = next(row for table in pages[2].tables for row in table.rows if row.label == "Total assets")
    assert [cell.text for cell in assets.cells][-2:] == ["14,125,645", "12,239,905"]
    described = describe(WATERMARKED.name, pages)
    assert (described["company"], described["form"], described["period_end"]) == (
        "WATTLE GRID TECHNOLOGIES LTD", "annual report", "2024-06-30",
    )  # fmt: skip


def test_zero_byte_file_is_reported(parser: PdfParser, tmp_path: Path) -> None:
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    with pytest.raises(DocumentError, match="is empty"):
        parser.parse(empty)


def test_not_a_pdf_is_reported(parser: PdfParser, tmp_path: Path) -> None:
    fake = tmp_path / "notes.pdf"
    fake.write_text("quarterly notes, not a PDF")
    with pytest.raises(DocumentError, match="is not a PDF"):
        parser.parse(fake)


def test_truncated_pdf_is_reported_as_damaged(parser: PdfParser, tmp_path: Path) -> None:
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(BESTBUY_10Q.read_bytes()[:20000])
    with pytest.raises(DocumentError, match="damaged or truncated"):
        parser.parse(cut)


def test_encrypted_pdf_asks_for_a_password(parser: PdfParser, tmp_path: Path) -> None:
    from pypdf import PdfWriter

    locked = tmp_path / "locked.pdf"
    writer = PdfWriter(clone_from=str(BROKER))
    writer.encrypt(user_password="secret", owner_password="owner")
    writer.write(str(locked))
    with pytest.raises(DocumentError, match="encrypted"):
        parser.parse(locked)
    assert PdfParser(password="secret").parse(locked)[0].has_text


def test_ocr_without_local_language_data_refuses_instead_of_downloading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import indexer.ingest.parse as parse_module
    from indexer.core.errors import FilingsError

    monkeypatch.delenv("TESSDATA_PREFIX", raising=False)
    monkeypatch.setattr(parse_module, "_SYSTEM_TESSDATA", ())
    with pytest.raises(FilingsError, match="never downloads"):
        PdfParser(ocr=True, tessdata=tmp_path)
    (tmp_path / "chi_sim.traineddata").write_bytes(b"x")
    (tmp_path / "eng.traineddata").write_bytes(b"x")
    assert parse_module.find_tessdata(tmp_path) == tmp_path


def test_parses_on_several_threads_leave_the_environment_as_they_found_it(tmp_path: Path) -> None:
    """Each parse isolates the library's worker processes through the environment; threads entering and leaving out
    of order once left PYTHONSAFEPATH set for good, so a script started later lost its own folder from its path."""
    import os

    from indexer.ingest.build import build_index
    from indexer.ingest.settings import BuildSettings
    from tests.conftest import MGM, docs_folder

    before = {name: os.environ.get(name) for name in ("PYTHONSAFEPATH", "PYTHONNOUSERSITE")}
    docs = docs_folder(tmp_path / "docs", BESTBUY_10Q, SIFANG, BROKER, MGM)
    build_index(BuildSettings(index_dir=tmp_path / "idx", docs_dir=docs, embedder="none", progress=False,
                              cache_dir=tmp_path / "cache"))  # fmt: skip
    assert {name: os.environ.get(name) for name in before} == before
