"""The package's stages import one way: core ← index ← ingest, core ← index ← search → evidence; the MCP server and
the CLI sit on top. A change that adds an import against the grain fails here, with the import named."""

from __future__ import annotations

import ast
import re

from tests.conftest import ROOT

# stage → the stages it may import from (besides itself)
ALLOWED = {
    "core": set(),
    "index": {"core"},
    "evidence": {"core", "index"},
    "ingest": {"core", "index", "evidence"},
    "search": {"core", "index", "evidence"},
}
MAX_MODULE_LINES = 600


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


MAX_FUNCTION_LINES = 90


def test_no_function_is_a_module() -> None:
    long = []
    for path in [*(ROOT / "indexer").rglob("*.py"), *(ROOT / "mcp_server").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno} {node.name} ({lines} lines)")
    assert long == []


MAX_SHARED_FIELDS = 4  # a page locator (document, page, page_width, page_height) recurs in unrelated records


def _models() -> list[type]:
    """Every pydantic model the package defines (its modules imported, the models found by subclass walk)."""
    import importlib

    from pydantic import BaseModel

    for path in [*(ROOT / "indexer").rglob("*.py"), *(ROOT / "mcp_server").rglob("*.py")]:
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        if not module.endswith("__main__"):
            importlib.import_module(module)
    found, todo = [], list(BaseModel.__subclasses__())
    while todo:
        model = todo.pop()
        todo.extend(model.__subclasses__())
        if model.__module__.split(".")[0] in ("indexer", "mcp_server"):
            found.append(model)
    return found


def _declared(model: type) -> set[tuple[str, str, str | None]]:
    """The fields ``model`` declares itself (not inherited), each as (name, annotation, description)."""
    inherited = {name for base in model.__mro__[1:] for name in getattr(base, "model_fields", {})}
    return {(name, repr(field.annotation), field.description)
            for name, field in model.model_fields.items() if name not in inherited}  # fmt: skip


def _built_from(model: type) -> set[type]:
    """The full model a brief is built from, with its bases (empty for a model that is no brief)."""
    full = getattr(model, "built_from", None)
    return set(full.__mro__) if full is not None else set()


def test_each_record_is_defined_once() -> None:
    """Two models that declare the same fields (name, type and description) are one record written twice: a subclass
    adds to a model instead, and a brief is checked against its full model below."""
    models = _models()
    assert len(models) > 20
    twice = []
    for i, a in enumerate(models):
        for b in models[i + 1 :]:
            if issubclass(a, b) or issubclass(b, a) or a in _built_from(b) or b in _built_from(a):
                continue
            same = _declared(a) & _declared(b)
            if len(same) > MAX_SHARED_FIELDS:
                twice.append(
                    f"{a.__module__}.{a.__name__} = {b.__module__}.{b.__name__}: {sorted(n for n, *_ in same)}"
                )
    assert twice == []


def _fields(model: type) -> dict[str, object]:
    """A model's fields and computed fields, with their types."""
    fields = {name: field.annotation for name, field in model.model_fields.items()}
    return fields | {name: field.return_type for name, field in model.model_computed_fields.items()}


# Names that must be written once (indexer/core/models.py, indexer/index/storage.py) and imported everywhere else.
NAMED_ONCE = {"body", "contents", "boilerplate", "table_row", "local", "milvus"}
DEFINED_IN = {"indexer/core/models.py", "indexer/index/storage.py", "indexer/index/ray_embedder.py"}


def test_each_chunk_kind_and_backend_is_one_constant() -> None:
    """A kind or an engine compared, assigned or passed as a bare string elsewhere is a second spelling of it (a
    dictionary key of the manifest, or an argument's help text, is not)."""
    found = []
    for path in [*(ROOT / "indexer").rglob("*.py"), *(ROOT / "mcp_server").rglob("*.py")]:
        name = path.relative_to(ROOT).as_posix()
        if name in DEFINED_IN:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        keys = {id(k) for node in ast.walk(tree) if isinstance(node, ast.Dict) for k in node.keys if k is not None}
        keys |= {id(node.slice) for node in ast.walk(tree) if isinstance(node, ast.Subscript)}
        keys |= {id(node.args[0]) for node in ast.walk(tree) if isinstance(node, ast.Call) and node.args
                 and isinstance(node.func, ast.Attribute) and node.func.attr == "get"}  # fmt: skip
        # a brief's `derived` names fields of the model it is built from (Hit.table_row), not chunk kinds
        derived = [
            n.value for n in ast.walk(tree) if isinstance(n, ast.AnnAssign) and ast.unparse(n.target) == "derived"
        ]
        keys |= {id(value) for named in derived if isinstance(named, ast.Dict) for value in named.values}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in NAMED_ONCE and id(node) not in keys:
                found.append(f"{name}:{node.lineno} {node.value!r}")
    assert found == []


def test_the_storage_engine_is_chosen_inside_the_index_stage() -> None:
    """Outside indexer/index/, an engine is a setting (--backend, --milvus-uri) handed to indexer.index.engines or
    a storage record read from a manifest: no module there imports an engine's own modules or types."""
    found = []
    for path in [*(ROOT / "indexer").rglob("*.py"), *(ROOT / "mcp_server").rglob("*.py")]:
        name = path.relative_to(ROOT).as_posix()
        if name.startswith("indexer/index/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                named = [alias.name for alias in node.names]
                if "milvus" in node.module or any(n.startswith("Milvus") for n in named):
                    found.append(f"{name}:{node.lineno} from {node.module} import {', '.join(named)}")
    assert found == []


def test_callers_go_through_the_knowledge_base() -> None:
    """The server, the CLI, eval, tests and benchmarks search through KnowledgeBase (its search or the tool
    methods): only it runs the search stage's entry point, and no caller reads its loaded index."""
    found = []
    for folder in ("indexer", "mcp_server", "tests", "bench", "scripts"):
        for path in (ROOT / folder).rglob("*.py"):
            name = path.relative_to(ROOT).as_posix()
            if name in ("indexer/knowledge_base.py", "indexer/search/retrieve.py"):
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and any(a.name == "run_search" for a in node.names):
                    found.append(f"{name}:{node.lineno} imports run_search")
                if isinstance(node, ast.Attribute) and node.attr == "_index" and ast.unparse(node.value) != "self":
                    found.append(f"{name}:{node.lineno} reads ._index")
    assert found == []


# Spellings with one home (issue 57): a legal form list and a quarter's ordinals are written in core/ alone.
ONE_HOME = {
    "indexer/core/legal_forms.py": re.compile(r"inc\|incorporated|ltd\|limited|Inc\\\.\?\||LegalForm\(\""),
    "indexer/core/fiscal.py": re.compile(r"first\|second\|third\|fourth|\"first\", \"second\""),
}


def test_legal_forms_and_quarter_spellings_are_written_once() -> None:
    written = {home: [] for home in ONE_HOME}  # type: dict[str, list[str]]
    for path in [*(ROOT / "indexer").rglob("*.py"), *(ROOT / "mcp_server").rglob("*.py")]:
        name, text = path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")
        for home, spelled in ONE_HOME.items():
            if spelled.search(text):
                written[home].append(name)
    assert written == {home: [home] for home in ONE_HOME}
