"""render_page: a page as a PNG with a quote or boxes highlighted, for a person to see."""

from __future__ import annotations

from fastmcp.tools.base import ToolResult
from fastmcp.utilities.types import Image
from mcp.types import TextContent

from indexer.answers import (
    RenderedPage,
)
from indexer.core.models import wire
from indexer.requests import (
    RenderRequest,
)
from mcp_server.evidence_app import SHOWS_EVIDENCE
from mcp_server.file_text import name_text
from mcp_server.tool_registry import Declared, ToolDocs
from mcp_server.tools.locate_quote import quote_brief, quote_text


def rendered_text(info: RenderedPage) -> str:
    line = (
        f"{name_text(info.document)} p.{info.page} rendered at {info.width_px}×{info.height_px} px "
        f"({info.scale:.3f} px per pt); {len(info.highlighted)} box(es) highlighted"
    )
    return line if info.quote is None else f"{line}\n{quote_text(quote_brief(info.quote))}"


def _rendered(result: tuple[bytes, RenderedPage], detail: str) -> ToolResult:
    """render_page's answer: the PNG, then a line saying what is highlighted; its record as structured content."""
    png, info = result
    return ToolResult(
        content=[Image(data=png, format="png").to_image_content(), TextContent(type="text", text=rendered_text(info))],
        structured_content=wire(info),
    )


DOCS = ToolDocs(
    does="the page as a PNG with a quote or given boxes highlighted",
    arguments=(
        "`document`, `page`, `quote` or `bboxes` to highlight, `dpi` (36–300, default 110; long side ≤ 1600 px)"
    ),
    returns="a PNG image block, plus `{width_px, height_px, scale, highlighted, quote}`",
)


TOOL = Declared(
    "render_page",
    "A page as a PNG with a quote or boxes highlighted, to show the evidence to a person (long side ≤ 1600 px).",
    RenderedPage,
    request=RenderRequest,
    detail=None,
    answer=_rendered,
    ui=SHOWS_EVIDENCE,
    docs=DOCS,
)
