"""The text a calling model reads for each tool's result, and the structured content beside it: both compact and
citation-ready by default.

A tool answers twice: the text content carries a rendering — per passage its document, page, section, the text and
one box for the whole passage; per page its text and its tables as plain rows — and ``structuredContent`` carries the
same as data (``briefs.py``), because some clients (Claude Code) show the model only the structured content.
``detail="full"`` puts the whole typed result (every line box, highlight and cell) in the text as JSON and under
``full`` in the structured content; search's ``detail="pages"`` gives one line per hit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from pydantic import BaseModel

from indexer.answers import PageRange
from indexer.core.models import wire, wire_json

FULL_ANSWER_CHARS = 600_000  # one detail="full" answer's JSON (the largest dev page's is 130,000)

COMPACT_ANSWER_CHARS = 100_000  # one compact answer's text


class DetailArgument(NamedTuple):
    """A tool's ``detail`` argument: the forms a caller may ask for (a Literal; compact by default) and its help."""

    forms: Any
    help: str


DETAIL = DetailArgument(Literal["compact", "full"], "full: every box")
SEARCH_DETAIL = DetailArgument(Literal["compact", "pages", "full"], "pages: a line per hit, to survey; full: every box")


@dataclass(frozen=True)
class Form:
    """How one kind of result is answered compactly: its brief (the data), and the text rendered from it. Each tool
    module declares the forms of its results (mcp_server/tools/); a result without one is an error at start."""

    brief: Callable[[Any, str], BaseModel]
    text: Callable[[Any, Any], str]


def answer_parts(result: BaseModel, detail: str, form: Form | None = None) -> tuple[str, dict[str, Any]]:
    """The text content and the structured content of a result: compact both (the text rendered, the brief as
    data), or with ``detail="full"`` the whole result as JSON text and under ``full`` beside the brief. ``form``: the
    result's form, else the one its tool declares."""
    if form is None:
        from mcp_server.tools import FORMS  # the tools declare the forms; they import this module

        form = FORMS[type(result)]
    brief = form.brief(result, detail)
    structured = wire(brief)
    answers = len(result.pages) if isinstance(result, PageRange) else 1  # a range: each page one answer's budget
    if detail == "full":
        whole = wire_json(result)
        if len(whole) <= FULL_ANSWER_CHARS * answers:
            if brief is not result:
                structured["full"] = wire(result)
            return whole, structured
        over = (
            f"NOTE: the full answer ({len(whole):,} characters) is over the {FULL_ANSWER_CHARS * answers:,} one answer "
            "holds; the compact one follows. Ask for less (one page, fewer claims, a lower limit) for every box.\n"
        )
        return over + _bounded(form.text(result, brief), answers), structured
    return _bounded(form.text(result, brief), answers), structured


def _bounded(text: str, answers: int = 1) -> str:
    """A compact text within its budget (the tools bound what they return; this is the last guard); ``answers``
    times that for a range of pages."""
    limit = COMPACT_ANSWER_CHARS * answers
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[cut at {limit:,} of {len(text):,} characters: ask for less]"
