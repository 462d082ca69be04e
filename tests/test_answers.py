"""What a calling model reads, in every client: every tool's text content is a compact, citation-ready rendering of
its result, its structuredContent the same as data (some clients show the model only that), and ``detail="full"``
gives the whole result as JSON text and under ``full``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from indexer.core.models import Box, wire
from mcp_server.briefs import box_text, enclosing
from mcp_server.briefs import shortened as _shortened
from tests.conftest import BESTBUY_10Q, SIFANG, call_tools

SEARCH_LIMIT = 8_000  # characters of text content for a top-5 search (issue 13)


def forwarded(structured: dict[str, Any]) -> str:
    """structuredContent as Claude Code hands it to the model (JSON.stringify: no spaces, non-ASCII as is)."""
    return json.dumps(structured, ensure_ascii=False, separators=(",", ":"))


def test_a_search_reads_as_cited_passages_in_text_and_in_structured_content(
    samples_index_dir: Path, cache_dir: Path
) -> None:
    en, zh, full, table = call_tools(samples_index_dir, cache_dir, [
        ("search_reports", {"query": "Best Buy revenue and comparable sales in the second quarter of fiscal 2024"}),
        ("search_reports", {"query": "四方科技2019年营业收入和归属于上市公司股东的净利润"}),
        ("search_reports", {"query": "四方科技2019年营业收入和归属于上市公司股东的净利润", "detail": "full"}),
        ("search_reports", {"query": "四方科技 2019年 总资产", "top_k": 3}),
    ])  # fmt: skip
    for result in (en, zh):
        text = result.content[0].text
        hits = result.structured_content["hits"]
        assert len(hits) == 5 and len(text) <= SEARCH_LIMIT
        assert len(forwarded(result.structured_content)) <= SEARCH_LIMIT  # a client that shows only this
        for rank, hit in enumerate(hits, start=1):
            assert f"[{rank}] {hit['document']} p.{hit['page']}" in text  # cite …
            assert hit["text"] in text and len(hit["text"]) > 100  # … the same passage in both …
            box = Box(**hit["bbox"])  # … and draw its box
            assert box.page == hit["page"] and box_text(box) in text
            assert "bboxes" not in hit and "highlights" not in hit and "full" not in result.structured_content
        assert text.count("box: p.") == 5 and '"bboxes"' not in text
        assert len(forwarded(result.structured_content)) <= 3_600  # the matched sentences, not whole passages
    texts = [h["text"].casefold() for h in en.structured_content["hits"]]
    assert all("comparable sales" in t or "revenue" in t for t in texts)  # what matched is always shown
    whole = full.structured_content["full"]
    assert json.loads(full.content[0].text) == whole  # detail="full": the whole result as text and under `full`
    assert (
        len(whole["hits"][0]["bboxes"]) > 1
        and whole["hits"][0]["source"]["page"] == full.structured_content["hits"][0]["page"]
    )

    text = table.content[0].text
    assert "row: 总资产 | 2019年末: 2,464,948,703.85" in text
    assert table.structured_content["hits"][0]["row"].startswith("总资产 | 2019年末: 2,464,948,703.85")


def test_a_survey_lists_where_things_are_in_a_line_each(samples_index_dir: Path, cache_dir: Path) -> None:
    (survey,) = call_tools(samples_index_dir, cache_dir, [
        ("search_reports", {"query": "revenue and net income", "top_k": 10, "detail": "pages"}),
    ])  # fmt: skip
    text = survey.content[0].text
    pointers = survey.structured_content["hits"]
    assert len(pointers) == 10 and len(text) <= 1_500 and len(forwarded(survey.structured_content)) <= 1_500
    for rank, pointer in enumerate(pointers, start=1):
        assert set(pointer) == {"document", "page", "section", "line"}
        assert f"[{rank}] {pointer['document']} p.{pointer['page']}" in text and pointer["line"] in text
    lines = [p["line"].casefold() for p in pointers]  # each line the sentence or row that matched best
    assert sum(1 for line in lines if any(w in line for w in ("revenue", "net income", "营业收入", "净利润"))) >= 7


def test_a_page_reads_as_its_text_and_its_tables(samples_index_dir: Path, cache_dir: Path) -> None:
    page, bestbuy, full, bestbuy_full = call_tools(samples_index_dir, cache_dir, [
        ("get_page", {"document": SIFANG.name, "page": 5}),
        ("get_page", {"document": BESTBUY_10Q.name, "page": 17}),
        ("get_page", {"document": SIFANG.name, "page": 5, "detail": "full"}),
        ("get_page", {"document": BESTBUY_10Q.name, "page": 17, "detail": "full"}),
    ])  # fmt: skip
    text = page.content[0].text
    assert text.startswith(f"{SIFANG.name} p.5 of 12")
    row = "营业收入: 1,175,301,034.32 | 1,230,537,181.80 | -4.49 | 1,008,714,515.86"  # a table row as text, once
    assert text.count(row) == 1 and text.count("1,175,301,034.32") == 1
    assert row in page.structured_content["tables"][0]["rows"]
    # the table in place: its mark stands where its lines were, and the text around it reads as the page prints it
    marked = page.structured_content["text"].split("\n")
    assert "[table 1]" in marked and all(line in text for line in marked if not line.startswith("[table "))
    before = marked[: marked.index("[table 1]")]
    assert text.index(before[-1]) < text.index("[table 1]") < text.index(row)
    for result, whole in ((page, full), (bestbuy, bestbuy_full)):
        own = len(whole.structured_content["full"]["text"])  # the page's own text, every line
        assert len(result.content[0].text) <= 2.5 * own + 2_000
        assert len(forwarded(result.structured_content)) <= 2.5 * own + 2_000  # no line boxes, no cell boxes
        assert '"bbox"' not in result.content[0].text
    assert json.loads(full.content[0].text) == full.structured_content["full"]
    assert len(full.structured_content["full"]["lines"]) > 20


def test_a_quote_and_the_library_read_as_lines(samples_index_dir: Path, cache_dir: Path) -> None:
    found, missing, listing = call_tools(samples_index_dir, cache_dir, [
        ("locate_quote", {"document": SIFANG.name, "page": 5, "quote": "1,175,301,034.32"}),
        ("locate_quote", {"document": SIFANG.name, "page": 5, "quote": "1,175,301,034.33"}),
        ("list_documents", {}),
    ])  # fmt: skip
    box = Box(**found.structured_content["bboxes"][0])
    context = found.structured_content["context"]
    assert context.startswith("营业收入: 1,175,301,034.32 |")  # its row, label and cells (issue 43)
    assert found.content[0].text.splitlines() == [
        f"VERIFIED (exact) on {SIFANG.name} p.5: '1,175,301,034.32'",
        f"in: {context}",
        f"boxes: {box_text(box)}",
    ]
    assert missing.content[0].text.startswith("NOT VERIFIED") and "not found on page 5" in missing.content[0].text
    text = listing.content[0].text
    for doc in listing.structured_content["documents"]:
        assert f"- {doc['document']}: " in text and f"{doc['pages']} pages" in text
    assert len(text) < len(json.dumps(listing.structured_content)) / 2


def test_a_long_passage_is_cut_around_the_matched_term() -> None:
    text = "alpha " * 200 + "Revenue 9,583 " + "omega " * 200
    cut = _shortened(text, 300, around="9,583")
    assert "9,583" in cut and cut.startswith("…") and cut.endswith("…") and len(cut) <= 302
    assert _shortened("short", 300) == "short"
    boxes = [Box(page=3, x0=10, top=20, x1=30, bottom=40), Box(page=3, x0=5, top=50, x1=25, bottom=60)]
    assert enclosing(boxes) == Box(page=3, x0=5, top=20, x1=30, bottom=60)
    assert box_text(Box(page=3, x0=5.4, top=20.6, x1=30, bottom=60)) == "p.3 [x0 5, top 21, x1 30, bottom 60]"
    # the same whole points as the coordinates structuredContent carries (322.5049 → 322.5 there → 322)
    on_wire = Box(**wire(Box(page=3, x0=322.5049, top=1, x1=2, bottom=3)))
    assert (
        box_text(Box(page=3, x0=322.5049, top=1, x1=2, bottom=3))
        == box_text(on_wire)
        == ("p.3 [x0 322, top 1, x1 2, bottom 3]")
    )
