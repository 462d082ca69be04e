"""Bad arguments answered in plain words: what was wrong, what is allowed, what to do — not pydantic's report.

A tool validates a call's arguments once, with its request model (mcp_server/tool_registry.py), and a failure —
a field's limit or a rule across fields alike — is FastMCP's ValidationError around pydantic's, whose text would reach
the client ("1 validation error for … errors.pydantic.dev …"). The middleware here rewrites that answer (and a prompt
called without a required argument) from the same error details and the tool's input schema.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fastmcp.exceptions import PromptError, ToolError
from fastmcp.exceptions import ValidationError as FastMCPValidationError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from pydantic import ValidationError

_SHOWN_VALUE = 60
_SHOWN_NAME = 40  # an argument name echoed back is cut to this many characters
_SHOWN_PROBLEMS = 3  # problems spelled out in one answer; the rest are counted


def _shown(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _SHOWN_VALUE else f"{text[:_SHOWN_VALUE]}… ({len(text)} characters)"


def _bounds(schema: dict[str, Any]) -> tuple[object, object]:
    """The (minimum, maximum) an argument's schema allows, looking inside ``anyOf`` for optional arguments."""
    options = [schema, *schema.get("anyOf", [])]
    low = next((o["minimum"] for o in options if "minimum" in o), None)
    high = next((o["maximum"] for o in options if "maximum" in o), None)
    return low, high


def _name(value: object) -> str:
    text = str(value)
    return text if len(text) <= _SHOWN_NAME else f"{text[:_SHOWN_NAME]}… ({len(text)} characters)"


def _one(error: Mapping[str, Any], properties: dict[str, Any]) -> str:
    name = _name(error["loc"][0]) if error["loc"] else "the arguments"
    kind, context = error["type"], error.get("ctx", {})
    schema = properties.get(name, {})
    got = _shown(error.get("input"))
    if kind.startswith("missing"):
        about = schema.get("description")
        return f"{name} is required" + (f": {about}" if about else "")
    if kind in ("unexpected_keyword_argument", "extra_forbidden"):
        return f"unknown argument {name!r}; the arguments are: {', '.join(properties)}"
    if kind in ("less_than_equal", "greater_than_equal", "less_than", "greater_than"):
        low, high = _bounds(schema)
        if low is not None and high is not None:
            return f"{name} must be between {low} and {high}; got {got}"
        limit = next(iter(context.values()), "?")
        return f"{name} must be {'at most' if kind.startswith('less') else 'at least'} {limit}; got {got}"
    if kind == "literal_error":
        return f"{name} must be one of {context.get('expected', '?')}; got {got}"
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return f"{name} must be a whole number; got {got}"
    if kind in ("bool_parsing", "bool_type"):
        return f"{name} must be true or false; got {got}"
    if kind == "string_too_long":
        return f"{name} must be at most {context.get('max_length')} characters; got {len(str(error.get('input')))}"
    if kind == "too_long":
        return f"{name} takes at most {context.get('max_length')} items; got {context.get('actual_length')}"
    if kind in ("string_type", "list_type", "dict_type", "model_type", "float_type", "float_parsing"):
        wanted = kind.split("_")[0].replace("dict", "object").replace("model", "object").replace("float", "number")
        return f"{name} must be a {wanted}; got {got}"
    where = ".".join(_name(part) for part in error["loc"])
    if kind == "value_error":  # a model's own rule, already written as advice
        advice = error["msg"].removeprefix("Value error, ")
        return f"{where}: {advice}; got {got}" if where else advice  # no place: a rule across the arguments
    return f"{where or 'the arguments'}: {error['msg'].lower()}; got {got}"


def plain_message(tool: str, error: ValidationError, schema: dict[str, Any]) -> str:
    """One sentence per problem (the first few; the rest counted, and names echoed cut short: a call with 100
    unknown 5,000-character argument names is answered in a few lines), then where the allowed values are described."""
    properties = schema.get("properties", {})
    problems = list(dict.fromkeys(_one(e, properties) for e in error.errors(include_url=False)))
    more = len(problems) - _SHOWN_PROBLEMS
    shown = problems[:_SHOWN_PROBLEMS] + ([f"and {more} more problem{'s' if more > 1 else ''}"] if more > 0 else [])
    return f"{tool}: {'; '.join(shown)}. The tool's description and input schema list every argument."


class PlainArgumentErrors(Middleware):
    """Rewrites argument errors of tools and prompts (see the module docstring)."""

    def __init__(self, input_schemas: dict[str, dict[str, Any]], prompt_arguments: dict[str, dict[str, str]]) -> None:
        self._schemas = input_schemas
        self._prompts = prompt_arguments  # prompt → its required arguments and their descriptions

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        try:
            return await call_next(context)
        except FastMCPValidationError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            name = context.message.name
            raise ToolError(plain_message(name, exc.__cause__, self._schemas.get(name, {}))) from None

    async def on_get_prompt(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        name = context.message.name
        given = set(context.message.arguments or {})
        missing = {arg: about for arg, about in self._prompts.get(name, {}).items() if arg not in given}
        if missing:
            needs = "; ".join(f"{arg} ({about})" for arg, about in missing.items())
            raise PromptError(f"{name} needs {needs}")
        return await call_next(context)
