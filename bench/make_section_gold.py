"""Gold section start pages for the outline, from an independent extractor (pdfplumber's text lines, not LiteParse):
for each wanted heading, the pages where a line starts with it, leaving out contents pages (their Item/节 lines end
in page numbers); a heading kept only when exactly one page remains. The result was read through by hand.

    python bench/make_section_gold.py ../shared/eval/dev > bench/gold/sections.jsonl
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pdfplumber

TEN_K = {
    "1": r"item\s*1\s*[.:]?\s*business",
    "1A": r"item\s*1a\s*[.:]?\s*risk\s+factors",
    "7": r"item\s*7\s*[.:]?\s*management",
    "8": r"item\s*8\s*[.:]?\s*financial\s+statements",
}
TEN_Q = {"2": r"item\s*2\s*[.:]?\s*management"}
TWENTY_F = {
    "3": r"item\s*3\s*[.:]?\s*key\s+information",
    "4": r"item\s*4\s*[.:]?\s*information\s+on\s+the\s+company",
    "5": r"item\s*5\s*[.:]?\s*operating\s+and\s+financial\s+review",
    "18": r"item\s*18\s*[.:]?\s*financial\s+statements",
}
CHAPTERS = {f"第{n}节": rf"第\s*{n}\s*节" for n in "一二三四五六七八九十"} | {
    "第十一节": r"第\s*十一\s*节",
    "第十二节": r"第\s*十二\s*节",
}
# An annual report of another country, by its own section titles (the line is the whole title).
REPORTS = {
    "strategic_report": r"strategic report$",
    "chairmans_statement": r"chair(?:man|woman|person)?['’]s (?:statement|letter|review)$",
    "ceo_review": r"chief executive(?: officer)?['’]s (?:review|statement|report|letter)$",
    "management_report": r"management['’]?s discussion and analysis$|financial review$",
    "directors_report": r"directors['’]? report$",
    "auditors_report": r"independent auditors?['’]? report$",
    "governance": r"corporate governance(?: report| statement)?$",
    "remuneration_report": r"(?:directors['’]? )?remuneration report$",
}
DOCUMENTS = {
    "en/pdfs/ACTIVISIONBLIZZARD_2019_10K.pdf": TEN_K, "en/pdfs/ADOBE_2017_10K.pdf": TEN_K,
    "en/pdfs/AMAZON_2017_10K.pdf": TEN_K, "en/pdfs/BOEING_2018_10K.pdf": TEN_K,
    "en/pdfs/MGMRESORTS_2020_10K.pdf": TEN_K,
    "en/pdfs/BESTBUY_2019_10K.pdf": TEN_K, "en/pdfs/AMD_2015_10K.pdf": TEN_K, "en/pdfs/PEPSICO_2021_10K.pdf": TEN_K,
    "en/pdfs/BESTBUY_2024Q2_10Q.pdf": TEN_Q, "en/pdfs/MGMRESORTS_2023Q2_10Q.pdf": TEN_Q,
    "zh/pdfs/finglm_603339_四方科技_2019_年度报告.pdf": CHAPTERS,
    "en/pdfs/erc_downer_edi_0a61a353.pdf": REPORTS, "en/pdfs/erc_kp_tissue_d14ae2b6.pdf": REPORTS,
    "en/pdfs/erc_zegona_communications_3696c1b2.pdf": REPORTS, "en/pdfs/erc_ethernity_networks_e51b7204.pdf": REPORTS,
}  # fmt: skip
# The filings unlike the dev set (dev/filings): every 10-K, 10-Q, 20-F and annual report among them (the earnings
# release has no sections).
_FILINGS = "filings/pdfs/"
DOCUMENTS |= {
    _FILINGS + name: TEN_K
    for name in (
        "AES_2020_10K.pdf", "APPLE_2021_10K.pdf", "EBAY_2021_10K.pdf", "FEDEX_2023_10K.pdf", "INTEL_2020_10K.pdf",
        "MCDONALDS_2022_10K.pdf", "ORACLE_2021_10K.pdf", "PG_E_2021_10K.pdf", "SALESFORCE_2023_10K.pdf",
        "erc_enact_holdings_1ab89c81.pdf", "erc_bridgewater_bancshares_8467b7fc.pdf",
    )
} | {
    _FILINGS + "PAYPAL_2023Q2_10Q.pdf": TEN_Q, _FILINGS + "SALESFORCE_2023Q3_10Q.pdf": TEN_Q,
    _FILINGS + "erc_pintec_technology_holdings_9e794a58.pdf": TWENTY_F,
} | {
    _FILINGS + name: REPORTS
    for name in (
        "erc_abrdn_japan_investment_trust_d5ad1d28.pdf", "erc_elixir_energy_f879b3a8.pdf",
        "erc_empire_company_8f5e29ee.pdf", "erc_epi_holdings_674a255d.pdf", "erc_galileo_resources_6406e378.pdf",
        "erc_ofx_group_1bd670f9.pdf", "erc_rectifier_technologies_3bb894b4.pdf", "erc_seiko_epson_6d76ccb7.pdf",
        "erc_swiss_water_decaffeinated_coffee_d86be8a2.pdf",
    )
}  # fmt: skip
# Starts the rule above cannot settle (a contents page listing the Items without page numbers; a contents line read
# as a heading) or gets wrong, read off the pages by hand (pypdfium2's text): document, key → (page, heading).
BY_HAND = {
    ("filings/pdfs/PG_E_2021_10K.pdf", "1"): (14, "ITEM 1. BUSINESS"),
    ("filings/pdfs/PG_E_2021_10K.pdf", "1A"): (38, "ITEM 1A. RISK FACTORS"),
    ("filings/pdfs/PG_E_2021_10K.pdf", "7"): (63, "ITEM 7. MANAGEMENT'S DISCUSSION AND ANALYSIS"),
    ("filings/pdfs/PG_E_2021_10K.pdf", "8"): (100, "ITEM 8. FINANCIAL STATEMENTS AND SUPPLEMENTARY DATA"),
    ("filings/pdfs/ORACLE_2021_10K.pdf", "1"): (5, "Item 1.Business"),
    # "Management Discussion and Analysis" (no 's) opens on p.9; the rule found only its "FINANCIAL REVIEW" part
    ("filings/pdfs/erc_epi_holdings_674a255d.pdf", "management_report"): (9, "Management Discussion and Analysis"),
}
_PAGE_REF = re.compile(r"(?:\.{3,}|…{2,}|\s)\s*\d{1,4}\s*$")
_HEADING_LINE = re.compile(r"^(?:item\s*\d|第\s*[一二三四五六七八九十]+\s*节)", re.I)


def main() -> int:
    root = Path(sys.argv[1])
    only = sys.argv[2] if len(sys.argv) > 2 else ""  # a part of the document names, to regenerate some
    for document, wanted in DOCUMENTS.items():
        if only not in document:
            continue
        with pdfplumber.open(root / document) as pdf:
            pages = [
                [line.strip() for line in (page.extract_text() or "").splitlines() if line.strip()]
                for page in pdf.pages
            ]
        contents = {
            n
            for n, lines in enumerate(pages, 1)
            if sum(bool(_HEADING_LINE.match(x) and _PAGE_REF.search(x)) for x in lines) >= 3
            or (wanted is REPORTS and sum(bool(_PAGE_REF.search(x)) for x in lines) >= 3)
        }
        for key, pattern in wanted.items():
            heading = re.compile("^" + pattern, re.I)
            found = [
                (n, x)
                for n, lines in enumerate(pages, 1)
                if n not in contents
                for x in lines
                if heading.match(x) and not x[:1].islower()
            ]
            if (document, key) in BY_HAND:
                page, printed = BY_HAND[document, key]
                print(json.dumps({"document": document, "key": key, "page": page, "heading": printed}))
            elif len({n for n, _ in found}) == 1:
                print(
                    json.dumps(
                        {"document": document, "key": key, "page": found[0][0], "heading": found[0][1][:80]},
                        ensure_ascii=False,
                    )
                )
            else:
                print(f"skipped {document} {key}: {len(found)} candidate lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
