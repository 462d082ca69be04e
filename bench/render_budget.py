"""Rendering under a budget (issue 56): what the worker costs a normal page, and what a hostile page costs the server.

    python bench/render_budget.py [--markdown]

- Normal pages: every page of ``data/samples/`` rendered at the default dpi, in this process with PDFium
  (``render_png``, as render_page did before) and through the render pool's worker (``RenderPool``, as now); p50
  and p95 of each, and the worker's first render (its start).
- Hostile pages, made here (tests/hostile_docs.py): a page whose forms fan out to 10^6 and 10^7 draws, the same in an
  annotation's appearance, and a 12,000² image behind Flate and hex filters: how long until each is refused, and how
  much the calling process grew (target: ≤ 5 s, ≤ 512 MB, and the caller not at all).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from indexer.evidence.render import render_png  # noqa: E402
from indexer.evidence.render_pool import RenderError, RenderPool  # noqa: E402
from indexer.ingest.memory_guard import resident_mb  # noqa: E402
from tests.hostile_docs import form_fanout, image_behind_filters  # noqa: E402

SAMPLES = HERE.parent / "data" / "samples"


def _pages() -> list[tuple[Path, int]]:
    import pypdfium2 as pdfium

    found = []
    for pdf in sorted(SAMPLES.glob("*.pdf")):
        document = pdfium.PdfDocument(str(pdf))
        found += [(pdf, number) for number in range(1, len(document) + 1)]
        document.close()
    return found


def _ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered) * 1000, 1),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000, 1),
    }


def measure() -> dict[str, object]:
    pages = _pages()
    direct = []
    for pdf, number in pages:
        started = time.perf_counter()
        render_png(pdf, number, [])
        direct.append(time.perf_counter() - started)
    pool = RenderPool()
    pooled = []
    try:
        for index, (pdf, number) in enumerate(pages):
            started = time.perf_counter()
            pool.render(pdf, number, [])
            elapsed = time.perf_counter() - started
            if index == 0:
                first = elapsed
            else:
                pooled.append(elapsed)
        hostile = {}
        with tempfile.TemporaryDirectory() as folder:
            made = {
                "forms fanning out to 10^6 draws": form_fanout(7),
                "forms fanning out to 10^7 draws": form_fanout(8),
                "10^7 draws in an annotation's appearance": form_fanout(8, where="annotation"),
                "12,000² image behind Flate and hex": image_behind_filters(12_000),
            }
            for name, data in made.items():
                path = Path(folder) / "hostile.pdf"
                path.write_bytes(data)
                before = resident_mb(os.getpid()) or 0.0
                started = time.perf_counter()
                try:
                    pool.render(path, 1, [])
                    outcome = "rendered"
                except RenderError as exc:
                    outcome = "refused: " + str(exc).split(" ", 4)[4].split(";")[0]
                hostile[name] = {
                    "bytes": len(data),
                    "seconds": round(time.perf_counter() - started, 2),
                    "caller_grew_mb": round((resident_mb(os.getpid()) or 0.0) - before, 1),
                    "outcome": outcome,
                }
                pool = _fresh(pool)  # each page on its own: a refused page is remembered
    finally:
        pool.close()
    return {"pages": len(pages), "direct_ms": _ms(direct), "pool_ms": _ms(pooled), "first_ms": round(first * 1000),
            "hostile": hostile}  # fmt: skip


def _fresh(pool: RenderPool) -> RenderPool:
    pool.close()
    return RenderPool()


def markdown(result: dict[str, object]) -> list[str]:
    direct, pooled = result["direct_ms"], result["pool_ms"]
    assert isinstance(direct, dict) and isinstance(pooled, dict)
    lines = [
        "## Rendering under a budget (issue 56)",
        "",
        f"`bench/render_budget.py` (2 cores): the {result['pages']} sample pages at the default dpi. In the "
        f"server's own process (`render_png`, as before) p50 {direct['p50']} ms / p95 {direct['p95']} ms; through "
        f"the render worker (as now) p50 {pooled['p50']} ms / p95 {pooled['p95']} ms; the worker's first render, "
        f"with its start, {result['first_ms']} ms. Hostile pages (made by `tests/hostile_docs.py`), budget 5 s and "
        "512 MB:",
        "",
        "| page | file | until answered | the calling process grew | outcome |",
        "|---|---|---|---|---|",
    ]
    for name, row in result["hostile"].items():  # type: ignore[attr-defined]
        lines.append(
            f"| {name} | {row['bytes']:,} B | {row['seconds']} s | {row['caller_grew_mb']} MB | {row['outcome']} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--markdown", action="store_true", help="print BENCHMARKS.md's section instead of JSON")
    args = parser.parse_args()
    result = measure()
    print("\n".join(markdown(result)) if args.markdown else json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
