"""One agent session the way LangChain/LangGraph (and GPT Researcher) hold it: langchain-mcp-adapters over stdio.

Runs in the clients' own environment (`make test` builds it: langchain-mcp-adapters needs mcp < 2, the server
mcp 2), starts the server given as a JSON argv, and prints JSON: the tool names and the text each call returned.

    python tests/clients/langchain_session.py '["python", "-m", "mcp_server", "--index", "IDX"]' DOCUMENT
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools


def _text(answer: Any) -> str:
    """What the model is given: the tool's text content (a string, or content blocks)."""
    if isinstance(answer, str):
        return answer
    return "\n".join(block.get("text", "") if isinstance(block, dict) else str(block) for block in answer)


async def main() -> None:
    command, document = json.loads(sys.argv[1]), sys.argv[2]
    client = MultiServerMCPClient({"filings": {"transport": "stdio", "command": command[0], "args": command[1:]}})
    async with client.session("filings") as session:
        tools = {tool.name: tool for tool in await load_mcp_tools(session)}
        out: dict[str, Any] = {"tools": sorted(tools)}
        out["search"] = _text(await tools["search_reports"].ainvoke({"query": "总资产", "top_k": 3}))
        out["page"] = _text(await tools["get_page"].ainvoke({"document": document, "page": 5}))
        quote = {"document": document, "page": 5, "quote": "1,175,301,034.32"}
        out["quote"] = _text(await tools["locate_quote"].ainvoke(quote))
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main())
