"""Gold statement facts for get_financials, from an independent extractor (pdfplumber's words, not LiteParse).

For each wanted statement of a document: its page is the first page (after the contents) with a line that is the
statement's title; a fact is the first line on that page or the next whose words start with a wanted label and end in
figures — the first figure is the fact, and its period is the year/date (or 本期/期末 header) printed above that
figure's column (the header word nearest to it horizontally). The scale is what the page declares. Each fact was
read through by hand against the page.

    python bench/make_fact_gold.py ../shared/eval/dev > bench/gold/facts.jsonl
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pdfplumber

_TITLES = {
    "income": r"(consolidated )?statements? of (consolidated )?(operations|income|earnings)|合并利润表",
    "balance": r"(consolidated )?(balance sheets?|statements? of financial position)|合并资产负债表",
    "cash_flow": r"(consolidated )?statements? of cash flows?|合并现金流量表",
    "key_data": r".*主要会计数据",
}
_LABELS = {
    "income": [r"total net sales|net sales|total revenues?|revenues?|net revenues?|"
               r"revenue from contracts with customers|营业总收入",
               r"net (income|earnings|loss)( \(loss\))?|(profit|loss) for the (year|period)|五、净利润|净利润",
               r"operating income|income from operations|营业利润", r"diluted|稀释每股收益"],
    "balance": [r"total assets|资产总计", r"total current liabilities|流动负债合计", r"货币资金"],
    "cash_flow": [r"net cash (provided by|from|provided by \(used in\)|provided by operating)[a-z() ]*operating "
                  r"activities|total cash provided by operating activities|cash provided by operations|"
                  r"经营活动产生的现金流量净额",
                  r"(purchases? of|additions to|payments for|capital expenditures)[a-z, ]*(property|equipment)?|"
                  r"购建固定资产、无形资产和其他长期资产支付的现金"],
    "key_data": [r"营业收入", r"归属于上市公司股东的净利润", r"经营活动产生的现金流量净额", r"总资产"],
}  # fmt: skip
# The first page of each statement, read off each filing by hand (a statement may run onto the next page).
DOCUMENTS: dict[str, dict[str, int]] = {
    "en/pdfs/ACTIVISIONBLIZZARD_2019_10K.pdf": {"balance": 69, "income": 70, "cash_flow": 73},
    "en/pdfs/ADOBE_2017_10K.pdf": {"balance": 57, "income": 58, "cash_flow": 61},
    "en/pdfs/AMAZON_2019_10K.pdf": {"cash_flow": 37, "income": 38, "balance": 40},
    "en/pdfs/AMD_2015_10K.pdf": {"income": 56, "balance": 58, "cash_flow": 60},
    "en/pdfs/BESTBUY_2023_10K.pdf": {"balance": 39, "income": 40, "cash_flow": 42},
    "en/pdfs/BESTBUY_2024Q2_10Q.pdf": {"balance": 3, "income": 4, "cash_flow": 6},
    "en/pdfs/BOEING_2022_10K.pdf": {"income": 55, "balance": 57, "cash_flow": 59},
    "en/pdfs/MGMRESORTS_2022_10K.pdf": {"balance": 59, "income": 60, "cash_flow": 62},
    "en/pdfs/MGMRESORTS_2023Q2_10Q.pdf": {"balance": 3, "income": 4, "cash_flow": 6},
    "en/pdfs/PEPSICO_2022_10K.pdf": {"income": 62, "cash_flow": 64, "balance": 66},
    "en/pdfs/ADOBE_2022_10K.pdf": {"balance": 53, "income": 54, "cash_flow": 57},
    "en/pdfs/erc_downer_edi_0a61a353.pdf": {"income": 61, "balance": 62, "cash_flow": 64},
    "en/pdfs/erc_kp_tissue_d14ae2b6.pdf": {"balance": 54, "income": 55, "cash_flow": 57},
    "zh/pdfs/finglm_603339_四方科技_2019_年度报告.pdf": {"key_data": 5, "balance": 59, "income": 63, "cash_flow": 67},
}
# The filings of ../filings (unlike the others: IFRS names, banks and insurers, fiscal years ending in May, June and
# January, several registrants or currencies): their statements' first pages read by hand — some print the title as a
# picture, so it is not in the text — and a wider set of labels, so that each statement yields several facts.
FILINGS: dict[str, dict[str, int]] = {
    "filings/pdfs/AES_2020_10K.pdf": {"balance": 124, "income": 125, "cash_flow": 128},
    "filings/pdfs/APPLE_2021_10K.pdf": {"income": 32, "balance": 34, "cash_flow": 36},
    "filings/pdfs/EBAY_2021_10K.pdf": {"balance": 57, "income": 58, "cash_flow": 61},
    "filings/pdfs/FEDEX_2023_10K.pdf": {"balance": 79, "income": 81, "cash_flow": 83},
    "filings/pdfs/INTEL_2020_10K.pdf": {"income": 76, "balance": 78, "cash_flow": 79},
    "filings/pdfs/MCDONALDS_2022_10K.pdf": {"income": 36, "balance": 38, "cash_flow": 39},
    "filings/pdfs/MCDONALDS_2023Q2_EARNINGS.pdf": {"income": 5},
    "filings/pdfs/ORACLE_2021_10K.pdf": {"balance": 68, "income": 69, "cash_flow": 72},
    "filings/pdfs/PAYPAL_2023Q2_10Q.pdf": {"balance": 4, "income": 5, "cash_flow": 9},
    "filings/pdfs/PG_E_2021_10K.pdf": {"income": 100, "balance": 102, "cash_flow": 104},
    "filings/pdfs/SALESFORCE_2023Q3_10Q.pdf": {"balance": 3, "income": 4, "cash_flow": 7},
    "filings/pdfs/SALESFORCE_2023_10K.pdf": {"balance": 60, "income": 61, "cash_flow": 64},
    "filings/pdfs/erc_abrdn_japan_investment_trust_d5ad1d28.pdf": {"balance": 65, "cash_flow": 67},
    "filings/pdfs/erc_bridgewater_bancshares_8467b7fc.pdf": {"balance": 90, "income": 91, "cash_flow": 94},
    "filings/pdfs/erc_elixir_energy_f879b3a8.pdf": {"income": 30, "balance": 31, "cash_flow": 33},
    "filings/pdfs/erc_empire_company_8f5e29ee.pdf": {"balance": 48, "income": 49, "cash_flow": 52},
    "filings/pdfs/erc_enact_holdings_1ab89c81.pdf": {"balance": 117, "income": 118, "cash_flow": 121},
    "filings/pdfs/erc_epi_holdings_674a255d.pdf": {"income": 86, "balance": 87, "cash_flow": 91},
    "filings/pdfs/erc_galileo_resources_6406e378.pdf": {"balance": 37, "income": 38, "cash_flow": 43},
    "filings/pdfs/erc_ofx_group_1bd670f9.pdf": {"income": 80, "balance": 81, "cash_flow": 83},
    "filings/pdfs/erc_pintec_technology_holdings_9e794a58.pdf": {"balance": 203, "income": 204, "cash_flow": 206},
    "filings/pdfs/erc_rectifier_technologies_3bb894b4.pdf": {"income": 16, "balance": 17, "cash_flow": 19},
    "filings/pdfs/erc_seiko_epson_6d76ccb7.pdf": {"balance": 106, "income": 108, "cash_flow": 112},
}
# Left out: Swiss Water (pdfplumber splits its figures into pieces: '$ 3,761' comes out as '3' and ',761').
_WIDE_LABELS = {
    "income": [r"total net sales|net sales|total (?:net |operating )?revenues?|revenues?|net revenues?|sales|"
               r"total interest income|premiums|fee and trading income",
               r"net (income|earnings|loss)( \(loss\))?( attributable to [\w&.,' ]+)?|"
               r"(profit|loss|\(loss\)/profit|profit/\(loss\)|profit \(loss\)) for the (year|period)|net earnings",
               r"operating income|income from operations|operating (profit|loss)|(loss|profit) from operations",
               r"diluted|gross (profit|margin)"],
    "balance": [r"total assets", r"total current assets", r"total current liabilities", r"total liabilities",
                r"cash and cash equivalents|cash and equivalents|cash at bank and in hand|cash held for own use|cash"],
    "cash_flow": [r"net cash (provided by|from|provided by \(used in\)|\(used in\)|used in|generated from|"
                  r"provided by operating|generated by)[a-z() ]*operating activities|"
                  r"total cash provided by operating activities|cash provided by operations|cash used in operations",
                  r"(purchases? of|additions to|payments for|capital expenditures)[a-z, ]*(property|equipment)?",
                  r"net cash[a-z() ]*investing activities",
                  r"net cash[a-z() ]*financing activities"],
}  # fmt: skip
_NUMBER = re.compile(r"^\(?-?\$?\(?\d{1,3}(?:,\d{3})*(?:\.\d+)?\)?$|^—$|^-$")
_HEADER = re.compile(r"(?:19|20)\d\d|本期|上期|期末|期初|本年|上年|^notes?$|附注", re.I)
_NOTE = re.compile(r"^notes?$|附注", re.I)
_SCALE = re.compile(
    r"in (thousands|millions|billions)|单位\s*[:：]\s*(千元|万元|百万元|元)|[$£€]\s*[’'](000)|[$£€]\s*[’'](m)\b|"
    r"(millions) of yen",
    re.I,
)
_PAGE_REF = re.compile(r"(?:\.{3,}|…{2,}|\s)\s*\d{1,4}\s*$")


def _lines(page: pdfplumber.page.Page) -> list[list[dict]]:
    words = page.extract_words(keep_blank_chars=False, use_text_flow=False, x_tolerance=1.5)
    lines: list[list[dict]] = []
    for word in sorted(words, key=lambda w: (round(w["top"]), w["x0"])):
        if lines and abs(lines[-1][0]["top"] - word["top"]) < 3:
            lines[-1].append(word)
        else:
            lines.append([word])
    return [sorted(line, key=lambda w: w["x0"]) for line in lines]


def _runs(line: list[dict]) -> list[dict]:
    """Words printed close together (a gap under 6 pt) as one: '2019 年 12 月 31 日' is one header."""
    runs: list[dict] = []
    for word in line:
        if runs and word["x0"] - runs[-1]["x1"] < 6:
            joiner = (
                "" if re.match(r"[\u4e00-\u9fff\d]", word["text"]) and "年" in runs[-1]["text"] + word["text"] else " "
            )
            runs[-1] = {**runs[-1], "text": runs[-1]["text"] + joiner + word["text"], "x1": word["x1"]}
        else:
            runs.append(dict(word))
    return runs


def _text(line: list[dict]) -> str:
    return " ".join(w["text"] for w in line)


def _statement_pages(texts: list[str], title: str) -> list[int]:
    """Pages (not contents pages) where a line near the top is the statement's title (a company name may precede)."""
    pattern = re.compile(rf"^(?:[\w.,&' ]{{0,40}} )?{title}$", re.I)
    found = []
    for number, text in enumerate(texts, 1):
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        if sum(bool(_PAGE_REF.search(line)) for line in lines) > 10:
            continue  # a contents page
        if any(pattern.match(re.sub(r"\s*\(.*\)$", "", line)) for line in lines[:15]):
            found.append(number)
    return found


def _fact(lines: list[list[dict]], label: str, before: list[list[dict]]) -> tuple[str, str, str] | None:
    """The first row starting with ``label``: its label, first period figure and that column's header (looked up
    above the row, or on the page before when the statement's headers are printed there)."""
    pattern = re.compile(rf"^(?:其中：)?(?:{label})\b", re.I)
    for index, line in enumerate(lines):
        figures = [w for w in line if _NUMBER.match(w["text"].replace("$", "")) and w["text"] not in "$"]
        words = [w for w in line if w not in figures and w["text"] != "$"]
        if (
            not figures
            or not words
            or not pattern.match(
                _text(words).replace(" ", "") if re.match(r"[\u4e00-\u9fff]", words[0]["text"]) else _text(words)
            )
        ):
            continue
        for figure in figures:
            centre = (figure["x0"] + figure["x1"]) / 2
            above = []
            for rows in (lines[:index], before):  # the page's own headers first
                runs = [
                    w
                    for row in rows
                    for w in _runs(row)
                    if _HEADER.search(w["text"]) and len(w["text"]) <= 40 and "报告" not in w["text"]
                ]
                above = [w for w in runs if w["x0"] - 30 <= centre <= w["x1"] + 30]
                if above:
                    break
            if not above:
                break
            header = min(above, key=lambda w: (abs((w["x0"] + w["x1"]) / 2 - centre), -w["top"]))
            if not _NOTE.search(header["text"]):
                return _text(words), figure["text"], header["text"]
    return None


def _clean_label(label: str) -> str:
    """The label without what the extractor ran into it: dot leaders, note numbers, stray figures and dashes."""
    return re.sub(r"(?:\s+[\d,]+|\s*[.%–—-])+$", "", label) or label


def _scale_name(found: re.Match[str] | None) -> str:
    word = next((g for g in found.groups() if g), "").lower() if found else ""
    return {"000": "thousands", "m": "millions"}.get(word, word)


def main() -> int:
    root = Path(sys.argv[1])
    for document, statements in {**DOCUMENTS, **FILINGS}.items():
        labels = _WIDE_LABELS if document in FILINGS else _LABELS
        with pdfplumber.open(root / document) as pdf:
            numbers = {
                n + extra for n in statements.values() for extra in (-1, 0, 1) if 1 <= n + extra <= len(pdf.pages)
            }
            pages = {n: _lines(pdf.pages[n - 1]) for n in numbers}
            texts = {n: pdf.pages[n - 1].extract_text() or "" for n in numbers}
        for statement, first in statements.items():
            for label in labels[statement]:
                found = next(
                    (
                        (n, f)
                        for n in (first, first + 1)
                        if n in pages and (f := _fact(pages[n], label, pages.get(n - 1, [])))
                    ),
                    None,
                )
                if found is None:
                    print(f"{document}: {statement} {label[:40]!r} not found on p.{first}-{first + 1}", file=sys.stderr)
                    continue
                (number, (printed_label, value, period)), scale = found, _SCALE.search(texts[first])
                printed_label = _clean_label(printed_label) if document in FILINGS else printed_label
                row = {"document": document, "statement": statement,
                       "page": number, "label": printed_label, "period": period, "value": value,
                       "scale": _scale_name(scale)}  # fmt: skip
                print(json.dumps(row, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
