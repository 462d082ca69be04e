"""render_page: a valid, size-bounded PNG whose highlight lands on the located quote."""

import io

import numpy as np
import pytest
from PIL import Image

from indexer.core.errors import QueryError
from indexer.evidence.render import MAX_SIDE_PX, render_png
from indexer.index.reader import LoadedIndex, pdf_path
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import RenderRequest
from tests.conftest import SIFANG


def _mean(image: Image.Image, box: tuple[float, float, float, float]) -> list[float]:
    region = image.crop(tuple(int(v) for v in box)).convert("RGB")
    return [float(v) for v in np.asarray(region).reshape(-1, 3).mean(axis=0)]


def test_highlight_lands_on_the_quote(samples_kb: KnowledgeBase) -> None:
    png, info = samples_kb.render_page(RenderRequest(document=SIFANG.name, page=5, quote="1,175,301,034.32"))
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and (image.width, image.height) == (info.width_px, info.height_px)
    assert info.quote is not None and info.quote.verified
    box = info.highlighted[0]
    s = info.scale
    inside = _mean(image, (box.x0 * s + 2, box.top * s + 2, box.x1 * s - 2, box.bottom * s - 2))
    blank = _mean(image, (box.x0 * s, box.top * s - 60 * s, box.x1 * s, box.top * s - 50 * s))
    assert inside[2] < inside[0] - 40 and inside[2] < inside[1] - 40  # yellow: blue well below red and green
    assert blank[2] > 200  # the same column above the table is white paper


def test_long_side_is_capped() -> None:
    rendered = render_png(SIFANG, 1, [], dpi=300)
    assert max(rendered.width, rendered.height) <= MAX_SIDE_PX


def test_dpi_out_of_range(samples_index: LoadedIndex) -> None:
    with pytest.raises(QueryError, match="dpi"):
        render_png(pdf_path(samples_index, SIFANG.name), 1, [], dpi=1000)
