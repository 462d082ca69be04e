"""Render a page to PNG with PDFium (pypdfium2) and draw highlight boxes on it (Pillow)."""

from __future__ import annotations

import io
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


def render_png(pdf: Path, page: int, boxes: list[Box], dpi: int = 110) -> Rendered:
    """``page`` (1-based) as PNG at ``dpi``, scaled down so the long side is at most 1600 px, boxes highlighted."""
    if not MIN_DPI <= dpi <= MAX_DPI:
        raise QueryError(f"dpi {dpi} is out of range; use {MIN_DPI} to {MAX_DPI} (110 suits a screen)")
    import pypdfium2 as pdfium
    from PIL import Image, ImageDraw

    document = pdfium.PdfDocument(str(pdf))
    try:
        handle = document[page - 1]
        width, height = handle.get_size()
        scale = min(dpi / 72, MAX_SIDE_PX / max(width, height))
        image = handle.render(scale=scale).to_pil().convert("RGBA")
    finally:
        document.close()
    if boxes:
        overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
        draw = ImageDraw.Draw(overlay)
        for box in boxes:
            if box.page != page:
                continue
            rect = (box.x0 * scale - 1, box.top * scale - 1, box.x1 * scale + 1, box.bottom * scale + 1)
            draw.rectangle(rect, fill=HIGHLIGHT_FILL, outline=HIGHLIGHT_EDGE, width=2)
        image = Image.alpha_composite(image, overlay)
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="PNG", optimize=True)
    return Rendered(buffer.getvalue(), scale, image.width, image.height)
