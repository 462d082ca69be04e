"""Every third-party module the installed code imports is a declared runtime dependency (a module that only a
dev or optional extra brings would fail on a user's machine)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions, requires

from tests.conftest import ROOT

# extras: `st` (imported only for st:MODEL embedders), `milvus` (--backend milvus), `ray` (--ray)
OPTIONAL = {"sentence_transformers", "torch", "pymilvus", "milvus_lite", "grpc", "ray"}


def _imported_modules() -> set[str]:
    found: set[str] = set()
    for package in ("indexer", "mcp_server"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    found.update(alias.name.split(".")[0] for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"indexer", "mcp_server", "__future__"}


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_imported_package_is_a_declared_dependency() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {_normalised(re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0]) for spec in declared}
    # a package that a declared one is only the wrapper of (fastmcp installs its code as fastmcp-slim)
    wrapped = {_normalised(re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0]) for n in names for r in requires(n) or []}
    names |= {n for n in wrapped if n.endswith("-slim")}
    distributions = packages_distributions()
    missing = {
        module: distributions.get(module, ["?"])
        for module in _imported_modules() - OPTIONAL
        if not any(_normalised(d) in names for d in distributions.get(module, []))
    }
    assert not missing, f"imported but not declared in [project] dependencies: {missing}"
