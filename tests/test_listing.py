"""list_documents at any size (issue 58): each filing named while few, by company past that, one page at a time
within the listing's budget, with a summary that says how to narrow, and a cursor that refuses being reused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import indexer.knowledge_base as knowledge_base
import indexer.listing as listing
from indexer.core.errors import NotFoundError, QueryError
from indexer.index.store import read_manifest
from indexer.ingest.build import BuildSettings, build_index
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import ListRequest
from mcp_server.coverage import coverage
from mcp_server.renderings import answer_parts
from tests.conftest import BESTBUY_10Q, MGM, call_tools, docs_folder

BUDGET = 3_000  # characters of either rendering, at any size


def _sizes(result: object) -> tuple[int, int]:
    text, structured = answer_parts(result, "compact")  # type: ignore[arg-type]
    return len(text), len(json.dumps(structured, ensure_ascii=False, separators=(",", ":")))


def test_a_short_listing_names_every_filing(samples_kb: KnowledgeBase) -> None:
    everything = samples_kb.list_documents()
    assert everything.grouped is None and everything.matching == everything.total_documents == 4
    one = samples_kb.list_documents(ListRequest(company="Best Buy"))
    assert [d.document for d in one.documents] == [BESTBUY_10Q.name] and one.filters == "company='Best Buy'"
    text, structured = answer_parts(one, "compact")
    assert text.startswith("1 of 4 documents") and BESTBUY_10Q.name in text
    # what it reports: each calendar end with the columns that end there, as its statements print them
    assert "reports 2023-07-29 3m/6m/balance FY2024; 2023-01-28 balance FY2023; 2022-07-30 3m/6m/balance" in text
    assert structured is not None and structured["documents"][0]["reports"][0] == "2023-07-29 3m/6m/balance FY2024"


def test_past_a_dozen_filings_it_pages_by_company(samples_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the thresholds lowered, the four samples are a long listing: companies in name order, one page within
    the budget, a summary of the whole, a cursor that goes on and ends."""
    monkeypatch.setattr(knowledge_base, "NAMED_FILINGS", 2)
    monkeypatch.setattr(listing, "PAGE_CHARS", 120)
    first = samples_kb.list_documents()
    assert first.grouped is not None and first.summary is not None and first.next_cursor is not None
    assert first.summary.startswith("4 filings of 4 companies (") and "fiscal years 2019–2024" in first.summary
    seen = [line.company for line in first.grouped]
    cursor = first.next_cursor
    while cursor is not None:
        page = samples_kb.list_documents(ListRequest(cursor=cursor))
        assert page.grouped
        seen += [line.company for line in page.grouped]
        cursor = page.next_cursor
    assert len(seen) == len(set(seen)) == 4 and seen == sorted(seen, key=str.casefold)
    bestbuy = next(line for page_line in [first] for line in page_line.grouped or [] if "BEST BUY" in line.company)
    assert bestbuy.names == ["BBY"] and bestbuy.filings == ["10-Q quarter ended 2023-07-29"]
    text, structured = answer_parts(first, "compact")
    assert f"cursor={first.next_cursor!r}" in text and structured["documents"] == []
    assert "Narrow with company=, year=, form= or documents=" in text
    with pytest.raises(QueryError, match="call list_documents again without a cursor"):
        samples_kb.list_documents(ListRequest(cursor=first.next_cursor, company="MGM"))  # another listing's cursor
    with pytest.raises(QueryError, match="is not one this listing gave"):
        samples_kb.list_documents(ListRequest(cursor="1:00000000"))


def test_a_thousand_filings_stay_within_the_budget(samples_kb: KnowledgeBase) -> None:
    """The samples' records copied to 1,000 filings of 400 companies: every page of the listing, in both
    renderings, within 3,000 characters, and the first one says what the whole holds."""
    metas = samples_kb.documents()
    many = [
        meta.model_copy(update={"document": f"{n:04d}_{meta.document}", "company": f"Company {n % 400:03d} Holdings"})
        for n, meta in ((n, metas[n % len(metas)]) for n in range(1_000))
    ]
    pages, cursor = [], None
    while True:
        page = listing.page_of(many, listing.start_of(cursor, "v", ""), "v", "")
        result = samples_kb.list_documents().model_copy(update={
            "documents": list(page.documents), "matching": 1_000, "total_documents": 1_000,
            "grouped": [knowledge_base.CompanyLine(company=c.company, names=list(c.names), filings=list(c.filings))
                        for c in page.companies],
            "summary": listing.summary(many), "next_cursor": page.next_cursor,
        })  # fmt: skip
        pages.append(_sizes(result))
        cursor = page.next_cursor
        if cursor is None:
            break
    assert len(pages) > 10 and max(max(sizes) for sizes in pages) <= BUDGET
    assert listing.summary(many).startswith("1000 filings of 400 companies")


def test_filters_that_match_nothing_say_what_exists(samples_kb: KnowledgeBase) -> None:
    with pytest.raises(QueryError, match=r"closest of the 4 companies in the index: MGM RESORTS"):
        samples_kb.list_documents(ListRequest(company="MGM Resort Intl"))
    assert samples_kb.list_documents(ListRequest(documents=MGM.name)).matching == 1


def test_the_servers_catalogue_is_one_sentence_at_any_size(samples_index_dir: Path) -> None:
    """The instructions' catalogue names each file of a small index and counts a large one, in one sentence."""
    manifest = read_manifest(samples_index_dir)
    small = coverage(manifest)
    assert all(f'"{meta.document}"' in small for meta in manifest.documents) and small.count(". ") == 0
    many = [
        meta.model_copy(update={"document": f"{n:04d}_{meta.document}", "company": f"Company {n % 400:03d}"})
        for n, meta in ((n, manifest.documents[n % len(manifest.documents)]) for n in range(1_000))
    ]
    large = coverage(manifest.model_copy(update={"documents": many}))
    assert large.startswith("The knowledge base holds 1000 filings of 400 companies (")
    assert "0000_" not in large and large.count(". ") == 0 and len(large) < 400


def test_a_listing_on_one_page_names_each_file(samples_kb: KnowledgeBase) -> None:
    """A grouped listing that fits one page (a company narrowed to, two spellings of one) still gives each filing's
    file name (the name every other tool takes), while the names fit a page."""
    metas = samples_kb.documents()
    many = [meta.model_copy(update={"document": f"{n:02d}_{meta.document}", "company": f"Company {n % 2}"})
            for n, meta in enumerate(metas * 3)]  # fmt: skip
    page = listing.page_of(many, 0, "v", "")
    lines = [knowledge_base.CompanyLine(company=c.company, names=list(c.names), filings=list(c.filings))
             for c in page.companies]  # fmt: skip
    named = listing.with_file_names(lines, page.documents)
    assert named is not None and [len(line.filings) for line in named] == [len(line.filings) for line in lines]
    items = [item for line in named for item in line.filings]
    assert [item.rsplit(" [", 1)[1].rstrip("]") for item in items] == [meta.document for meta in page.documents]
    crowded = [m.model_copy(update={"document": "x" * 200 + m.document}) for m in many]
    assert listing.with_file_names(lines, listing.page_of(crowded, 0, "v", "").documents) is None


def test_a_mistaken_document_name_is_told_the_closest_names(samples_kb: KnowledgeBase) -> None:
    """A name given without (or with another) folder, or misspelt, is answered with the names the index uses."""
    with pytest.raises(NotFoundError, match=f"the closest names in the index: '{BESTBUY_10Q.name}'"):
        samples_kb.document(f"wide/{BESTBUY_10Q.name}")
    with pytest.raises(NotFoundError, match=f"closest names in the index: '{MGM.name}'"):
        samples_kb.document(MGM.name.replace("EARNINGS", "EARNING"))
    with pytest.raises(NotFoundError, match="valid names are"):
        samples_kb.document("nothing-like-it.pdf")


def test_a_bare_file_name_that_is_one_filings_is_that_filing(tmp_path: Path, cache_dir: Path) -> None:
    """A citation's file name without its folder names the one filing of that name (the answer cites the name the
    index uses); a file name two folders hold is still refused, with both names."""
    pdfs = Path(__file__).parent / "pdfs"
    docs = tmp_path / "docs"
    docs_folder(docs / "wide", pdfs / "starvest_2022_p36.pdf", pdfs / "ebay_2023q1_release_p8.pdf")
    docs_folder(docs / "dev", pdfs / "starvest_2022_p36.pdf")
    index = tmp_path / "index"
    build_index(BuildSettings(docs_dir=docs, index_dir=index, embedder="none", progress=False, cache_dir=cache_dir))
    page, claims, twice = call_tools(index, cache_dir, [
        ("get_page", {"document": "ebay_2023q1_release_p8.pdf", "page": 1}),
        ("verify_claims", {"claims": [{"document": "ebay_2023q1_release_p8.pdf", "page": 1, "quote": "2,510"}]}),
        ("get_page", {"document": "starvest_2022_p36.pdf", "page": 1}),
    ])  # fmt: skip
    assert not page.is_error and page.structured_content["document"] == "wide/ebay_2023q1_release_p8.pdf"
    assert "Net revenues: $2,510 | $2,483" in page.content[0].text
    (check,) = claims.structured_content["checks"]
    assert (check["document"], check["status"]) == ("wide/ebay_2023q1_release_p8.pdf", "verified")
    assert twice.is_error and "'dev/starvest_2022_p36.pdf', 'wide/starvest_2022_p36.pdf'" in twice.content[0].text


def test_a_company_typed_without_its_accents_is_the_same_company() -> None:
    from indexer.search.filters import without_accents

    assert without_accents("compagnie financière tradition") == "compagnie financiere tradition"
    assert without_accents("Société Générale") == "Societe Generale"
    # the marks of other scripts are kept (a kana's voicing mark is part of its letter)
    assert without_accents("グループ") == "グループ" and without_accents("四方科技") == "四方科技"
