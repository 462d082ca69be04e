"""How a tool is declared and served.

A tool is the :class:`~indexer.knowledge_base.KnowledgeBase` method of its name, the request model that method takes
(its fields are the tool's arguments: schema, validation and descriptions, as the CLI and eval use them), the model of
its result, and one :class:`Declared` row, written in the tool's own module (mcp_server/tools/) with its compact model
and its rendering. :func:`served` makes the FastMCP tool of a row: its
input schema is the request model's (with ``detail`` where the tool takes it), and a call's arguments are validated
once, by that model, so every rule of it (field limits and cross-field checks alike) is answered as a bad argument.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastmcp.apps import AppConfig, app_config_to_meta_dict
from fastmcp.exceptions import ToolError, ValidationError
from fastmcp.tools import Tool
from fastmcp.tools.base import ToolResult
from fastmcp.utilities.async_utils import call_sync_fn_in_threadpool
from fastmcp.utilities.json_schema import compress_schema
from mcp.types import TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic import ValidationError as PydanticValidationError
from pydantic.json_schema import SkipJsonSchema

from indexer.core.errors import FilingsError, shown
from indexer.knowledge_base import KnowledgeBase
from mcp_server.loader import IndexLoader
from mcp_server.renderings import DETAIL, DetailArgument, Form, answer_parts
from mcp_server.schemas import either, input_schema, output_schema

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)


CITE = (
    "Cite every figure or statement with its document and 1-based page (BESTBUY_2024Q2_10Q.pdf p.19); "
    "read a hit's page (get_page) before quoting it; get_financials' verified figures need no other check."
)


@dataclass(frozen=True)
class ToolDocs:
    """A tool as the documentation tells it (mcp_server/tool_docs.py writes the README's and docs/tools.md's tables
    from these): what it does, its arguments, what it returns."""

    does: str
    arguments: str
    returns: str


class UndeclaredForm(RuntimeError):
    """A tool answers with a result type it declares no form for: said when the server starts, not by a raw answer."""


def compact_or_full(result: Any, detail: str, form: Form) -> ToolResult:
    """The compact text and the compact structured content (``detail="full"``: the whole result as JSON text and
    under ``full``), each serialised once (FastMCP's own conversion serialises to JSON and parses it back)."""
    text, structured = answer_parts(result, detail, form)
    return ToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


@dataclass(frozen=True)
class Declared:
    """One tool: ``name`` is the KnowledgeBase method that answers it, ``request`` the model that method takes (None:
    it takes none), ``output`` the model of the structured content (a brief, whose whole result ``full`` is, under
    ``full``, with detail="full"), ``detail`` the forms the caller may ask for (None: the tool takes no detail),
    ``answer`` how the method's result becomes the tool's, whether the description ends with what the loaded
    index covers, ``or_else``: the brief and full model of the result's other shape, where it has one (get_page:
    one page, or a range of pages), and ``ui``: the MCP App the tool links (its ``_meta.ui``: the ``ui://``
    resource a host renders beside the result, or who may call it; mcp_server/evidence_app.py); ``forms``: how each
    type of result it answers with is answered compactly (its brief and its text), where ``answer`` is the default."""

    name: str
    description: str
    output: type[BaseModel]
    request: type[BaseModel] | None = None
    full: type[BaseModel] | None = None
    detail: DetailArgument | None = DETAIL
    with_coverage: bool = False
    answer: Callable[[Any, str], ToolResult] | None = None
    or_else: tuple[type[BaseModel], type[BaseModel]] | None = None
    ui: AppConfig | None = None
    forms: dict[type[BaseModel], Form] = field(default_factory=dict)
    docs: ToolDocs | None = None
    call: Callable[..., Any] | None = None  # what answers it, given the knowledge base (and the request): else the
    # KnowledgeBase method of its name

    def results(self) -> list[type[BaseModel]]:
        """The types of result the tool answers with: its full model (or its output, which is then its own), and
        the other shape's."""
        return [self.full or self.output, *([self.or_else[1]] if self.or_else else [])]

    def answered(self, result: Any, detail: str) -> ToolResult:
        if self.answer is not None:
            return self.answer(result, detail)
        return compact_or_full(result, detail, self.forms[type(result)])

    def check_forms(self) -> None:
        """Raise :class:`UndeclaredForm` for a result type answered by default with no form declared."""
        if self.answer is not None:
            return
        missing = [kind.__name__ for kind in self.results() if kind not in self.forms]
        if missing:
            raise UndeclaredForm(
                f"tool {self.name} answers with {', '.join(missing)} but declares no form for it: add one to its "
                f"`forms` (mcp_server/tools/{self.name}.py), a brief and the text written from it"
            )


class _NoArguments(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def arguments_model(declared: Declared) -> type[BaseModel]:
    """What a call of the tool takes: its request model, with ``detail`` added as the last argument where it has one."""
    base = declared.request or _NoArguments
    if declared.detail is None:
        return base
    detail = (declared.detail.forms, Field(default="compact", description=declared.detail.help))
    return create_model(f"{declared.name}_arguments", __base__=base, detail=detail)


def arguments_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The input schema clients are shown: the model's fields as FastMCP writes a function's (titles pruned, no
    docstring), made lean (:func:`mcp_server.schemas.input_schema`)."""
    schema = compress_schema(model.model_json_schema(), prune_titles=True)
    schema.pop("description", None)  # the request model's docstring: the tool's description says what it does
    return input_schema({"type": "object", **schema})


def _request(model: type[BaseModel], call: BaseModel) -> BaseModel:
    """The request model from a validated call (the same object where the call has no ``detail``)."""
    if type(call) is model:
        return call
    values = {name: getattr(call, name) for name in model.model_fields}  # validated already: not validated again
    return model.model_construct(_fields_set=call.model_fields_set & set(values), **values)


logger = logging.getLogger(__name__)


class RequestTool(Tool):
    """A declared tool as FastMCP serves it: ``run`` validates the arguments once with ``arguments_model`` (a
    failure is FastMCP's ValidationError, a bad call) and ``respond`` answers the validated call in a worker thread."""

    arguments_model: SkipJsonSchema[type[BaseModel]] = Field(exclude=True)
    respond: SkipJsonSchema[Callable[[BaseModel], ToolResult]] = Field(exclude=True)

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            call = self.arguments_model.model_validate(arguments)
        except PydanticValidationError as exc:
            raise ValidationError(str(exc), log_level=logging.WARNING) from exc
        return await call_sync_fn_in_threadpool(self.respond, call)  # as FastMCP runs a sync function's tool


def served(declared: Declared, loader: IndexLoader, covers: str) -> RequestTool:
    """The FastMCP tool of ``declared``, answered by the KnowledgeBase method of its name on ``loader``'s index;
    ``covers`` (what the loaded index covers) ends the description where the row asks for it."""
    declared.check_forms()
    method = declared.call or getattr(KnowledgeBase, declared.name)
    model = arguments_model(declared)

    def respond(call: BaseModel) -> ToolResult:
        try:
            kb = loader.get()
            request = () if declared.request is None else (kb.own_names(_request(declared.request, call)),)
            result = method(kb, *request)
        except FilingsError as exc:
            raise ToolError(str(exc), log_level=logging.INFO) from exc  # the caller's mistake, answered in words
        except Exception as exc:  # our fault, not the caller's: said in words all the same, the trace in the log
            logger.exception("%s failed", declared.name)
            raise ToolError(
                f"{declared.name} failed on an error of the server's ({type(exc).__name__}"
                f"{': ' + shown(str(exc), 200) if str(exc) else ''}); the server logged it. Try another call, or "
                "rebuild the index if it keeps failing"
            ) from exc
        return declared.answered(result, getattr(call, "detail", "compact"))

    shapes = [output_schema(declared.output, declared.full)]
    if declared.or_else is not None:
        shapes.append(output_schema(*declared.or_else))
    return RequestTool(
        name=declared.name,
        description=f"{declared.description}\n{covers}" if declared.with_coverage else declared.description,
        parameters=arguments_schema(model),
        output_schema=either(*shapes),
        annotations=READ_ONLY,
        meta=None if declared.ui is None else {"ui": app_config_to_meta_dict(declared.ui)},
        arguments_model=model,
        respond=respond,
    )
