"""Output schemas for the tools, shaped to be cheap to validate.

Pydantic writes an optional field as ``anyOf: [S, {"type": "null"}]``. A client that validates results with the
``jsonschema`` package (the official Python SDK does, on every call) tries each branch and builds an error object
for the branch that fails — for a search result with a few hundred optional values, most of a call's client-side
time. ``{"type": [T, "null"]}`` says the same thing and costs one type check.
"""

from __future__ import annotations

from typing import Any

from fastmcp.utilities.json_schema import compress_schema
from pydantic import BaseModel

from indexer.core.models import wire_schema

_NULL = {"type": "null"}
# Keywords left out of the input schemas clients are shown: the server checks them and its error names the limit
# ("document must be at most 1000 characters"); unknown arguments get a plain error too.
_ENFORCED = frozenset({"additionalProperties", "maxLength", "minLength", "maxItems", "minItems"})


def _nullable(branch: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any] | None:
    """``branch`` or null as one schema, if ``branch`` states a single type (directly or by $ref)."""
    if set(branch) == {"$ref"} and branch["$ref"].startswith("#/$defs/"):
        branch = _flatten(defs.get(branch["$ref"].removeprefix("#/$defs/"), {}), defs)  # the models are not recursive
    kind = branch.get("type")
    if not isinstance(kind, str) or "anyOf" in branch or "oneOf" in branch:
        return None
    return {**branch, "type": [kind, "null"]}


def _flatten(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_flatten(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _flatten(value, defs) for key, value in node.items()}
    options = node.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and _NULL in options:
        merged = _nullable(next(o for o in options if o != _NULL), defs)
        if merged is not None:
            rest = {key: value for key, value in node.items() if key != "anyOf"}
            return {**merged, **rest}
    return node


def lean(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema with optional values as type lists (``{"type": ["string", "null"]}`` for ``anyOf`` with null)."""
    raw = schema.get("$defs", {})
    defs = {name: _flatten(value, raw) for name, value in raw.items()}
    out: dict[str, Any] = _flatten({key: value for key, value in schema.items() if key != "$defs"}, defs)
    if defs:
        out["$defs"] = defs
    return out


def _without_noise(node: Any, top: bool = True) -> Any:
    if isinstance(node, list):
        return [_without_noise(item, False) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if (key == "default" and value is None) or key in _ENFORCED:
            continue
        if key == "description" and not top and "properties" in node:
            continue  # a nested model's docstring: its fields say it
        out[key] = _without_noise(value, key == "properties" or (top and key not in ("items", "$defs")))
    return out


def _undescribed(node: Any, names: bool = False) -> Any:
    """``node`` without ``description`` keywords (``names``: a ``properties`` map, whose keys are field names)."""
    if isinstance(node, list):
        return [_undescribed(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: _undescribed(value, key in ("properties", "$defs"))
        for key, value in node.items()
        if names or key != "description"
    }


def input_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's input schema as clients are shown it: optional values as type lists, without ``default: null`` (a
    property not required is optional), the limits the server enforces itself (lengths, counts, unknown arguments:
    each answered with a plain error that names it) or nested models' docstrings. Validation is the model's, not
    this schema's."""
    return _without_noise(lean(schema))  # type: ignore[no-any-return]


def output_schema(model: type[BaseModel], full: type[BaseModel] | None = None) -> dict[str, Any]:
    """The JSON schema of a tool's result as :func:`wire` writes it (titles pruned, as FastMCP does), optional
    fields as type lists; with ``full``, the whole result the brief ``model`` stands for, under an optional
    ``full`` property (present with ``detail="full"``)."""
    schema = wire_schema(model)
    if full is not None:  # described once, in the brief and the docs: the full form's schema carries no prose
        whole = _undescribed(wire_schema(full))
        schema["$defs"] = {**whole.pop("$defs", {}), **schema.get("$defs", {})}
        whole["description"] = 'the whole result, with every box and cell: only with detail="full"'
        schema["properties"]["full"] = whole
    return lean(compress_schema(schema, prune_titles=True))


def either(*schemas: dict[str, Any]) -> dict[str, Any]:
    """One output schema for a result of one of several shapes (get_page: a page, or a range of pages): an object
    that is any of ``schemas``, their definitions shared (a name stands for the same model in each); one schema is
    itself."""
    if len(schemas) == 1:
        return schemas[0]
    defs: dict[str, Any] = {}
    shapes = []
    for schema in schemas:
        shape = dict(schema)
        defs.update(shape.pop("$defs", {}))
        shapes.append(shape)
    return {"type": "object", "anyOf": shapes, "$defs": defs}
