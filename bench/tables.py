"""Table extraction — LiteParse layout blocks, pdfplumber, and ours (indexer/ingest/tables.py: LiteParse's regions and
row bands, cells from our own spans) — on reference tables with known values; and, over a folder of filings,
how many 'Total' figures equal the sum of the rows they total.

    python bench/tables.py ../shared/corpus/tables [--filings ../shared/eval/dev/en/pdfs]

Checks (from ../shared/corpus/README.md): NICS 2015-11 — first data row Alabama, last Wyoming, the 23rd cell of
Alabama's row is 71,137 and of Wyoming's 5,017, every numeric column sums to twice its totals row;
pdfplumber issue-336 — three tables with 8, 11 and 2 rows, in reading order.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pdfplumber
from liteparse import LiteParse

from indexer.ingest.chunk import ChunkSettings, mark_furniture
from indexer.ingest.parse import PdfParser
from indexer.ingest.tables import check_totals, with_tables

NICS = "pdfplumber_nics-background-checks-2015-11.pdf"
CJK_TABLES = "pdfplumber_issue-336-example.pdf"


def _number(cell: str | None) -> int | None:
    text = (cell or "").replace(",", "").replace(" ", "").strip()
    return int(text) if text.isdigit() else None


def nics_checks(rows: list[list[str]]) -> dict[str, object]:
    states = [r for r in rows if r and r[0] and not r[0].lower().startswith(("state", "total"))]
    by_name = {r[0].strip(): r for r in states}
    total = next((r for r in rows if r and r[0] and r[0].lower().startswith("total")), None)
    sums_ok = None
    if total is not None:
        numeric = [c for c in range(1, len(total)) if _number(total[c]) is not None]
        good = sum(
            1 for c in numeric if sum(_number(r[c]) or 0 for r in rows if len(r) > c) == 2 * (_number(total[c]) or 0)
        )
        sums_ok = f"{good}/{len(numeric)}"
    return {
        "rows": len(states),
        "first": states[0][0].strip() if states else None,
        "last": states[-1][0].strip() if states else None,
        "alabama_23": by_name.get("Alabama", [None] * 23)[22] if len(by_name.get("Alabama", [])) > 22 else None,
        "wyoming_23": by_name.get("Wyoming", [None] * 23)[22] if len(by_name.get("Wyoming", [])) > 22 else None,
        "alabama_last": (by_name.get("Alabama") or [None])[-1],
        "wyoming_last": (by_name.get("Wyoming") or [None])[-1],
        "columns_summing_to_twice_total": sums_ok,
    }


def liteparse_tables(pdf: Path) -> list[list[list[str]]]:
    result = LiteParse(ocr_enabled=False, quiet=True, extract_blocks=True).parse(pdf)
    tables = []
    for page in result.pages:
        for block in page.blocks or []:
            if block.kind == "table":
                rows = ([[c.text for c in block.header]] if block.header else []) + [
                    [c.text for c in row] for row in block.rows or []
                ]
                tables.append(rows)
    return tables


def our_tables(pdf: Path) -> list[list[list[str]]]:
    """Our tables as rows of cells: [label, value column 0, value column 1, …] ('' where a column is empty)."""
    pages = with_tables(mark_furniture(PdfParser().parse(pdf), ChunkSettings()))
    out = []
    for page in pages:
        for table in page.tables:
            width = len(table.columns)
            rows = []
            for row in table.rows:
                cells = [""] * width
                for cell in row.cells:
                    cells[cell.column] = cell.text
                rows.append([row.label, *cells])
            out.append(rows)
    return out


def filings_totals(folder: Path) -> dict[str, object]:
    """Tables, rows and total figures found in every PDF under ``folder``, and how many totals add up."""
    tables = rows = checked = matching = 0
    pages_total = 0
    started = time.perf_counter()
    for pdf in sorted(folder.rglob("*.pdf")):
        pages = with_tables(mark_furniture(PdfParser().parse(pdf), ChunkSettings()))
        pages_total += len(pages)
        for page in pages:
            for table in page.tables:
                tables += 1
                rows += len(table.rows)
                check = check_totals(table)
                checked += check.checked
                matching += check.matching
    return {
        "pages": pages_total,
        "tables": tables,
        "rows": rows,
        "total_figures": checked,
        "adding_up": matching,
        "share": round(matching / checked, 3) if checked else None,
        "seconds": round(time.perf_counter() - started, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--filings", type=Path, action="append", default=[], help="folders of filings to check")
    args = parser.parse_args()

    t0 = time.perf_counter()
    lp = liteparse_tables(args.folder / NICS)
    lp_nics = nics_checks([row for table in lp for row in table])
    lp_time = time.perf_counter() - t0
    t0 = time.perf_counter()
    with pdfplumber.open(args.folder / NICS) as pdf:
        page = pdf.pages[0]
        cropped = page.crop((0, 80, page.width, 485))
        pl_rows = cropped.extract_table({"vertical_strategy": "text", "horizontal_strategy": "text"}) or []
    pl_nics = nics_checks([[c or "" for c in row] for row in pl_rows])
    pl_time = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours = our_tables(args.folder / NICS)
    our_nics = nics_checks([row for table in ours for row in table])
    our_time = time.perf_counter() - t0
    print(f"NICS, LiteParse blocks ({lp_time:.2f}s): {lp_nics}")
    print(f"NICS, pdfplumber text strategy ({pl_time:.2f}s): {pl_nics}")
    print(f"NICS, ours ({our_time:.2f}s): {our_nics}")

    lp_cjk = [len(t) for t in liteparse_tables(args.folder / CJK_TABLES)]
    with pdfplumber.open(args.folder / CJK_TABLES) as pdf:
        pl_cjk = [len(t) for p in pdf.pages for t in p.extract_tables()]
    our_cjk = [len(t) for t in our_tables(args.folder / CJK_TABLES)]
    print(f"issue-336 (expected row counts [8, 11, 2]): LiteParse {lp_cjk}, pdfplumber {pl_cjk}, ours {our_cjk}")
    for folder in args.filings:
        print(f"{folder}: {filings_totals(folder)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
