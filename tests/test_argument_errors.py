"""Bad arguments get one plain sentence each — what was wrong, what is allowed — through a real MCP client."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client, FastMCP
from mcp import MCPError
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from indexer.answers import Outline
from indexer.requests import OutlineRequest
from mcp_server.argument_errors import PlainArgumentErrors, plain_message
from mcp_server.loader import IndexLoader
from mcp_server.server import build_server
from mcp_server.settings import ServerSettings
from mcp_server.tool_registry import Declared, served
from tests.conftest import SIFANG

CASES = [
    ("search_reports", {"query": "revenue", "top_k": 50}, "search_reports: top_k must be between 1 and 20; got 50."),
    ("search_reports", {}, "search_reports: query is required: question or key terms"),
    ("search_reports", {"query": "x", "regex": True}, "unknown argument 'regex'; the arguments are: query, top_k,"),
    ("search_reports", {"query": "x", "year": 1800}, "year must be between 1900 and 2100; got 1800"),
    ("search_reports", {"query": "x", "detail": "all"}, "detail must be one of 'compact', 'pages' or 'full'"),
    ("get_page", {"document": SIFANG.name, "page": "five"}, 'get_page: page must be a whole number; got "five"'),
    ("render_page", {"document": SIFANG.name, "page": 5, "dpi": 1000}, "dpi must be between 36 and 300; got 1000"),
    (
        "locate_quote",
        {"document": SIFANG.name, "page": 5, "quote": "x" * 20_000},
        "quote must be at most 10000 characters; got 20000",
    ),
    (  # a rule of the request model's own (a validator), checked in the same one validation as the limits
        "locate_quote",
        {"document": SIFANG.name, "page": 5, "quote": "1,175,301,034.32", "label": "--"},
        "locate_quote: label: the label has no letter or digit, so it would match any row; pass it as printed (e.g. "
        'Revenue) or leave it out; got "--".',
    ),
    (
        "verify_claims",
        {"claims": [{"document": SIFANG.name, "page": 5, "quote": "1", "period": "()"}]},
        "claims.0.period: the period has no letter or digit, so it would match any column; pass it as printed",
    ),
]


def test_argument_errors_read_as_sentences(samples_index_dir: Path, cache_dir: Path) -> None:
    settings = ServerSettings(index_dir=samples_index_dir, cache_dir=cache_dir)
    server = build_server(settings, IndexLoader(samples_index_dir, cache_dir, 120))

    async def run() -> tuple[list[Any], str]:
        async with Client(server) as client:
            results = [await client.call_tool(name, arguments, raise_on_error=False) for name, arguments, _ in CASES]
            with pytest.raises(MCPError) as prompt_error:
                await client.get_prompt("due_diligence", {})
            return results, str(prompt_error.value)

    results, prompt_error = asyncio.run(run())
    for (name, arguments, expected), result in zip(CASES, results, strict=True):
        text = result.content[0].text
        assert result.is_error and expected in text, (name, arguments, text)
        assert "pydantic" not in text and "validation error" not in text and "\n" not in text
        assert text.count(f"{name}: ") == 1, text  # one answer, not one wrapped in another
    assert "due_diligence needs question (the question to answer from the filings)" in prompt_error


def test_a_flood_of_long_unknown_argument_names_is_answered_in_a_few_lines() -> None:
    """100 unknown arguments with 5,000-character names once made a 507 KB error: a few are named, cut short, and
    the rest counted."""

    class Call(BaseModel):
        model_config = ConfigDict(extra="forbid")
        query: str

    arguments = {"query": "revenue"} | {f"{n:03d}" + "x" * 5_000: 1 for n in range(100)}
    with pytest.raises(ValidationError) as error:
        Call.model_validate(arguments)
    message = plain_message("search_reports", error.value, {"properties": {"query": {}, "top_k": {}}})
    assert len(message) < 1_000, len(message)
    assert (
        "unknown argument '000xxx" in message and "(5003 characters)" in message and "and 97 more problems" in message
    )


def test_a_request_model_s_rule_is_a_bad_call_not_a_server_error(
    samples_index_dir: Path, cache_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The label rule once ran only when the tool built its request, after FastMCP's own validation: a bad label was
    logged as an error calling the tool, with a traceback. The arguments are validated once now, by the model."""
    server = build_server(ServerSettings(index_dir=samples_index_dir, cache_dir=cache_dir),
                          IndexLoader(samples_index_dir, cache_dir, 120))  # fmt: skip
    arguments = {"document": SIFANG.name, "page": 5, "quote": "1", "label": "()"}

    async def run() -> Any:
        async with Client(server) as client:
            return await client.call_tool("locate_quote", arguments, raise_on_error=False)

    fastmcp_logs = logging.getLogger("fastmcp")
    fastmcp_logs.addHandler(caplog.handler)
    try:
        result = asyncio.run(run())
    finally:
        fastmcp_logs.removeHandler(caplog.handler)
    assert result.is_error and result.content[0].text.startswith("locate_quote: label: the label has no letter")
    assert [r.levelname for r in caplog.records if "locate_quote" in r.getMessage()] == ["WARNING"]


class _OnePage(OutlineRequest):
    """A request with a rule across its arguments (a model validator: its error has no argument's place)."""

    @model_validator(mode="after")
    def _not_the_cover(self) -> _OnePage:
        if self.document.startswith("cover"):
            raise ValueError("a cover has no outline: pass the filing's own name (list_documents gives it)")
        return self


def test_a_rule_across_the_arguments_is_one_plain_line(tmp_path: Path) -> None:
    """Any request model's rule reaches a client as the advice it was written as, whatever its validator."""
    from mcp_server.tools import get_outline

    declared = Declared("get_outline", "A test tool.", Outline, request=_OnePage, forms=get_outline.TOOL.forms)
    tool = served(declared, IndexLoader(tmp_path / "none", tmp_path, 1), covers="")
    server = FastMCP("t")
    server.add_tool(tool)
    server.add_middleware(PlainArgumentErrors({tool.name: tool.parameters}, {}))

    async def run() -> Any:
        async with Client(server) as client:
            return await client.call_tool("get_outline", {"document": "cover.pdf"}, raise_on_error=False)

    text = asyncio.run(run()).content[0].text
    assert text == (
        "get_outline: a cover has no outline: pass the filing's own name (list_documents gives it). "
        "The tool's description and input schema list every argument."
    )
