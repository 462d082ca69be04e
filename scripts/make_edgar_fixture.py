"""Make tests/edgar/: the part of the recorded EDGAR responses (../shared/corpus/edgar) the EDGAR client tests
replay, cut small enough to commit, so that those tests run from a fresh clone.

    python scripts/make_edgar_fixture.py [--source ../shared/corpus/edgar] [--out tests/edgar]

What is cut, and how (every byte kept is the recording's):
- ``files/company_tickers.json``: the entries of the tickers the tests name (AAPL, NVDA, MSFT, TSLA);
- ``submissions/CIK….json`` of Apple and NVIDIA: every field, the ``recent`` filings from 2023 on;
- the two filings the tests download: NVIDIA's 10-Q whole (a test indexes it), Apple's 10-K its first 64 KiB (the
  tests compare its bytes);
- the 404 EDGAR answers for an unknown path.
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

TICKERS = {"AAPL", "NVDA", "MSFT", "TSLA"}
SUBMISSIONS = ("CIK0000320193.json", "CIK0001045810.json")
FILINGS = {  # path → bytes kept (None: all)
    "Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm": 64 * 1024,
    "Archives/edgar/data/1045810/000104581025000209/nvda-20250727.htm": None,
}
ERRORS = "_errors/data.sec.gov/submissions/CIK-000000001.json.404.xml"
SINCE = "2023-01-01"


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", type=Path, default=Path("../shared/corpus/edgar"))
    parser.add_argument("--out", type=Path, default=Path("tests/edgar"))
    args = parser.parse_args()
    source, out = args.source, args.out
    if out.exists():
        shutil.rmtree(out)
    tickers = json.loads((source / "files/company_tickers.json").read_text(encoding="utf-8"))
    kept = {key: row for key, row in tickers.items() if row["ticker"] in TICKERS}
    _write(out / "files/company_tickers.json", json.dumps(kept).encode())
    for name in SUBMISSIONS:
        company = json.loads((source / "submissions" / name).read_text(encoding="utf-8"))
        recent = company["filings"]["recent"]
        rows = [i for i, filed in enumerate(recent["filingDate"]) if filed >= SINCE]
        company["filings"]["recent"] = {field: [values[i] for i in rows] for field, values in recent.items()}
        _write(out / "submissions" / name, json.dumps(company).encode())
    for name, kept in FILINGS.items():
        _write(out / name, (source / name).read_bytes()[:kept])
    _write(out / ERRORS, (source / ERRORS).read_bytes())
    print(f"wrote {sum(f.stat().st_size for f in out.rglob('*') if f.is_file()):,} bytes to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
