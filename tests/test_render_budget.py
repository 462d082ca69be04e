"""Rendering under a budget: a page whose drawing fans out (form objects drawing each other, in the page or in an
annotation's appearance where text extraction never looks) is refused with its page named, within the budget, and
the server process neither renders it nor grows; a refused page is refused at once afterwards."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from indexer.core.errors import FilingsError
from indexer.evidence.render_pool import RenderError, RenderPool
from indexer.index.reader import load_index
from indexer.ingest.build import build_index
from indexer.ingest.memory_guard import resident_mb
from indexer.ingest.settings import BuildSettings
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import PageImageRequest, PageRequest, RenderRequest
from tests.conftest import BESTBUY_10Q, call_tools
from tests.hostile_docs import form_fanout, image_behind_filters


def _children_rendering() -> int:
    """This process's render workers alive now."""
    count = 0
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        for child in (task / "children").read_text().split():
            try:
                if b"indexer.evidence.render_pool" in Path(f"/proc/{child}/cmdline").read_bytes():
                    count += 1
            except OSError:
                continue
    return count


@pytest.fixture(scope="module")
def bomb_index(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Path:
    docs = tmp_path_factory.mktemp("docs")
    (docs / "fanout.pdf").write_bytes(form_fanout(7))  # 10^6 squares from 3 KB (text extraction walks them too)
    (docs / "annotation.pdf").write_bytes(form_fanout(8, where="annotation"))  # 10^7, where parsing never looks
    index = tmp_path_factory.mktemp("index") / "index"
    build_index(BuildSettings(index_dir=index, docs_dir=docs, embedder="none", progress=False, cache_dir=cache_dir))
    return index


def test_a_fanned_out_page_is_indexed_and_read_but_its_render_is_refused(bomb_index: Path, cache_dir: Path) -> None:
    kb = KnowledgeBase(load_index(bomb_index, cache_dir))
    before = resident_mb(os.getpid())
    assert before is not None
    for name in ("fanout.pdf", "annotation.pdf"):
        page = kb.get_page(PageRequest(document=name, page=1))
        assert "Consolidated statement of operations" in page.text  # its text is read as usual
        started = time.monotonic()
        with pytest.raises(RenderError, match=rf"^page 1 of {name} (took longer than|needed more than)"):
            kb.page_image(PageImageRequest(document=name, page=1))
        assert time.monotonic() - started < 12  # the budget (5 s) and a worker's start, never the full fan-out
        started = time.monotonic()
        with pytest.raises(RenderError, match="refused earlier; not tried again"):
            kb.render_page(RenderRequest(document=name, page=1))
        assert time.monotonic() - started < 0.5
    after = resident_mb(os.getpid())
    assert after is not None and after - before < 100  # the server's own process never rendered it


def test_through_mcp_the_refusal_is_an_error_naming_the_page_and_the_server_serves_on(
    bomb_index: Path, cache_dir: Path, samples_index_dir: Path
) -> None:
    results = call_tools(
        bomb_index,
        cache_dir,
        [("page_image", {"document": "fanout.pdf", "page": 1}), ("get_page", {"document": "fanout.pdf", "page": 1})],
    )
    assert results[0].is_error and "page 1 of fanout.pdf" in results[0].content[0].text
    assert not results[1].is_error and "Consolidated statement" in results[1].content[0].text
    normal = call_tools(samples_index_dir, cache_dir, [("render_page", {"document": BESTBUY_10Q.name, "page": 4})])
    assert not normal[0].is_error


def test_the_budget_is_time_as_well_as_memory(tmp_path: Path) -> None:
    slow = tmp_path / "slow.pdf"
    slow.write_bytes(form_fanout(6, where="annotation"))  # 10^5 squares: well under the memory cap, not instant
    pool = RenderPool(timeout=0.05)
    try:
        with pytest.raises(RenderError, match=r"^page 1 of slow.pdf took longer than 0.05 s to render"):
            pool.render(slow, 1, [])
        assert isinstance(RenderError("x"), FilingsError)  # answered as a tool error, in words
        generous = RenderPool(timeout=30)
        try:
            assert generous.render(slow, 1, []).png.startswith(b"\x89PNG")  # the same page, with time, renders
        finally:
            generous.close()
    finally:
        pool.close()


def _bombs(folder: Path, count: int) -> list[Path]:
    paths = [folder / f"bomb{i}.pdf" for i in range(count)]
    for path in paths:
        path.write_bytes(form_fanout(7))
    return paths


def _render_at_once(pool: RenderPool, paths: list[Path], watch: list[int] | None = None) -> list[str]:
    """Each page rendered in its own thread, all at once; what each was told. ``watch`` gets the count of render
    workers alive, sampled while they run. The pool is closed after."""
    told: list[str] = []

    def render(path: Path) -> None:
        try:
            pool.render(path, 1, [])
        except RenderError as exc:
            told.append(str(exc))

    threads = [threading.Thread(target=render, args=(path,)) for path in paths]
    try:
        for thread in threads:
            thread.start()
        while watch is not None and any(thread.is_alive() for thread in threads):
            watch.append(_children_rendering())
            time.sleep(0.05)
    finally:
        for thread in threads:
            thread.join()
        pool.close()
    return told


def test_at_most_two_renders_run_at_once(tmp_path: Path) -> None:
    idle = _children_rendering()  # other pools' workers (the server's own), idle
    seen: list[int] = []
    told = _render_at_once(RenderPool(workers=2, timeout=2), _bombs(tmp_path, 4), seen)
    assert len(told) == 4 and max(seen) - idle == 2


def test_an_image_behind_non_image_filters_is_refused_within_the_memory_budget(tmp_path: Path) -> None:
    """A 12,000 × 12,000 image (144 MB of samples, 288 MB as hex) behind Flate then hex, 280 KB in the file: PDFium
    decodes the filters whole before the image; the worker's memory cap stops it, not the server."""
    bomb = tmp_path / "image.pdf"
    bomb.write_bytes(image_behind_filters(12_000))
    assert bomb.stat().st_size < 400_000
    pool = RenderPool()
    before = resident_mb(os.getpid())
    try:
        with pytest.raises(RenderError, match=r"^page 1 of image.pdf needed more than 512 MB of memory"):
            pool.render(bomb, 1, [])
    finally:
        pool.close()
    after = resident_mb(os.getpid())
    assert before is not None and after is not None and after - before < 100


def test_past_eight_waiting_calls_a_render_is_told_the_renderer_is_busy(tmp_path: Path) -> None:
    """Calls waiting for a worker hold the server's threads: past eight, a call is answered at once."""
    told = _render_at_once(RenderPool(workers=1, timeout=0.3), _bombs(tmp_path, 14))
    busy = [message for message in told if message.startswith("the renderer is busy")]
    assert len(told) == 14 and len(busy) >= 14 - 1 - 8  # one rendering, eight waiting, the rest told at once
