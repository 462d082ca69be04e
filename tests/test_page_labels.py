"""Page labels (the part of a filing each page belongs to) on a real 10-Q, and the search routing built on them."""

from __future__ import annotations

from indexer.core.sections import boilerplate_page
from indexer.index.reader import LoadedIndex
from indexer.ingest.chunk import ChunkSettings
from indexer.ingest.documents import read_pdf
from indexer.ingest.page_labels import passage_labels
from indexer.ingest.parse import PdfParser
from indexer.knowledge_base import KnowledgeBase
from indexer.search.expand import content_tokens
from tests.conftest import BESTBUY_10Q, ROOT, hits_for

RECTIFIER = ROOT / "tests" / "pdfs" / "rectifier_technologies_2022_cut.pdf"  # see tests/pdfs/README.md
MCDONALDS = ROOT / "tests" / "pdfs" / "mcdonalds_2022_10k_p2_p8-10.pdf"


def _labels(index: LoadedIndex, document: str) -> dict[int, tuple[str | None, str]]:
    """Each page's label: its first passage's."""
    labels: dict[int, tuple[str | None, str]] = {}
    for c in index.chunks:
        if c.document == document and c.kind != "table_row":
            labels.setdefault(c.page, (c.section, c.kind))
    return labels


def _passages(index: LoadedIndex, document: str, page: int) -> list[tuple[str | None, str]]:
    """A page's passages in order: their label and first line after the page's running header."""
    lines = [
        (c.section, c.text.removeprefix("Table of Contents\n").split("\n")[0])
        for c in index.chunks if c.document == document and c.page == page and c.kind != "table_row"
    ]  # fmt: skip
    return [line for i, line in enumerate(lines) if i == 0 or line[0] != lines[i - 1][0]]


def test_a_10q_s_pages_carry_their_part(samples_index: LoadedIndex) -> None:
    labels = _labels(samples_index, BESTBUY_10Q.name)
    assert labels[3] == ("balance_sheet", "body")  # Condensed Consolidated Balance Sheets
    assert labels[4] == ("income_statement", "body")
    assert labels[6] == ("cash_flow", "body")
    assert labels[9] == ("notes", "body")
    assert labels[14] == ("segments", "body")  # note 11. Segments, from p.13 on
    assert labels[20][0] == "mdna"  # Item 2, p.15 on
    assert labels[25] == (None, "body")  # Part II: share repurchases and the exhibit list, real content
    assert labels[26] == ("signatures", "boilerplate")
    assert {labels[p] for p in range(27, 31)} == {("certification", "boilerplate")}  # Exhibits 31.1 … 32.2


def test_a_section_that_starts_mid_page_labels_the_passages_below_its_heading(samples_index: LoadedIndex) -> None:
    # p.13 holds the end of note 9, all of note 10 and the start of note 11; p.14 the end of note 11 and Item 2's
    # first lines: each passage takes the label of the part it is printed in, never two
    assert [label for label, _ in _passages(samples_index, BESTBUY_10Q.name, 13)] == ["notes", "legal", "segments"]
    assert _passages(samples_index, BESTBUY_10Q.name, 13)[1][1] == "10. Contingencies"
    assert _passages(samples_index, BESTBUY_10Q.name, 13)[2][1] == "11. Segments"
    page_14 = _passages(samples_index, BESTBUY_10Q.name, 14)
    assert page_14[0][0] == "segments" and page_14[1][0] == "mdna"
    assert page_14[1][1].startswith("Item 2. Management's Discussion and Analysis")


def test_the_mdna_s_own_sub_headings_head_its_passages(samples_index: LoadedIndex) -> None:
    # Best Buy's 10-Q, p.21: the cash flows and sources of liquidity under "Liquidity and Capital Resources" (begun
    # on p.20). Each sub-heading starts a passage, which keeps it as its heading (BM25 and the model read it with the
    # passage) and stays MD&A; a table's row label in MD&A is no sub-heading.
    page_21 = [(c.section, c.heading) for c in samples_index.chunks
               if c.document == BESTBUY_10Q.name and c.page == 21 and c.kind == "body"]  # fmt: skip
    assert [h for i, (_, h) in enumerate(page_21) if i == 0 or h != page_21[i - 1][1]] == [
        "Liquidity and Capital Resources", "Operating Activities", "Investing Activities", "Financing Activities",
        "Sources of Liquidity",
    ]  # fmt: skip
    assert {section for section, _ in page_21} == {"mdna"}
    first = next(c for c in samples_index.chunks if c.document == BESTBUY_10Q.name and c.page == 21 and
                 c.heading == "Operating Activities")  # fmt: skip
    assert first.text.startswith("Operating Activities\nThe increase in cash provided by operating activities")
    with PdfParser() as parser:
        pages = read_pdf(parser, BESTBUY_10Q, None, ChunkSettings())
    mdna = [c for c in samples_index.chunks if c.document == BESTBUY_10Q.name and c.section == "mdna"]
    row_labels = {row.label for page in pages[13:23] for table in page.tables for row in table.rows}
    assert {"Gross profit", "Total"} <= row_labels and not {c.heading for c in mdna} & row_labels


def test_notes_titled_only_by_their_running_header_are_notes_not_the_report_above_them() -> None:
    # An ASX annual report: the Directors' report (page 1), the four statements (pages 2-5), then notes 1-8 under
    # the running header "Notes to the financial statements", which is no heading of the body. Each note is labelled
    # notes, or by its topic; none is labelled by the Directors' report that began before the statements.
    with PdfParser() as parser:
        pages = read_pdf(parser, RECTIFIER, None, ChunkSettings())
    bodies = [[line.text for line in page.lines if not line.furniture] for page in pages]
    spans = {n: [(s.label.section, bodies[n - 1][s.start]) for s in page] for n, page in
             enumerate(passage_labels(pages), start=1)}  # fmt: skip
    assert spans[1] == [("executive_officers", "Directors' report")]
    assert spans[6] == [("notes", "Note 1. General information"), ("notes", "Note 2. Significant accounting policies")]
    assert spans[8][0] == ("segments", "Note 4. Operating segments")
    assert spans[9] == [("segments", spans[9][0][1]), ("notes", "Note 5. Revenue")]  # note 4 ends mid-page
    assert spans[10] == [("notes", "Note 6. Other income"), ("notes", "Note 7. Expenses")]  # a passage each
    assert spans[12] == [("tax", "Note 8. Income tax (continued)")]  # the note's topic, on each of its pages
    labels = {label for n in range(6, 13) for label, _ in spans[n]}
    assert labels == {"notes", "segments", "tax"}


def test_a_sub_section_without_a_label_of_its_own_is_part_of_the_section_over_it() -> None:
    # McDonald's 10-K, printed as an annual report: "Outlook" (page 4 of the cut) is listed in the contents indented
    # under "Management's Discussion and Analysis …"; "Outlook" names no part of a filing, and its passages are the
    # MD&A's, headed by their own sub-section.
    with PdfParser() as parser:
        pages = read_pdf(parser, MCDONALDS, None, ChunkSettings())
    bodies = [[line.text for line in page.lines if not line.furniture] for page in pages]
    spans = {n: [(s.label.section, s.label.heading, bodies[n - 1][s.start]) for s in page] for n, page in
             enumerate(passage_labels(pages), start=1)}  # fmt: skip
    assert {section for n in (2, 3, 4) for section, _, _ in spans[n]} == {"mdna"}
    assert spans[4][-1] == ("mdna", "Outlook", "OUTLOOK")


def test_boilerplate_pages_by_their_own_text() -> None:
    certification = [
        "Exhibit 31.1",
        "CERTIFICATION PURSUANT TO",
        "SECTION 302 OF THE SARBANES-OXLEY ACT OF 2002",
        "I, Corie Barry, certify that:",
        "1. I have reviewed this Quarterly Report on Form 10-Q",
    ]
    assert boilerplate_page(certification) == "certification"
    exhibit_list = ["31.1 Certification of the CEO pursuant to Section 302 of the Sarbanes-Oxley Act of 2002"]
    assert boilerplate_page(exhibit_list) is None  # an exhibit index names the certifications, it is not one
    index = ["EXHIBIT INDEX", *(f"10.{n} Amended and Restated Credit Agreement" for n in range(1, 8))]
    assert boilerplate_page(index) == "exhibits"
    signatures = ["SIGNATURES", "Pursuant to the requirements of the Securities Exchange Act of 1934, the registrant"]
    assert boilerplate_page(signatures) == "signatures"
    assert boilerplate_page(["Signatures of the directors appear on page 40", "Revenue rose 4%"]) is None


def test_words_that_name_the_report_do_not_rank(samples_index: LoadedIndex) -> None:
    tokenizer = samples_index.tokenizer
    tokens = tokenizer.tokenize("Did the company outline ESG initiatives in the annual report?")
    assert content_tokens(tokens, tokenizer) == tokenizer.tokenize("ESG initiatives")
    assert content_tokens(tokenizer.tokenize("annual report"), tokenizer) == tokenizer.tokenize("annual report")


def test_an_officer_question_reaches_the_pages_that_name_officers(e5_samples_kb: KnowledgeBase) -> None:
    # a 10-Q has no executive officers section: its signatures and certifications name the CFO; boilerplate that
    # a question asks for is neither demoted nor lost for want of a vector
    hits = hits_for(e5_samples_kb, "Who is the CFO of Best Buy?", top_k=3)
    assert hits[0].page == 26 and "Chief Financial Officer" in hits[0].content
    assert all(h.section in ("signatures", "certification") for h in hits)
    # … and the same pages stay out of a question about figures that mentions the report
    hits = hits_for(e5_samples_kb, "According to the quarterly report, what was Best Buy's gross profit?", top_k=5)
    assert len(hits) == 5 and all(h.kind == "body" for h in hits)


def test_a_margin_question_reaches_the_income_statement(e5_samples_kb: KnowledgeBase) -> None:
    hits = hits_for(e5_samples_kb, "Is Best Buy's gross margin improving?", top_k=5, documents=BESTBUY_10Q.name)
    assert 4 in [h.page for h in hits]  # Condensed Consolidated Statements of Earnings
    assert hits[[h.page for h in hits].index(4)].section == "income_statement"
