"""Real clients against the server: the MCP Inspector CLI (stdio and HTTP) and langchain-mcp-adapters (the path
LangChain/LangGraph agents and GPT Researcher use). `make test` installs both into .cache/clients; where Node or
npm is missing the Inspector tests are skipped with the reason."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import ROOT, SIFANG
from tests.test_docs import _served_tools
from tests.test_http_transport import serve_http

CLIENTS = ROOT / ".cache" / "clients"
INSPECTOR = CLIENTS / "inspector" / "node_modules" / ".bin" / "mcp-inspector"
CLIENT_PYTHON = CLIENTS / "venv" / "bin" / "python"
COMPACT_SEARCH = 8_000
TOOLS = set(_served_tools())  # the registry's, as a client lists them
ERAS = {"auto": "2026-07-28", "legacy": "2025-11-25"}  # server/discover, and the initialize handshake


def _server(index: Path, cache: Path) -> list[str]:
    return [sys.executable, "-m", "mcp_server", "--index", str(index), "--cache-dir", str(cache)]


def _inspector(*target: str, method: str, arguments: dict[str, object] | None = None) -> dict:  # type: ignore[type-arg]
    if not INSPECTOR.exists():
        pytest.skip(f"MCP Inspector CLI not installed at {INSPECTOR} (needs Node and npm; `make test` installs it)")
    command = [str(INSPECTOR), "--cli", *target, "--method", method]
    if arguments:
        command += ["--tool-name", str(arguments.pop("tool"))]
        for name, value in arguments.items():
            command += ["--tool-arg", f"{name}={value}"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout)  # type: ignore[no-any-return]


def _assert_compact_search(text: str) -> None:
    assert text.startswith("3 passages for") and len(text) <= COMPACT_SEARCH
    assert (
        f"[1] {SIFANG.name} p.5" in text and "box: p.5 [" in text and "row: 总资产 | 2019年末: 2,464,948,703.85" in text
    )


def test_the_inspector_cli_over_stdio(samples_index_dir: Path, cache_dir: Path) -> None:
    server = _server(samples_index_dir, cache_dir)
    tools = _inspector(*server, method="tools/list")["tools"]
    assert {t["name"] for t in tools} == TOOLS
    found = _inspector(
        *server, method="tools/call", arguments={"tool": "search_reports", "query": "总资产", "top_k": 3}
    )
    _assert_compact_search(found["content"][0]["text"])
    hit = found["structuredContent"]["hits"][0]  # the same compact answer as data
    assert hit["bbox"]["page"] == hit["page"] and hit["text"] in found["content"][0]["text"]
    page = _inspector(*server, method="tools/call", arguments={"tool": "get_page", "document": SIFANG.name, "page": 5})
    assert page["content"][0]["text"].startswith(f"{SIFANG.name} p.5 of 12")


def test_the_inspector_cli_over_http(samples_index_dir: Path, cache_dir: Path, tmp_path: Path) -> None:
    if not INSPECTOR.exists():
        pytest.skip(f"MCP Inspector CLI not installed at {INSPECTOR} (needs Node and npm; `make test` installs it)")
    with serve_http(samples_index_dir, cache_dir, tmp_path) as url:  # the address as the server logs it
        tools = _inspector(url, "--transport", "http", method="tools/list")["tools"]
        assert {t["name"] for t in tools} == TOOLS
        arguments: dict[str, object] = {"tool": "search_reports", "query": "总资产", "top_k": 3}
        found = _inspector(url, "--transport", "http", method="tools/call", arguments=arguments)
        _assert_compact_search(found["content"][0]["text"])


def test_a_langchain_agent_session(samples_index_dir: Path, cache_dir: Path) -> None:
    if not CLIENT_PYTHON.exists():
        pytest.skip(f"langchain-mcp-adapters environment not found at {CLIENTS / 'venv'} (`make test` builds it)")
    script = ROOT / "tests" / "clients" / "langchain_session.py"
    command = json.dumps(_server(samples_index_dir, cache_dir))
    run = subprocess.run(
        [str(CLIENT_PYTHON), str(script), command, SIFANG.name], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert run.returncode == 0, run.stderr[-3000:]
    out = json.loads(run.stdout)
    assert set(out["tools"]) == TOOLS
    _assert_compact_search(out["search"])
    assert "营业收入: 1,175,301,034.32" in out["page"] and len(out["page"]) < 10_000
    assert out["quote"].startswith(f"VERIFIED (exact) on {SIFANG.name} p.5: '1,175,301,034.32'")


def _config_blocks() -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    """Every `mcpServers` JSON block the docs give a user to paste (README, docs/clients.md, the example file)."""
    blocks = [
        ("claude_desktop_config.example.json", json.loads((ROOT / "claude_desktop_config.example.json").read_text()))
    ]
    for page in (ROOT / "README.md", ROOT / "docs" / "clients.md"):
        for found in re.finditer(r"```json\n(.*?)```", page.read_text(encoding="utf-8"), re.S):
            if "mcpServers" in found.group(1):
                blocks.append((page.name, json.loads(found.group(1))))
    return blocks


def _as_here(value: str, index: Path) -> str:
    """A documented path placed in this checkout: the project folder, and the index the tests built."""
    for placeholder in ("/ABSOLUTE/PATH/TO/filings-mcp", "/abs/path/filings-mcp"):
        value = value.replace(f"{placeholder}/data/index", str(index)).replace(placeholder, str(ROOT))
    return value


async def _tools_over(config: dict, index: Path, cache: Path, url: str, token: str) -> list[str]:  # type: ignore[type-arg]
    server = config["mcpServers"]["filings"]
    if "url" in server:
        headers = {k: v.replace("<the server's token>", token) for k, v in server["headers"].items()}
        assert server["url"] == "http://127.0.0.1:8765/mcp"  # the documented default address, served here on `url`
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as client,
            streamable_http_client(url, http_client=client) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return [tool.name for tool in (await session.list_tools()).tools]
    params = StdioServerParameters(
        command=_as_here(server["command"], index),
        args=[*(_as_here(a, index) for a in server["args"]), "--cache-dir", str(cache)],
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return [tool.name for tool in (await session.list_tools()).tools]


def test_every_documented_client_block_connects(samples_index_dir: Path, cache_dir: Path, tmp_path: Path) -> None:
    blocks = _config_blocks()
    assert len(blocks) >= 5  # the example file, README, Claude Desktop (macOS, Windows), Cursor over HTTP
    token = "doc-token-1"
    with serve_http(samples_index_dir, cache_dir, tmp_path, token=token) as url:
        for where, config in blocks:
            command = config["mcpServers"]["filings"].get("command", "")
            if command.startswith("C:"):
                assert command.endswith("\\.venv\\Scripts\\filings-mcp.exe"), where  # Windows: checked by shape only
                continue
            names = asyncio.run(_tools_over(config, samples_index_dir, cache_dir, url, token))
            assert set(names) == TOOLS, where


async def _a_call_in_each_era(server: StdioServerParameters | str) -> dict[str, tuple[str, dict]]:  # type: ignore[type-arg]
    out = {}
    for mode in ERAS:
        async with Client(server, mode=mode) as client:  # type: ignore[arg-type]
            result = await client.call_tool("search_reports", {"query": "营业收入", "top_k": 2})
            assert not result.is_error
            out[mode] = (client.protocol_version, result.structured_content or {})
    return out


def test_both_protocol_revisions_over_stdio_and_http(samples_index_dir: Path, cache_dir: Path, tmp_path: Path) -> None:
    """The SDK client negotiating the newest revision (server/discover) and one pinned to the 2025-11-25 handshake
    each make a tool call, over stdio and over HTTP, and get the same compact answer."""
    command = _server(samples_index_dir, cache_dir)
    stdio = StdioServerParameters(command=command[0], args=command[1:], cwd=str(ROOT))
    with serve_http(samples_index_dir, cache_dir, tmp_path) as url:
        answers = {"stdio": asyncio.run(_a_call_in_each_era(stdio)), "http": asyncio.run(_a_call_in_each_era(url))}
    for transport, by_mode in answers.items():
        for mode, (version, result) in by_mode.items():
            assert version == ERAS[mode], (transport, mode, version)
            assert result["hits"] and result["hits"][0]["document"] == SIFANG.name
    assert len({str(result) for by_mode in answers.values() for _, result in by_mode.values()}) == 1
