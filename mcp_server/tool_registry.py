"""How a tool is declared and registered: ``@tool`` beside its function (description, result model), its
arguments taken from a request model (``@arguments_of``), and the function bound to the loader for FastMCP."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, TypeVar

from fastmcp.tools.base import ToolResult
from pydantic import BaseModel

from mcp_server.loader import IndexLoader

T = TypeVar("T")


@dataclass(frozen=True)
class Declared:
    """A tool as declared below: its function (the loader first, then the tool's arguments), its description, the
    model of its result, and whether the description ends with what the loaded index covers."""

    function: Callable[..., ToolResult]
    description: str
    output: type[BaseModel]
    full: type[BaseModel] | None = None  # the whole result under `full` with detail="full", when it differs
    with_coverage: bool = False


TOOLS: list[Declared] = []


def tool(
    output: type[BaseModel],
    description: str,
    *,
    full: type[BaseModel] | None = None,
    with_coverage: bool = False,
) -> Callable[[Callable[..., ToolResult]], Callable[..., ToolResult]]:
    """Declare a tool where it is written (its description beside its signature); build_server registers it."""

    def declare(function: Callable[..., ToolResult]) -> Callable[..., ToolResult]:
        TOOLS.append(Declared(function, description, output, full, with_coverage))
        return function

    return declare


def arguments_of(model: type[BaseModel]) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Give a tool function taking ``**arguments`` the signature of ``model``'s fields (after the loader), so that its
    input schema, validation and descriptions are the model's (declared once, used by the tool, the CLI and eval)."""

    def declare(function: Callable[..., T]) -> Callable[..., T]:
        parameters = [
            inspect.Parameter(
                name,
                inspect.Parameter.KEYWORD_ONLY,
                default=inspect.Parameter.empty if field.is_required() else field.default,
                annotation=Annotated[field.annotation, field],
            )
            for name, field in model.model_fields.items()
        ]
        loader = inspect.Parameter("loader", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=IndexLoader)
        own = inspect.signature(function)
        extra = [p for p in own.parameters.values() if p.kind == inspect.Parameter.KEYWORD_ONLY]
        returns = own.return_annotation
        parameters = [*parameters, *extra]
        function.__signature__ = inspect.Signature([loader, *parameters], return_annotation=returns)  # type: ignore[attr-defined]
        function.__annotations__ = {p.name: p.annotation for p in (loader, *parameters)} | {"return": returns}
        return function

    return declare


def bound(function: Callable[..., ToolResult], loader: IndexLoader) -> Callable[..., ToolResult]:
    """The tool function with the loader given: its signature (the schema clients see) is the tool's arguments."""
    signature = inspect.signature(function)
    hints = typing.get_type_hints(function, include_extras=True)

    def call(**arguments: object) -> ToolResult:
        return function(loader, **arguments)

    parameters = [p.replace(annotation=hints[p.name]) for p in list(signature.parameters.values())[1:]]
    call.__signature__ = signature.replace(parameters=parameters, return_annotation=ToolResult)  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": ToolResult}
    call.__name__ = function.__name__
    return call
