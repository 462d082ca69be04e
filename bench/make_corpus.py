"""Copy the files a corpus list names into a folder of their own, keeping their relative paths:

    python bench/make_corpus.py bench/corpus.txt SOURCE_DIR DEST_DIR

DEST_DIR holds exactly the listed files afterwards. It is emptied first only if this script made it (it leaves a
marker file); any other existing folder is refused, so nothing the project did not create is ever deleted.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

MARKER = ".filings-bench-corpus"


def listed(corpus_list: Path) -> list[str]:
    lines = (line.strip() for line in corpus_list.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def make_corpus(names: list[str], source: Path, dest: Path) -> int:
    missing = [name for name in names if not (source / name).is_file()]
    if missing:
        raise SystemExit(f"not in {source}: {', '.join(missing)}")
    if dest.exists():
        if not (dest / MARKER).is_file():
            raise SystemExit(f"{dest} exists and was not made by this script; give another folder")
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    (dest / MARKER).write_text("made by bench/make_corpus.py\n", encoding="utf-8")
    for name in names:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / name, target)
    return len(names)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus_list", type=Path)
    parser.add_argument("source", type=Path)
    parser.add_argument("dest", type=Path)
    args = parser.parse_args()
    count = make_corpus(listed(args.corpus_list), args.source, args.dest)
    print(f"{count} files in {args.dest}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
