"""Which currency a filing's figures are in, where a table prints only a dollar sign or nothing at all.

A bare ``$`` is US dollars on a US SEC form (10-K, 10-Q, 8-K), or in a release that labels itself an exhibit 99 to
one (an earnings release furnished with an 8-K): the form itself is filed in them. Anywhere else (an
Australian or Canadian annual report, an earnings release) the filing must say which dollars, in its
presentation-currency sentence: "The financial report is presented in Australian dollars", "The functional and
presentation currency … is the Canadian dollar", 本公司以人民币为记账本位币, or says what its dollar sign stands for
('references to "$" are to United States dollars'). That sentence is looked for once per
document, on its pages in order; the first one found establishes the currency, with its page and box. When a table
names a currency itself ("US$'000", "In thousands of Canadian dollars", 币种：人民币) that wins, and a sentence that
names another currency than a table's dollar sign settles nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from indexer.core.models import Box, Page
from indexer.evidence.units import DOLLAR, Source, Unit, currency, source

SEC_FORMS = frozenset({"10-K", "10-Q", "8-K", "10-K/A", "10-Q/A", "8-K/A", "10-KT"})
DOLLAR_CURRENCIES = frozenset({"USD", "AUD", "CAD", "NZD", "HKD", "SGD"})
EXHIBIT_PAGES = 2  # first pages where a release prints its exhibit label
COVER_PAGES = 25  # first pages where an annual report may wrap its 10-K's cover
_SEC = re.compile(r"SECURITIES\s+AND\s+EXCHANGE\s+COMMISSION")  # a cover's heading, in capitals
_FORM = re.compile(r"FORM\s+(10-K|10-Q|8-K)\b")  # a cover's title line (an annual report wrapping its 10-K)
_EXHIBIT = re.compile(r"ex(?:hibit)?[\s.-]*99(?:\.\d{1,2})?\b", re.I)
PAGES_READ = 600  # pages of a document searched for its presentation-currency sentence
WINDOW = 160  # characters after the sentence's anchor in which the currency is named
BEFORE = 80  # … and before it (本公司以人民币为记账本位币)
# A sentence that says what currency the statements are in (not one debt issue "denominated in euros"): one naming
# the presentation currency (the currency may stand a few words away), or "presented in <a currency's name>".
_ANCHOR = re.compile(r"\b(?:presentation|reporting)\s+currency\b|记账本位币", re.I)
_PRESENTED_IN = re.compile(
    r"\b(?:presented|expressed|reported|stated|prepared)\s+in\s+(?:(?:thousands|millions)\s+of\s+)?(?:the\s+)?"
    r"(?:(?:australian|canadian|u\.\s?s\.|us|united\s+states|new\s+zealand|hong\s+kong|singapore)\s+dollars?|"
    r"euros?|pounds?\s+sterling|sterling|(?:japanese\s+)?yen|renminbi|swiss\s+francs?|(?:AUD|CAD|USD|NZD|HKD|SGD|EUR|GBP|JPY|CHF|RMB)\b)",
    re.I,
)

# A sentence that says which currency the filing's dollar sign stands for: 'All references herein to "dollars",
# "US dollars," "USD" or "$" are to United States dollars'.
_SIGN_DEFINED = re.compile(
    r"[\"“]\$[\"”][^.;]{0,80}?\b(?:are|is|refers?|means?)\s+(?:to\s+)?(?:the\s+)?(?:lawful\s+currency\s+of\s+the\s+)?"
    r"(?P<name>(?:united\s+states|u\.\s?s\.|us|canadian|australian|new\s+zealand|hong\s+kong|singapore)\s+dollars?)",
    re.I,
)


@dataclass
class DocumentCurrency:
    """What a document says of its currency: its form, and its presentation-currency sentence (read once, on the
    first table that needs it, from ``page_of`` over ``pages`` pages)."""

    form: str | None
    pages: int
    page_of: Callable[[int], Page]
    _sentence: tuple[str, Source] | None = field(default=None, init=False)
    _searched: bool = field(default=False, init=False)
    _filed: str | None = field(default=None, init=False)

    def sec_filing(self) -> str | None:
        """'a US SEC Form 10-K' (the document's form, or the form its cover names beside the SEC: an annual report
        wrapped around its 10-K), or 'an Exhibit 99.1 to a US SEC filing' for a release that prints that label (an
        earnings release furnished with an 8-K); None for any other document."""
        if self.form in SEC_FORMS:
            return f"a US SEC Form {self.form}"
        if self._filed is None:
            self._filed = self._sec_cover() or ""
        return self._filed or None

    def _sec_cover(self) -> str | None:
        """A cover on the first pages: a US SEC form's ('UNITED STATES SECURITIES AND EXCHANGE COMMISSION' over
        'FORM 10-K', perhaps after an annual report's own pages), else a release's exhibit label."""
        label = None
        for number in range(1, min(self.pages, COVER_PAGES) + 1):
            texts = [line.text.strip() for line in self.page_of(number).lines]
            form = next((found for text in texts if (found := _FORM.search(text))), None)
            if form and any(_SEC.search(text) for text in texts):
                return f"a US SEC Form {form.group(1)} (its cover, p.{number})"
            if label is None and number <= EXHIBIT_PAGES:
                label = next((found for text in texts if (found := _EXHIBIT.match(text))), None)
        return f"an {label.group(0)} to a US SEC filing" if label else None

    def sentence(self) -> tuple[str, Source] | None:
        """The currency the filing's presentation-currency sentence names, and where; None if it has none."""
        if not self._searched:
            self._searched = True
            self._sentence = _first_sentence(self.page_of, min(self.pages, PAGES_READ))
        return self._sentence

    def settle(self, unit: Unit) -> Unit:
        """``unit`` with its currency established where the document establishes it; a bare $ the document does
        not settle, or no currency at all, stays unsettled (``currency`` DOLLAR or None)."""
        if unit.currency not in (None, DOLLAR):
            return unit
        if unit.currency == DOLLAR and (filed := self.sec_filing()):
            where = source(f"$ on {filed}", *_at(unit.currency_source))
            return replace(unit, currency="USD", currency_source=where)
        found = self.sentence()
        if found is None:
            return unit
        code, where = found
        if unit.currency == DOLLAR and code not in DOLLAR_CURRENCIES:
            return unit  # the page prints $ and the sentence names another currency: neither settles it
        return replace(unit, currency=code, currency_source=where)


def _at(printed: Source | None) -> tuple[int, Box | None]:
    return (printed.page, printed.box) if printed else (0, None)


def _named_in(text: str, start: int, end: int) -> tuple[str | None, str]:
    """The currency the sentence around ``text[start:end]`` names (not a bare $), and the sentence."""
    before = text[max(0, start - BEFORE) : start]
    opening = max(before.rfind("。"), before.rfind(". "), before.rfind("；"))
    after = text[end : end + WINDOW]
    closing = re.search(r"[。;；]|\.\s+[A-Z]", after)
    sentence = before[opening + 1 :] + text[start:end] + (after[: closing.start() + 1] if closing else after)
    code = currency(sentence)
    return (None if code == DOLLAR else code), sentence


def _first_sentence(page_of: Callable[[int], Page], pages: int) -> tuple[str, Source] | None:
    for number in range(1, pages + 1):
        page = page_of(number)
        lines = [line for line in page.lines if not line.furniture]
        text, starts = "", []
        for line in lines:
            starts.append(len(text))
            text += line.text + " "
        found = [(m.start(), currency(m.group(0)), m.group(0)) for m in _PRESENTED_IN.finditer(text)]
        found += [(m.start(), *_named_in(text, m.start(), m.end())) for m in _ANCHOR.finditer(text)]
        found += [(m.start(), currency(m.group("name")), m.group(0)) for m in _SIGN_DEFINED.finditer(text)]
        for at, code, sentence in sorted(found, key=lambda item: item[0]):
            if code is None or code == DOLLAR:
                continue
            first = max(i for i, start in enumerate(starts) if start <= at)
            return code, source(sentence, number, lines[first].box)
    return None
