"""Protocol robustness over stdio: garbage, truncated JSON, unknown methods and cancellations get JSON-RPC errors
(or are dropped, for notifications) and the server keeps serving; stdout carries JSON-RPC only."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.conftest import ROOT
from tests.test_server_e2e import _rpc


def test_garbage_on_stdin_does_not_stop_the_server(samples_index_dir: Path, cache_dir: Path) -> None:
    init = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}
    lines = [
        _rpc("initialize", init, 1),
        _rpc("notifications/initialized", {}, None),
        b"hello, this is not JSON\n",
        b'{"jsonrpc": "2.0", "id": 2, "method": "tools/li\n',  # truncated
        b"[1, 2, 3]\n",
        b'{"jsonrpc": "2.0", "id": 3}\n',  # neither request nor response
        _rpc("no/such/method", {}, 4),
        _rpc("tools/call", {"name": "no_such_tool", "arguments": {}}, 5),
        _rpc("tools/call", {"name": "search_reports", "arguments": {"query": "营业收入"}}, 6),
        _rpc("notifications/cancelled", {"requestId": 6, "reason": "user gave up"}, None),
        _rpc("tools/call", {"name": "search_reports", "arguments": {"top_k": "many"}}, 7),
        "\u00ff\u00fe garbage \x00\n".encode("latin-1"),
        _rpc("tools/list", {}, 8),
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_server", "--index", str(samples_index_dir), "--cache-dir", str(cache_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    assert proc.stdin is not None and proc.stdout is not None
    for line in lines:
        proc.stdin.write(line)
        proc.stdin.flush()
    answers: dict[int, dict[str, Any]] = {}
    deadline = time.monotonic() + 120
    expected = {1, 4, 5, 7, 8}  # tool calls run concurrently: answers may come in any order
    while not expected <= answers.keys() and time.monotonic() < deadline:
        raw = proc.stdout.readline()
        if not raw:
            break
        message = json.loads(raw)  # every stdout line is JSON
        assert message["jsonrpc"] == "2.0"
        if isinstance(message.get("id"), int):
            answers[message["id"]] = message
    proc.stdin.close()
    proc.wait(timeout=30)
    assert 8 in answers and {t["name"] for t in answers[8]["result"]["tools"]} >= {"search_reports", "get_page"}
    assert answers[4]["error"]["code"] == -32601  # method not found
    assert answers[5].get("error") or answers[5]["result"]["isError"]
    assert answers[7].get("error") or answers[7]["result"]["isError"]  # a bad argument type, refused
    assert proc.returncode == 0
