"""The evidence viewer, an MCP App (SEP-1865): one self-contained HTML page (mcp_server/apps/evidence.html, script
and styles inline, nothing loaded from outside) served as the ``ui://`` resource that verify_claims, locate_quote and
render_page link through ``_meta.ui.resourceUri``. A host that renders MCP Apps shows it beside the result, in a
sandboxed iframe; the viewer reads the result the host hands it and asks for each page's pixels through page_image,
a tool declared for the app alone (``_meta.ui.visibility: ["app"]``), so the model never pays for an image. Hosts
without MCP Apps ignore both: their text and structuredContent are the same."""

from __future__ import annotations

from importlib.resources import files

from fastmcp.apps import UI_MIME_TYPE, AppConfig, app_config_to_meta_dict
from fastmcp.resources import TextResource
from fastmcp.tools.base import ToolResult
from fastmcp.utilities.types import Image
from mcp.types import TextContent
from pydantic import AnyUrl

from indexer.answers import PageImage
from indexer.core.models import wire

EVIDENCE_URI = "ui://filings/evidence"
SHOWS_EVIDENCE = AppConfig(resource_uri=EVIDENCE_URI)  # a tool whose result the viewer shows
FOR_THE_APP = AppConfig(visibility=["app"])  # a tool the viewer calls; hosts keep it from the model


def evidence_html() -> str:
    """The viewer's page, as shipped inside the package."""
    return (files("mcp_server") / "apps" / "evidence.html").read_text(encoding="utf-8")


def evidence_resource() -> TextResource:
    """The viewer as the ``ui://`` resource hosts read (no CSP domains: the host's default, which blocks every
    outside load, holds)."""
    return TextResource(
        uri=AnyUrl(EVIDENCE_URI),
        name="evidence",
        title="Evidence viewer",
        description="Each cited figure highlighted on its page: verdicts, boxes, page and printed page, section.",
        mime_type=UI_MIME_TYPE,
        text=evidence_html(),
        meta={"ui": app_config_to_meta_dict(AppConfig(prefers_border=True))},
    )


def page_image_answer(result: tuple[bytes, PageImage], detail: str) -> ToolResult:
    """page_image's answer: the PNG, a line naming the page and its scale, and the record as structured content."""
    png, info = result
    line = (
        f"{info.document} p.{info.page}: {info.width_px}×{info.height_px} px, {info.scale:g} px per pt "
        f"(page {info.page_width:g}×{info.page_height:g} pt)"
    )
    return ToolResult(
        content=[Image(data=png, format="png").to_image_content(), TextContent(type="text", text=line)],
        structured_content=wire(info),
    )
