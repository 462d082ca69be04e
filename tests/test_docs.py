"""Documentation checked against the code it describes (as sqlite-utils checks its README with cog)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from indexer.index.layout import FORMAT, describe
from indexer.ingest.build import build_index
from indexer.ingest.settings import BuildSettings
from tests.conftest import BROKER, ROOT, docs_folder


def test_the_index_format_page_is_generated_from_the_layout() -> None:
    page = (ROOT / "docs" / "index-format.md").read_text(encoding="utf-8")
    assert page == describe(), (
        "docs/index-format.md is stale: run `python -m indexer.index.layout > docs/index-format.md`"
    )


def _pattern(path: str) -> re.Pattern[str]:
    """A FORMAT path as a regex over relative file names: <sha12> is 12 hex digits, a trailing / a whole folder."""
    text = re.escape(path).replace(re.escape("<sha12>"), "[0-9a-f]{12}")
    return re.compile(text + (".+" if path.endswith("/") else ""))


def test_every_file_of_a_built_index_is_described(tmp_path: Path, cache_dir: Path) -> None:
    docs = docs_folder(tmp_path / "docs", BROKER)
    build_index(BuildSettings(docs_dir=docs, index_dir=tmp_path / "idx", progress=False, cache_dir=cache_dir,
                              embedder="none"))  # fmt: skip
    version = (tmp_path / "idx").resolve()
    files = [p.relative_to(version).as_posix() for p in version.rglob("*") if p.is_file()]
    patterns = [_pattern(path) for path, _ in FORMAT]
    assert [f for f in files if not any(p.fullmatch(f) for p in patterns)] == []
    described = {path for path, _ in FORMAT}
    present = {path for path in described if any(_pattern(path).fullmatch(f) for f in files)}
    # HTML only, embedder only, Milvus backend only (tests/test_milvus.py builds one)
    assert described - present == {"sources/<sha12>.htm", "dense.faiss", "dense_rows.npy", "vocabulary.json"}


def _anchor(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_between_the_docs_leads_somewhere() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://")):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and linked.suffix == ".md":
                headings = re.findall(r"^#+ (.*)$", linked.read_text(encoding="utf-8"), flags=re.M)
                if anchor not in {_anchor(h) for h in headings}:
                    broken.append(f"{page.name}: {target} (no such heading)")
    assert broken == []


def _served_tools() -> list[str]:
    """The tools the server serves, from its one registry (tests/test_tool_registry.py checks a client lists these)."""
    from mcp_server.server import TOOLS

    return [declared.name for declared in TOOLS]


def _model_tools() -> list[str]:
    """The served tools a model is shown: not those declared for an MCP App alone (page_image)."""
    from mcp_server.server import TOOLS

    return [d.name for d in TOOLS if d.ui is None or "model" in (d.ui.visibility or ["model"])]


def test_every_tool_and_server_option_is_documented() -> None:
    from mcp_server.settings import parse_settings  # noqa: F401  (the options below are its own)

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    docs = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md"))
    missing = [name for name in [*_served_tools(), "due_diligence"] if f"`{name}`" not in readme or name not in docs]
    assert missing == []
    from mcp_server.prompts import due_diligence

    prompt = due_diligence("q") + due_diligence("q", documents="*")
    assert [name for name in _model_tools() if name not in prompt] == []  # the prompt teaches every tool it sees
    server_help = subprocess.run(
        [sys.executable, "-m", "mcp_server", "--help"], capture_output=True, text=True, cwd=ROOT, timeout=60
    ).stdout
    options = set(re.findall(r"(--[a-z][a-z-]+)", server_help)) - {"--help"}
    assert sorted(o for o in options if f"`{o}" not in docs) == []


_MS = re.compile(r"(\d[\d,]*(?:\.\d+)?) ms\b")


def test_every_millisecond_figure_in_the_docs_is_one_a_benchmark_printed() -> None:
    """A latency quoted in the README or docs/ is one that `make bench` or `make bench-scale` wrote into
    BENCHMARKS.md (a figure from elsewhere goes stale unseen)."""
    printed = (ROOT / "BENCHMARKS.md").read_text(encoding="utf-8")
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    quoted = {(page.name, figure) for page in pages for figure in _MS.findall(page.read_text(encoding="utf-8"))}
    assert quoted, "no latency quoted anywhere: the check would pass on nothing"

    def printed_there(figure: str) -> bool:  # the same number, not a longer one that contains it
        return re.search(rf"(?<![\d.,]){re.escape(figure)}(?!\d|[.,]\d)", printed) is not None

    assert sorted((name, figure) for name, figure in quoted if not printed_there(figure)) == []


def test_the_tools_tables_are_written_from_the_tools() -> None:
    """README's and docs/tools.md's tools tables are what the tools' own modules say (python -m mcp_server.tool_docs
    writes them; CI fails here when one is edited by hand or a tool's docs change without them)."""
    from dataclasses import replace

    from mcp_server import tool_docs
    from mcp_server.tools import TOOLS

    assert tool_docs.stale() == []
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(f"| `{d.name}` |" in readme for d in TOOLS) and readme.count("| `get_page` |") == 1
    changed = [replace(TOOLS[0], docs=replace(TOOLS[0].docs, does="something else")), *TOOLS[1:]]
    original = tool_docs.TOOLS
    try:
        tool_docs.TOOLS = tuple(changed)  # type: ignore[misc]
        assert tool_docs.stale() == ["README.md"]  # the reference table holds arguments and returns only
        tool_docs.TOOLS = (replace(TOOLS[0], docs=None), *TOOLS[1:])  # type: ignore[misc]
        with pytest.raises(tool_docs.UndocumentedTool, match="list_documents has no docs"):
            tool_docs.readme_table()
    finally:
        tool_docs.TOOLS = original  # type: ignore[misc]
    check = subprocess.run([sys.executable, "-m", "mcp_server.tool_docs", "--check"], capture_output=True, text=True,
                           cwd=ROOT, check=False)  # fmt: skip
    assert check.returncode == 0, check.stderr
