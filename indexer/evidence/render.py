"""Render a page to PNG with PDFium (pypdfium2) and draw highlight boxes on it (Pillow).

Boxes come from the caller: each is checked (finite, not inverted) and clipped to the page before anything is drawn,
so a box reaching 1e12 points costs what a page-sized one does.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from pathlib import Path

from indexer.core.errors import QueryError
from indexer.core.models import Box

MAX_SIDE_PX = 1600
MIN_DPI, MAX_DPI = 36, 300
HIGHLIGHT_FILL = (255, 214, 0, 110)  # translucent yellow
HIGHLIGHT_EDGE = (230, 120, 0, 255)


@dataclass(frozen=True)
class Rendered:
    png: bytes
    scale: float  # pixels per PDF point
    width: int
    height: int
    drawn: list[Box]  # the boxes highlighted, clipped to the page (PDF points)


def drawable(boxes: list[Box], page: int, width: float, height: float) -> list[Box]:
    """The boxes on ``page``, clipped to its ``width`` × ``height`` points; a box wholly off the page is dropped.
    Raises :class:`QueryError` for a box with a non-finite or inverted coordinate."""
    kept = []
    for number, box in enumerate(boxes, 1):
        corners = (box.x0, box.top, box.x1, box.bottom)
        if not all(math.isfinite(c) for c in corners):
            raise QueryError(
                f"box {number} has a coordinate that is not a finite number; pass x0, top, x1, bottom in "
                "PDF points, e.g. a search hit's bboxes"
            )
        if box.x0 > box.x1 or box.top > box.bottom:
            raise QueryError(
                f"box {number} is inverted (x0 {box.x0:g} > x1 {box.x1:g} or top {box.top:g} > bottom "
                f"{box.bottom:g}); pass its left, top, right, bottom in PDF points, origin top-left"
            )
        if box.page != page or box.x1 < 0 or box.x0 > width or box.bottom < 0 or box.top > height:
            continue
        x0, x1 = min(max(box.x0, 0.0), width), min(max(box.x1, 0.0), width)
        top, bottom = min(max(box.top, 0.0), height), min(max(box.bottom, 0.0), height)
        kept.append(Box(page=page, x0=x0, top=top, x1=x1, bottom=bottom))
    return kept


def render_png(pdf: Path, page: int, boxes: list[Box], dpi: int = 110, colors: int | None = None) -> Rendered:
    """``page`` (1-based) as PNG at ``dpi``, scaled down so the long side is at most 1600 px, the boxes on it
    highlighted (clipped to the page; see :func:`drawable`); with ``colors``, a palette PNG of that many colours
    (a text page in 256 colours: about a quarter of the bytes, and faster to encode)."""
    if not MIN_DPI <= dpi <= MAX_DPI:
        raise QueryError(f"dpi {dpi} is out of range; use {MIN_DPI} to {MAX_DPI} (110 suits a screen)")
    import pypdfium2 as pdfium
    from PIL import Image, ImageDraw

    document = pdfium.PdfDocument(str(pdf))
    try:
        handle = document[page - 1]
        width, height = handle.get_size()
        drawn = drawable(boxes, page, width, height)
        scale = min(dpi / 72, MAX_SIDE_PX / max(width, height))
        image = handle.render(scale=scale).to_pil().convert("RGBA")
    finally:
        document.close()
    if drawn:
        overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
        draw = ImageDraw.Draw(overlay)
        for box in drawn:
            rect = (box.x0 * scale - 1, box.top * scale - 1, box.x1 * scale + 1, box.bottom * scale + 1)
            draw.rectangle(rect, fill=HIGHLIGHT_FILL, outline=HIGHLIGHT_EDGE, width=2)
        image = Image.alpha_composite(image, overlay)
    buffer = io.BytesIO()
    flat = image.convert("RGB")
    if colors is not None:
        flat = flat.quantize(colors=colors, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    flat.save(buffer, format="PNG", optimize=True)
    return Rendered(buffer.getvalue(), scale, image.width, image.height, drawn)
