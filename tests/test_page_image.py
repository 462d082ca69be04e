"""The evidence viewer's side of the server: page_image (pixels for the app alone), the ``ui://`` resource, and the
``_meta.ui`` links of the tools that show evidence. The viewer itself runs in a browser in test_evidence_app.py."""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path
from typing import Any

from fastmcp import Client
from PIL import Image

from indexer.knowledge_base import KnowledgeBase
from indexer.requests import PageImageRequest
from mcp_server.evidence_app import EVIDENCE_URI, evidence_html
from mcp_server.loader import IndexLoader
from mcp_server.server import build_server
from mcp_server.settings import ServerSettings
from tests.conftest import BESTBUY_10Q, call_tools

IMAGE_MAX_BYTES = 400 * 1024
APP_MAX_BYTES = 80 * 1024


def test_every_sample_page_is_at_most_400_kb_at_the_default_dpi(samples_kb: KnowledgeBase) -> None:
    largest = 0
    for document in samples_kb.documents():
        for page in range(1, document.pages + 1):
            png, info = samples_kb.page_image(PageImageRequest(document=document.document, page=page))
            assert (Image.open(io.BytesIO(png)).size) == (info.width_px, info.height_px)
            largest = max(largest, len(png))
    assert 0 < largest <= IMAGE_MAX_BYTES


def test_the_image_and_the_boxes_share_one_scale(samples_kb: KnowledgeBase) -> None:
    """144 dpi: 2 px per point; a US letter page is 1224 × 1584 px, the size in points is given for the boxes."""
    png, info = samples_kb.page_image(PageImageRequest(document=BESTBUY_10Q.name, page=4))
    assert (info.scale, info.width_px, info.height_px) == (2.0, 1224, 1584)
    assert (info.page_width, info.page_height, info.page_count) == (612.0, 792.0, 30)
    assert info.section == "Condensed Consolidated Statements of Earnings"
    assert png.startswith(b"\x89PNG")


def test_a_forged_call_gets_the_errors_render_page_gives(samples_index_dir: Path, cache_dir: Path) -> None:
    bad = [
        {"document": "NO_SUCH.pdf", "page": 1},
        {"document": BESTBUY_10Q.name, "page": 31},
        {"document": BESTBUY_10Q.name, "page": 0},
        {"document": BESTBUY_10Q.name, "page": 4, "dpi": 301},
        {"document": BESTBUY_10Q.name, "page": 4, "dpi": 35},
    ]
    calls = [(tool, arguments) for arguments in bad for tool in ("page_image", "render_page")]
    results = call_tools(samples_index_dir, cache_dir, calls)
    assert all(r.is_error for r in results)
    texts = [r.content[0].text.replace("render_page", "page_image") for r in results]
    assert texts[0::2] == texts[1::2]
    assert texts[0].startswith("unknown document 'NO_SUCH.pdf'; call list_documents")
    assert texts[2] == "page 31 is out of range: BESTBUY_2024Q2_10Q.pdf has pages 1 to 30"
    assert texts[6].startswith("page_image: dpi must be between 36 and 300; got 301")


def test_page_image_answers_with_the_png_and_its_scale(samples_index_dir: Path, cache_dir: Path) -> None:
    (result,) = call_tools(samples_index_dir, cache_dir, [("page_image", {"document": BESTBUY_10Q.name, "page": 4})])
    image, text = result.content
    assert image.type == "image" and image.mime_type == "image/png"
    assert text.text == "BESTBUY_2024Q2_10Q.pdf p.4: 1224×1584 px, 2 px per pt (page 612×792 pt)"
    assert result.structured_content["scale"] == 2.0 and result.structured_content["page_width"] == 612.0


def _listing(tmp_path: Path) -> dict[str, Any]:
    index = tmp_path / "no-index-here"
    server = build_server(ServerSettings(index_dir=index, cache_dir=tmp_path), IndexLoader(index, tmp_path, 1))

    async def run() -> dict[str, Any]:
        async with Client(server) as client:
            tools = {tool.name: tool.meta or {} for tool in await client.list_tools()}
            resources = {str(r.uri): r for r in await client.list_resources()}
            read = await client.read_resource(EVIDENCE_URI)
            return {"tools": tools, "resources": resources, "read": read}

    return asyncio.run(run())


def test_the_evidence_tools_link_the_app_and_page_image_is_for_the_app_alone(tmp_path: Path) -> None:
    listed = _listing(tmp_path)
    uis = {name: meta.get("ui") for name, meta in listed["tools"].items() if meta.get("ui")}
    assert uis == {
        "locate_quote": {"resourceUri": EVIDENCE_URI},
        "verify_claims": {"resourceUri": EVIDENCE_URI},
        "render_page": {"resourceUri": EVIDENCE_URI},
        "page_image": {"visibility": ["app"]},
    }
    resource = listed["resources"][EVIDENCE_URI]
    assert resource.mime_type == "text/html;profile=mcp-app"
    (content,) = listed["read"]
    assert content.mime_type == "text/html;profile=mcp-app" and content.text == evidence_html()


def test_the_app_is_one_small_file_that_loads_nothing_and_never_parses_data_as_html() -> None:
    html = evidence_html()
    assert len(html.encode()) <= APP_MAX_BYTES
    assert not re.search(r"https?://|\bsrc=|\bhref=|@import|url\(", html)  # nothing from outside, no links out
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function", html)
    assert "ui/initialize" in html and "ui/notifications/initialized" in html and "page_image" in html
