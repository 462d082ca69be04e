"""get_page reads a short range of pages (``pages="17-18"``): each page as get_page gives it alone, in order, headed
[p.N] in the text; a single ``page`` is answered as before; a bad range gets one sentence naming what is allowed."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fastmcp import Client

from indexer.evidence import page_budget
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import PageRequest
from mcp_server import renderings
from mcp_server.loader import IndexLoader
from mcp_server.renderings import answer_parts
from mcp_server.server import build_server
from mcp_server.settings import ServerSettings
from mcp_server.tools.get_page import shared_header
from tests.conftest import BESTBUY_10Q, call_tools

DOC = BESTBUY_10Q.name  # 30 pages; the Domestic segment's table on p.17 goes on with its sales changes on p.18


def _get_page(**arguments: Any) -> tuple[str, dict[str, Any]]:
    return "get_page", {"document": DOC, **arguments}


def _listed_output_schema(index_dir: Path, cache_dir: Path) -> dict[str, Any]:
    server = build_server(
        ServerSettings(index_dir=index_dir, cache_dir=cache_dir), IndexLoader(index_dir, cache_dir, 120)
    )

    async def run() -> dict[str, Any]:
        async with Client(server) as client:
            tools = {tool.name: tool for tool in await client.list_tools()}
            return tools["get_page"].output_schema or {}

    return asyncio.run(run())


def test_a_range_is_each_page_as_get_page_reads_it_alone(samples_index_dir: Path, cache_dir: Path) -> None:
    calls = [_get_page(pages="17-18", detail=detail) for detail in ("compact", "full")]
    calls += [_get_page(page=number, detail=detail) for detail in ("compact", "full") for number in (17, 18)]
    both, both_full, p17, p18, p17_full, p18_full = call_tools(samples_index_dir, cache_dir, calls)
    assert not any(r.is_error for r in (both, p17, p18, both_full, p17_full, p18_full))

    # structuredContent: the pages in order, each the very answer of a single get_page call
    pages = both.structured_content["pages"]
    assert [page["page"] for page in pages] == [17, 18]
    assert pages == [p17.structured_content, p18.structured_content]
    tables = [line for table in pages[0]["tables"] for line in [table["title"] or "", *table["rows"]]]
    assert "Segment Performance Summary" in pages[0]["text"] and "[table 1]" in pages[0]["text"]
    assert any("Domestic Segment" in line for line in tables) and any("8,890" in row for row in tables)
    assert "Notable comparable sales changes by revenue category" in pages[1]["text"]
    assert pages[0]["tables"] and pages[0]["tables"][0]["rows"]  # the segment table, as rows
    # detail="full": every line's box of each page, as the single calls give them
    assert both_full.structured_content["full"]["pages"] == [p17_full.structured_content["full"],
                                                             p18_full.structured_content["full"]]  # fmt: skip
    assert both_full.structured_content["full"]["pages"][0]["lines"][1]["bbox"]["page"] == 17

    # text: a line naming the range, then each page headed [p.N] with the single answer's text and tables
    text = both.content[0].text
    assert text.startswith(f"{DOC} p.17–18 of 30, each page headed [p.N]\n\n[p.17]\n\n")
    for single, number in ((p17, 17), (p18, 18)):
        head, body = single.content[0].text.split("\n\n", 1)
        assert head == f"{DOC} p.{number} of 30"
        assert f"[p.{number}]\n\n{body}" in text
    assert re.findall(r"^\[p\.(\d+)\]", text, flags=re.M) == ["17", "18"]

    schema = _listed_output_schema(samples_index_dir, cache_dir)  # one output schema holds a page and a range
    for result in (both, p17, both_full, p17_full):
        jsonschema.validate(result.structured_content, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"pages": [{"page": 17}]}, schema)


def test_one_page_is_answered_as_before(samples_index_dir: Path, cache_dir: Path, samples_kb: KnowledgeBase) -> None:
    """``page`` gives one page's answer, not a range of one; ``pages="17"`` is a range of one page."""
    calls = [_get_page(page=17), _get_page(page=17, detail="full"), _get_page(pages="17")]
    one, full, ranged = call_tools(samples_index_dir, cache_dir, calls)
    expected_text, expected = answer_parts(samples_kb.get_page(PageRequest(document=DOC, page=17)), "compact")
    assert (one.content[0].text, one.structured_content) == (expected_text, expected)
    assert list(one.structured_content) == ["document", "page", "page_count", "width", "height", "flags", "text",
                                             "tables", "cut"]  # fmt: skip
    head = f"{DOC} p.17 of 30\n\nSegment Performance Summary\n"  # the running "Table of Contents" left out
    assert one.content[0].text.startswith(head) and "[p." not in one.content[0].text
    assert "Table of Contents" in [line["text"] for line in full.structured_content["full"]["lines"]]
    assert full.structured_content["full"]["page"] == 17 and "pages" not in full.structured_content["full"]
    assert ranged.structured_content == {"pages": [one.structured_content]}
    assert ranged.content[0].text.startswith(f"{DOC} p.17 of 30, each page headed [p.N]\n\n[p.17]\n\n")


BAD = [
    ({"pages": "20-18"}, ["the range ends before it starts", "low to high", '"18-20"']),
    ({"pages": "33-35"}, ["pages 33-35 are out of range", "has 30 pages", "ask for pages within 1-30"]),
    ({"pages": "29-31"}, ["pages 29-31 are out of range", "has 30 pages", "ask for pages within 1-30"]),
    ({"pages": "3-9"}, ["that is 7 pages", "at most 3 at a time", '"3-5"']),
    ({"pages": "p33-x"}, ["at most 3 pages", '"33-35"', 'got "p33-x"']),
    ({"pages": "0-2"}, ["numbered from 1", '"33-35"']),
    ({"page": 17, "pages": "17-18"}, ["not both", "at most 3 pages", '"33-35"']),
    ({}, ["give page (one page, e.g. 33) or pages", "at most 3 pages", '"33-35"']),
    ({"page": 31}, ["page 31 is out of range", "has pages 1 to 30"]),  # as before
]


def test_a_bad_range_is_one_sentence_naming_what_is_allowed(samples_index_dir: Path, cache_dir: Path) -> None:
    results = call_tools(samples_index_dir, cache_dir, [_get_page(**arguments) for arguments, _ in BAD])
    for (arguments, expected), result in zip(BAD, results, strict=True):
        text = result.content[0].text
        assert result.is_error and all(part in text for part in expected), (arguments, text)
        assert "\n" not in text and "pydantic" not in text.lower() and "traceback" not in text.lower(), text
        assert "validation error" not in text and "get_page: get_page" not in text, text


def test_each_page_of_a_range_keeps_a_whole_page_s_budget(
    samples_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page too large for one answer is cut as it would be alone; the next page is not cut to make room."""
    monkeypatch.setattr(page_budget, "PAGE_TEXT_CHARS", 1_000)
    both = samples_kb.get_page(PageRequest(document=DOC, pages="17-18"))
    alone = [samples_kb.get_page(PageRequest(document=DOC, page=number)) for number in (17, 18)]
    assert both.pages == alone  # type: ignore[union-attr]
    for page in both.pages:  # type: ignore[union-attr]
        assert page.cut and "this page is too large for one answer" in page.cut
        assert 900 < sum(len(line.text) + 1 for line in page.lines) <= 1_000


def test_a_range_s_text_may_hold_each_page_s_budget(samples_kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    both = samples_kb.get_page(PageRequest(document=DOC, pages="17-18"))
    whole, _ = answer_parts(both, "compact")
    monkeypatch.setattr(renderings, "COMPACT_ANSWER_CHARS", len(whole) // 2 + 100)  # over one page's, under two
    assert answer_parts(both, "compact")[0] == whole
    monkeypatch.setattr(renderings, "COMPACT_ANSWER_CHARS", len(whole) // 3)  # two pages' budget is less than it
    cut, _ = answer_parts(both, "compact")
    assert cut.startswith(whole[: 2 * (len(whole) // 3)]) and f"[cut at {2 * (len(whole) // 3):,} of" in cut


def test_column_headers_that_begin_alike_are_said_once() -> None:
    """A caption read into every header is said once, as what the columns stand under; a long header keeps its
    last words, where its period is (detail='full' keeps each as printed)."""
    caption = "Reconciliations of operating income to non-GAAP operating income ($ in millions):"
    under, columns = shared_header([f"{caption} Three Months Ended July 29, 2023", f"{caption} Six Months Ended "
                                    "July 29, 2023", ""])  # fmt: skip
    assert under == caption and columns == ["Three Months Ended July 29, 2023", "Six Months Ended July 29, 2023", ""]
    assert shared_header(["2023", "2022"]) == (None, ["2023", "2022"])  # nothing long shared
    (long,) = shared_header(["Net revenue as reported " * 5 + "Fiscal 2024"])[1]
    assert long.startswith("…") and long.endswith("Fiscal 2024") and len(long) == 80
