"""The tools' tables in README.md and docs/tools.md, written from the tools' own modules (mcp_server/tools/: each
declares what it does, its arguments and what it returns), as sqlite-utils writes its documentation with cog.

    python -m mcp_server.tool_docs           # rewrite the tables
    python -m mcp_server.tool_docs --check   # exit 1, saying what to run, where a table is not what the tools say
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mcp_server.tool_registry import Declared, ToolDocs
from mcp_server.tools import TOOLS

ROOT = Path(__file__).resolve().parent.parent
START = "<!-- the tools table: written by `python -m mcp_server.tool_docs` from mcp_server/tools/ -->"
END = "<!-- end of the tools table -->"


class UndocumentedTool(ValueError):
    """A tool declares no documentation (its module's DOCS)."""


def _docs(declared: Declared) -> ToolDocs:
    if declared.docs is None:
        raise UndocumentedTool(f"tool {declared.name} has no docs: give its row docs=ToolDocs(…) in its module")
    return declared.docs


def readme_table() -> list[str]:
    rows = [f"| `{d.name}` | {_docs(d).does} |" for d in TOOLS]
    return ["| tool | what it does |", "|---|---|", *rows]


def reference_table() -> list[str]:
    rows = [f"| `{d.name}` | {_docs(d).arguments} | {_docs(d).returns} |" for d in TOOLS]
    return ["| tool | arguments | returns |", "|---|---|---|", *rows]


PAGES = {"README.md": readme_table, "docs/tools.md": reference_table}


def written(text: str, table: list[str]) -> str:
    """``text`` with the lines between the markers replaced by ``table``."""
    head, start, rest = text.partition(START + "\n")
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise ValueError(f"the page has no tools table between {START!r} and {END!r}")
    return head + start + "\n".join(table) + "\n" + end + tail


def stale() -> list[str]:
    """The pages whose tools table is not what the tools say."""
    return [
        page for page, table in PAGES.items()
        if (text := (ROOT / page).read_text(encoding="utf-8")) != written(text, table())
    ]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only say which pages are stale (exit 1 if any)")
    args = parser.parse_args(argv)
    pages = stale()
    if args.check:
        for page in pages:
            print(f"{page}: the tools table is stale: run `python -m mcp_server.tool_docs`", file=sys.stderr)
        return 1 if pages else 0
    for page in pages:
        path = ROOT / page
        path.write_text(written(path.read_text(encoding="utf-8"), PAGES[page]()), encoding="utf-8")
        print(f"wrote the tools table of {page}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
