from pathlib import Path

import pytest

from indexer.core.tokenize import Tokenizer, normalize_number, normalize_text


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory: pytest.TempPathFactory) -> Tokenizer:
    return Tokenizer(Path(tmp_path_factory.mktemp("jieba")))


def test_chinese_is_segmented_with_finance_words_kept_whole(tokenizer: Tokenizer) -> None:
    tokens = tokenizer.tokenize("四方科技2019年归母净利润是多少？")
    assert "归母净利润" in tokens
    assert "四方" in tokens and "科技" in tokens
    assert "2019" in tokens
    assert "是" not in tokens and "多少" not in tokens


def test_search_mode_yields_sub_words_of_long_terms(tokenizer: Tokenizer) -> None:
    tokens = tokenizer.tokenize("归属于上市公司股东的净利润")
    assert {"上市", "公司", "股东", "净利润"} <= set(tokens)


def test_numbers_lose_thousands_separators_and_trailing_zeros(tokenizer: Tokenizer) -> None:
    assert tokenizer.tokenize("营业收入1,175,301,034.32元") == ["营业", "收入", "营业收入", "1175301034.32", "元"]
    assert tokenizer.tokenize("$1,577.50 million") == ["1577.5", "million"]
    assert normalize_number("1,234.500") == "1234.5"
    assert normalize_number("2019") == "2019"


def test_english_is_lowercased_stemmed_and_filtered(tokenizer: Tokenizer) -> None:
    tokens = tokenizer.tokenize("What were the Capital Expenditures of 3M in FY2018 (10-K)?")
    assert tokens == ["capit", "expenditur", "3m", "fy2018", "10-k"]
    assert tokenizer.tokenize("a I x") == []


def test_full_width_forms_match_half_width(tokenizer: Tokenizer) -> None:
    assert normalize_text("１，２３４ＡＢＣ") == "1,234abc"
    assert tokenizer.tokenize("净利润１２，３４５．６") == tokenizer.tokenize("净利润12,345.6")


def test_index_and_query_tokenize_alike(tokenizer: Tokenizer) -> None:
    line = "Revenue decreased 7.0% to $9,583 million in the second quarter"
    assert tokenizer.tokenize(line) == tokenizer.tokenize(line.upper())
    assert "9583" in tokenizer.tokenize(line)


def test_jieba_cache_goes_to_the_chosen_folder(tmp_path: Path) -> None:
    Tokenizer(tmp_path).tokenize("毛利率")
    assert any(tmp_path.iterdir())


def test_a_hyphenated_compound_matches_its_closed_form(tokenizer: Tokenizer) -> None:
    """Downer's report prints both "share buy-back" and "buyback"; a question may spell it either way."""
    assert tokenizer.tokenize("share buy-back program") == ["share", "buy", "back", "buyback", "program"]
    assert "buyback" in tokenizer.tokenize("Did it announce a share buyback?")
    assert tokenizer.tokenize("Non-GAAP") == ["non", "gaap", "nongaap"]
    assert tokenizer.tokenize("Form 10-K") == ["form", "10-k"]  # a form name stays one token
