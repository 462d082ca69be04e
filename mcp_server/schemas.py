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


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of a tool's result as :func:`wire` writes it (titles pruned, as FastMCP does), optional
    fields as type lists."""
    schema = compress_schema(wire_schema(model), prune_titles=True)
    raw = schema.get("$defs", {})
    defs = {name: _flatten(value, raw) for name, value in raw.items()}
    out: dict[str, Any] = _flatten({key: value for key, value in schema.items() if key != "$defs"}, defs)
    if defs:
        out["$defs"] = defs
    return out
