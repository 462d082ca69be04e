"""The tools' output schemas say the same as pydantic's, with optional fields as type lists (cheap to validate)."""

from __future__ import annotations

import copy
import json
from typing import Any

import jsonschema
import pytest
from fastmcp.utilities.json_schema import compress_schema
from pydantic import BaseModel

from indexer.answers import DocumentList, PageResult, QuoteLocation, SearchResult
from indexer.core.models import wire
from indexer.index.reader import LoadedIndex
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import PageRequest, QuoteRequest
from indexer.search.request import SearchRequest
from mcp_server.schemas import output_schema
from tests.conftest import SIFANG


def _results(index: LoadedIndex) -> list[BaseModel]:
    kb = KnowledgeBase(index)
    return [
        kb.search_reports(SearchRequest(query="营业收入 2019", top_k=5)),
        kb.search_reports(SearchRequest(query="net revenues", top_k=5)),
        kb.list_documents(),
        kb.get_page(PageRequest(document=SIFANG.name, page=5)),
        kb.locate_quote(QuoteRequest(document=SIFANG.name, page=5, quote="1,175,301,034.32")),
    ]


def _valid(schema: dict[str, Any], instance: Any) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(instance)


def _broken(instance: dict[str, Any]) -> list[dict[str, Any]]:
    """Copies of a result with one value of the wrong type or null where null is not allowed."""
    out = []
    for key, value in instance.items():
        for wrong in (12345, None) if not isinstance(value, int) else ("12345", None):
            bad = copy.deepcopy(instance)
            bad[key] = wrong
            out.append(bad)
    first_hit = (instance.get("hits") or [None])[0]
    if first_hit is not None:
        for key, wrong in (("table_row", "a row"), ("section", 7), ("bboxes", [{"page": "one"}])):
            bad = copy.deepcopy(instance)
            bad["hits"][0][key] = wrong
            out.append(bad)
    return out


def test_no_optional_field_is_an_anyof_with_null() -> None:
    for model in (SearchResult, DocumentList, PageResult, QuoteLocation):
        text = json.dumps(output_schema(model))
        assert '{"type": "null"}' not in text, model.__name__
    search = json.dumps(output_schema(SearchResult))
    assert '"type": ["object", "null"]' in search and '"type": ["string", "null"]' in search  # table_row, section


@pytest.mark.parametrize("position", range(5))
def test_real_results_and_broken_ones_get_the_same_verdict(samples_index: LoadedIndex, position: int) -> None:
    result = _results(samples_index)[position]
    instance = wire(result)
    ours = output_schema(type(result))
    pydantics = compress_schema(type(result).model_json_schema(mode="serialization", by_alias=True), prune_titles=True)
    assert _valid(ours, instance) and _valid(pydantics, instance)
    broken = _broken(instance)
    assert broken
    for bad in broken:
        assert _valid(ours, bad) == _valid(pydantics, bad), bad
    assert any(not _valid(ours, bad) for bad in broken)
