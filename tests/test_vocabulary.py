"""The domain's vocabulary (indexer/data/vocabulary.toml) is one file read through one schema, and it is consistent:
every term of a concept is found by search and names that concept in `items=`, no two concepts' labels take the same
printed label, the words jieba keeps whole belong where they are put, routes lead to sections the indexer writes,
and every concept the code names exists. Each check is shown to fail on a planted inconsistency."""

from __future__ import annotations

import ast
import re
from importlib import resources

import pytest

from indexer.core.tokenize import Tokenizer, normalize_text
from indexer.data.vocabulary import FILE, Vocabulary, VocabularyError, parse_vocabulary, vocabulary
from indexer.evidence import identities, statement_content, text_figures
from indexer.evidence.concepts import ConceptLabels, normalise_label
from indexer.knowledge_base import KnowledgeBase
from indexer.search.expand import compile_glossary, glossary_terms
from tests.conftest import ROOT

STATEMENT_OF = {"income_statement": "income", "balance_sheet": "balance", "cash_flow": "cash_flow"}


def _text() -> str:
    return resources.files("indexer.data").joinpath(FILE).read_text(encoding="utf-8")


def _page_labels() -> set[str]:
    """Every label the indexer writes on a page: the vocabulary's statements and sections, the boilerplate pages."""
    return set(vocabulary().page_labels)


def inconsistencies(words: Vocabulary, printed_labels: set[str], tokenizer: Tokenizer) -> list[str]:
    """What in ``words`` disagrees with itself or with the code that reads it; empty when nothing does."""
    found: list[str] = []
    labels = ConceptLabels(words)
    patterns = compile_glossary(words.glossary)
    for name, concept in words.concepts.items():
        group = {t.lower() for t in concept.terms}
        for term in concept.terms:
            if concept.labels and labels.named(term) != {name}:
                found.append(f"concepts.{name}: items={term!r} names {sorted(labels.named(term))}")
            said = normalize_text(term)  # a term the query already says is not added again ('revenue' in 'revenues')
            if any(t not in said for t in group - set(glossary_terms(term, patterns))):
                found.append(f"concepts.{name}: a search for {term!r} is not expanded to the concept's terms")
            if not tokenizer.tokenize(" ".join([term, *glossary_terms(term, patterns)])):  # 'r&d' is no word: its
                found.append(f"concepts.{name}: a search for {term!r} has no word to match")  # expansion has
        for word in concept.keep_whole:
            if word not in concept.terms and name not in labels.matching(normalise_label(word)):
                found.append(f"concepts.{name}: keep_whole {word!r} is none of its terms or labels")
    for label in sorted(printed_labels):
        text = normalise_label(label)
        for statement in ("income", "balance", "cash_flow", "key_data"):
            taking = sorted(c.name for c in labels.concepts if statement in c.statements and c.pattern.fullmatch(text))
            if len(taking) > 1:
                found.append(f"the {statement} label {label!r} is taken by {', '.join(taking)}")
    found += [f"the code names concept {name!r}, which is not defined" for name in _named_in_code(words)]
    for name, statement in words.statements.items():
        if statement.page_label and name not in _page_labels():
            found.append(f"statements.{name}: its pages would take a label nothing reads")
    for kind in statement_content.STATEMENT_KINDS:
        rows = words.statements[kind].rows if kind in words.statements else {}
        needed = set(statement_content._ACTIVITIES) if kind == "cash_flow" else set()
        if len(rows) < statement_content.ENOUGH[kind] or not needed <= set(rows):
            found.append(
                f"statements.{kind}: the code tells it by its rows {sorted(needed)}; the file gives {sorted(rows)}"
            )
    return found


def _named_in_code(words: Vocabulary) -> list[str]:
    """Concepts the evidence code names (``row.concept == "revenue"``, its identities' tuples) that ``words`` lacks."""
    named = set(text_figures.CHECKED) | set(identities.SECTION_TOTALS) | set(identities._BALANCE)
    named |= set(identities._CASH) | {n for identity in identities._DIFFERENCES for n in identity[1:]}
    for path in [*(ROOT / "indexer" / "evidence").glob("*.py"), ROOT / "indexer" / "statement_reading.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute) and node.left.attr == "concept":
                for right in node.comparators:
                    items = right.elts if isinstance(right, ast.Tuple | ast.Set | ast.List) else [right]
                    named |= {i.value for i in items if isinstance(i, ast.Constant) and isinstance(i.value, str)}
    return sorted(n for n in named if n not in words.concepts)


@pytest.fixture(scope="module")
def printed_labels(samples_kb: KnowledgeBase) -> set[str]:
    """The row labels of every table in the sample filings, as printed."""
    return {
        row.label
        for document in samples_kb.documents()
        for page in range(1, document.pages + 1)
        for table in samples_kb.tables(document.document, page)
        for row in table.rows
    }


@pytest.fixture(scope="module")
def tokenizer() -> Tokenizer:
    return Tokenizer()


def test_the_vocabulary_is_consistent(printed_labels: set[str], tokenizer: Tokenizer) -> None:
    words = vocabulary()
    assert len(words.statement_concepts) >= 40 and len(printed_labels) > 100
    assert inconsistencies(words, printed_labels, tokenizer) == []


def _planted(old: str, new: str) -> Vocabulary:
    text = _text()
    assert old in text, old
    return parse_vocabulary(text.replace(old, new, 1))


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        (  # a term that another concept's labels take
            "terms = ['营业成本', '销售成本',",
            "terms = ['net sales', '营业成本', '销售成本',",
            "concepts.cost_of_revenue: items='net sales' names ['revenue']",
        ),
        (  # two concepts' labels take one printed label
            "labels = ['total liabilities|负债合计|负债总计|总负债']",
            "labels = ['total liabilities|负债合计|负债总计|总负债|total assets']",
            "the balance label 'Total assets' is taken by total_assets, total_liabilities",
        ),
        (  # a word jieba keeps whole, put under a concept it is not
            "keep_whole = ['商誉']",
            "keep_whole = ['商誉', '目标价格']",
            "concepts.goodwill: keep_whole '目标价格' is none of its terms or labels",
        ),
        (  # a concept the code names, renamed in the file
            "[concepts.fx_effect_on_cash]",
            "[concepts.fx_effects_on_cash]",
            "the code names concept 'fx_effect_on_cash', which is not defined",
        ),
    ],
    ids=["term-of-two", "label-of-two", "keep-whole-astray", "renamed-concept"],
)
def test_each_inconsistency_is_told(
    old: str, new: str, said: str, printed_labels: set[str], tokenizer: Tokenizer
) -> None:
    assert said in inconsistencies(_planted(old, new), printed_labels, tokenizer)


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("xbrl = ['us-gaap:GrossProfit']", "xbrl_tags = ['us-gaap:GrossProfit']", "concepts.gross_profit.xbrl_tags"),
        ("xbrl = ['us-gaap:GrossProfit']", "xbrl = ['us-gaap:grossprofit']", "concepts.gross_profit.xbrl.0"),
        ("statements = ['income', 'key_data']", "statements = ['incomes', 'key_data']", "concepts.revenue.statements"),
        ("labels = ['goodwill|商誉']", "labels = ['goodwill|商誉(']", "is not a regular expression"),
        ("keep_whole = ['商誉']", "keep_whole = ['商誉', '毛利']", "'毛利' is in concepts.gross_profit and in"),
        ("[concepts.ebit]\nterms = [", "[concepts.ebit]\nstatements = ['income']\nterms = [", "go together"),
        ("[[routes]]\nsections", "[[route]]\nsections", "route: Extra inputs are not permitted"),
        ("[concepts.goodwill]", "[concepts.Goodwill]", "concept and statement names are lower_case_words: Goodwill"),
        ("cue = 'causal'", "cue = 'casual'", "routes name question cues that question_cues does not hold: casual"),
        ("cue = 'causal'", "cue = 'causal'\npattern = 'why'", "a route has a pattern or a cue, one of the two"),
        ("sections = ['exhibits']", "sections = ['exhibit']", "routes name sections no page is labelled with: exhibit"),
        ("topics = ['(?:provision for", "topic = ['(?:provision for", "sections.tax.topic: Extra inputs are not"),
        (  # a section kind with nothing to recognise it by
            "topics = ['(?:provision for )?income tax(?:es)?(?: expense)?', 'taxation', '所得税(?:费用)?']",
            "long = true", "sections.tax: a section kind needs titles, headings, topics or reports"),
        (  # one topic given to two kinds: "Employees" would be tax's, as the topic reader tries tax first
            "topics = ['(?:provision for )?income tax", "topics = ['employees', '(?:provision for )?income tax",
            "sections.human_capital.topics: 'employees' ('employees') is read as sections.tax's by the topic reader"),
        (  # a title one kind searches for that another prints whole
            "titles = ['risk factors',", "titles = ['legal', 'risk factors',",
            "sections.legal.titles: 'legal proceedings' ('legal proceedings') is read as sections.risk_factors's by "
            "the title reader"),
        ("reports.remuneration_report", "reports.governance = 'board report'\nreports.remuneration_report",
         "reports key 'governance' is given twice"),
    ],
    ids=["unknown-field", "bad-tag", "unknown-statement", "bad-pattern", "word-twice", "half-a-line", "unknown-table",
         "bad-name", "unknown-cue", "cue-and-pattern", "route-nowhere", "section-misnamed-field",
         "section-without-titles", "title-of-two-kinds", "title-searched-by-another", "report-key-not-unique"],
)  # fmt: skip
def test_a_malformed_vocabulary_is_refused_naming_where(old: str, new: str, said: str) -> None:
    with pytest.raises(VocabularyError, match=re.escape(said)):
        _planted(old, new)


def test_a_concept_the_code_asks_for_must_exist() -> None:
    assert vocabulary().concept("capex").xbrl
    with pytest.raises(VocabularyError, match=re.escape("no concept 'capx' in vocabulary.toml")):
        vocabulary().concept("capx")


def test_every_reader_reads_the_one_file() -> None:
    """The data folder holds no second vocabulary: concepts, terms, routes, judgements and the words jieba keeps whole
    are in vocabulary.toml, read through its loader; the other files are plain word lists no concept lives in."""
    lists = {"brokers.txt", "generic_query_words.txt", "stopwords_en.txt", "stopwords_zh.txt"}
    files = {p.name for p in (ROOT / "indexer" / "data").iterdir() if p.suffix in {".txt", ".toml"}}
    assert files == lists | {FILE}
    read, parsers = set(), []
    for path in (ROOT / "indexer").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "data_lines":
                read |= {a.value for a in node.args if isinstance(a, ast.Constant)}
            if isinstance(node, ast.Import | ast.ImportFrom) and "tomllib" in ast.dump(node):
                parsers.append(path.relative_to(ROOT).as_posix())
    assert read == lists and parsers == ["indexer/data/vocabulary.py"]
