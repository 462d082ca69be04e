"""The command line both gold evaluations share: an index, a gold file, JSON or a BENCHMARKS.md section."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

Result = dict[str, object]


def gold_main(
    doc: str | None, gold: Path, evaluate: Callable[[Path, Path], Result], markdown: Callable[[Result], list[str]]
) -> int:
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--index", type=Path, required=True)
    parser.add_argument("--gold", type=Path, default=gold)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    result = evaluate(args.index, args.gold)
    print("\n".join(markdown(result)) if args.markdown else json.dumps(result, ensure_ascii=False, indent=2))
    return 0
