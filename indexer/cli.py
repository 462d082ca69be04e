"""`filings-index`: build an index folder, add or remove documents, list them, search it from the terminal."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path

from pydantic import ValidationError

from indexer.cli_parser import command_line
from indexer.core.errors import FilingsError
from indexer.core.exits import clean_up_on_sigterm
from indexer.core.logs import setup_logging
from indexer.core.models import wire
from indexer.evaluate import MODES, SYSTEMS, Evaluator, dump, format_table, load_questions
from indexer.index.engines import name_uri
from indexer.index.publish import check_index_target
from indexer.index.storage import LOCAL
from indexer.index.store import read_manifest
from indexer.index.verify import verify_index
from indexer.ingest.build import (
    BuildReport,
    add_documents,
    build_index,
    embed_index,
    embedder_to_build_with,
    remove_documents,
)
from indexer.ingest.chunk import DEFAULT_PASSAGE_TEXT, OPENING_PASSAGES, PLAIN_PASSAGES
from indexer.ingest.edgar import (
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
from indexer.ingest.settings import BuildSettings, default_cache_dir, trusted_cache_dir
from indexer.knowledge_base import KnowledgeBase
from indexer.requests import FinancialsRequest
from indexer.search.request import MAX_TOP_K, SearchRequest

logger = logging.getLogger(__name__)

EXIT_OK, EXIT_SOME_FAILED, EXIT_ERROR = 0, 1, 2


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
    name_uri(getattr(args, "milvus_uri", None))  # the operator's: a manifest naming it too may use it (and its token)
    settings = BuildSettings(  # add and remove keep the index's embedder and OCR setting (see build.py)
        index_dir=args.index_dir,
        docs_dir=getattr(args, "docs_dir", None),
        embedder=embedder_to_build_with(args.index_dir, getattr(args, "embedder", None)),
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
        backend=getattr(args, "backend", LOCAL),
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
    every = len(kb.documents())
    searched = len(outcome.scope) if outcome.scope is not None else every
    print(f"{len(hits)} hit(s) in {searched} of {every} documents ({outcome.route} question)")
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
    request = FinancialsRequest(document=args.document, statement=args.statement, items=args.items, year=args.year)
    rows = kb.financials(request).rows
    if args.json:
        print(json.dumps([wire(row) for row in rows], ensure_ascii=False, indent=2))
        return EXIT_OK
    for row in rows:
        checks = "" if row.verified else f" UNVERIFIED ({'; '.join(row.missing)})"
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
    report = Evaluator(kb, ks).evaluate(questions, systems, modes)
    print(dump(report) if args.json else format_table(report))
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = command_line().parse_args(argv)
    setup_logging(args.log_level)
    clean_up_on_sigterm()  # what this process made to remove (a milvus-lite socket folder) goes on SIGTERM too
    try:
        cache_dir = trusted_cache_dir(args.cache_dir) if args.cache_dir else default_cache_dir()
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
