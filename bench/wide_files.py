"""Take the wide corpus's files (../shared/eval/wide/files.jsonl) out of git directories of their two public
repositories, into a folder outside the project: each file at its listed commit and path, named as listed.

    python bench/wide_files.py --out DIR --git-dir patronus-ai/financebench=GIT_DIR \\
        --git-dir trustbit/enterprise-rag-challenge=GIT_DIR

A file already there with the listed size is kept. One that cannot be taken (its repository not given, its commit
or path missing) is told on stderr and skipped: bench/wide.py measures the rest and lists what is missing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from wide import FILES

GIT_TIMEOUT_S = 120  # one file out of a local git directory


def take(row: dict[str, object], git_dirs: dict[str, Path], out: Path) -> str | None:
    """Write one listed file into ``out``; why not, if it could not be taken."""
    target = out / str(row["file"])
    if target.is_file() and target.stat().st_size == row["bytes"]:
        return None
    git_dir = git_dirs.get(str(row["source_repo"]))
    if git_dir is None:
        return f"no --git-dir for {row['source_repo']}"
    spec = f"{row['source_commit']}:{row['source_path']}"
    done = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", spec], capture_output=True, timeout=GIT_TIMEOUT_S, check=False
    )
    if done.returncode != 0:
        return done.stderr.decode(errors="replace").strip()[:200]
    target.write_bytes(done.stdout)
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="a folder outside the project")
    parser.add_argument("--files", type=Path, default=FILES)
    parser.add_argument("--git-dir", action="append", default=[], help="OWNER/NAME=PATH of a git directory")
    args = parser.parse_args()
    git_dirs = {repo: Path(path) for repo, _, path in (item.partition("=") for item in args.git_dir)}
    if Path.cwd().resolve() in [args.out.resolve(), *args.out.resolve().parents]:
        parser.error(f"{args.out} is inside the project: the wide corpus is kept outside it, never committed")
    args.out.mkdir(parents=True, exist_ok=True)
    rows = [json.loads(line) for line in args.files.read_text(encoding="utf-8").splitlines() if line.strip()]
    failed = [(row["file"], why) for row in rows if (why := take(row, git_dirs, args.out))]
    for name, why in failed:
        print(f"skipped {name}: {why}", file=sys.stderr)
    print(f"{len(rows) - len(failed)} of {len(rows)} files in {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
