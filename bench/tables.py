"""Table extraction, LiteParse layout blocks against pdfplumber, on reference tables with known values.

    python bench/tables.py ../shared/corpus/tables

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

NICS = "pdfplumber_nics-background-checks-2015-11.pdf"
CJK_TABLES = "pdfplumber_issue-336-example.pdf"


def _number(cell: str | None) -> int | None:
    text = (cell or "").replace(",", "").strip()
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path)
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
    print(f"NICS, LiteParse blocks ({lp_time:.2f}s): {lp_nics}")
    print(f"NICS, pdfplumber text strategy ({pl_time:.2f}s): {pl_nics}")

    lp_cjk = [len(t) for t in liteparse_tables(args.folder / CJK_TABLES)]
    with pdfplumber.open(args.folder / CJK_TABLES) as pdf:
        pl_cjk = [len(t) for p in pdf.pages for t in p.extract_tables()]
    print(f"issue-336 (expected row counts [8, 11, 2]): LiteParse {lp_cjk}, pdfplumber {pl_cjk}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
