"""The tools, one module each: its row (name, description, request and answer models, how it answers), its compact
model and its rendering. ``TOOLS`` lists them in the order clients list them; ``FORMS`` is every result type's form."""

from __future__ import annotations

from pydantic import BaseModel

from mcp_server.renderings import Form
from mcp_server.tool_registry import Declared
from mcp_server.tools import (
    get_financials,
    get_outline,
    get_page,
    list_documents,
    locate_quote,
    page_image,
    read_section,
    render_page,
    search_reports,
    verify_claims,
)

TOOLS: tuple[Declared, ...] = tuple(
    module.TOOL
    for module in (
        list_documents, search_reports, locate_quote, verify_claims, render_page, get_page, get_outline, read_section,
        get_financials, page_image,
    )
)  # fmt: skip
FORMS: dict[type[BaseModel], Form] = {kind: form for tool in TOOLS for kind, form in tool.forms.items()}
