from indexer.core.models import Box, Line, Span
from indexer.core.sections import heading_label, question_sections


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
    assert question_sections("Who is the CEO?") == ()
