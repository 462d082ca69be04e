"""Every verdict carries what its figure sits in (issue 43): the table row as label and cells, or the sentence, at
most 200 characters, in the text and in structuredContent, so an agent need not read the page to see it."""

from __future__ import annotations

from pathlib import Path

from indexer.evidence.context import CONTEXT_CHARS, _cut
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import ClaimsRequest, QuoteRequest
from tests.conftest import call_tools


def _named(kb: KnowledgeBase, start: str) -> str:
    return next(m.document for m in kb.documents() if m.document.startswith(start))


def test_a_figure_in_a_table_gets_its_row_and_a_phrase_its_sentence(samples_kb: KnowledgeBase) -> None:
    bestbuy = _named(samples_kb, "BESTBUY")
    row = samples_kb.locate_quote(QuoteRequest(document=bestbuy, page=17, quote="9,583"))
    assert row.verified and row.context.startswith("Revenue: $9,583 | $10,329")  # label, then the row's cells
    phrase = samples_kb.locate_quote(QuoteRequest(document=bestbuy, page=17, quote="comparable sales declines"))
    assert phrase.verified and "driven by comparable sales declines in appliances" in phrase.context
    assert len(phrase.context) <= CONTEXT_CHARS and "\n" not in phrase.context
    missing = samples_kb.locate_quote(QuoteRequest(document=bestbuy, page=17, quote="no such sentence anywhere"))
    assert not missing.verified and missing.context == ""


def test_a_chinese_table_figure_gets_its_row(samples_kb: KnowledgeBase) -> None:
    sifang = _named(samples_kb, "finglm_603339")
    found = samples_kb.locate_quote(QuoteRequest(document=sifang, page=7, quote="7,504,393.00"))
    assert found.verified and "计入当期损益的政府补助" in found.context.split(":")[0]  # the row label, then cells
    assert "7,504,393.00 | 14,795,495.34 | 9,383,489.00" in found.context


def test_a_claim_checked_elsewhere_shows_the_row_it_is_really_in(samples_kb: KnowledgeBase) -> None:
    bestbuy = _named(samples_kb, "BESTBUY")
    claims = [
        {"document": bestbuy, "page": 4, "quote": "9,583", "label": "Revenue"},
        {"document": bestbuy, "page": 4, "quote": "9,583", "label": "Cost of sales"},
    ]
    checks = samples_kb.verify_claims(ClaimsRequest.model_validate({"claims": claims})).checks
    assert [c.status for c in checks] == ["verified", "elsewhere"]
    assert all(c.context.startswith("Revenue: $9,583") for c in checks)  # where the figure really is


def test_context_is_cut_around_the_match() -> None:
    text = "word " * 100 + "MATCH" + " word" * 100
    start = text.index("MATCH")
    cut = _cut(text, start, start + 5)
    assert len(cut) == CONTEXT_CHARS and "MATCH" in cut and cut.startswith("…") and cut.endswith("…")
    assert _cut("short  line\nbreak", 0, 5) == "short line break"


def test_both_renderings_carry_the_context(samples_index_dir: Path, cache_dir: Path, samples_kb: KnowledgeBase) -> None:
    bestbuy = _named(samples_kb, "BESTBUY")
    quote, claims = call_tools(samples_index_dir, cache_dir, [
        ("locate_quote", {"document": bestbuy, "page": 17, "quote": "9,583"}),
        ("verify_claims", {"claims": [{"document": bestbuy, "page": 4, "quote": "9,583", "label": "Cost of sales"}]}),
    ])  # fmt: skip
    assert quote.structured_content["context"].startswith("Revenue: $9,583")
    assert "in: Revenue: $9,583 | $10,329" in quote.content[0].text
    check = claims.structured_content["checks"][0]
    assert check["status"] == "elsewhere" and check["context"].startswith("Revenue: $9,583")
    assert "in: Revenue: $9,583" in claims.content[0].text
