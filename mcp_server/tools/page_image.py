"""page_image: a page as a PNG for the evidence viewer (hosts keep it from the model)."""

from __future__ import annotations

from indexer.answers import (
    PageImage,
)
from indexer.requests import (
    PageImageRequest,
)
from mcp_server.evidence_app import FOR_THE_APP, page_image_answer
from mcp_server.tool_registry import Declared, ToolDocs

DOCS = ToolDocs(
    does=(
        'for the evidence viewer only (`_meta.ui.visibility: ["app"]`, hosts keep it from the model): a page '
        "as PNG, its size in points and the scale"
    ),
    arguments=(
        "`document`, `page`, `dpi` (36–300, default 144; long side ≤ 1600 px). For the evidence viewer alone "
        '(`_meta.ui.visibility: ["app"]`: hosts keep it from the model)'
    ),
    returns=(
        "a PNG image block (256 colours, nothing drawn on it), plus `{document, page, width_px, height_px, "
        "scale, page_width, page_height, page_count, printed_page, section}`"
    ),
)


TOOL = Declared(
    "page_image",
    "For the evidence viewer app: a page as PNG, its size in points and the scale.",
    PageImage,
    request=PageImageRequest,
    detail=None,
    answer=page_image_answer,
    ui=FOR_THE_APP,
    docs=DOCS,
)
