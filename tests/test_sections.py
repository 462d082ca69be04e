from indexer.core.models import Box, Line, Span
from indexer.core.sections import (
    discussion_subheading,
    heading_label,
    question_sections,
    report_key,
    title_label,
    topic_heading,
)
from indexer.core.statement_names import LABEL_OF_STATEMENT
from indexer.data.pattern_examples import examples
from indexer.data.vocabulary import vocabulary


def _lines(*texts: str) -> list[Line]:
    out = []
    for n, text in enumerate(texts):
        box = Box(page=1, x0=40, top=40 + 14 * n, x1=500, bottom=50 + 14 * n)
        out.append(Line(text=text, box=box, spans=[Span(text=text, box=box)]))
    return out


def test_statement_headings() -> None:
    assert heading_label(_lines("ACME, INC.", "CONSOLIDATED STATEMENTS OF CASH FLOWS", "(in millions)")) == "cash_flow"
    assert heading_label(_lines("Consolidated Balance Sheets")) == "balance_sheet"
    assert heading_label(_lines("CONSOLIDATED STATEMENTS OF OPERATIONS")) == "income_statement"
    assert heading_label(_lines("合并利润表", "2019年1—12月")) == "income_statement"
    assert heading_label(_lines("七、 近三年主要会计数据和财务指标")) == "key_figures"
    assert (
        heading_label(
            _lines("Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations")
        )
        == "mdna"
    )


def test_a_sentence_mentioning_a_statement_is_not_a_heading() -> None:
    sentence = "See the Consolidated Statements of Cash Flows for the amounts reported in each of the last three years."
    assert heading_label(_lines(sentence)) is None


def test_questions_point_at_sections() -> None:
    assert question_sections("What was capex in 2022?")[0] == "cash_flow"
    assert question_sections("总资产是多少")[0] == "balance_sheet"
    assert "mdna" in question_sections("Why did gross margin fall?")
    assert question_sections("Who is the CEO?")[0] == "executive_officers"
    assert question_sections("Is the company's gross margin improving?")[0] == "income_statement"
    assert question_sections("What is the fixed asset turnover ratio?")[:2] == ("income_statement", "balance_sheet")
    assert question_sections("Free cash flow conversion in FY2022")[0] == "cash_flow"
    assert question_sections("四方科技2019年度利润分配预案是什么？") == ()  # 利润分配 is no income statement
    assert question_sections("2019年毛利率是多少")[0] == "income_statement"
    assert question_sections("Which region had the worst topline performance?")[0] == "income_statement"
    assert "segments" in question_sections("Which region had the worst topline performance?")
    assert question_sections("Describe the company's culture") == ()


def test_sub_headings_name_their_topic() -> None:
    assert topic_heading("Note 12 — Income Taxes") == (True, "tax")
    assert topic_heading("11. Segments") == (True, "segments")
    assert topic_heading("Information About Our Executive Officers") == (True, "executive_officers")
    assert topic_heading("七、 近三年主要会计数据和财务指标") == (True, "key_figures")
    assert topic_heading("（四）可能面对的风险") == (True, "risk_factors")
    assert topic_heading("4. Goodwill and Intangible Assets") == (True, None)  # a new note: the topic ends
    assert topic_heading("Income taxes were higher in the quarter because of discrete items.") == (False, None)
    assert topic_heading("employees") == (False, None)  # a heading starts with a capital


def test_outline_titles_label_their_pages() -> None:
    assert title_label("Item 1A. Risk Factors") == "risk_factors"
    assert title_label("Item 7. Management's Discussion and Analysis of Financial Condition") == "mdna"
    assert title_label("Item 8. Financial Statements and Supplementary Data") == "notes"
    assert title_label("Item 9.01 Financial Statements and Exhibits") is None  # an 8-K's exhibits are its content
    assert title_label("第二节 公司简介和主要财务指标") == "key_figures"
    assert title_label("Remuneration report") == "compensation"


def test_a_discussion_sub_heading_is_a_short_capitalised_line_over_prose() -> None:
    prose = "We closely manage our liquidity and capital resources, and our cash needs are met by our operations."
    for heading in (
        "Liquidity and Capital Resources",
        "Results of Operations",
        "LIQUIDITY AND CAPITAL RESOURCES",
        "Cash Flows from Operating Activities:",
        "Off-Balance-Sheet Arrangements and Contractual Obligations",
    ):
        assert discussion_subheading(heading, prose), heading
    for line in (
        "Overview",
        "Eliminations",
        "Net sales",
        "Fiscal 2023 Compared to Fiscal 2022",
        "A B C D E F G",
        "Total Revenue $ 9,583",
        "The Results of Our Operations Improved In Every Segment This Year Again",
    ):
        assert not discussion_subheading(line, prose), line
    assert not discussion_subheading("Liquidity and Capital Resources", "$ 1,234 $ 5,678")  # a table's row, no prose
    assert not discussion_subheading("Liquidity and Capital Resources", None)  # nothing printed under it


def test_a_why_question_is_routed_to_the_narrative_before_the_statement() -> None:
    question = "Why did Apple's gross margin improve in fiscal 2021?"
    assert question_sections(question)[:2] == ("income_statement", "key_figures")  # the figure's statement first
    assert question_sections(question, causal=True)[:2] == ("mdna", "income_statement")  # what explains it first
    assert question_sections("总资产是多少", causal=True)[0] == "balance_sheet"  # no route to MD&A: as it was


def test_a_chairmans_report_is_the_narrative_as_a_chairmans_letter_is() -> None:
    for title in ("Chairman's Letter", "Chairman's Report", "Chairperson's statement"):
        assert title_label(title) == "mdna", title


def test_a_management_discussion_is_the_narrative_with_or_without_its_possessive() -> None:
    # Hong Kong reports print "Management Discussion and Analysis"; an investment trust's manager reviews its year
    for title in ("Management Discussion and Analysis", "Investment Manager's Review", "Manager’s Review"):
        assert title_label(title) == "mdna", title
    assert heading_label(_lines("MANAGEMENT DISCUSSION AND ANALYSIS", "BUSINESS REVIEW")) == "mdna"
    assert title_label("Management Team") is None and title_label("Risk Management") == "risk_factors"


def _kind_texts() -> list[tuple[str, str, str]]:
    """(kind, field, text) for every way through every title, heading, topic and report of every section kind."""
    words = vocabulary()
    found = []
    for name, s in words.sections.items():
        fields = [("titles", s.titles), ("headings", s.headings), ("topics", s.topics), ("reports", s.reports.values())]
        found += [(name, field, text) for field, patterns in fields for p in patterns for text in examples(p)]
    return found


def test_every_reader_of_a_section_kind_agrees() -> None:
    """Every title, heading, topic and report title of every kind, run through the four readers as the indexer calls
    them (an outline entry's title, a page's first heading, a sub-heading, an annual report's own section line): each
    reader names the kind it is written under, or nothing, never another kind."""
    texts = _kind_texts()
    assert len(texts) > 100 and {kind for kind, _, _ in texts} == set(vocabulary().sections)
    disagree = []
    for kind, field, text in texts:
        printed = text[:1].upper() + text[1:]  # a heading, a sub-heading start with a capital
        own = {kind, None}
        read = {
            "title": title_label(printed) if vocabulary().sections[kind].page_label else None,
            "heading": heading_label(_lines(printed)) if vocabulary().sections[kind].page_label else None,
            "topic": topic_heading(printed)[1],
            "report": next(
                (
                    k.name
                    for k in vocabulary().section_kinds
                    if k.report_key(printed) == report_key(printed) and report_key(printed)
                ),
                None,
            ),
        }
        disagree += [f"{kind}.{field} {text!r}: {reader} reads {label}" for reader, label in read.items()
                     if label not in own]  # fmt: skip
    assert not disagree, disagree
    # each field is read by its own reader: a kind's topics are topics, its headings headings …
    assert topic_heading("重大风险提示") == (True, "risk_factors") and title_label("九、重大风险提示") == "risk_factors"
    assert heading_label(_lines("重大风险提示")) == "risk_factors"
    assert title_label("Risk Management") == "risk_factors" and report_key("Risk Management") == "risk_report"


def test_a_report_title_gives_its_section_key() -> None:
    assert report_key("Directors' Remuneration Report (audited)") == "remuneration_report"
    assert report_key("Chairman’s Statement") == "chairmans_statement"
    assert report_key("Financial Statements") == "financial_statements"
    assert report_key("Remuneration") is None  # a report's own section is titled whole


def test_every_statement_concept_term_routes_to_its_statements() -> None:
    """A concept's terms route to the statements that print it with no hand route: goodwill and 商誉 to the balance
    sheet, whatever else the hand routes add."""
    words = vocabulary()
    astray = [
        (name, term)
        for name, concept in words.statement_concepts.items()
        for term in set(concept.terms) - set(concept.unrouted)
        if not {LABEL_OF_STATEMENT[s] for s in concept.statements} <= set(question_sections(f"What was the {term}?"))
    ]
    assert sum(len(c.terms) for c in words.statement_concepts.values()) > 150 and not astray, astray
    assert question_sections("商誉是多少") == ("balance_sheet",)
    assert question_sections("goodwill")[:1] == ("balance_sheet",)  # the hand route's order first
    assert "income_statement" not in question_sections("the goodwillful company")  # a term is a whole word
