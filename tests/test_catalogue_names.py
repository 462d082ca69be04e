"""Each document's names in one field (issue 43): the company as printed, its English name, stock code, tickers and
pinyin, once each, in the catalogue's data and on its line; any of them finds the company's filings."""

from __future__ import annotations

from pathlib import Path

from indexer.knowledge_base import KnowledgeBase
from indexer.search.request import SearchRequest
from tests.conftest import BESTBUY_10Q, SIFANG, call_tools


def test_the_catalogue_names_each_company_once_in_every_form(samples_index_dir: Path, cache_dir: Path) -> None:
    (listing,) = call_tools(samples_index_dir, cache_dir, [("list_documents", {})])
    docs = {d["document"]: d for d in listing.structured_content["documents"]}
    sifang = docs[SIFANG.name]["names"]
    assert sifang[0] == "四方科技" and {"603339", "sifang"} <= set(sifang)
    assert any(name.isascii() and "SQUARE" in name.upper() for name in sifang)  # its English name as printed
    assert len({n.casefold() for n in sifang}) == len(sifang)
    bestbuy = docs[BESTBUY_10Q.name]["names"]
    assert "BBY" in bestbuy and bestbuy[0].upper().startswith("BEST BUY")
    line = next(line for line in listing.content[0].text.splitlines() if SIFANG.name in line)
    assert f"{sifang[0]} ({' / '.join(sifang[1:])})" in line


def test_any_name_finds_the_company(samples_kb: KnowledgeBase) -> None:
    (meta,) = [m for m in samples_kb.documents() if m.document == SIFANG.name]
    for name in ("603339", "sifang", "四方科技"):
        hits = samples_kb.search(SearchRequest(query="营业收入", top_k=3, company=name)).hits
        assert hits and {h.document for h in hits} == {meta.document}, name
