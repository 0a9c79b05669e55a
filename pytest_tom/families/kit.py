"""What a family's modules import, in one import: `from pytest_tom.families.kit import ...`.

Every built-in family is written with these names alone (and modules of its own folder;
`tests/test_layers.py` keeps it so), and a family in another package imports the same
names, or `pytest_tom.api`, which re-exports all of them beside the backend and run
helpers. The kit sits in the families layer, so a family imports it without reaching
upward.

A family's `options.py` imports `Opt` from `pytest_tom.families.option_kit` instead (it
is here too): the inert plugin reads `options.py`, and this module loads the suite
toolkit, PyYAML and numpy.

The names come in groups, one import per module they live in; a name a new family needs
is added to its group and to `__all__`.
"""

# what `pytest-tom fetch` downloads (a folder's download.py declares it)
from pytest_tom.core.download import Download, Licence, Member, Remote, github_file, github_page

# the nouns: an item, a suite, an outcome, the run's settings
from pytest_tom.core.model import ItemSpec, Suite
from pytest_tom.core.outcome import (
    CUT_OFF,
    ERROR,
    REQUEST_FAILED,
    SKIPPED,
    UNAVAILABLE,
    UNPARSEABLE,
    Outcome,
    status,
)
from pytest_tom.core.settings import Settings

# the Family base class and what its hooks take and return; the converters' kit module
from pytest_tom.families import convert_kit
from pytest_tom.families.base import (
    Family,
    FamilyResult,
    Message,
    MetricTable,
    ScoringContext,
    single_call,
    two_calls,
)

# `pytest-tom convert`: what every family's convert.py shares (also as a module)
from pytest_tom.families.convert_kit import (
    ConvertError,
    add_input_output,
    add_suite_limit,
    arguments_refused,
    problems_reported,
    suite_file,
    write_suite,
)

# a family's option (options.py imports it from option_kit itself)
from pytest_tom.families.option_kit import Opt

# the parts a family names in its family.py: `parts = Parts(schema, expand, ...)`
from pytest_tom.families.parts import Parts

# records and the numbers over them
from pytest_tom.metrics.accuracy import (
    AllRightGroups,
    Record,
    is_judged,
    is_skipped,
    judged,
    ratio,
)
from pytest_tom.metrics.crosstab import accuracies, crosstab, ordered, table_rows

# declared metrics and plots (see docs/adding-a-family.md)
from pytest_tom.metrics.declare import (
    GROUPED,
    NO_VALUE,
    PERCENT,
    PROPORTION,
    UNIT_SCALE,
    AllRight,
    Joint,
    LabelPairs,
    Metric,
    Plot,
    Value,
    ValueMean,
    evaluate,
    macro_f1_of,
    mean_of,
    meta,
    outcome_value,
    ratio_of,
    scenario_of,
    weighted_f1_of,
)

# the additive summaries of a grouped metric's units (a family's own `summarize`)
from pytest_tom.metrics.intervals import Summaries

# table cells: one number format for every table
from pytest_tom.metrics.numbers import pct, pct_of, points, signed_unit, tiny_pct, unit
from pytest_tom.metrics.record_table import RecordTable
from pytest_tom.metrics.resampling import disjoint_samples, mean_std
from pytest_tom.metrics.thought_contrast import Condition, Contrast, condition_of

# the answer parsers: strings in, what the answer says out
from pytest_tom.scoring.choice import LETTERS, letters_named, parse_choice
from pytest_tom.scoring.choice_reader import ChoiceReading, read_choice
from pytest_tom.scoring.embeddings import (
    EmbedderError,
    describe_spec,
    embeddings_available,
    get_embedder,
    looks_like_path,
    resolve_dtype,
)
from pytest_tom.scoring.f1 import token_f1
from pytest_tom.scoring.json_final import BEGIN as JSON_BEGIN
from pytest_tom.scoring.json_final import END as JSON_END
from pytest_tom.scoring.json_final import instruction as json_instruction
from pytest_tom.scoring.json_final import score_final
from pytest_tom.scoring.labels import (
    KeywordTable,
    first_keyword,
    last_line,
    named_place,
    sole_keyword,
    yes_no_word,
)
from pytest_tom.scoring.names import mentioned_names
from pytest_tom.scoring.text import (
    after_last,
    contains_normalised,
    has_words,
    normalise,
    word_pattern,
)
from pytest_tom.scoring.yesno import hedge_in, parse_yes_no

# suite files: the schema toolkit (file:line:col errors) and the YAML writer of converters
from pytest_tom.suite.schema import (
    ID,
    IDENT,
    ITEM_ID,
    TAG,
    Any_,
    Bool,
    Checker,
    Enum,
    Field,
    Int,
    ListOf,
    Node,
    Obj,
    Str,
    Text,
    check_unique_ids,
    describe,
    did_you_mean,
    type_name,
)
from pytest_tom.suite.yaml_out import dump_suite
from pytest_tom.suite.yaml_tree import Path_

__all__ = [
    "CUT_OFF", "ERROR", "GROUPED", "ID", "IDENT", "ITEM_ID", "JSON_BEGIN", "JSON_END", "LETTERS",
    "NO_VALUE", "PERCENT", "PROPORTION", "REQUEST_FAILED", "SKIPPED", "TAG", "UNAVAILABLE",
    "UNIT_SCALE", "UNPARSEABLE",
    "AllRight", "AllRightGroups", "Any_", "Bool", "Checker", "ChoiceReading", "Condition", "Contrast",
    "EmbedderError", "Enum", "Family",
    "FamilyResult", "Field", "Int", "ItemSpec", "Joint", "KeywordTable", "LabelPairs", "ListOf",
    "Message", "Metric", "MetricTable", "Node", "Obj", "Opt", "Outcome", "Parts", "Path_", "Plot",
    "Record", "RecordTable", "ScoringContext", "Settings", "Str", "Suite", "Summaries", "Text",
    "Value",
    "ValueMean",
    "accuracies", "after_last", "check_unique_ids", "condition_of", "contains_normalised", "crosstab",
    "describe", "describe_spec",
    "did_you_mean", "disjoint_samples", "dump_suite", "embeddings_available", "evaluate",
    "first_keyword", "get_embedder", "has_words", "hedge_in", "is_judged", "is_skipped",
    "json_instruction",
    "judged", "last_line", "letters_named", "looks_like_path", "macro_f1_of", "mean_of",
    "mean_std", "mentioned_names", "meta", "named_place", "normalise", "ordered",
    "outcome_value", "parse_choice", "parse_yes_no", "pct", "pct_of", "points", "ratio",
    "ratio_of", "read_choice", "resolve_dtype", "scenario_of", "score_final", "signed_unit", "single_call",
    "sole_keyword", "status", "table_rows", "tiny_pct", "token_f1", "two_calls", "type_name",
    "unit", "weighted_f1_of", "word_pattern", "yes_no_word",
    # downloads (download.py)
    "Download", "Licence", "Member", "Remote", "github_file", "github_page",
    # the convert command (convert.py)
    "ConvertError", "add_input_output", "add_suite_limit", "arguments_refused", "convert_kit",
    "problems_reported", "suite_file", "write_suite",
]
