"""HTML filing → PDF converters compared on the real EDGAR filings in ../shared/corpus/edgar/: time per filing,
pages, and table fidelity (the share of the figures printed in the HTML's table cells that come back as figures
of table rows after LiteParse + our table extraction parse the PDF).

    python bench/html_convert.py ../shared/corpus/edgar [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from indexer.core.figures import is_value
from indexer.ingest.chunk import ChunkSettings, mark_furniture
from indexer.ingest.convert import html_to_pdf
from indexer.ingest.parse import PdfParser
from indexer.ingest.tables import with_tables

_CELL = re.compile(r"<td[^>]*>(.*?)</td>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")


def html_figures(path: Path) -> set[str]:
    """Figures printed in the HTML's table cells (3+ digits, as printed), e.g. '391,035'."""
    out = set()
    for cell in _CELL.findall(path.read_text(encoding="utf-8", errors="replace")):
        text = html.unescape(_TAG.sub(" ", cell)).strip()
        if is_value(text) and len(re.sub(r"\D", "", text)) >= 3:
            out.add(text.strip("()$ ").replace(" ", ""))
    return out


def pdf_figures(pdf: Path) -> tuple[int, set[str]]:
    pages = with_tables(mark_furniture(PdfParser().parse(pdf), ChunkSettings()))
    found = {
        cell.text.strip("()$ ").replace(" ", "")
        for page in pages
        for table in page.tables
        for row in table.rows
        for cell in row.cells
    }
    return len(pages), found


def chromium_to_pdf(binary: str, source: Path, target: Path) -> None:
    subprocess.run(
        [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer",
         "--host-resolver-rules=MAP * ~NOTFOUND", f"--print-to-pdf={target}", source.resolve().as_uri()],
        check=True, capture_output=True, timeout=600,
    )  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("edgar", type=Path)
    parser.add_argument("--chromium", default=shutil.which("chromium"))
    parser.add_argument("--min-kb", type=int, default=20, help="skip smaller HTML files (exhibits)")
    args = parser.parse_args()
    filings = sorted(
        p
        for p in (args.edgar / "Archives").rglob("*.htm")
        if "index" not in p.name and p.stat().st_size > args.min_kb * 1024
    )
    engines = {"weasyprint": html_to_pdf}
    if args.chromium:
        engines["chromium"] = lambda s, t: chromium_to_pdf(args.chromium, s, t)  # type: ignore[assignment,misc,return-value]
    totals: dict[str, list[float]] = {name: [0.0, 0, 0, 0] for name in engines}
    print(f"{'filing':<28} {'KB':>6}  " + "  ".join(f"{n + ' s/pages/figures':>28}" for n in engines))
    with tempfile.TemporaryDirectory() as tmp:
        for filing in filings:
            wanted = html_figures(filing)
            cols = []
            for name, convert in engines.items():
                target = Path(tmp) / f"{name}-{filing.stem}.pdf"
                started = time.perf_counter()
                try:
                    convert(filing, target)
                except Exception as exc:
                    cols.append(f"{'failed: ' + str(exc)[:18]:>28}")
                    continue
                seconds = time.perf_counter() - started
                pages, found = pdf_figures(target)
                kept = len(wanted & found)
                totals[name][0] += seconds
                totals[name][1] += pages
                totals[name][2] += kept
                totals[name][3] += len(wanted)
                cols.append(f"{seconds:>9.1f} {pages:>5} {kept:>6}/{len(wanted):<6}")
            print(f"{filing.name[:28]:<28} {filing.stat().st_size // 1024:>6}  " + "  ".join(cols), flush=True)
    for name, (seconds, pages, kept, wanted) in totals.items():
        share = kept / wanted if wanted else 0.0
        print(
            f"{name}: {seconds:.1f} s for {len(filings)} filings, {pages} pages, "
            f"{kept}/{wanted} table figures ({share:.1%})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
