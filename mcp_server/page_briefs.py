"""The compact form of get_page over a short range of pages (``pages="33-35"``): each page's brief, in order, as
get_page gives it for that page alone (``briefs.py``'s PageBrief)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from indexer.answers import PageRange
from mcp_server.briefs import PageBrief, page_brief


class PagesBrief(BaseModel):
    pages: list[PageBrief] = Field(description="each page asked for, in order, as get_page gives it alone")


def pages_brief(result: PageRange) -> PagesBrief:
    return PagesBrief(pages=[page_brief(page) for page in result.pages])
