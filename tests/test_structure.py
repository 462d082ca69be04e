"""The package's stages import one way: core ← index ← ingest, core ← index ← search → evidence; the MCP server and
the CLI sit on top. A change that adds an import against the grain fails here, with the import named."""

from __future__ import annotations

import ast

from tests.conftest import ROOT

# stage → the stages it may import from (besides itself)
ALLOWED = {
    "core": set(),
    "index": {"core"},
    "evidence": {"core", "index"},
    "ingest": {"core", "index"},
    "search": {"core", "index", "evidence"},
}
MAX_MODULE_LINES = 450


def _stage_imports() -> list[tuple[str, str, str]]:
    """(module file, its stage, the stage it imports) for every `indexer.<stage>` import inside a stage."""
    found = []
    for stage in ALLOWED:
        for path in (ROOT / "indexer" / stage).glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("indexer."):
                    target = node.module.split(".")[1]
                    if target in ALLOWED and target != stage:
                        found.append((path.relative_to(ROOT).as_posix(), stage, target))
    return found


def test_stages_import_one_way() -> None:
    against = [f"{module} imports indexer.{target}" for module, stage, target in _stage_imports()
               if target not in ALLOWED[stage]]  # fmt: skip
    assert against == []


def test_no_stage_imports_the_server_or_the_cli() -> None:
    for path in (p for stage in ALLOWED for p in (ROOT / "indexer" / stage).glob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert "mcp_server" not in text and "indexer.cli" not in text, path


def test_no_module_is_two_modules() -> None:
    long = {
        p.relative_to(ROOT).as_posix(): n
        for p in [*(ROOT / "indexer").rglob("*.py"), *(ROOT / "mcp_server").glob("*.py")]
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


MAX_FUNCTION_LINES = 80


def test_no_function_is_a_module() -> None:
    long = []
    for path in [*(ROOT / "indexer").rglob("*.py"), *(ROOT / "mcp_server").glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []
