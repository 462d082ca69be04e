"""A tool is declared in one place: a row of mcp_server.server.TOOLS naming the KnowledgeBase method that answers it,
its request model and its result model. What clients are shown and what the method takes follow from the row."""

from __future__ import annotations

import asyncio
import typing
from pathlib import Path

import pytest
from fastmcp import Client

from indexer.knowledge_base import KnowledgeBase
from mcp_server.loader import IndexLoader
from mcp_server.server import TOOLS, build_server
from mcp_server.settings import ServerSettings
from mcp_server.tool_registry import arguments_model


def _listed(tmp_path: Path) -> dict[str, typing.Any]:
    index = tmp_path / "no-index-here"  # the tools are declared whether or not an index is there
    server = build_server(ServerSettings(index_dir=index, cache_dir=tmp_path), IndexLoader(index, tmp_path, 1))

    async def run() -> dict[str, typing.Any]:
        async with Client(server) as client:
            return {tool.name: tool for tool in await client.list_tools()}

    return asyncio.run(run())


def test_a_client_lists_the_registry_s_tools_in_its_order(tmp_path: Path) -> None:
    assert list(_listed(tmp_path)) == [declared.name for declared in TOOLS]


def test_each_tool_is_the_knowledge_base_method_of_its_name() -> None:
    """The method takes the row's request model (nothing, for a tool without one) and returns its result model:
    the brief's full model, or the result itself."""
    for declared in TOOLS:
        hints = typing.get_type_hints(getattr(KnowledgeBase, declared.name))
        returns = hints.pop("return")
        assert list(hints.values()) == ([declared.request] if declared.request else []), declared.name
        result = declared.full or declared.output
        assert returns is result or result in typing.get_args(returns), declared.name  # render_page: (png, record)


def test_a_tool_s_arguments_are_its_request_model_s_fields(tmp_path: Path) -> None:
    """Argument for argument, in order, with detail last where the tool takes it; required as the model requires."""
    listed = _listed(tmp_path)
    for declared in TOOLS:
        schema = listed[declared.name].input_schema
        fields = declared.request.model_fields if declared.request else {}
        assert list(schema["properties"]) == [*fields, *(["detail"] if declared.detail else [])], declared.name
        assert schema.get("required", []) == [name for name, field in fields.items() if field.is_required()]
        model = arguments_model(declared)
        assert declared.request is None or issubclass(model, declared.request), declared.name


def test_an_error_of_the_server_s_own_is_still_a_message(
    samples_index_dir: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every tool error carries words: a failure that is not the caller's (here an assertion without a message, as
    faiss raises) names the tool and the error, and the server goes on answering."""
    from tests.conftest import call_tools

    def broken(self: KnowledgeBase, request: object) -> None:
        raise AssertionError

    monkeypatch.setattr(KnowledgeBase, "get_outline", broken)
    failed, listed = call_tools(
        samples_index_dir, cache_dir, [("get_outline", {"document": "BESTBUY_2024Q2_10Q.pdf"}), ("list_documents", {})]
    )
    assert failed.is_error and failed.content[0].text.startswith(
        "get_outline failed on an error of the server's (AssertionError); the server logged it"
    )
    assert not listed.is_error


def test_a_result_type_without_its_form_is_an_error_at_start(tmp_path: Path) -> None:
    """A tool that answers with a result type its module declares no form for stops the server at start, naming the
    tool and where to add it, instead of answering a call with raw JSON."""
    from dataclasses import replace

    from mcp_server.loader import IndexLoader
    from mcp_server.tool_registry import UndeclaredForm, served
    from mcp_server.tools import TOOLS

    get_page = next(d for d in TOOLS if d.name == "get_page")
    assert set(get_page.forms) == set(get_page.results())  # a page, and a range of pages
    half = replace(get_page, forms={k: v for k, v in get_page.forms.items() if k.__name__ == "PageResult"})
    with pytest.raises(UndeclaredForm, match=r"get_page answers with PageRange .* \(mcp_server/tools/get_page.py\)"):
        served(half, IndexLoader(tmp_path, tmp_path, 1), "")
    for declared in TOOLS:  # every tool the server lists declares its forms (or answers in its own way)
        declared.check_forms()
