"""The BENCHMARKS.md section of `make bench-scale` (bench/scale.py's scale.json): Milvus against local files on the
dev set and at 20k and 200k chunks, and a build on Ray actors against one process.

    python bench/scale_report.py bench-out/scale/scale.json   # rewrites that section of BENCHMARKS.md in place

`make bench` keeps the section as it is when it has no scale.json of its own (bench/report.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HEADING = "## Milvus against local files, and a build on Ray (`make bench-scale`)"
GROUPS = (("set=en", "English"), ("set=zh", "Chinese"))


def _eval_rows(parity: dict[str, Any]) -> list[str]:
    rows = []
    for group, language in GROUPS:
        for mode in ("shared", "filtered"):
            key = f"{mode} {group}"
            local, milvus = parity.get("local", {}).get(key), parity.get("milvus", {}).get(key)
            if local and milvus:
                rows.append(
                    f"| dev eval, {language} hit@5 / MRR, {mode} | {local['hit@5']:.3f} / {local['mrr']:.3f} "
                    f"| {milvus['hit@5']:.3f} / {milvus['mrr']:.3f} |"
                )
    return rows


def _latency_rows(scale: dict[str, Any]) -> list[str]:
    rows = []
    for key in sorted((k for k in scale if k.startswith("latency_")), key=lambda k: int(k.split("_")[1])):
        run = scale[key]
        local, lite = run["local"], run["milvus_lite_server"]
        rows.append(
            f"| {run['chunks']:,} chunks ({run['vectors']:,} vectors) | {local['search_p50_ms']:.1f} / "
            f"{local['search_p95_ms']:.1f} ms | {lite['search_p50_ms']:.1f} / {lite['search_p95_ms']:.1f} ms | "
            f"{run['milvus_lite_server_peak_rss_mb']:,.0f} MB | {run['milvus_write_s']:.1f} s |"
        )
    return rows


def markdown(scale: dict[str, Any]) -> list[str]:
    if not scale:
        return []
    parity = scale.get("parity", {})
    overlap = parity.get("bm25_top10_overlap", {})
    local_build, milvus_build = scale.get("dev_build_local", {}), scale.get("dev_build_milvus", {})
    one, ray = scale.get("samples_one_process", {}), scale.get("samples_ray", {})
    shares = " / ".join(f"{overlap[k]:.2f}" for k in ("passages", "table_rows", "passages_scoped") if k in overlap)
    return [
        "",
        HEADING,
        "",
        "`bench/scale.py` (docs/scale.md): the dev set indexed twice with `--embedder none`, on local files and on a "
        "milvus-lite folder, compared by `bench/milvus_parity.py` on every dev question (searches in process); then "
        "`bench/milvus_latency.py`: a synthetic index made from the samples (bench/synthetic.py, synthetic vectors) "
        "searched through the MCP client, on local files and on a milvus-lite server on a loopback port.",
        "",
        "| dev set | local files | milvus-lite |",
        "|---|---|---|",
        f"| BM25 top-10 overlap with bm25s ({parity.get('questions', 0)} questions): passages / table rows / "
        f"scoped to the question's filing | — | {shares} |",
        *_eval_rows(parity),
        f"| search, median in process | {parity.get('local', {}).get('search_p50_ms', 0):.1f} ms | "
        f"{parity.get('milvus', {}).get('search_p50_ms', 0):.1f} ms |",
        f"| build ({local_build.get('chunks', 0):,} chunks), wall | {local_build.get('wall_s', 0):.1f} s | "
        f"{milvus_build.get('wall_s', 0):.1f} s |",
        "",
        "| synthetic index | search p50 / p95, local files | search p50 / p95, milvus-lite server "
        "| milvus-lite server peak memory | writing the collections |",
        "|---|---|---|---|---|",
        *_latency_rows(scale),
        "",
        f"The samples built from an empty vector cache ({one.get('chunks', 0):,} chunks): one process "
        f"{one.get('wall_s', 0):.1f} s, `--ray` (local actors) {ray.get('wall_s', 0):.1f} s.",
    ]


def section_of(text: str, heading: str = HEADING) -> list[str]:
    """A section as it stands in ``text`` (a BENCHMARKS.md), from ``heading`` to the next one; [] if absent."""
    lines = text.splitlines()
    if heading not in lines:
        return []
    start = lines.index(heading)
    end = next((n for n in range(start + 1, len(lines)) if lines[n].startswith("## ")), len(lines))
    body = lines[start:end]
    while body and body[-1] == "":
        body.pop()
    return ["", *body]


def spliced(text: str, section: list[str], heading: str = HEADING) -> str:
    """``text`` with the section under ``heading`` replaced by ``section`` (appended when it had none)."""
    lines = text.rstrip("\n").splitlines()
    if heading not in lines:
        return "\n".join([*lines, *section, ""])
    start = lines.index(heading)
    end = start + len(section_of(text, heading)) - 1
    before = lines[:start]
    while before and before[-1] == "":
        before.pop()
    return "\n".join([*before, *section, *lines[end:], ""])


def main() -> int:
    scale = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    target = Path(__file__).resolve().parent.parent / "BENCHMARKS.md"
    target.write_text(spliced(target.read_text(encoding="utf-8"), markdown(scale)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
