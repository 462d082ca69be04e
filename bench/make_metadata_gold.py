"""Gold metadata for every dev document: company and fiscal year from the dataset's own records (documents.jsonl,
the Chinese set's file names), form and period end read from the cover by an independent extractor (pdfplumber's
text of the first pages: "FORM 10-K", "for the fiscal year ended …", 年度报告). Read through by hand; a field the
cover does not state is left out of the gold (None) rather than guessed.

    python bench/make_metadata_gold.py ../shared/eval/dev > bench/gold/metadata.jsonl
"""

from __future__ import annotations

import json
import re
import sys
from datetime import datetime
from pathlib import Path

import pdfplumber

COVER_PAGES = 3
_FORM = re.compile(r"\bFORM\s+(10-K|10-Q|8-K|20-F|40-F)\b", re.I)
_PERIOD_END = re.compile(
    r"(?:fiscal\s+year|quarterly\s+period|year|period)\s+ended:?\s+([A-Z][a-z]+\s+\d{1,2},?\s+\d{4}|\d{1,2}\s+[A-Z][a-z]+\s+\d{4})",
    re.I,
)
_REPORT_DATE = re.compile(r"Date of Report[^\n]{0,40}?:?\s*\(?([A-Z][a-z]+\s+\d{1,2},\s+\d{4})", re.I)
_ANNUAL = re.compile(r"annual\s+report", re.I)
_FORMS = {"10-K": "10-K", "10-Q": "10-Q", "8-K": "8-K", "earnings": "earnings release"}
# Period ends printed on the cover where the extractor's text runs two columns together ("quarterly period ended
# Commission file …"): read off the cover by hand.
BY_HAND = {
    "JPMORGAN_2021Q1_10Q.pdf": "2021-03-31", "JPMORGAN_2022Q2_10Q.pdf": "2022-06-30",
    "PEPSICO_2023Q1_EARNINGS.pdf": "2023-03-25", "erc_kp_tissue_d14ae2b6.pdf": "2022-12-31",
}  # fmt: skip


def _iso(text: str) -> str | None:
    cleaned = re.sub(r"\s+", " ", text.replace(",", ", ")).replace(" ,", ",").strip()
    for pattern in ("%B %d, %Y", "%B %d %Y", "%d %B %Y"):
        try:
            return datetime.strptime(re.sub(r",\s+", ", ", cleaned), pattern).date().isoformat()
        except ValueError:
            continue
    return None


def _cover(pdf: Path) -> str:
    with pdfplumber.open(pdf) as document:
        return "\n".join(page.extract_text() or "" for page in document.pages[:COVER_PAGES])


def _english(root: Path) -> list[dict[str, object]]:
    rows = []
    for line in (root / "en" / "documents.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        cover = _cover(root / "en" / "pdfs" / record["file"])
        form_match = _FORM.search(cover)
        named = _FORMS.get(record["doc_type"])
        form = named or (
            form_match.group(1).upper() if form_match else "annual report" if _ANNUAL.search(cover) else None
        )
        found = (_REPORT_DATE if form == "8-K" else _PERIOD_END).search(cover)  # an 8-K: the date of the report
        end = BY_HAND.get(record["file"], _iso(found.group(1)) if found else None)
        period = str(record["period"])
        year = int(period[2:6]) if period.startswith("FY") else None
        rows.append({"document": f"en/pdfs/{record['file']}", "company": record["company"], "form": form,
                     "year": year, "period_end": end})  # fmt: skip
    return rows


def _chinese(root: Path) -> list[dict[str, object]]:
    rows = []
    for pdf in sorted((root / "zh" / "pdfs").glob("*.pdf")):
        # finglm_<stock code>_<short name>_<year>_年度报告.pdf
        _, code, name, year, kind = pdf.stem.split("_")[:5]
        rows.append({"document": f"zh/pdfs/{pdf.name}", "company": name, "form": "年报" if kind == "年度报告" else kind,
                     "year": int(year), "period_end": f"{year}-12-31", "stock_code": code})  # fmt: skip
    return rows


# The filings unlike the dev set (dev/filings): form and fiscal year end read off each cover by hand where the
# extractor's regex finds none (glossy covers, "Annual Report 31 March 2022", a 10-K cover bound on page 9). The year
# is the calendar year the fiscal year ends in (Seiko Epson's "FY2021" ends 31 March 2022: 2022, as the dataset names
# it and the cover's "Annual Report 2022").
FILINGS_BY_HAND = {
    "erc_abrdn_japan_investment_trust_d5ad1d28.pdf": ("annual report", "2022-03-31"),
    "erc_bridgewater_bancshares_8467b7fc.pdf": ("10-K", "2022-12-31"),  # the 10-K's cover on p.9
    "erc_elixir_energy_f879b3a8.pdf": ("annual report", "2022-06-30"),
    "erc_empire_company_8f5e29ee.pdf": ("annual report", "2022-05-07"),
    "erc_enact_holdings_1ab89c81.pdf": ("10-K", "2022-12-31"),
    "erc_epi_holdings_674a255d.pdf": ("annual report", "2022-12-31"),
    "erc_galileo_resources_6406e378.pdf": ("annual report", "2022-03-31"),
    "erc_ofx_group_1bd670f9.pdf": ("annual report", "2022-03-31"),
    "erc_pintec_technology_holdings_9e794a58.pdf": ("20-F", "2022-12-31"),
    "erc_rectifier_technologies_3bb894b4.pdf": ("annual report", "2022-06-30"),
    "erc_seiko_epson_6d76ccb7.pdf": ("annual report", "2022-03-31"),
    "erc_swiss_water_decaffeinated_coffee_d86be8a2.pdf": ("annual report", "2022-12-31"),
    "MCDONALDS_2023Q2_EARNINGS.pdf": ("earnings release", "2023-06-30"),  # "second quarter 2023"
}  # fmt: skip
_FINANCEBENCH_FORMS = {"10k": "10-K", "10q": "10-Q", "earnings": "earnings release"}


def _filings(root: Path) -> list[dict[str, object]]:
    rows = []
    for line in (root / "filings" / "documents.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        name = record["document"]
        if name in FILINGS_BY_HAND:
            form, end = FILINGS_BY_HAND[name]
            year: int | None = int(end[:4])
        else:
            form = _FINANCEBENCH_FORMS[record["doc_type"].lower()]
            found = _PERIOD_END.search(_cover(root / "filings" / "pdfs" / name))
            end, year = (_iso(found.group(1)) if found else None), int(record["period"])
        rows.append({"document": f"filings/pdfs/{name}", "company": record["company"], "form": form,
                     "year": year, "period_end": end})  # fmt: skip
    return rows


def main() -> int:
    root = Path(sys.argv[1])
    for row in [*_english(root), *_chinese(root), *_filings(root)]:
        print(json.dumps(row, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
