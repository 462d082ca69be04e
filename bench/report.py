"""Write BENCHMARKS.md from what `make bench` collects (bench.py, dense_recall.py, profile_search.py,
answer_sizes.py, and on the dev corpus outline_eval.py, financials_eval.py, rows_eval.py and metadata_eval.py).

python bench/report.py BENCH_OUT_DIR > NEW.md

It reads the current BENCHMARKS.md for the section `make bench-scale` wrote, so its output goes elsewhere first and
is moved over (as `make bench` does): redirected into BENCHMARKS.md it would read an emptied file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import answer_sizes  # bench/ is on the path when this runs as a script
import dev_server
import engine_report
import financials_eval
import metadata_eval
import outline_eval
import rows_eval
import scale_report
import units_eval
import wide

MIDDLE, LARGE = "20000", "200000"


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _fmt(value: Any, unit: str = "", digits: int = 1) -> str:
    if value is None:
        return "not measured"
    if isinstance(value, float):
        return f"{value:,.{digits}f}{unit}"
    return f"{value:,}{unit}"


def _met(value: Any, limit: float) -> str:
    if value is None:
        return ""
    return " (met)" if value <= limit else " (**not met**)"


def _targets(bench: dict[str, Any], dense: dict[str, Any]) -> list[str]:
    scale = bench.get("scale", {})
    middle, large = scale.get(MIDDLE, {}), scale.get(LARGE, {})
    lexical, embedding = bench.get("lexical_build", {}), bench.get("embedding", {})
    rate = lexical.get("parse_and_chunk_pages_per_s")
    one, every = embedding.get("one_thread", {}), embedding.get("all_cores", {})
    recall = dense.get("hnsw_recall_at_10")
    return [
        "| target (issue 6) | measured | |",
        "|---|---|---|",
        f"| search through the MCP client at 20k chunks: p50 ≤ 30 ms, p95 ≤ 80 ms | "
        f"{_fmt(middle.get('search_p50_ms'), ' ms')} / {_fmt(middle.get('search_p95_ms'), ' ms')} | "
        f"p50{_met(middle.get('search_p50_ms'), 30)}, p95{_met(middle.get('search_p95_ms'), 80)} |",
        f"| search at 200k chunks: p50 ≤ 60 ms | {_fmt(large.get('search_p50_ms'), ' ms')} | "
        f"{_met(large.get('search_p50_ms'), 60).strip()} |",
        f"| approximate dense recall@10 against exact ≥ 0.95 | {_fmt(recall, digits=4)} (HNSW, "
        f"{_fmt(dense.get('vectors'))} vectors) | {'(met)' if recall is not None and recall >= 0.95 else ''} |",
        f"| server start → `tools/list` ≤ 1.5 s (20k chunks) | {_fmt(middle.get('start_to_tools_list_s'), ' s', 2)} "
        f"| {_met(middle.get('start_to_tools_list_s'), 1.5).strip()} |",
        f"| server start → first answered search ≤ 3 s at 20k chunks | "
        f"{_fmt(middle.get('start_to_first_search_s'), ' s', 2)} | "
        f"{_met(middle.get('start_to_first_search_s'), 3).strip()} |",
        f"| parse + chunk ≥ 100 pages/s on the corpus | {_fmt(rate, ' pages/s')} ({_fmt(lexical.get('pages'))} pages "
        f"in {_fmt(lexical.get('parse_and_chunk_s'), ' s')}) | {_met(-(rate or 0), -100).strip()} |",
        f"| embedding: chunks/s, parallel across both cores | {_fmt(every.get('chunks_per_s'), ' chunks/s', 2)} on "
        f"all cores, {_fmt(one.get('chunks_per_s'), ' chunks/s', 2)} on one thread | report |",
        f"| server peak RSS ≤ 400 MB at 20k chunks | {_fmt(middle.get('server_peak_rss_mb'), ' MB', 0)} | "
        f"{_met(middle.get('server_peak_rss_mb'), 400).strip()} |",
        "| zero crashes, hangs, stray reads over the hostile suites | printed by `make test` (hostile documents, "
        "hostile tool inputs) | see the test run |",
    ]


def _scale(bench: dict[str, Any]) -> list[str]:
    scale = bench.get("scale", {})
    if not scale:
        return []
    lines = [
        "",
        "## Search at 1k, 20k and 200k chunks (synthetic indexes, labelled)",
        "",
        "`bench/synthetic.py` repeats the corpus index's documents until the index holds N chunks; every copy after "
        "the first has its figures varied (each digit through a permutation of 0-9). BM25 is built from the varied "
        "texts by the project's tokenizer. **Vectors are synthetic** beyond the first copy: the first copy keeps the "
        "embedder's real vectors, the others get noisy copies of them (the query side is real: the server embeds "
        "each query). Pages and PDFs are shared with the source index, so the size below counts the synthetic "
        "index's own files (chunks, BM25, vectors). Latency: the official MCP client over stdio, each query once.",
        "",
        "| chunks | vectors (real) | dense index | own files | start → `tools/list` | start → first search "
        "| search p50 / p95 / p99 | server peak RSS |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for size, row in sorted(scale.items(), key=lambda item: int(item[0])):
        start = (
            f"{_fmt(row.get('start_to_tools_list_s'), ' s', 2)} | {_fmt(row.get('start_to_first_search_s'), ' s', 2)}"
        )
        latency = " / ".join(_fmt(row.get(f"search_{p}_ms")) for p in ("p50", "p95", "p99"))
        lines.append(
            f"| {int(size):,} | {_fmt(row.get('vectors'))} ({_fmt(row.get('real_vectors'))}) | "
            f"{'HNSW' if row.get('approximate_dense') else 'exact'} | {_fmt(row.get('index_mb'), ' MB')} | "
            f"{start} | {latency} ms | {_fmt(row.get('server_peak_rss_mb'), ' MB', 0)} |"
        )
    return lines


def _add_rows(add: dict[str, Any]) -> list[str]:
    if not add:
        return []
    return [
        f"| `add` of {add.get('document')} ({_fmt(add.get('pages'))} pages) to an index of the others: searchable "
        f"by its words / embedded after | {_fmt(add.get('searchable_s'), ' s')} / {_fmt(add.get('semantic_s'), ' s')} "
        f"({_fmt(add.get('computed_vectors'))} chunks embedded) |"
    ]


def _corpus(bench: dict[str, Any]) -> list[str]:
    parse, build, lexical = bench.get("parse", {}), bench.get("build", {}), bench.get("lexical_build", {})
    server, local = bench.get("server", {}), bench.get("in_process", {})
    lines = [
        "",
        f"## The corpus itself ({bench.get('files', '?')} files)",
        "",
        "| figure | measured |",
        "|---|---|",
        f"| parse alone (LiteParse in this process, lines + boxes) | {_fmt(parse.get('pages_per_s'), ' pages/s')} |",
        f"| BM25-only build from scratch: parse + tables + chunk / total | "
        f"{_fmt(lexical.get('parse_and_chunk_s'), ' s')} / {_fmt(lexical.get('total_s'), ' s')} |",
    ]
    if build:
        lines += [
            f"| build from scratch (empty vector cache): searchable by its words after | "
            f"{_fmt(build.get('searchable_s'), ' s')} ({_fmt(build.get('searchable_pages_per_s'), ' pages/s')}) |",
            f"| build from scratch, end to end (semantic search complete) | "
            f"{_fmt(build.get('end_to_end_pages_per_s'), ' pages/s', 2)} "
            f"({_fmt(build.get('seconds', {}).get('total'), ' s')}) |",
            f"| chunks embedded during the build | {_fmt(build.get('chunks_embedded_per_s'), ' chunks/s', 2)} "
            f"({_fmt(build.get('computed_vectors'))} computed) |",
            *_add_rows(bench.get("add", {})),
            f"| chunks in the index | {_fmt(build.get('chunks'))} |",
            f"| index size on disk (PDFs included) | {_fmt(build.get('index_mb'), ' MB')} |",
            f"| build peak RSS | {_fmt(build.get('build_peak_rss_mb'), ' MB', 0)} |",
        ]
    else:
        lines.append("| build with the default embedder | not run (the index was given with BENCH_INDEX) |")
    lines += [
        f"| server start → `tools/list` / first search | {_fmt(server.get('start_to_tools_list_s'), ' s', 2)} / "
        f"{_fmt(server.get('start_to_first_search_s'), ' s', 2)} |",
        f"| search through the MCP client, p50 / p95 / p99 | {_fmt(server.get('search_p50_ms'))} / "
        f"{_fmt(server.get('search_p95_ms'))} / {_fmt(server.get('search_p99_ms'))} ms |",
        f"| search in-process, full recipe / plain hybrid, p50 | {_fmt(local.get('recipe_p50_ms'))} / "
        f"{_fmt(local.get('plain_p50_ms'))} ms |",
        f"| server peak RSS | {_fmt(server.get('server_peak_rss_mb'), ' MB', 0)} |",
    ]
    return lines


def _http(bench: dict[str, Any]) -> list[str]:
    http = bench.get("http", {})
    if not http:
        return []
    lines = [
        "",
        "## HTTP transport under load (from a second process)",
        "",
        "`bench/http_load.py`: one `filings-mcp --transport http` on loopback serving the "
        f"{_fmt(http.get('index_chunks'))}-chunk index; {http.get('clients')} MCP sessions in the benchmark "
        f"process send calls back to back (8 searches, then a page read or a quote check) until "
        f"{_fmt(http.get('all', {}).get('calls'))} calls are answered; every call must succeed.",
        "",
        "| calls | count | calls/s | p50 | p95 | p99 |",
        "|---|---|---|---|---|---|",
    ]
    for name in ("all", "search_reports", "get_page", "locate_quote"):
        row = http.get(name)
        if row:
            lines.append(
                f"| {name} | {row['calls']} | {row['calls_per_s']} | {row['p50_ms']} ms | {row['p95_ms']} ms | "
                f"{row['p99_ms']} ms |"
            )
    return lines


def _flood(bench: dict[str, Any]) -> list[str]:
    flood = bench.get("session_flood", {})
    if not flood:
        return []
    before, after = flood.get("rss_before_mb"), flood.get("rss_after_mb")
    return [
        "",
        "## HTTP transport under a session flood",
        "",
        "`bench/session_flood.py`: one client opens a session and works; a flooder sends "
        f"{_fmt(flood.get('flood_calls'))} `initialize` calls in {flood.get('flood_seconds')} s and never closes a "
        "session (default limits: 256 sessions, 64 per client address).",
        "",
        "| flood answers by HTTP status | working client served after | new client served | server RSS |",
        "|---|---|---|---|",
        f"| {', '.join(f'{k}: {_fmt(v)}' for k, v in flood.get('flood_statuses', {}).items())} | "
        f"{flood.get('working_client_served')} | {flood.get('new_client_served')} | "
        f"{before:.0f} → {after:.0f} MB |"
        if before is not None and after is not None
        else "",
    ]


def _dense(dense: dict[str, Any]) -> list[str]:
    if not dense:
        return []
    return [
        "",
        f"## Dense search alone at {dense['vectors']:,} vectors (synthetic, labelled)",
        "",
        f"`bench/dense_recall.py`: the index's {dense['real_vectors']:,} real e5 vectors, each repeated with Gaussian "
        "noise and re-normalised; queries: real vectors with more noise. Exact = IndexFlatIP, HNSW = IndexHNSWFlat "
        "(M 32, efSearch 128), which an index switches to above 50,000 vectors.",
        "",
        "| | build | query p50 / p95 | recall@10 vs exact |",
        "|---|---|---|---|",
        f"| exact | {dense['exact_build_s']} s | {dense['exact_ms_p50']} / {dense['exact_ms_p95']} ms | 1 |",
        f"| HNSW | {dense['hnsw_build_s']} s | {dense['hnsw_ms_p50']} / {dense['hnsw_ms_p95']} ms | "
        f"{dense['hnsw_recall_at_10']} |",
    ]


def _profile(out: Path) -> list[str]:
    path = out / "profile.txt"
    if not path.is_file():
        return []
    tree = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    start = next((n for n, line in enumerate(tree) if "search_reports_tool" in line), 0)
    return [
        "",
        "## Where a search's time goes",
        "",
        "`bench/profile_search.py` (pyinstrument, the search tool without the protocol, same queries; share of "
        "the total, frames under 2% hidden):",
        "",
        "```",
        *tree[start : start + 40],
        "```",
    ]


# Before issue 16 (BENCHMARKS.md of 2026-12-01): the corpus searchable only when embedded, 1.65 pages/s end to end;
# the 190-page 10-K added searchable after 87 s.
_BEFORE_PAGES_PER_S = 1.65
_BEFORE_ADD_S = 87.0


def _two_phase(bench: dict[str, Any]) -> list[str]:
    build, add = bench.get("build", {}), bench.get("add", {})
    if not build or not add:
        return []
    rate, searchable = build.get("end_to_end_pages_per_s") or 0.0, add.get("searchable_s") or 1e9
    return [
        "",
        "## Searchable in seconds (issue 16)",
        "",
        "Builds publish the words first, then the vectors (docs/indexing.md); figures from an empty vector cache, "
        f"passages embedded as `{build.get('passage_text') or '?'}`.",
        "",
        "| target | measured | before | |",
        "|---|---|---|---|",
        f"| a 190-page 10-K added to a live index is searchable by its words ≤ 20 s after `add` starts | "
        f"{_fmt(searchable, ' s')} ({add.get('document')}; embedded after {_fmt(add.get('semantic_s'), ' s')}) | "
        f"{_BEFORE_ADD_S:.0f} s | {_met(searchable, 20)} |",
        f"| semantic search complete, end to end, ≥ 2× faster (≥ {2 * _BEFORE_PAGES_PER_S:.1f} pages/s) | "
        f"{_fmt(rate, ' pages/s', 2)} (searchable after {_fmt(build.get('searchable_s'), ' s')}) | "
        f"{_BEFORE_PAGES_PER_S} pages/s | {_met(-rate, -2 * _BEFORE_PAGES_PER_S)} |",
    ]


def _milvus_and_ray(out: Path) -> list[str]:
    """`make bench-scale`'s section: from its scale.json when there is one, else as BENCHMARKS.md has it."""
    scale = _load(out / "scale" / "scale.json")
    if scale:
        return scale_report.markdown(scale)
    current = Path(__file__).resolve().parent.parent / "BENCHMARKS.md"
    return scale_report.section_of(current.read_text(encoding="utf-8")) if current.is_file() else []


def main() -> int:
    out = Path(sys.argv[1])
    bench, dense = _load(out / "bench.json"), _load(out / "dense.json")
    lines = [
        "# Benchmarks",
        "",
        "Written by `make bench` (`bench/bench.py`, `bench/synthetic.py`, `bench/http_load.py`, "
        "`bench/dense_recall.py`, `bench/profile_search.py`, `bench/answer_sizes.py`, `bench/outline_eval.py`, "
        "`bench/financials_eval.py`, `bench/units_eval.py`, `bench/rows_eval.py`, `bench/metadata_eval.py`, "
        "`bench/dev_build.py`, `bench/dev_server.py`, `bench/report.py`; `make bench-engines`: "
        "`bench/e5_parity.py`, `bench/engine_parity.py`, `bench/engine_server.py`, `bench/engine_report.py`); every "
        "figure is wall-clock on the machine below. Reproduce with `make bench CORPUS=DIR [BENCH_INDEX=DIR]`.",
        "",
        f"- machine: {bench.get('machine', 'unknown')}",
        f"- corpus: `{bench.get('corpus', '?')}` ({bench.get('files', '?')} files), embedder {bench.get('embedder')}",
        "",
        *_targets(bench, dense),
        *_two_phase(bench),
        *_scale(bench),
        *_http(bench),
        *_flood(bench),
        *answer_sizes.markdown(_load(out / "answers.json")),
        *(outline_eval.markdown(sections) if (sections := _load(out / "outline.json")) else []),
        *(financials_eval.markdown(facts) if (facts := _load(out / "facts.json")) else []),
        *(units_eval.markdown(units) if (units := _load(out / "units.json")) else []),
        *(rows_eval.markdown(rows) if (rows := _load(out / "rows.json")) else []),
        *(metadata_eval.markdown(meta) if (meta := _load(out / "metadata.json")) else []),
        *dev_server.markdown(_load(out / "dev_server.json")),
        *engine_report.current(),
        *wide.current(),
        *_milvus_and_ray(out),
        *_corpus(bench),
        *_dense(dense),
        *_profile(out),
        "",
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
