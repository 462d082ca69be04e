"""An annual report's sections from its own contents page: printed page numbers through the folios to PDF pages."""

from pathlib import Path

from indexer.core.folios import read_folios
from indexer.core.models import Box, Line, Span
from indexer.evidence.contents import contents_entries
from indexer.evidence.outline import outline
from indexer.ingest.chunk import ChunkSettings, mark_furniture
from indexer.ingest.parse import PdfParser

GALILEO = Path(__file__).parent / "pdfs" / "galileo_resources_2022_p1-8.pdf"


def _lines() -> list[list[Line]]:
    return [page.lines for page in mark_furniture(PdfParser().parse(GALILEO), ChunkSettings())]


def test_folios_map_printed_pages_to_pdf_pages() -> None:
    folios = read_folios(_lines())
    assert folios.printed[4] == 3 and folios.printed[8] == 7  # the cover is unnumbered: PDF page = printed + 1
    assert folios.pdf_page(5, pages=8) == 6
    assert folios.pdf_page(19, pages=8) is None  # the Directors' Report (printed 19) is past this cut


def test_contents_entries_are_read_from_the_contents_page() -> None:
    bodies = [[line for line in page if not line.furniture] for page in _lines()]
    pages, entries = contents_entries(bodies)
    assert pages == [2]
    listed = {entry.title: entry.printed for entry in entries}
    assert listed["Chairman's Report"] == 3 and listed["Directors' Report"] == 19
    assert "Notes to the Financial Statements" not in listed  # printed 43: past this 8-page cut, so a figure


def test_sections_start_where_the_contents_and_the_heading_agree() -> None:
    sections = outline(_lines())
    starts = {section.title: section.page_start for section in sections}
    assert starts == {"Chairman's Report": 4, "Operations Report": 6}
    # "Directors, Officers and Advisers" is listed at printed page 2 (PDF page 3), which is headed
    # "Corporate Information": an entry whose heading is not on its page adds no section
    assert all(section.page_start != 2 for section in sections)  # the contents page itself starts nothing


def _line(text: str, top: float, furniture: bool = False) -> Line:
    box = Box(page=1, x0=50, top=top, x1=300, bottom=top + 10)
    return Line(text=text, box=box, spans=[Span(text=text, box=box)], furniture=furniture)


def test_a_restarted_numbering_and_a_stray_number_are_not_folios() -> None:
    pages = [[_line("Cover", 100)], [_line("Contents", 100)]]  # unnumbered, then pages 3-12 printed 1-10
    pages += [[_line("Body text", 100), _line(str(n - 2), 700, furniture=True)] for n in range(3, 13)]
    pages[4][1] = _line("950", 700, furniture=True)  # a stray number where page 3 is printed
    pages += [[_line("Exhibit", 100), _line(str(n), 700, furniture=True)] for n in range(1, 5)]  # exhibits from 1
    folios = read_folios(pages)
    assert folios.printed[3] == 1 and folios.printed[12] == 10
    assert 5 not in folios.printed and 13 not in folios.printed
    assert folios.pdf_page(3, pages=len(pages)) == 5  # the stray page still takes its run's offset


def test_a_contents_bomb_is_read_in_time_proportional_to_its_lines(tmp_path: Path) -> None:
    """12 contents pages of 700 entries each, every entry naming a page of 700 lines that start like the entries:
    comparing each entry with each line of its page took a minute; looked up by their first characters, and past
    400 entries no longer followed, they take a fraction of a second. What is confirmed is still a real heading."""
    import time

    from tests.hostile_docs import contents_bomb

    bomb = tmp_path / "contents_bomb.pdf"
    bomb.write_bytes(contents_bomb(entries=700, lines=700))
    lines = [page.lines for page in PdfParser().parse(bomb)]
    started = time.monotonic()
    sections = outline(lines)
    assert time.monotonic() - started < 10  # a minute before
    assert sections and all(s.page_start > 12 for s in sections)  # no section starts on a contents page
    for section in sections[:50]:
        printed = {line.text for line in lines[section.page_start - 1]}
        assert any(text.startswith(section.title) for text in printed)  # each on a line that prints its title
