"""Pages that define terms rank below the pages that report or explain them, unless the question asks what a term
means (issue 43): a 10-K's "Glossary of Terms" prints every term a question may name, once each, beside its words."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.core.models import BODY, GLOSSARY
from indexer.core.sections import glossary_page, question_sections
from indexer.knowledge_base import KnowledgeBase
from indexer.search.request import SearchRequest
from tests.conftest import SIFANG, words_only_kb

AES = Path(__file__).parent / "pdfs" / "aes_2020_10k_p3_p12.pdf"  # p.1 its glossary, p.2 Adjusted PTC reported


@pytest.fixture(scope="module")
def aes(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> KnowledgeBase:
    return words_only_kb(tmp_path_factory, cache_dir, AES)


def _pages(kb: KnowledgeBase, query: str) -> list[tuple[int, str]]:
    return [(h.page, h.kind) for h in kb.search(SearchRequest(query=query, top_k=2, documents=AES.name)).hits]


def test_a_glossary_page_is_labelled_and_ranked_below_the_figures(aes: KnowledgeBase) -> None:
    glossary = [line.text for line in aes.page(AES.name, 1).lines if not line.furniture]
    assert "Glossary of Terms" in glossary and glossary_page(glossary)
    assert not glossary_page([line.text for line in aes.page(AES.name, 2).lines if not line.furniture])
    assert _pages(aes, "Adjusted PTC Adjusted EPS") == [(2, BODY), (1, GLOSSARY)]  # the figures first


def test_unless_the_question_asks_what_a_term_means(aes: KnowledgeBase) -> None:
    assert "glossary" in question_sections("What does Adjusted PTC stand for?")
    assert _pages(aes, "What does Adjusted PTC stand for?")[0] == (1, GLOSSARY)
    assert _pages(aes, "Adjusted PTC definition")[0] == (1, GLOSSARY)


def test_a_page_that_also_reports_is_no_glossary(samples_kb: KnowledgeBase) -> None:
    """A 年报's 释义 that shares its page with the company's profile (第二节) keeps that page in the ranking."""
    lines = [line.text for line in samples_kb.page(SIFANG.name, 4).lines if not line.furniture]
    assert lines[0].startswith("第一节") and "释义" in lines[0] and not glossary_page(lines)
