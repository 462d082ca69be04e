"""The wide corpus, measured: 164 real filings that no dev set holds (../shared/eval/wide/files.jsonl), read by the
index's own tools and scored against gold nobody here wrote, side by side with the dev set.

    python bench/wide_files.py --out DIR --git-dir patronus-ai/financebench=GIT_DIR --git-dir trustbit/…=GIT_DIR
    python bench/wide.py --corpus DIR --index OUT/wide [--reuse] [--dev-index INDEX_OF_DEV] [--json OUT/wide.json]
                         [--markdown | --splice BENCHMARKS.md]

The files are taken from their public repositories (the corpus README says how) and stay outside the project. A
listed file that is missing, is not a PDF or cannot be parsed is skipped with a line in the report; the rest is
measured. The build is words only (``--embedder none``): every reading tool works without vectors. Where Tesseract's
language data is on this machine the build reads pages whose text layer is unreadable by OCR (``--ocr``), as an
analyst handed such a filing would; ``--no-ocr`` measures what the text layers alone give.

Reported per filing and in total:
- identity against the corpus's gold (FinanceBench's document information; the challenge's own list; for the reports
  it leaves unnamed, ``bench/gold/wide_companies.jsonl``, read from the pages by a helper who never saw this code):
  company (and how many wrong ones are shown as established), form, fiscal year;
- which primary statements were read (income, balance sheet, cash flow) per kind of filing, the outline's sections
  and the contents entries listed and confirmed;
- every check the statements make of each other (``indexer/evidence/cross_checks.py``) and every identity inside
  them: run, held, contradicted, not run (and why); and how many contradicted figures are still shown as verified
  (target 0).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import financials_eval
import outline_eval
from metadata_eval import _same
from scale_report import section_of, spliced

from indexer.core.errors import FilingsError
from indexer.core.folios import read_folios
from indexer.core.models import DocumentMeta
from indexer.evidence.contents import contents_entries, contents_starts
from indexer.evidence.cross_checks import not_run
from indexer.ingest.parse import find_tessdata
from indexer.ingest.settings import default_cache_dir
from indexer.knowledge_base import KnowledgeBase

HERE = Path(__file__).parent
FILES = HERE.parent.parent / "shared" / "eval" / "wide" / "files.jsonl"
HELPER_GOLD = HERE / "gold" / "wide_companies.jsonl"
SECTIONS = HERE / "gold" / "wide_sections.jsonl"  # Items 1, 1A, 7, 8 of 24 10-Ks, found page by page by a helper
FACTS = HERE / "gold" / "wide_facts.jsonl"  # 97 statement facts of 20 filings, read page by page by a helper
CHALLENGE_CHECK = HERE / "gold" / "wide_challenge_check.jsonl"
PRIMARY = ("income", "balance", "cash_flow")
# The gold's kinds of filing → the forms a reading may name for it (an annual report that binds a 10-K is both).
FORMS = {
    "10k": {"10-K"},
    "10q": {"10-Q"},
    "8k": {"8-K", "earnings release"},  # an 8-K furnishing a results release is read as the release
    "Earnings": {"earnings release", "8-K"},
    "10k_annualreport": {"annual report", "10-K"},
    "annual_report": {"annual report", "10-K", "20-F"},
}
ANNUAL = {"10k", "10k_annualreport", "annual_report"}


def load_gold(files: Path) -> list[dict[str, object]]:
    """The corpus's rows, with the helper's company where the corpus leaves it empty."""
    rows = [json.loads(line) for line in files.read_text(encoding="utf-8").splitlines() if line.strip()]
    named, checked = _by_file(HELPER_GOLD), _by_file(CHALLENGE_CHECK)
    for row in rows:
        file = str(row["file"])
        if not row["company"] and file in named:
            row["companies"] = [named[file]["company"], named[file].get("short_name")]
            row["company"] = named[file]["company"]
            row["fiscal_year_end"] = named[file].get("fiscal_year_end")
        elif file in checked:  # the list's name counts where the pages show it is the same company
            check = checked[file]
            same = [row["company"]] if check.get("challenge_name_same") else []
            row["companies"] = [check["company"], *same]
            row["company"] = check["company"]
            row["fiscal_year_end"] = check.get("fiscal_year_end")
        else:
            row["companies"] = [row["company"]]
    return rows


def _by_file(path: Path) -> dict[str, dict[str, str]]:
    if not path.exists():
        return {}
    lines = path.read_text(encoding="utf-8").splitlines()
    return {entry["file"]: entry for entry in (json.loads(line) for line in lines if line.strip())}


def usable(corpus: Path, rows: list[dict[str, object]]) -> tuple[list[dict[str, object]], list[str]]:
    """The listed files at hand that are PDFs; a line for each that is not."""
    kept, skipped = [], []
    for row in rows:
        path = corpus / str(row["file"])
        if not path.is_file():
            skipped.append(f"{row['file']}: missing from {corpus} (take it from {row['source_repo']})")
        elif path.read_bytes()[:1024].find(b"%PDF") < 0:
            skipped.append(f"{row['file']}: not a PDF")
        else:
            kept.append(row)
    return kept, skipped


def build(corpus: Path, index: Path, *, ocr: bool) -> float:
    """A words-only build of the corpus folder (OCR'ing unreadable pages if asked); its wall time in seconds."""
    started = time.monotonic()
    command = [str(Path(sys.executable).parent / "filings-index"), "build", str(corpus), "--index", str(index)]
    done = subprocess.run([*command, "--embedder", "none", *(["--ocr"] if ocr else [])], stdout=sys.stderr, check=False)
    if done.returncode != 0 and not (index / "manifest.json").is_file():  # 1: built, some files skipped (told)
        raise SystemExit(f"the build of {corpus} failed (exit {done.returncode}): see its messages above")
    return time.monotonic() - started


def _tesseract_ready() -> bool:
    try:
        find_tessdata(None)
    except FilingsError:
        return False
    return True


def _text_layers(kb: KnowledgeBase) -> dict[str, int]:
    """Pages read by OCR and pages left unreadable (kept out of search), and in how many filings."""
    docs = kb.list_documents().documents
    return {
        "pages_ocr": sum(len(d.pages_ocr) for d in docs), "filings_ocr": sum(1 for d in docs if d.pages_ocr),
        "pages_unreadable": sum(len(d.pages_unreadable) for d in docs),
        "filings_unreadable": sum(1 for d in docs if d.pages_unreadable),
    }  # fmt: skip


def dev_gold() -> list[dict[str, object]]:
    """The dev set's own metadata gold (bench/gold/metadata.jsonl), in the wide rows' shape, keyed by document."""
    lines = (HERE / "gold" / "metadata.jsonl").read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines if line.strip()]
    return [
        {"file": r["document"], "companies": [r["company"]], "company": r["company"], "form": r.get("form"),
         "period": r.get("year"), "doc_type": r.get("form")}
        for r in rows
    ]  # fmt: skip


def _gold_year(row: dict[str, object]) -> int | None:
    period = row.get("period")
    if isinstance(period, int):
        return period
    end = row.get("fiscal_year_end")
    return int(str(end)[:4]) if end else None


def identity(meta: DocumentMeta, row: dict[str, object]) -> dict[str, object]:
    """Company, form and fiscal year of one filing against its gold."""
    names = [str(n) for n in row.get("companies") or [] if n]
    company = any(_same("company", name, meta.company) for name in names) if names else None
    year = _gold_year(row)
    forms = {str(row["form"])} if row.get("form") else FORMS.get(str(row.get("doc_type")), set())
    return {
        "company": meta.company,
        "gold_company": row.get("company") or None,
        "company_right": company,
        "company_established": bool(meta.company_verified),
        "form": meta.form,
        "form_right": meta.form in forms,
        "year": meta.year,
        "gold_year": year,
        "year_right": None if year is None else meta.year == year,
    }


def statements(kb: KnowledgeBase, document: str) -> dict[str, object]:
    """The primary statements read (rows with figures), the outline's sections and the contents entries."""
    rows = kb.financial_rows(document)
    read = sorted({r.statement for r in rows if r.statement in PRIMARY})
    valued = sorted({r.statement for r in rows if r.statement in PRIMARY and r.value is not None})
    sections = kb.outline(document)
    meta = kb.document(document)
    lines = [kb.page(document, n).lines for n in range(1, meta.pages + 1)]
    bodies = [[line for line in page if not line.furniture] for page in lines]
    _, listed = contents_entries(bodies)
    confirmed = contents_starts(lines, read_folios(lines)) if listed else []
    return {
        "statements": read,
        "statements_with_values": valued,
        "sections": len(sections),
        "section_kinds": dict(Counter(s.kind for s in sections)),
        "contents_listed": len(listed),
        "contents_confirmed": len(confirmed),
    }


def checks(kb: KnowledgeBase, document: str) -> dict[str, object]:
    """The checks run on the filing's statements (cross-statement and inside one), and the figures they contradict."""
    found = kb.identities(document)
    cross = [i for i in found if i.statement == "cross"]
    rows = kb.financial_rows(document)
    contradicted = [r for r in rows if any("contradict" in m or "does not add up" in m for m in r.missing)]
    ran = {i.name for i in cross}
    return {
        "cross_run": sorted(ran),
        "cross_not_run": {name: why for name, why in not_run(rows).items() if name not in ran},
        "cross_held": sum(i.holds for i in cross),
        "cross_failed": [f"{i.name} ({i.period}, p.{i.page}): {i.detail}" for i in cross if not i.holds],
        "cross_contradicting": sum(not i.holds and not i.detail.endswith("(not conclusive)") for i in cross),
        "within_run": sum(i.statement != "cross" for i in found),
        "within_failed": sum(not i.holds for i in found if i.statement != "cross"),
        "contradicted_figures": len(contradicted),
        "contradicted_but_verified": sum(r.verified for r in contradicted),
    }


def measure(index: Path, rows: list[dict[str, object]] | None) -> dict[str, object]:
    """Every filing of the index, with its gold where ``rows`` has it."""
    kb = KnowledgeBase.open(index, default_cache_dir(), with_embedder=False)
    gold = {str(r["file"]): r for r in rows or []}
    filings = []
    for meta in kb.documents():
        row = gold.get(meta.document) or gold.get(Path(meta.document).name)
        entry: dict[str, object] = {
            "document": meta.document,
            "kind": row.get("doc_type") or meta.form if row else meta.form,
        }
        if row:
            entry |= identity(meta, row)
        entry |= statements(kb, meta.document) | checks(kb, meta.document)
        filings.append(entry)
    return {"filings": filings, "totals": totals(filings)}


def _share(hits: int, n: int) -> str:
    return f"{hits}/{n} ({hits / n:.1%})" if n else "0/0"


def totals(filings: list[dict[str, object]]) -> dict[str, object]:
    scored = [f for f in filings if f.get("company_right") is not None]
    annual = [f for f in filings if f["kind"] in ANNUAL or f["kind"] in ("10-K", "annual report", "20-F", "年报")]
    by_kind: dict[str, list[dict[str, object]]] = defaultdict(list)
    for filing in filings:
        by_kind[str(filing["kind"])].append(filing)
    years = [f for f in filings if f.get("year_right") is not None]
    return {
        "filings": len(filings),
        "company": _share(sum(bool(f["company_right"]) for f in scored), len(scored)),
        "company_wrong_established": sum(bool(f["company_established"]) and not f["company_right"] for f in scored),
        "form": _share(sum(bool(f.get("form_right")) for f in scored), len(scored)),
        "fiscal_year": _share(sum(bool(f["year_right"]) for f in years), len(years)),
        "statements_by_kind": {
            kind: {s: sum(s in f["statements"] for f in group) for s in PRIMARY} | {"filings": len(group)}  # type: ignore[operator]
            for kind, group in sorted(by_kind.items())
        },
        "all_three_annual": _share(sum(len(f["statements"]) == 3 for f in annual), len(annual)),  # type: ignore[arg-type]
        "all_three_with_values_annual": _share(
            sum(len(f["statements_with_values"]) == 3 for f in annual),
            len(annual),  # type: ignore[arg-type]
        ),
        "cross_checks_run_annual": _share(sum(bool(f["cross_run"]) for f in annual), len(annual)),
        "cross_checks": dict(Counter(name for f in filings for name in f["cross_run"])),  # type: ignore[attr-defined]
        "cross_held": sum(int(f["cross_held"]) for f in filings),  # type: ignore[call-overload]
        "cross_failed": sum(len(f["cross_failed"]) for f in filings),  # type: ignore[arg-type]
        "cross_contradicting": sum(int(f["cross_contradicting"]) for f in filings),  # type: ignore[call-overload]
        "cross_not_run": dict(Counter(why for f in filings for why in f["cross_not_run"].values())),  # type: ignore[attr-defined]
        "contradicted_figures": sum(int(f["contradicted_figures"]) for f in filings),  # type: ignore[call-overload]
        "contradicted_but_verified": sum(int(f["contradicted_but_verified"]) for f in filings),  # type: ignore[call-overload]
        "contents_listed": sum(int(f["contents_listed"]) for f in filings),  # type: ignore[call-overload]
        "contents_confirmed": sum(int(f["contents_confirmed"]) for f in filings),  # type: ignore[call-overload]
        "sections": sum(int(f["sections"]) for f in filings),  # type: ignore[call-overload]
    }


HEADING = "## The wide corpus: 164 filings no dev set holds (`make bench-wide`)"


def current() -> list[str]:
    """The section as BENCHMARKS.md has it now (what ``make bench`` keeps)."""
    path = HERE.parent / "BENCHMARKS.md"
    return section_of(path.read_text(encoding="utf-8"), HEADING) if path.is_file() else []


def markdown(result: dict[str, object]) -> list[str]:
    wide = result["wide"]
    assert isinstance(wide, dict)
    total = wide["totals"]
    dev = result.get("dev")
    dev_total = dev["totals"] if isinstance(dev, dict) else None
    lines = [
        "",
        HEADING,
        "",
        f"`make bench-wide` (`bench/wide.py`): a words-only build of `../shared/eval/wide` "
        f"({wide['built_pages']} pages, "
        + (f"built in {result['build_s']} s" if "build_s" in result else "an index built before")
        + "), then every reading tool on every filing, "
        "against gold nobody here wrote (FinanceBench's document information, the challenge's list, and for 26 "
        "reports a helper's reading of the pages, `bench/gold/wide_companies.jsonl`).",
        "",
        "| | wide | dev |",
        "|---|---|---|",
    ]
    keys = [
        ("filings", "filings"), ("company right", "company"), ("wrong company shown as established",
        "company_wrong_established"), ("form right", "form"), ("fiscal year right", "fiscal_year"),
        ("10-Ks and annual reports with all three statements", "all_three_annual"),
        ("10-Ks and annual reports with cross-statement checks run", "cross_checks_run_annual"),
        ("cross-statement checks held (per period)", "cross_held"),
        ("… failed (all, per period)", "cross_failed"),
        ("… failed and conclusive (held in another period, or a misread's order of magnitude)", "cross_contradicting"),
        ("figures contradicted (cross-statement or a statement's own identities)", "contradicted_figures"),
        ("contradicted figures shown as verified", "contradicted_but_verified"), ("outline sections", "sections"),
        ("contents entries listed / confirmed", None),
    ]  # fmt: skip
    for label, key in keys:
        if key is None:
            ours = f"{total['contents_listed']} / {total['contents_confirmed']}"
            theirs = f"{dev_total['contents_listed']} / {dev_total['contents_confirmed']}" if dev_total else ""
        else:
            ours, theirs = str(total.get(key, "")), str(dev_total.get(key, "")) if dev_total else ""
        lines.append(f"| {label} | {ours} | {theirs} |")
    sections, facts = result.get("sections"), result.get("facts")
    if isinstance(sections, dict) and isinstance(facts, dict):
        wrong = sum(facts["wrong_figures"].values())
        lines += [
            "",
            f"Section starts (`bench/gold/wide_sections.jsonl`: Items 1, 1A, 7 and 8 of 24 10-Ks, found page by page "
            f"by a helper who never saw this code): **{sections['exact']} of {sections['sections']}** on the exact "
            f"page. Statement facts (`bench/gold/wide_facts.jsonl`: revenue, net income, diluted EPS, total assets and "
            f"operating cash flow of 20 filings — 10 10-Ks, 2 10-Qs, 8 annual reports of other countries — read by "
            f"a helper from the pages): **{facts['found']} of {facts['facts']}** returned verified with the right "
            f"value, period and page, **{wrong} wrong**; the rest: "
            + "; ".join(f"{m['document']} {m['label']!r} {m['verdict']}" for m in facts["misses"])  # type: ignore[index]
            + ".",
        ]
    lines += ["", "Statements read, by kind of filing (wide):", "", "| kind | filings | income | balance | cash flow |",
              "|---|---|---|---|---|"]  # fmt: skip
    for kind, counts in total["statements_by_kind"].items():
        lines.append(
            f"| {kind} | {counts['filings']} | {counts['income']} | {counts['balance']} | {counts['cash_flow']} |"
        )
    lines += [
        "",
        "Cross-statement checks run (wide): " + ", ".join(f"{k} {v}" for k, v in total["cross_checks"].items()),
        "",
        "Not run, and why (filings, wide): " + "; ".join(f"{k}: {v}" for k, v in total["cross_not_run"].items()),
    ]
    lines += [
        "",
        f"Text layers (wide): {wide.get('pages_ocr', 0)} pages of {wide.get('filings_ocr', 0)} filings read by OCR "
        f"(their text layer is not their text); {wide.get('pages_unreadable', 0)} pages of "
        f"{wide.get('filings_unreadable', 0)} filings left unreadable and out of search.",
    ]
    if wide.get("skipped"):
        lines += ["", "Skipped: " + "; ".join(wide["skipped"])]
    misses = [f for f in wide["filings"] if f.get("company_right") is False]
    if misses:
        shown = "; ".join(f"{Path(f['document']).name} {f['company']!r} (gold {f['gold_company']!r})" for f in misses)
        lines += ["", f"Company not the gold's: {shown}."]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True, help="the folder holding the wide corpus's files")
    parser.add_argument("--files", type=Path, default=FILES, help="the corpus list (files.jsonl)")
    parser.add_argument("--index", type=Path, required=True, help="where the words-only index is built")
    parser.add_argument("--reuse", action="store_true", help="measure the index as it is, without building")
    parser.add_argument("--no-ocr", action="store_true", help="build without OCR even where Tesseract is installed")
    parser.add_argument("--dev-index", type=Path, help="an index of ../shared/eval/dev, measured side by side")
    parser.add_argument("--json", type=Path, help="write every filing's figures here")
    parser.add_argument("--markdown", action="store_true", help="print BENCHMARKS.md's section instead of JSON")
    parser.add_argument("--splice", type=Path, help="replace the section in this file (BENCHMARKS.md)")
    args = parser.parse_args()
    gold, skipped = usable(args.corpus, load_gold(args.files))
    result: dict[str, object] = {}
    if not args.reuse:
        result["build_s"] = round(build(args.corpus, args.index, ocr=not args.no_ocr and _tesseract_ready()))
    started = time.monotonic()
    wide = measure(args.index, gold)
    kb = KnowledgeBase.open(args.index, default_cache_dir(), with_embedder=False)
    indexed = {Path(m.document).name for m in kb.documents()}
    skipped += [f"{r['file']}: not indexed (the build's report says why)" for r in gold if r["file"] not in indexed]
    wide |= {"skipped": skipped, "built_pages": sum(m.pages for m in kb.documents())} | _text_layers(kb)
    result["wide"] = wide
    if SECTIONS.is_file():
        result["sections"] = outline_eval.evaluate(args.index, SECTIONS)
    if FACTS.is_file():
        result["facts"] = financials_eval.evaluate(args.index, FACTS)
    if args.dev_index:
        result["dev"] = measure(args.dev_index, dev_gold())
    result["measure_s"] = round(time.monotonic() - started)
    if args.json:
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=1), encoding="utf-8")
    section = markdown(result)
    if args.splice:
        args.splice.write_text(spliced(args.splice.read_text(encoding="utf-8"), section, HEADING), encoding="utf-8")
    print("\n".join(section) if args.markdown else json.dumps(result["wide"]["totals"], indent=1))  # type: ignore[index]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
