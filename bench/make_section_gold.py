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
_PAGE_REF = re.compile(r"(?:\.{3,}|…{2,}|\s)\s*\d{1,4}\s*$")
_HEADING_LINE = re.compile(r"^(?:item\s*\d|第\s*[一二三四五六七八九十]+\s*节)", re.I)


def main() -> int:
    root = Path(sys.argv[1])
    for document, wanted in DOCUMENTS.items():
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
            if len({n for n, _ in found}) == 1:
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
