"""A question the index cannot answer says so (a note, hits marked weak); one it can answer does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.core.models import DocumentMeta
from indexer.index.reader import LoadedIndex
from indexer.knowledge_base import KnowledgeBase
from indexer.search.absence import unheld_forms, unheld_years
from indexer.search.request import SearchRequest
from tests.conftest import call_tools

SHA = "0" * 64


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Tesla Cybertruck deliveries in 2023", "no document in the knowledge base mentions Tesla, Cybertruck"),
        ("特斯拉2023年交付量", "mentions 特斯拉"),
        ("What was NVDA revenue in fiscal 2024?", "mentions NVDA"),
        ("Best Buy revenue in 2031", "no document searched covers 2031"),
        ("Best Buy 10-K revenue", "no document searched is a 10-K (forms searched: 10-Q)"),
        ("quantum entanglement photon", "none of the question's terms occurs in the knowledge base"),
    ],
)
def test_what_the_index_does_not_hold_is_said(samples_kb: KnowledgeBase, question: str, said: str) -> None:
    outcome = samples_kb.search(SearchRequest(query=question))
    assert outcome.note is not None and said in outcome.note
    assert outcome.hits and all(hit.weak for hit in outcome.hits)  # hits still follow, marked weak


@pytest.mark.parametrize(
    "question",
    [
        "四方科技2019年营业收入和归属于上市公司股东的净利润",
        "Best Buy revenue and comparable sales in the second quarter of fiscal 2024",
        "MGM Las Vegas Strip net revenues Q4 2022",
        "高测股份 目标价 评级",
        "What was Sifang Technology's operating revenue in 2019?",
        "Which company reported higher capital expenditures?",
    ],
)
def test_a_question_the_index_answers_gets_no_note(samples_kb: KnowledgeBase, question: str) -> None:
    outcome = samples_kb.search(SearchRequest(query=question))
    assert outcome.note is None and not outcome.hits[0].weak


def _meta(name: str, form: str | None, year: int | None) -> DocumentMeta:
    return DocumentMeta(document=name, sha256=SHA, pages=1, form=form, year=year)


def test_years_and_forms_held_allow_for_comparatives_and_unknown_forms() -> None:
    annual = [_meta("a.pdf", "10-K", 2019)]
    assert unheld_years("revenue in 2015 and 2020", annual) == []  # comparatives, and a fiscal year named after
    assert unheld_years("revenue in 2013 and 2021", annual) == [2013, 2021]
    assert unheld_forms("the 10-Q for Q2", annual) == ["10-Q"] and unheld_forms("the 10-K", annual) == []
    assert unheld_forms("the 10-Q", [*annual, _meta("b.pdf", None, None)]) == []  # an unknown form might be one


def test_the_text_a_model_reads_leads_with_the_note(samples_index_dir: Path, cache_dir: Path) -> None:
    (result,) = call_tools(
        samples_index_dir, cache_dir, [("search_reports", {"query": "Tesla Cybertruck deliveries in 2023"})]
    )
    text, structured = result.content[0].text, result.structured_content
    assert text.startswith("NOTE: the answer may not be in the knowledge base") and "WEAK" in text
    assert structured["note"].startswith("the answer may not be") and all(h["weak"] for h in structured["hits"])


def test_the_year_filter_is_the_fiscal_year(samples_index: LoadedIndex, samples_kb: KnowledgeBase) -> None:
    """Best Buy's quarter ended 29 July 2023 is its fiscal 2024 Q2: year=2024 finds it, with no note."""
    meta = samples_index.documents["BESTBUY_2024Q2_10Q.pdf"]
    assert (meta.year, meta.period_end) == (2024, "2023-07-29")
    outcome = samples_kb.search(SearchRequest(query="comparable sales", year=2024))
    assert outcome.hits and {hit.document for hit in outcome.hits} == {"BESTBUY_2024Q2_10Q.pdf"}
    assert outcome.note is None


@pytest.mark.parametrize(
    "question",
    [
        "高测股份2024年的盈利预测是多少？",  # a year the broker note forecasts, not the note's own
        "What is Gaoce's forecast net profit for 2024?",  # … asked in English, by the pinyin short name
        "What was Sifang's net profit in 2019?",  # an English question about a Chinese annual report
        "四方科技2019年营收和净利润分别是多少？",  # 营收: how people write 营业收入; the segmenter cuts 年营收和
        "What was Best Buy's SG&A in Q2 FY2024?",  # abbreviations the filing spells out
        "What was Best Buy's PPNE at the end of Q2 FY2024?",
        "What was Best Buy's FCF in the first half of fiscal 2024?",
    ],
)
def test_no_note_on_what_the_index_holds(samples_kb: KnowledgeBase, question: str) -> None:
    assert samples_kb.search(SearchRequest(query=question)).note is None


@pytest.mark.parametrize(
    ("question", "company"),
    [
        ("What was Toyota's operating income in FY2022?", "Toyota"),
        ("How many monthly active users did Meta report in 2023?", "Meta"),
    ],
)
def test_a_company_the_index_holds_no_filing_of_is_noted(
    samples_kb: KnowledgeBase, question: str, company: str
) -> None:
    note = samples_kb.search(SearchRequest(query=question)).note
    assert note is not None and f"no document in the knowledge base is a filing or report of {company}" in note
