"""The legal forms a company's name ends in, in one place: every reader of a name (the cover's, a running text's,
the question's) takes its forms from here.

Each form is written as a regular expression in lower case (an abbreviation's full stops optional). ``generic``
forms are also ordinary words ("Company", "Co."): a name may end in one, but a line of running text is not taken
for a name because it does.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LegalForm:
    written: str  # lower case; how each letter may be set is the reader's
    abbreviation: bool = False  # a full stop may follow ("Inc.", "Corp.", "Ltd.")
    generic: bool = False  # also an ordinary word
    acronym: bool = False  # printed in capitals (AG, SE, LLC)
    also: tuple[str, ...] = ()  # … and these spellings (a UK plc prints "plc")


FORMS: tuple[LegalForm, ...] = (
    LegalForm("inc", abbreviation=True),
    LegalForm("incorporated"),
    LegalForm("corp", abbreviation=True),
    LegalForm("corporation"),
    LegalForm("co", abbreviation=True, generic=True),
    LegalForm("company", generic=True),
    LegalForm("ltd", abbreviation=True),
    LegalForm("limited"),
    LegalForm("plc", acronym=True, also=("plc", "Plc")),
    LegalForm("llc", acronym=True),
    LegalForm("l.p."),
    LegalForm("n.v."),
    LegalForm("s.a."),
    LegalForm("ag", acronym=True),
    LegalForm("se", acronym=True),
)
FORMS_ZH = ("股份有限公司", "有限责任公司", "有限公司")  # longest first: a name ends in one of them


def _escaped(form: LegalForm, dotless: bool) -> str:
    if "." in form.written:  # "l.p." also as "l.p" and, where dotless, "lp"
        letters = form.written.replace(".", "")
        return "\\.?".join(letters) + "\\.?" if dotless else "\\.".join(letters) + "\\.?"
    return form.written


def forms_pattern(*, generic: bool, dotless: bool = False) -> str:
    """The forms as one case-insensitive alternation (no group of its own): ``generic`` forms among them or not;
    ``dotless``: "lp", "nv", "sa" as well as "l.p."."""
    return "(?:" + "|".join(_escaped(f, dotless) for f in FORMS if generic or not f.generic) + ")"


def cased_forms_pattern() -> str:
    """The forms that are no ordinary word, as a name prints them: Capitalised or in capitals (plc also lower
    case), an abbreviation's full stop optional. For case-sensitive readers (a name set on its own line)."""
    out = []
    for form in FORMS:
        if form.generic:
            continue
        if "." in form.written:
            out.append(form.written.upper().replace(".", "\\."))
            continue
        tail = "\\.?" if form.abbreviation else ""
        if form.acronym:
            spellings = [form.written.upper()] + (
                [form.written, form.written.capitalize()] if form.written == "plc" else []
            )
        else:
            spellings = [form.written.capitalize(), form.written.upper()]
        out += [f"{spelled}{tail}" for spelled in spellings]
    return "(?:" + "|".join(out) + ")"
