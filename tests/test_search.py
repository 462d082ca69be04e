"""Search over the four committed samples: real pages, real text, real boxes. What a question ranks is asserted on
the index the product's model embedded (``e5_samples_kb``); filters, boxes, highlights and errors on the hashing test
embedder's (``samples_kb``)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from indexer.core.errors import NotFoundError, QueryError
from indexer.core.recipe import DEFAULT_RECIPE
from indexer.index.model_cache import FOLDER
from indexer.index.reader import LoadedIndex
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import PageRequest
from indexer.search.request import SearchRequest
from tests.conftest import BROKER, ROOT, SAMPLES, SIFANG, hits_for, text_under


def _squash(text: str) -> str:
    """Compare text ignoring spaces, line breaks and dash variants (LiteParse prints a nil em dash as '-')."""
    for dash in "—–−":
        text = text.replace(dash, "-")
    return "".join(text.split())


def test_english_question_finds_the_revenue_page(e5_samples_kb: KnowledgeBase) -> None:
    # no company named (a name would narrow the search to its filing): the page is found by what it says
    hits = hits_for(e5_samples_kb, "Domestic segment revenue and comparable sales in the second quarter", top_k=5)
    assert hits and (hits[0].document, hits[0].page) == ("BESTBUY_2024Q2_10Q.pdf", 17)
    assert "Segment Performance Summary\nDomestic Segment" in e5_samples_kb.page(hits[0].document, 17).text
    assert "comparable sales" in hits[0].content.lower()


def test_chinese_question_finds_the_key_figures_page(e5_samples_kb: KnowledgeBase) -> None:
    hits = hits_for(e5_samples_kb, "四方科技 营业收入 1,175,301,034.32", top_k=5)
    assert hits[0].document == SIFANG.name
    assert "1,175,301,034.32" in hits[0].content  # printed on p.5 (key figures) and p.11 (MD&A)
    assert 5 in [h.page for h in hits[:3]]


def test_words_inside_a_hits_boxes_are_its_text(samples_kb: KnowledgeBase) -> None:
    for query in ("Adjusted Property EBITDAR Las Vegas Strip", "扣除非经常性损益的净利润"):
        hits = hits_for(samples_kb, query, top_k=3)
        assert len(hits) == 3
        for hit in hits:
            under = text_under(SAMPLES / hit.document, hit.page, hit.boxes)
            assert _squash(under) == _squash(hit.content)


def test_boxes_lie_inside_the_page(samples_kb: KnowledgeBase) -> None:
    hits = hits_for(samples_kb, "revenue", top_k=20)
    assert len(hits) == 20 and all(hit.boxes for hit in hits)
    for hit in hits:
        for box in hit.boxes:
            assert box.page == hit.page
            assert 0 <= box.x0 <= box.x1 <= hit.page_width + 0.5
            assert 0 <= box.top <= box.bottom <= hit.page_height + 0.5


def test_documents_glob_and_company_filter(samples_kb: KnowledgeBase) -> None:
    hits = hits_for(samples_kb, "revenue", top_k=10, documents="MGM*")
    assert hits and {h.document for h in hits} == {"MGMRESORTS_2022Q4_EARNINGS.pdf"}
    hits = hits_for(samples_kb, "净利润", top_k=10, company="688556")
    assert hits and {h.document for h in hits} == {"mineru_research_report_688556_高测股份_德邦证券_2022-07-19.pdf"}
    hits = hits_for(samples_kb, "净利润", top_k=10, company="四方科技")
    assert hits and {h.document for h in hits} == {SIFANG.name}


def test_results_are_capped_by_top_k_and_sorted(samples_kb: KnowledgeBase) -> None:
    hits = hits_for(samples_kb, "net income", top_k=4)
    assert len(hits) == 4
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_the_first_hits_do_not_depend_on_how_many_are_asked_for(
    samples_kb: KnowledgeBase, samples_index: LoadedIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search for 5 hits reads the same lists as one for 10 (each as deep), so its five are the other's first
    five: an agent that asks for fewer hits gets the same ranking, not a shallower one."""
    storage = type(samples_index.storage)  # the class the knowledge base's storage is too
    real = storage.passages
    asked: list[int] = []

    def spy(self: object, tokens: list[str], depth: int, allowed: object) -> object:
        asked.append(depth)
        return real(self, tokens, depth, allowed)  # type: ignore[arg-type]

    monkeypatch.setattr(storage, "passages", spy)
    question = "Best Buy comparable sales"
    pages = {}
    depths = {}
    for top_k in (10, 5, 1):
        asked.clear()
        pages[top_k] = [h.page for h in hits_for(samples_kb, question, top_k=top_k)]
        depths[top_k] = set(asked)
    assert pages[5] == pages[10][:5] and pages[1] == pages[10][:1]
    assert depths[1] == depths[5] == depths[10] and min(depths[5]) >= 10 * DEFAULT_RECIPE.recall_factor


@pytest.mark.parametrize("query", ["", "   ", "x" * 5000])
def test_bad_queries_get_clear_errors(samples_kb: KnowledgeBase, query: str) -> None:
    with pytest.raises(QueryError, match="query"):
        hits_for(samples_kb, query)


def test_filters_that_match_nothing_list_what_exists(samples_kb: KnowledgeBase) -> None:
    with pytest.raises(QueryError, match=r"BESTBUY_2024Q2_10Q\.pdf"):
        hits_for(samples_kb, "revenue", documents="*2031*")
    with pytest.raises(QueryError, match=r"the closest of the 4 companies in the index: .*BEST BUY"):
        hits_for(samples_kb, "revenue", company="Best Bye")  # a misspelt name: the nearest names, not every name
    with pytest.raises(QueryError, match=r"no document of year=2031 .* their fiscal years: 2019, 2022"):
        hits_for(samples_kb, "revenue", year=2031)


def test_get_page_refuses_unknown_names_and_pages(samples_kb: KnowledgeBase) -> None:
    with pytest.raises(NotFoundError, match="valid names are"):
        samples_kb.get_page(PageRequest(document="../../etc/passwd", page=1))
    with pytest.raises(NotFoundError, match="pages 1 to 30"):
        samples_kb.get_page(PageRequest(document="BESTBUY_2024Q2_10Q.pdf", page=31))
    with pytest.raises(NotFoundError, match="out of range"):
        samples_kb.get_page(PageRequest(document="BESTBUY_2024Q2_10Q.pdf", page=0))


def test_a_company_named_in_the_question_scopes_the_search(samples_kb: KnowledgeBase) -> None:
    hits = hits_for(samples_kb, "How did Best Buy's comparable sales change in the quarter?", top_k=8)
    assert hits and {h.document for h in hits} == {"BESTBUY_2024Q2_10Q.pdf"}


def test_english_question_about_a_chinese_report_is_answered(e5_samples_kb: KnowledgeBase) -> None:
    """Pinyin alias (Sifang → 四方科技) plus the glossary (operating revenue → 营业收入)."""
    hits = hits_for(e5_samples_kb, "What was Sifang's operating revenue in 2019?", top_k=5)
    assert {h.document for h in hits} == {SIFANG.name}
    assert any("1,175,301,034.32" in h.content for h in hits[:3])


def test_year_and_form_filters(samples_kb: KnowledgeBase) -> None:
    assert {h.document for h in hits_for(samples_kb, "revenue", top_k=10, form="10-Q")} == {"BESTBUY_2024Q2_10Q.pdf"}
    docs = {h.document for h in hits_for(samples_kb, "净利润 revenue", top_k=20, year=2022)}
    assert docs <= {"MGMRESORTS_2022Q4_EARNINGS.pdf", "mineru_research_report_688556_高测股份_德邦证券_2022-07-19.pdf"}
    with pytest.raises(QueryError, match="forms in the index"):
        hits_for(samples_kb, "revenue", form="20-F")


def test_one_hit_per_page(samples_kb: KnowledgeBase) -> None:
    hits = hits_for(samples_kb, "revenue net income EBITDAR", top_k=15)
    pages = [(h.document, h.page) for h in hits]
    assert len(pages) == len(set(pages))


def test_regex_mode_returns_passages_that_match(samples_kb: KnowledgeBase) -> None:
    import re

    hits = hits_for(samples_kb, r"\$[\d,.]+\s*(?:million|billion)", top_k=5, use_regex=True)
    assert hits
    for hit in hits:
        assert re.search(r"\$[\d,.]+\s*(?:million|billion)", hit.content, re.I)
    with pytest.raises(QueryError, match="invalid regular expression"):
        hits_for(samples_kb, "[unclosed", use_regex=True)


def test_hits_carry_boxes_of_the_query_terms_and_figures(samples_kb: KnowledgeBase) -> None:
    hit = hits_for(samples_kb, "四方科技 营业收入 1,175,301,034.32", top_k=3)[0]
    texts = [h.text for h in hit.highlights]
    assert "1,175,301,034.32" in texts and "营业收入" in texts
    assert "收入" not in texts  # the longer term wins, no overlapping boxes
    figure = next(h for h in hit.highlights if h.text == "1,175,301,034.32")
    under = text_under(SAMPLES / hit.document, hit.page, [figure.box])
    assert _squash(under) == "1,175,301,034.32"
    for h in hit.highlights:
        assert any(abs(h.box.top - line.top) < 1.5 for line in hit.boxes)  # on the passage's own lines


def test_the_recipe_caps_the_highlights(samples_kb: KnowledgeBase) -> None:
    """A recipe's max_highlights is the cap a search uses (a sweep over it measures what it says)."""
    question = "四方科技 营业收入 1,175,301,034.32"
    assert len(hits_for(samples_kb, question, top_k=1)[0].highlights) >= 2
    capped = DEFAULT_RECIPE.model_copy(update={"max_highlights": 1})
    assert len(hits_for(samples_kb, question, top_k=1, recipe=capped)[0].highlights) == 1


def test_regex_hits_highlight_the_matches(samples_kb: KnowledgeBase) -> None:
    hit = hits_for(samples_kb, r"\$[\d,.]+\s*billion", top_k=1, use_regex=True)[0]
    assert hit.highlights and all("billion" in h.text.lower() or h.text.startswith("$") for h in hit.highlights)


def test_broker_filter_and_broker_fields_in_list_documents(samples_kb: KnowledgeBase) -> None:
    hits = hits_for(samples_kb, "金刚线 产能", top_k=3, broker="德邦")
    assert hits and {h.document for h in hits} == {BROKER.name}
    with pytest.raises(QueryError, match="brokers in the index: 德邦证券"):
        hits_for(samples_kb, "金刚线", broker="中信证券")
    doc = next(d for d in samples_kb.list_documents().documents if d.document == BROKER.name)
    assert (doc.broker, doc.rating, doc.analysts) == ("德邦证券", "增持", ["倪正洋"])


def test_the_outcome_names_the_documents_actually_searched(samples_kb: KnowledgeBase) -> None:
    named = samples_kb.search(SearchRequest(query="四方科技 2019年 营业收入", top_k=3))
    assert named.scope == [SIFANG.name] and {h.document for h in named.hits} == {SIFANG.name}
    anything = samples_kb.search(SearchRequest(query="net revenues", top_k=3))
    assert anything.scope is None and anything.route
    filtered = samples_kb.search(SearchRequest(query="revenue", documents="MGM*", top_k=3))
    assert filtered.scope == ["MGMRESORTS_2022Q4_EARNINGS.pdf"]


def test_a_cold_server_on_the_real_model_answers_with_json_rpc_only(e5_samples_index_dir: Path, tmp_path: Path) -> None:
    """End to end on the product's embedder: a server with an empty cache rebuilds multilingual-e5-small from the
    manifest (building its ONNX model and jieba's dictionary on the way), answers a question the model ranks, and
    writes nothing but JSON-RPC on stdout."""
    cold = tmp_path / "cold-cache"
    question = "Best Buy Domestic segment revenue comparable sales second quarter fiscal 2024"
    requests = [
        {"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                     "clientInfo": {"name": "raw", "version": "0"}}},
        {"method": "notifications/initialized", "params": {}},
        {"id": 2, "method": "tools/call", "params": {"name": "search_reports", "arguments": {"query": question}}},
    ]  # fmt: skip
    stdin = "".join(json.dumps({"jsonrpc": "2.0", **request}) + "\n" for request in requests)
    command = [sys.executable, "-m", "mcp_server", "--index", str(e5_samples_index_dir), "--cache-dir", str(cold)]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
                          text=True) as server:  # fmt: skip
        assert server.stdin is not None and server.stdout is not None and server.stderr is not None
        server.stdin.write(stdin)
        server.stdin.flush()
        lines = []
        while not lines or json.loads(lines[-1]).get("id") != 2:  # until the search is answered (or stdout ends)
            lines.append(server.stdout.readline())
            assert lines[-1], server.stderr.read()
        server.stdin.close()
        lines += server.stdout.read().splitlines()
        stderr = server.stderr.read()
    messages = [json.loads(line) for line in lines if line.strip()]
    assert all(m["jsonrpc"] == "2.0" and ("result" in m or "method" in m) for m in messages), stderr
    (answer,) = [m["result"] for m in messages if m.get("id") == 2]
    hits = answer["structuredContent"]["hits"]
    assert hits[0]["document"] == "BESTBUY_2024Q2_10Q.pdf"
    assert list((cold / FOLDER).glob("*.onnx"))  # the query side was the onnx engine the manifest names
