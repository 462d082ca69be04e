"""Each note to the financial statements as its own outline entry, read by its key (evidence/notes.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer.core.errors import NotFoundError
from indexer.core.models import Box, Line, Span
from indexer.evidence.notes import with_notes
from indexer.evidence.outline import Section, outline
from indexer.evidence.section_text import find_section, note_keys, section_lines, section_piece
from indexer.ingest.chunk import ChunkSettings, mark_furniture
from indexer.ingest.parse import PdfParser
from indexer.knowledge_base import KnowledgeBase
from tests.conftest import BESTBUY_10Q, ROOT, SHARED, call_tools

INNER_LIST = ROOT / "tests" / "pdfs" / "notes_inner_list.pdf"  # made for these tests: src/notes_inner_list.html
DEV = SHARED / "eval" / "dev"
ETHERNITY = DEV / "en" / "pdfs" / "erc_ethernity_networks_e51b7204.pdf"
BOEING = DEV / "en" / "pdfs" / "BOEING_2018_10K.pdf"
NIANBAO = DEV / "zh" / "pdfs" / "finglm_603339_四方科技_2019_年度报告.pdf"


def _parsed(pdf: Path) -> list[list[Line]]:
    return [page.lines for page in mark_furniture(PdfParser().parse(pdf), ChunkSettings())]


def _notes(sections: list[Section], kind: str = "note") -> list[tuple[str, str, int, int]]:
    return [(s.key, s.title, s.page_start, s.page_end) for s in sections if s.kind == kind]


def _read(pages: list[list[Line]], sections: list[Section], key: str) -> list[str]:
    """The pieces read_section gives for ``key``, cursor after cursor (KnowledgeBase.read_section's own steps)."""
    position = find_section(sections, key)
    lines = section_lines(pages, sections, position)
    pieces, cursor = [section_piece("doc.pdf", sections[position], lines, None)], None
    while (cursor := pieces[-1].next_cursor) is not None:
        pieces.append(section_piece("doc.pdf", sections[position], lines, cursor))
    return [piece.text for piece in pieces]


def test_each_note_of_a_10q_is_an_entry_of_its_outline(samples_kb: KnowledgeBase) -> None:
    """The Best Buy 10-Q's notes (pages 8–14), each where its heading is printed, one level below the notes."""
    sections = samples_kb.outline(BESTBUY_10Q.name)
    assert _notes(sections) == [
        ("note_1", "1. Basis of Presentation", 8, 8),
        ("note_2", "2. Restructuring", 9, 9),
        ("note_3", "3. Goodwill and Intangible Assets", 9, 10),
        ("note_4", "4. Fair Value Measurements", 10, 10),
        ("note_5", "5. Derivative Instruments", 11, 11),
        ("note_6", "6. Debt", 11, 11),
        ("note_7", "7. Revenue", 12, 12),
        ("note_8", "8. Earnings per Share", 12, 12),
        ("note_9", "9. Repurchase of Common Stock", 12, 13),
        ("note_10", "10. Contingencies", 13, 13),
        ("note_11", "11. Segments", 13, 14),
    ]
    notes = next(s for s in sections if s.kind == "notes")
    assert {s.level for s in sections if s.kind == "note"} == {notes.level + 1}
    following = sections[sections.index(notes) + 12]
    assert following.key == "2" and following.page_start == 14  # Item 2 follows the last note


def test_a_note_is_read_by_its_key_through_mcp(samples_index_dir: Path, cache_dir: Path) -> None:
    outline_result, note, by_words, unknown = call_tools(samples_index_dir, cache_dir, [
        ("get_outline", {"document": BESTBUY_10Q.name}),
        ("read_section", {"document": BESTBUY_10Q.name, "section": "note_2"}),
        ("read_section", {"document": BESTBUY_10Q.name, "section": "Note 11"}),
        ("read_section", {"document": BESTBUY_10Q.name, "section": "note_12"}),
    ])  # fmt: skip
    text = outline_result.content[0].text
    assert "16 sections and 11 notes" in text.splitlines()[0]
    assert "\n      - [note_2] 2. Restructuring · p.9\n" in text  # one short line per note
    assert "      - [note_11] 11. Segments · p.13–14" in text
    piece = note.structured_content
    assert piece["key"] == "note_2" and piece["pages"] == [9] and piece["next_cursor"] is None
    assert piece["text"].startswith("[p.9]\n2. Restructuring\nFiscal 2023 Resource Optimization Initiative")
    assert "Balances at July 29, 2023 $ 43 $ 2 $ 45" in piece["text"]  # its last table, on page 9
    assert "Goodwill" not in piece["text"] and "3. Goodwill and Intangible Assets" not in piece["text"]
    assert by_words.structured_content["key"] == "note_11" and by_words.structured_content["pages"] == [13, 14]
    assert unknown.is_error
    error = unknown.content[0].text
    assert "its sections: I (PART I" in error and error.endswith("its notes: note_1–11")


def test_a_numbered_list_inside_note_1_is_not_notes() -> None:
    """Note 1 lists its policies as 1. Basis of presentation, 2. Use of estimates, 3. Cash equivalents, printed
    like the notes' own headings; notes 2 and 3 follow on page 5. The notes are exactly 1–3, each from its heading;
    Note 1 (three pages) is read in pieces, and Note 2's text stops where Note 3's heading starts."""
    pages = _parsed(INNER_LIST)
    sections = with_notes(pages, outline(pages))
    assert _notes(sections) == [
        ("note_1", "1. Summary of Significant Accounting Policies", 3, 5),
        ("note_2", "2. Revenue", 5, 5),
        ("note_3", "3. Leases", 5, 5),
    ]
    first = _read(pages, sections, "note_1")
    assert len(first) == 2 and all(len(piece) <= 12_000 for piece in first)
    whole = "\n".join(first)
    assert whole.startswith("[p.3]\n1. Summary of Significant Accounting Policies")
    for inside in ("1. Basis of presentation", "[p.4]\n2. Use of estimates", "3. Cash equivalents"):
        assert inside in whole
    assert "2. Revenue" not in whole and "Our policy for debt issuance costs (paragraph 24)" in whole
    (second,) = _read(pages, sections, "note_2")
    assert second.startswith("[p.5]\n2. Revenue\nWe recognize revenue when we transfer control")
    assert "Leases are described in Note 3." in second
    assert "3. Leases" not in second and "operating leases" not in second
    (third,) = _read(pages, sections, "Note 3")
    assert third.startswith("[p.5]\n3. Leases\nWe lease most of our stores")


def test_an_annual_reports_notes_and_not_the_list_in_its_policies_note() -> None:
    """Ethernity Networks (AIM): NOTE 1 – NOTE 30, pages 35–80; the list inside Note 3 ("1. Classification and
    measurement …", "4. Derivative financial instruments" on page 41) is not taken for notes 1–4."""
    sections = with_notes(pages := _parsed(ETHERNITY), outline(pages))
    notes = _notes(sections)
    assert [key for key, *_ in notes] == [f"note_{n}" for n in range(1, 31)]
    assert all(title.startswith(f"NOTE {n} - ") for n, (_, title, _, _) in enumerate(notes, start=1))
    assert notes[2:5] == [
        ("note_3", "NOTE 3 - SUMMARY OF ACCOUNTING POLICIES", 36, 48),
        ("note_4", "NOTE 4 - SIGNIFICANT MANAGEMENT JUDGEMENT IN APPLYING ACCOUNTING POLICIES AND", 48, 48),
        ("note_5", "NOTE 5 - CASH", 48, 48),
    ]
    assert notes[-1] == ("note_30", "NOTE 30 - SUBSEQUENT EVENTS", 78, 80)


def test_a_statement_heading_inside_a_note_does_not_end_the_notes() -> None:
    """Boeing's 2018 10-K prints 'Consolidated Statement of Financial Position' inside Note 2 (page 71): its notes
    run on, Note 1 to Note 24 (page 117), and that heading is no statement of the outline the tools show — the
    statements' own outline (what get_financials reads) keeps it."""
    pages = _parsed(BOEING)
    plain = outline(pages)
    sections = with_notes(pages, plain)
    assert [(s.key, s.page_start) for s in plain if s.kind == "statement"][-1] == ("balance_sheet", 71)
    assert [s.page_start for s in sections if s.kind == "statement"] == [50, 51, 52, 53, 55]
    assert [s.key for s in sections if s.kind == "note"] == [f"note_{n}" for n in range(1, 25)]
    notes = next(s for s in sections if s.kind == "notes")
    assert (notes.page_start, notes.page_end) == (56, 120)
    assert _notes(sections)[1:3] == [
        ("note_2", "Note 2 - Impact of Adoption of New Standards", 70, 74),
        ("note_3", "Note 3 - Acquisitions and Joint Ventures", 75, 76),
    ]


def test_a_nianbao_lists_the_parts_and_items_of_its_notes() -> None:
    """四方科技's 2019 年报: the 附注's parts 三、公司基本情况 … 十八、补充资料 after the statements (notes_3 …
    notes_18); the 85 items of 七、合并财务报表项目注释 (note_1 …) and the 6 of 十七、母公司财务报表主要项目注释
    (parent_note_1 …). The rows of a table in the items (一、账面原值 … 四、账面价值, 一、坏账损失 … 十四、其他 on page
    125) are no parts."""
    pages = _parsed(NIANBAO)
    sections = with_notes(pages, outline(pages))
    parts = _notes(sections, "notes")
    assert [key for key, *_ in parts] == [f"notes_{n}" for n in range(3, 19)]
    assert parts[4:6] == [("notes_7", "七、合并财务报表项目注释", 91, 133), ("notes_8", "八、合并范围的变更", 133, 133)]
    assert parts[14] == ("notes_17", "十七、 母公司财务报表主要项目注释", 146, 154)
    assert next(s for s in sections if s.title == "母公司所有者权益变动表").page_end == 74  # the 附注 follow it
    items = _notes(sections)
    assert [key for key, *_ in items] == [f"note_{n}" for n in range(1, 86)] + [f"parent_note_{n}" for n in range(1, 7)]
    assert items[:2] == [("note_1", "1、 货币资金", 91, 91), ("note_2", "2、 交易性金融资产", 91, 91)]
    assert items[84] == ("note_85", "85、 其他", 133, 133)
    assert items[85] == ("parent_note_1", "1、 应收账款", 146, 149)
    assert {s.level for s in sections if s.kind == "note"} == {3}
    (cash,) = _read(pages, sections, "货币资金")
    assert cash.startswith("[p.91]\n1、 货币资金") and "银行存款" in cash and "交易性金融资产" not in cash


def _line(page: int, top: float, text: str) -> Line:
    box = Box(page=page, x0=50, top=top, x1=500, bottom=top + 10)
    return Line(text=text, box=box, spans=[Span(text=text, box=box)])


def test_two_notes_run_into_one_line_both_read_on_to_the_next() -> None:
    """A two-column page whose column headings the parser joined ("Note 2 – Deposits Note 3 – Leases"): both notes
    start on that line, and each reads on to Note 4."""
    texts = [
        ["Notes to Consolidated Financial Statements", "Note 1 – Basis of presentation", "The Firm is a bank."],
        ["Note 2 – Deposits Note 3 – Leases", "Deposits rose. The Firm leases its offices."],
        ["Note 4 – Litigation", "The Firm is party to suits."],
    ]
    pages = [[_line(n, 60 + 14 * i, text) for i, text in enumerate(lines)] for n, lines in enumerate(texts, 1)]
    notes = Section(title=texts[0][0], level=1, page_start=1, page_end=3, kind="notes", key="notes")
    sections = with_notes(pages, [notes])
    assert [(s.key, s.title, s.page_start, s.page_end) for s in sections[1:]] == [
        ("note_1", "Note 1 – Basis of presentation", 1, 1),
        ("note_2", "Note 2 – Deposits", 2, 2),
        ("note_3", "Note 3 – Leases", 2, 2),
        ("note_4", "Note 4 – Litigation", 3, 3),
    ]
    for key in ("note_2", "note_3"):
        assert _read(pages, sections, key) == ["[p.2]\nNote 2 – Deposits Note 3 – Leases\nDeposits rose. The Firm "
                                               "leases its offices."]  # fmt: skip
        # the knowledge base loads the pages up to the note's last: Note 4's page, atop which it ends, is not read
        assert _read(pages[:2], sections, key) == _read(pages, sections, key)


def test_an_unknown_key_lists_the_note_keys_in_short() -> None:
    """The error names the sections, then the note keys as runs ('note_1–5, note_7–9'), bounded however many."""
    section = Section(title="Notes", level=1, page_start=1, page_end=9, kind="notes", key="notes")
    notes = [
        Section(title=f"Note {n}", level=2, page_start=1, page_end=1, kind="note", key=f"{prefix}_{n}")
        for prefix, numbers in (("note", [1, 2, 3, 4, 5, 7, 8, 9]), ("parent_note", [1, 2]))
        for n in numbers
    ]
    with pytest.raises(NotFoundError) as raised:
        find_section([section, *notes], "note_6")
    assert str(raised.value).endswith("its sections: notes (Notes); its notes: note_1–5, note_7–9, parent_note_1–2")
    gappy = [
        Section(title="n", level=1, page_start=1, page_end=1, kind="note", key=f"note_{n}") for n in range(1, 80, 2)
    ]
    assert note_keys(gappy) == ", ".join(f"note_{n}" for n in range(1, 24, 2)) + ", …"


def test_compact_outline_folds_the_notes_into_one_line_each(samples_index_dir: Path, cache_dir: Path) -> None:
    compact, full = call_tools(samples_index_dir, cache_dir, [
        ("get_outline", {"document": BESTBUY_10Q.name}),
        ("get_outline", {"document": BESTBUY_10Q.name, "detail": "full"}),
    ])  # fmt: skip
    sections = compact.structured_content["sections"]
    assert not any(s["kind"] == "note" for s in sections)  # no record per note …
    (holder,) = [s for s in sections if s["notes"]]
    notes = [s for s in full.structured_content["full"]["sections"] if s["kind"] == "note"]
    assert len(holder["notes"]) == len(notes) == 11  # … one line per note, as many as full's records
    assert holder["notes"][1].startswith(f"note_2 · {notes[1]['title']} · {notes[1]['page_start']}")
    assert len(json.dumps(compact.structured_content)) < len(json.dumps(full.structured_content["full"]))
