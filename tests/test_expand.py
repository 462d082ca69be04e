import pytest

from indexer.search.expand import expand, glossary, glossary_terms, period_terms, strip_instructions


def test_quarters_are_spelled_every_way() -> None:
    for spelling in ("2025年第一季度", "1Q25", "25Q1", "Q1 2025", "2025Q1", "first quarter of 2025"):
        terms = {t.replace(" ", "").lower() for t in period_terms(f"中芯国际{spelling}毛利率")} | {
            spelling.replace(" ", "").lower()
        }
        assert {"1q25", "25q1", "q12025", "2025q1", "2025年第一季度"} <= terms, spelling


def test_full_year_and_forecast_periods() -> None:
    assert {"FY2025", "2025年度"} <= set(period_terms("2025年全年营业收入"))
    assert {"2022年", "fiscal 2022"} <= set(period_terms("FY22 revenue"))
    assert "2025年预测" in period_terms("2025E EPS")
    assert "2025E" in period_terms("2025年预测净利润")


def test_glossary_is_bilingual_and_large_enough() -> None:
    groups = glossary()
    assert len(groups) >= 60
    assert all(any("\u4e00" <= c <= "\u9fff" for c in "".join(g)) for g in groups)  # every concept has Chinese
    assert "capex" in glossary_terms("资本开支是多少")
    assert "资本开支" in glossary_terms("What was the company's capital expenditure?")
    assert "目标价" in glossary_terms("What is the broker's price target?")
    assert "overweight" in glossary_terms("评级为增持")


def test_glossary_matches_whole_words_only() -> None:
    assert "营业收入" not in glossary_terms("prerevenue startups")
    assert glossary_terms("weather report") == []


def test_expand_keeps_the_original_first_with_more_weight() -> None:
    variants = {v.reason: v for v in expand("2025年第一季度毛利率")}
    assert variants["original"].text == "2025年第一季度毛利率" and variants["original"].weight == 1.0
    assert set(variants) == {"original", "keywords", "translated"}
    assert "1Q25" in variants["keywords"].text and "gross margin" in variants["keywords"].text
    translated = variants["translated"].text.removeprefix("2025年第一季度毛利率 ").split(" ")
    assert "margin" in translated and len(translated) <= 4  # one English term per concept (毛利, 毛利率)
    assert all(v.weight < 1.0 for reason, v in variants.items() if reason != "original")
    assert [v.reason for v in expand("hello world")] == ["original"]


@pytest.mark.parametrize(
    ("question", "stripped"),
    [
        (
            "According to the annual report, what is the Total revenue (in USD) for Acme plc (within the last period "
            "or at the end of the last period)? If data is not available, return 'N/A'.",
            "what is the Total revenue for Acme plc ?",
        ),
        (
            "Did Acme announce a share buyback? If there is no mention, return False.",
            "Did Acme announce a share buyback?",
        ),
        (
            "Answer the following question by primarily using the balance sheet: what is the current ratio of Acme?",
            "what is the current ratio of Acme?",
        ),
        ("What is the return on equity of Acme?", "What is the return on equity of Acme?"),  # content, kept
        ("Which report covers the Acme merger?", "Which report covers the Acme merger?"),  # not an instruction
    ],
)
def test_answer_format_instructions_of_every_common_shape_are_stripped(question: str, stripped: str) -> None:
    assert strip_instructions(question) == stripped
