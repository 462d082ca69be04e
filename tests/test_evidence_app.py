"""The evidence viewer (an MCP App) in a real browser: headless Chromium opens it inside a minimal test host page
(tests/app_host/host.html) that speaks the host side of the MCP Apps protocol and forwards the app's tools/call to a
real filings-mcp over HTTP on loopback. The app is fed real tool results on the samples index; the DOM and the
screenshot say what a person sees."""

from __future__ import annotations

import asyncio
import io
import json
import os
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from PIL import Image

from mcp_server.evidence_app import EVIDENCE_URI
from tests.browser import BrowserError, Chromium, chromium_binary, wait_until
from tests.conftest import BESTBUY_10Q, ROOT
from tests.test_http_transport import serve_http

TOKEN = "evidence-app-token-5d1c"
HOST_PAGE = ROOT / "tests" / "app_host" / "host.html"
# What an MCP Apps host applies to a view that declares no CSP domains: nothing loads from outside.
APP_CSP = (
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
    "connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'"
)
APP_MAX_BYTES = 80 * 1024
OPEN_MAX_MS = 1000
XSS = "<img src=x onerror=alert(1)>"
FRAME_PLACE = "(r => [r.left, r.top])(document.getElementById('app').getBoundingClientRect())"
LISTED = (
    "[...document.querySelectorAll('#claims button')].map(b => [...b.children].slice(0, 2).map(e => e.textContent))"
)
IMAGE_PLACE = "(i => [i.getBoundingClientRect().left, i.getBoundingClientRect().top, i.clientWidth, i.naturalWidth])"
CLAIMS = [
    {"document": BESTBUY_10Q.name, "page": 4, "quote": "9,583", "label": "Revenue"},
    {"document": BESTBUY_10Q.name, "page": 4, "quote": "10,329", "label": "Cost of sales"},
    {"document": BESTBUY_10Q.name, "page": 4, "quote": XSS},
]

if chromium_binary() is None:
    reason = "the chromium binary is absent"
    if shutil.which("apt-get") is None:
        pytest.skip(f"{reason} and apt-get is unavailable to install it", allow_module_level=True)
    pytest.fail(f"{reason}: run `sh scripts/system_deps.sh` as root (apt-get install chromium)", pytrace=False)


class McpBridge:
    """One MCP session to the real server over HTTP, held by a background event loop; the test host's tools/call
    goes through it (the browser page itself never talks to the MCP endpoint: its Origin rules stay as they are)."""

    def __init__(self, url: str) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self._closing = asyncio.Event()
        self.session = asyncio.run_coroutine_threadsafe(self._open(url), self.loop).result(timeout=60)

    async def _open(self, url: str) -> ClientSession:
        opened: asyncio.Future[ClientSession] = self.loop.create_future()

        async def hold() -> None:
            async with (
                httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as client,
                streamable_http_client(url, http_client=client) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                opened.set_result(session)
                await self._closing.wait()

        def ended(task: asyncio.Task[None]) -> None:
            if not opened.done():
                opened.set_exception(task.exception() or RuntimeError("the MCP session ended before it opened"))

        self._held = asyncio.create_task(hold())
        self._held.add_done_callback(ended)
        return await opened

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The CallToolResult as the host forwards it to the app (JSON, MCP's field names)."""
        done = asyncio.run_coroutine_threadsafe(self.session.call_tool(name, arguments), self.loop)
        return done.result(timeout=60).model_dump(mode="json", by_alias=True, exclude_none=True)

    def tools(self) -> dict[str, dict[str, Any]]:
        """Each tool's definition as tools/list gives it (JSON, MCP's field names)."""
        done = asyncio.run_coroutine_threadsafe(self.session.list_tools(), self.loop)
        listed = done.result(timeout=60).tools
        return {tool.name: tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in listed}

    def resource(self, uri: str) -> tuple[str, str]:
        done = asyncio.run_coroutine_threadsafe(self.session.read_resource(uri), self.loop)
        content = done.result(timeout=60).contents[0]
        return content.text, content.mime_type  # type: ignore[union-attr]

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self._closing.set)
        asyncio.run_coroutine_threadsafe(asyncio.wait([self._held], timeout=10), self.loop).result(timeout=15)
        self.loop.call_soon_threadsafe(self.loop.stop)


def _host_server(bridge: McpBridge, app_html: str) -> ThreadingHTTPServer:
    host_page = HOST_PAGE.read_bytes()
    app = app_html.encode()

    class Handler(BaseHTTPRequestHandler):
        def _send(self, body: bytes, kind: str, extra: dict[str, str] | None = None) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (extra or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path.startswith("/app.html"):
                self._send(app, "text/html; charset=utf-8", {"Content-Security-Policy": APP_CSP})
            elif self.path == "/host.html":
                self._send(host_page, "text/html; charset=utf-8")
            else:
                self.send_error(404)

        def do_POST(self) -> None:
            params = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            try:
                body = {"result": bridge.call(params["name"], params.get("arguments") or {})}
            except Exception as exc:  # the host answers the app with a JSON-RPC error, as a real host would
                body = {"error": {"code": -32603, "message": str(exc)}}
            self._send(json.dumps(body).encode(), "application/json")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class Viewer:
    """The browser on the test host page, and the MCP session behind it."""

    def __init__(self, browser: Chromium, bridge: McpBridge, url: str) -> None:
        self.browser, self.bridge, self.url = browser, bridge, url

    def open(self, name: str, arguments: dict[str, Any], result: dict[str, Any] | None = None) -> int:
        """The app opened for one tool call (the real result unless one is given); the frame's isolated world."""
        result = result if result is not None else self.bridge.call(name, arguments)
        call = {"name": name, "tool": self.bridge.tools()[name], "arguments": arguments, "result": result}
        src = self.browser.evaluate(f"openApp({json.dumps(call)})")
        ready = f"document.readyState === 'complete' && location.href === {json.dumps(src)}"  # not the last one's

        def loaded() -> int | None:
            frames = self.browser.child_frames()
            if not frames:
                return None
            try:
                context = self.browser.frame_context(frames[0])
                return context if self.browser.evaluate(ready, context) else None
            except BrowserError:  # the frame navigated between the two: its world went with the old document
                return None

        return int(wait_until(loaded))

    def frame_offset(self) -> tuple[float, float]:
        left, top = self.browser.evaluate(FRAME_PLACE)
        return float(left), float(top)

    def text(self, context: int, element: str) -> str:
        """The text of the app's element ``element`` (by id), or '' while it is hidden."""
        found = self.browser.evaluate(
            f"(e => e.hidden ? '' : e.textContent)(document.getElementById('{element}'))", context
        )
        return str(found)


@pytest.fixture(scope="module")
def viewer(samples_index_dir: Path, cache_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Viewer]:
    binary = chromium_binary()
    assert binary is not None
    with serve_http(samples_index_dir, cache_dir, tmp_path_factory.mktemp("http"), token=TOKEN) as url:
        bridge = McpBridge(url)
        html, mime = bridge.resource(EVIDENCE_URI)
        assert mime == "text/html;profile=mcp-app"
        server = _host_server(bridge, html)
        browser = Chromium(binary, tmp_path_factory.mktemp("chromium"))
        try:
            browser.send("Page.enable", page=True)
            browser.send("Runtime.enable", page=True)
            metrics = {"width": 1280, "height": 1000, "deviceScaleFactor": 1, "mobile": False}
            browser.send("Emulation.setDeviceMetricsOverride", metrics, page=True)
            browser.send("Page.navigate", {"url": f"http://127.0.0.1:{server.server_address[1]}/host.html"}, page=True)
            browser.wait_event("Page.loadEventFired")
            yield Viewer(browser, bridge, url)
        finally:
            browser.close()
            server.shutdown()
            bridge.close()


def _shown(viewer: Viewer, context: int, count: int = 1) -> None:
    """Wait until the app has shown a page ``count`` times (its performance mark)."""
    marks = "performance.getEntriesByName('evidence-shown').length"
    wait_until(lambda: viewer.browser.evaluate(marks, context) >= count)


def _rects(viewer: Viewer, context: int, selector: str) -> list[list[float]]:
    script = (f"[...document.querySelectorAll({json.dumps(selector)})].map(e => e.getBoundingClientRect())"
              ".map(r => [r.left, r.top, r.right, r.bottom])")  # fmt: skip
    return viewer.browser.evaluate(script, context)  # type: ignore[no-any-return]


def _expected(viewer: Viewer, context: int, box: dict[str, float], scale: float) -> list[float]:
    """Where ``box`` (PDF points) should be in the frame: the image's place, the page's scale, the zoom shown."""
    left, top, shown, natural = viewer.browser.evaluate(f"{IMAGE_PLACE}(document.getElementById('page'))", context)
    k = scale * shown / natural
    return [left + box["x0"] * k, top + box["top"] * k, left + box["x1"] * k, top + box["bottom"] * k]


def _tinted(shot: Image.Image, rect: list[float], offset: tuple[float, float], colour: str) -> float:
    """The share of the screenshot's pixels inside ``rect`` (frame coordinates, inset by a pixel) tinted yellow
    (the found box: blue well below red) or red (the claimed row: green and blue well below red)."""
    x0, y0 = int(rect[0] + offset[0]) + 1, int(rect[1] + offset[1]) + 1
    x1, y1 = int(rect[2] + offset[0]) - 1, int(rect[3] + offset[1]) - 1
    pixels = [shot.getpixel((x, y)) for x in range(x0, x1) for y in range(y0, y1)]
    if colour == "yellow":
        hits = [p for p in pixels if p[0] - p[2] > 40]
    else:
        hits = [p for p in pixels if p[0] - p[1] > 30 and p[0] - p[2] > 30]
    return len(hits) / max(len(pixels), 1)


def _close(a: list[float], b: list[float], tolerance: float = 3.5) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b, strict=True))


def test_the_claims_and_their_boxes_are_shown_on_the_page(viewer: Viewer) -> None:
    result = viewer.bridge.call("verify_claims", {"claims": CLAIMS})
    checks = result["structuredContent"]["checks"]
    assert [c["status"] for c in checks] == ["verified", "elsewhere", "not_found"]
    context = viewer.open("verify_claims", {"claims": CLAIMS}, result)
    _shown(viewer, context)
    browser = viewer.browser
    listed = browser.evaluate(LISTED, context)
    assert listed == [["verified", "9,583"], ["elsewhere", "10,329"], ["not found", XSS]]

    # the size of the app and the time it took to show its first page, measured in the browser
    app_bytes = browser.evaluate("performance.getEntriesByType('navigation')[0].decodedBodySize", context)
    shown_at = browser.evaluate(
        "performance.timeOrigin + performance.getEntriesByName('evidence-shown')[0].startTime", context
    )
    open_ms = shown_at - browser.evaluate("window.t0")
    print(f"app {app_bytes / 1024:.1f} KB, opened in {open_ms:.0f} ms")
    assert 0 < app_bytes <= APP_MAX_BYTES and 0 < open_ms <= OPEN_MAX_MS

    page = viewer.bridge.call("page_image", {"document": BESTBUY_10Q.name, "page": 4})["structuredContent"]
    first = _expected(viewer, context, checks[0]["bbox"], page["scale"])
    (found,) = _rects(viewer, context, ".box.found")
    assert _close(found, [first[0] - 2, first[1] - 2, first[2] + 2, first[3] + 2])
    offset = viewer.frame_offset()
    shot = Image.open(io.BytesIO(browser.screenshot())).convert("RGB")
    assert _tinted(shot, first, offset, "yellow") > 0.6

    # the elsewhere claim: the highlight moves to where the figure really is, and the row it named is marked
    browser.evaluate("document.querySelectorAll('#claims button')[1].click()", context)
    _shown(viewer, context, 2)
    wait_until(lambda: _rects(viewer, context, ".box.claimed"))
    real = _expected(viewer, context, checks[1]["bbox"], page["scale"])
    (found,) = _rects(viewer, context, ".box.found")
    assert _close(found, [real[0] - 2, real[1] - 2, real[2] + 2, real[3] + 2]) and not _close(real, first)
    label = viewer.bridge.call("locate_quote", {"document": BESTBUY_10Q.name, "page": 4, "quote": "Cost of sales"})
    claimed = _expected(viewer, context, label["structuredContent"]["bboxes"][0], page["scale"])
    lit = _rects(viewer, context, ".box.claimed")
    assert any(_close(r, [claimed[0] - 2, claimed[1] - 2, claimed[2] + 2, claimed[3] + 2]) for r in lit)
    shot = Image.open(io.BytesIO(browser.screenshot())).convert("RGB")
    assert _tinted(shot, real, offset, "yellow") > 0.6
    assert _tinted(shot, first, offset, "yellow") < 0.2  # the first claim's box is no longer lit
    assert _tinted(shot, claimed, offset, "red") > 0.5
    detail = viewer.text(context, "detail")
    assert "Cost of sales" in detail and "Revenue: $9,583 | $10,329" in detail  # the row it was checked against
    assert viewer.text(context, "caption") == f"{BESTBUY_10Q.name}, p. 4, Condensed Consolidated Statements of Earnings"
    if target := os.environ.get("EVIDENCE_SCREENSHOT"):  # docs/evidence-app.png: the app's frame, as shown here
        width, height = browser.evaluate("[innerWidth, document.getElementById('captionRow').offsetTop + 40]", context)
        frame = shot.crop((int(offset[0]), int(offset[1]), int(offset[0] + width), int(offset[1] + height)))
        frame.quantize(256).save(target, optimize=True)


def test_an_ambiguous_claim_lights_every_candidate(viewer: Viewer) -> None:
    claims = [{"document": BESTBUY_10Q.name, "page": 4, "quote": "21"}]  # printed twice on the page
    located = viewer.bridge.call("locate_quote", claims[0])["structuredContent"]["bboxes"]
    context = viewer.open("verify_claims", {"claims": claims})
    _shown(viewer, context)
    lit = wait_until(lambda: len(found := _rects(viewer, context, ".box.found")) == 2 and found)
    scale = viewer.bridge.call("page_image", {"document": BESTBUY_10Q.name, "page": 4})["structuredContent"]["scale"]
    for box, rect in zip(located, lit, strict=True):
        expected = _expected(viewer, context, box, scale)
        assert _close(rect, [expected[0] - 2, expected[1] - 2, expected[2] + 2, expected[3] + 2])


def test_a_claim_s_text_is_shown_as_text_and_never_run(viewer: Viewer) -> None:
    claims = [{"document": BESTBUY_10Q.name, "page": 4, "quote": XSS, "label": XSS}]
    context = viewer.open("verify_claims", {"claims": claims})
    _shown(viewer, context)
    browser = viewer.browser
    quotes = browser.evaluate(
        "[...document.querySelectorAll('#claims .quote, #detail q')].map(e => e.textContent)", context
    )
    assert quotes == [XSS, XSS]
    images = browser.evaluate("[...document.images].map(i => i.id + ' ' + i.src.slice(0, 21))", context)
    assert images == ["page data:image/png;base64"]  # the page only: no <img src=x> was made
    assert not [e for e in browser.events if e["method"] == "Page.javascriptDialogOpening"]  # alert never ran
    browser.evaluate("setTimeout(() => alert('control'), 0)", context)  # an alert that runs is seen, as a control
    assert browser.wait_event("Page.javascriptDialogOpening")["params"]["message"] == "control"
    browser.send("Page.handleJavaScriptDialog", {"accept": True}, page=True)


def test_a_bidirectional_override_is_shown_escaped_not_applied(viewer: Viewer) -> None:
    """A right-to-left override in a claim (or a file name) would show "12" as "21": it is shown as \\u202e."""
    claims = [{"document": BESTBUY_10Q.name, "page": 4, "quote": "net sales \u202e12"}]
    context = viewer.open("verify_claims", {"claims": claims})
    _shown(viewer, context)
    shown = "[...document.querySelectorAll('#claims .quote')].map(e => e.textContent)"
    quotes = viewer.browser.evaluate(shown, context)
    assert quotes == ["net sales \\u202e12"]


def test_a_tool_error_is_a_readable_message(viewer: Viewer) -> None:
    arguments = {"document": "NO_SUCH_FILING.pdf", "page": 1, "quote": "1"}
    context = viewer.open("locate_quote", arguments)
    status = wait_until(
        lambda: viewer.browser.evaluate("document.querySelector('#status.error')?.textContent", context)
    )
    assert status.startswith("The tool failed: unknown document 'NO_SUCH_FILING.pdf'; call list_documents")


def test_a_page_that_cannot_be_shown_says_why(viewer: Viewer) -> None:
    rendered = viewer.bridge.call("render_page", {"document": BESTBUY_10Q.name, "page": 4, "quote": "9,583"})
    forged = {**rendered, "structuredContent": {**rendered["structuredContent"], "page": 99}}
    context = viewer.open("render_page", {"document": BESTBUY_10Q.name, "page": 99}, forged)
    message = wait_until(lambda: viewer.text(context, "pageError"))
    assert "page 99 is out of range: BESTBUY_2024Q2_10Q.pdf has pages 1 to 30" in message


def test_a_located_quote_is_lit_on_its_page_which_zooms_and_turns(viewer: Viewer) -> None:
    arguments = {"document": BESTBUY_10Q.name, "page": 17, "quote": "9,583"}
    located = viewer.bridge.call("locate_quote", arguments)["structuredContent"]
    assert located["page"] == 16  # found on the neighbouring page: the viewer shows that one
    context = viewer.open("locate_quote", arguments)
    _shown(viewer, context)
    assert viewer.text(context, "caption").startswith(f"{BESTBUY_10Q.name}, p. 16")
    scale = viewer.bridge.call("page_image", {"document": BESTBUY_10Q.name, "page": 16})["structuredContent"]["scale"]
    for _ in range(2):  # as fitted, then zoomed in: the box follows the image
        box = _expected(viewer, context, located["bboxes"][0], scale)
        (found,) = _rects(viewer, context, ".box.found")
        assert _close(found, [box[0] - 2, box[1] - 2, box[2] + 2, box[3] + 2])
        viewer.browser.evaluate("document.getElementById('zoomIn').click()", context)
    viewer.browser.evaluate("document.getElementById('next').click()", context)
    _shown(viewer, context, 2)
    assert viewer.text(context, "caption").startswith(f"{BESTBUY_10Q.name}, p. 17")
    assert _rects(viewer, context, ".box.found") == []  # the box is on page 16, not here


EXT_APPS_SCHEMA = (
    ROOT / ".cache/clients/ext-apps/node_modules/@modelcontextprotocol/ext-apps/dist/src/generated/schema.json"
)
# each message of the conversation, by who sends it and its method, and the definition of the SDK's schema it is
APP_SENDS = {
    "ui/initialize": "McpUiInitializeRequest",
    "ui/notifications/initialized": "McpUiInitializedNotification",
    "ui/notifications/size-changed": "McpUiSizeChangedNotification",
    "tools/call": None,  # core MCP, not the extension's: checked below against the server's own tools
}
HOST_SENDS = {
    "ui/notifications/tool-input": "McpUiToolInputNotification",
    "ui/notifications/tool-result": "McpUiToolResultNotification",
}


def _published(definition: str) -> Any:
    """A validator for one definition of the ext-apps SDK's published JSON Schema (npm @modelcontextprotocol/ext-apps,
    installed by `make clients` where npm is)."""
    from jsonschema import Draft202012Validator

    definitions = json.loads(EXT_APPS_SCHEMA.read_text(encoding="utf-8"))["$defs"]
    return Draft202012Validator(definitions[definition])  # each is a document of its own (its refs are to itself)


@pytest.mark.skipif(not EXT_APPS_SCHEMA.exists(), reason="the ext-apps SDK is not installed (`make clients`, npm)")
def test_the_app_speaks_the_published_protocol(viewer: Viewer) -> None:
    """Every message between the viewer and the host, and the server's `_meta.ui`, against the SDK's own schema."""
    context = viewer.open("verify_claims", {"claims": CLAIMS})
    _shown(viewer, context)
    wait_until(lambda: viewer.browser.evaluate("window.sizes.length"))
    wire = viewer.browser.evaluate("window.wire")
    sent = {side: [w["message"] for w in wire if w["from"] == side] for side in ("app", "host")}
    assert [m.get("method") for m in sent["app"][:2]] == ["ui/initialize", "ui/notifications/initialized"]
    assert {m["method"] for m in sent["app"]} <= set(APP_SENDS)
    for message in sent["app"] + [m for m in sent["host"] if m.get("method") in HOST_SENDS]:
        definition = {**APP_SENDS, **HOST_SENDS}[message["method"]]
        if definition is None:
            assert message["params"]["name"] in ("page_image", "locate_quote")
            continue
        _published(definition).validate({k: v for k, v in message.items() if k in ("method", "params")})
    initialized = next(m for m in sent["host"] if m.get("id") == sent["app"][0]["id"])
    _published("McpUiInitializeResult").validate(initialized["result"])
    tools = viewer.bridge.tools()
    for name in ("verify_claims", "locate_quote", "render_page", "page_image"):
        _published("McpUiToolMeta").validate(tools[name]["_meta"]["ui"])
