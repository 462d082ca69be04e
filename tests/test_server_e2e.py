"""filings-mcp as a subprocess, driven by the official MCP client over stdio, and its raw stdout checked."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from indexer import __version__
from tests.conftest import ROOT, SIFANG
from tests.test_docs import _served_tools


def _params(index_dir: Path, cache_dir: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_server", "--index", str(index_dir), "--cache-dir", str(cache_dir)],
        cwd=str(ROOT),
    )


async def _session_run(index_dir: Path, cache_dir: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with stdio_client(_params(index_dir, cache_dir)) as (read, write), ClientSession(read, write) as session:
        started = time.perf_counter()
        out["server"] = (await session.initialize()).server_info
        out["tools"] = (await session.list_tools()).tools
        out["list_seconds"] = time.perf_counter() - started
        out["documents"] = await session.call_tool("list_documents", {})
        out["en"] = await session.call_tool(
            "search_reports", {"query": "Las Vegas Strip Resorts net revenues fourth quarter", "top_k": 3}
        )
        out["zh"] = await session.call_tool(
            "search_reports", {"query": "营业收入和归属于上市公司股东的净利润", "detail": "full"}
        )
        out["filtered"] = await session.call_tool(
            "search_reports", {"query": "net revenues", "documents": "BESTBUY*", "top_k": 2}
        )
        out["page"] = await session.call_tool("get_page", {"document": SIFANG.name, "page": 5, "detail": "full"})
        out["table"] = await session.call_tool(
            "search_reports", {"query": "四方科技 2019年 总资产", "top_k": 3, "detail": "full"}
        )
        out["bad_doc"] = await session.call_tool("get_page", {"document": "../../etc/passwd", "page": 1})
        out["bad_page"] = await session.call_tool("get_page", {"document": SIFANG.name, "page": 13})
        out["empty"] = await session.call_tool("search_reports", {"query": "   "})
        out["top_k"] = await session.call_tool("search_reports", {"query": "revenue", "top_k": 50})
        out["regex"] = await session.call_tool(
            "search_reports", {"query": r"\$[\d,.]+\s*billion", "use_regex": True, "top_k": 2}
        )
        out["bad_regex"] = await session.call_tool("search_reports", {"query": "(unclosed", "use_regex": True})
        out["form"] = await session.call_tool("search_reports", {"query": "净利润", "form": "年报", "top_k": 3})
        out["quote"] = await session.call_tool(
            "locate_quote", {"document": SIFANG.name, "page": 5, "quote": "营业收入 1,175,301,034.32", "detail": "full"}
        )
        out["claims"] = await session.call_tool(
            "verify_claims",
            {"claims": [{"document": SIFANG.name, "page": 5, "quote": "1,175,301,034.32", "label": "营业收入"}]},
        )
        out["wrong_quote"] = await session.call_tool(
            "locate_quote", {"document": SIFANG.name, "page": 5, "quote": "1,175,301,034.33"}
        )
        out["long_quote"] = await session.call_tool(
            "locate_quote", {"document": SIFANG.name, "page": 5, "quote": "x" * 5000}
        )
        out["render"] = await session.call_tool(
            "render_page", {"document": SIFANG.name, "page": 5, "quote": "1,175,301,034.32", "dpi": 72}
        )
        out["bad_dpi"] = await session.call_tool("render_page", {"document": SIFANG.name, "page": 5, "dpi": 1000})
        out["prompts"] = (await session.list_prompts()).prompts
        out["prompt"] = await session.get_prompt("due_diligence", {"question": "四方科技2019年营业收入是多少？"})
    return out


def test_mcp_client_session(samples_index_dir: Path, cache_dir: Path) -> None:
    out = asyncio.run(_session_run(samples_index_dir, cache_dir))
    assert (out["server"].name, out["server"].version) == ("filings-mcp", __version__)
    tools = {tool.name: tool for tool in out["tools"]}
    assert list(tools) == _served_tools()  # the registry's, in its order
    for tool in tools.values():
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.output_schema and tool.output_schema["type"] == "object"
    assert {"query", "top_k", "documents", "company"} <= set(tools["search_reports"].input_schema["properties"])
    assert tools["search_reports"].input_schema["properties"]["top_k"]["maximum"] == 20
    assert "Covers 4 filings/reports" in (tools["search_reports"].description or "")  # coverage in a line …
    assert "Documents (name: title)" not in (tools["search_reports"].description or "")  # … the catalogue once
    assert "cite" in (tools["search_reports"].description or "").lower()

    docs = out["documents"].structured_content["documents"]
    assert {d["document"] for d in docs} >= {"BESTBUY_2024Q2_10Q.pdf", SIFANG.name}

    en = out["en"].structured_content
    assert len(en["hits"]) == 3
    top = en["hits"][0]
    assert top["document"] == "MGMRESORTS_2022Q4_EARNINGS.pdf" and top["bbox"]["page"] == top["page"]
    text = out["en"].content[0].text  # what the model reads: compact, each hit with its citation
    assert f"[1] {top['document']} p.{top['page']}" in text and "box: p." in text and top["text"] in text

    zh = out["zh"].structured_content["full"]
    assert any(h["source"]["document"] == SIFANG.name and h["source"]["page"] == 5 for h in zh["hits"])
    assert any(m["text"] == "营业收入" for h in zh["hits"] for m in h["highlights"])

    filtered = out["filtered"].structured_content
    assert filtered["searched_documents"] == 1
    assert {h["document"] for h in filtered["hits"]} == {"BESTBUY_2024Q2_10Q.pdf"}

    page = out["page"].structured_content["full"]
    assert page["page"] == 5 and page["page_count"] == 12 and page["width"] > 500
    assert any(line["text"].startswith("营业收入 1,175,301,034.32") for line in page["lines"])
    table = next(t for t in page["tables"] if any(r["label"] == "营业收入" for r in t["rows"]))
    revenue = next(r for r in table["rows"] if r["label"] == "营业收入")
    first = revenue["cells"][0]
    assert (first["header"], first["text"]) == ("2019年", "1,175,301,034.32")
    row = out["table"].structured_content["full"]["hits"][0]["table_row"]
    assert row["label"] == "总资产" and row["cells"][0]["text"] == "2,464,948,703.85"
    assert row["cells"][0]["bboxes"][0]["page"] == 5

    assert out["bad_doc"].is_error and "valid names are" in out["bad_doc"].content[0].text
    assert out["bad_page"].is_error and "pages 1 to 12" in out["bad_page"].content[0].text
    assert out["empty"].is_error and "query is empty" in out["empty"].content[0].text
    assert out["top_k"].is_error and "20" in out["top_k"].content[0].text
    regex_hits = out["regex"].structured_content["hits"]
    assert regex_hits and all("billion" in h["text"].lower() for h in regex_hits)
    assert out["bad_regex"].is_error and "invalid regular expression" in out["bad_regex"].content[0].text
    assert {h["document"] for h in out["form"].structured_content["hits"]} == {SIFANG.name}
    assert {"year", "form", "use_regex"} <= set(tools["search_reports"].input_schema["properties"])

    quote = out["quote"].structured_content["full"]
    assert quote["verified"] and quote["match"] == "exact" and quote["page"] == 5
    assert out["claims"].structured_content["checks"][0]["status"] == "verified"
    assert len(quote["bboxes"]) == 1 and quote["bboxes"][0]["x1"] <= quote["page_width"]
    assert not out["wrong_quote"].structured_content["verified"]
    assert out["long_quote"].is_error and "2000" in out["long_quote"].content[0].text
    kinds = [block.type for block in out["render"].content]
    assert kinds[0] == "image" and out["render"].content[0].mime_type == "image/png"
    assert out["render"].structured_content["quote"]["verified"]
    assert out["bad_dpi"].is_error
    assert [p.name for p in out["prompts"]] == ["due_diligence"]
    text = out["prompt"].messages[0].content.text
    assert "四方科技2019年营业收入是多少？" in text and "verify_claims" in text and "not found in the filings" in text


def _rpc(method: str, params: dict[str, Any], ident: int | None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if ident is not None:
        message["id"] = ident
    return (json.dumps(message, ensure_ascii=False) + "\n").encode()


def test_every_stdout_line_is_a_json_rpc_message(samples_index_dir: Path, cache_dir: Path, tmp_path: Path) -> None:
    """Raw protocol: initialize, list, search (loading jieba and the embedder), errors; stdout holds JSON only."""
    fresh_cache = tmp_path / "cold-cache"  # a cold jieba cache: jieba announces its dictionary build
    requests = [
        _rpc(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}},
            1,
        ),
        _rpc("notifications/initialized", {}, None),
        _rpc("tools/list", {}, 2),
        _rpc("tools/call", {"name": "search_reports", "arguments": {"query": "毛利率 gross margin"}}, 3),
        _rpc("tools/call", {"name": "get_page", "arguments": {"document": "nope.pdf", "page": 1}}, 4),
        _rpc("tools/call", {"name": "list_documents", "arguments": {}}, 5),
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_server", "--index", str(samples_index_dir), "--cache-dir", str(fresh_cache)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    for request in requests:
        proc.stdin.write(request)
        proc.stdin.flush()
    lines: list[bytes] = []
    answered: set[int] = set()
    deadline = time.monotonic() + 120
    while answered != {1, 2, 3, 4, 5} and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        message = json.loads(line)
        if "id" in message:
            answered.add(message["id"])
    proc.stdin.close()
    proc.wait(timeout=30)
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    assert answered == {1, 2, 3, 4, 5}, stderr
    for line in lines:
        message = json.loads(line)
        assert message["jsonrpc"] == "2.0"
        assert "result" in message or "error" in message or "method" in message
    assert proc.returncode == 0, stderr
