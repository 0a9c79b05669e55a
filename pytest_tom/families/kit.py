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
from pytest_tom.core.download import Download
from pytest_tom.core.download import GitHubRelease
from pytest_tom.core.download import Licence
from pytest_tom.core.download import Member
from pytest_tom.core.download import Remote
from pytest_tom.core.download import github_file
from pytest_tom.core.download import github_page

# JSON and nothing more precise: an upstream row before its converter checks it, a
# free-form `source` or `meta`
from pytest_tom.core.json_value import JSONObject
from pytest_tom.core.json_value import JSONValue

# records and the numbers over them (numpy imported at its first use: an xdist worker,
# which never aggregates, never imports it)
from pytest_tom.core.lazy_numpy import np

# the nouns: an item, a suite, an outcome, the run's settings
from pytest_tom.core.model import ItemSpec
from pytest_tom.core.model import Suite

# a family's option (options.py imports it from option_kit itself)
from pytest_tom.core.option_table import choice_problems
from pytest_tom.core.outcome import CUT_OFF
from pytest_tom.core.outcome import ERROR
from pytest_tom.core.outcome import REQUEST_FAILED
from pytest_tom.core.outcome import SKIPPED
from pytest_tom.core.outcome import UNAVAILABLE
from pytest_tom.core.outcome import UNPARSEABLE
from pytest_tom.core.outcome import Outcome
from pytest_tom.core.outcome import status
from pytest_tom.core.record_view import RecordView
from pytest_tom.core.record_view import answer_rows
from pytest_tom.core.record_view import error_of
from pytest_tom.core.record_view import error_parsed_of
from pytest_tom.core.record_view import extra_of
from pytest_tom.core.record_view import extra_verdicts
from pytest_tom.core.record_view import gold_of
from pytest_tom.core.record_view import kind_of
from pytest_tom.core.record_view import meta_verdicts
from pytest_tom.core.record_view import parsed_of
from pytest_tom.core.settings import Settings

# the Family base class and what its hooks take and return; the converters' kit module
from pytest_tom.families import convert_kit
from pytest_tom.families.base import Family
from pytest_tom.families.base import FamilyResult
from pytest_tom.families.base import Message
from pytest_tom.families.base import MetricTable
from pytest_tom.families.base import MetricTableDict
from pytest_tom.families.base import ScoringContext
from pytest_tom.families.base import letter_outcome
from pytest_tom.families.base import single_call
from pytest_tom.families.base import tags_of
from pytest_tom.families.base import two_calls
from pytest_tom.families.base import unread_choice

# `pytest-tom convert`: what every family's convert.py shares (also as a module)
from pytest_tom.families.convert_kit import ConvertError
from pytest_tom.families.convert_kit import add_input_output
from pytest_tom.families.convert_kit import add_suite_limit
from pytest_tom.families.convert_kit import arguments_refused
from pytest_tom.families.convert_kit import problems_reported
from pytest_tom.families.convert_kit import suite_file
from pytest_tom.families.convert_kit import write_suite
from pytest_tom.families.convert_kit import write_suite_in

# the suite document the hooks take: a family's schema.py extends these TypedDicts
from pytest_tom.families.document import Defaults
from pytest_tom.families.document import LineOf
from pytest_tom.families.document import Scenario
from pytest_tom.families.document import SuiteDocument
from pytest_tom.families.document import Tagged
from pytest_tom.families.meta_read import meta_text
from pytest_tom.families.meta_read import meta_texts
from pytest_tom.families.option_kit import Opt

# the parts a family names in its family.py: `parts = Parts(schema, expand, ...)`
from pytest_tom.families.parts import Parts
from pytest_tom.metrics.accuracy import AllRightGroups
from pytest_tom.metrics.accuracy import Record
from pytest_tom.metrics.accuracy import is_judged
from pytest_tom.metrics.accuracy import is_skipped
from pytest_tom.metrics.accuracy import judged
from pytest_tom.metrics.accuracy import judged_verdict
from pytest_tom.metrics.accuracy import ratio
from pytest_tom.metrics.crosstab import accuracies
from pytest_tom.metrics.crosstab import crosstab
from pytest_tom.metrics.crosstab import ordered
from pytest_tom.metrics.crosstab import table_rows

# declared metrics and plots (see docs/adding-a-family.md)
from pytest_tom.metrics.declare import GROUPED
from pytest_tom.metrics.declare import NO_VALUE
from pytest_tom.metrics.declare import PERCENT
from pytest_tom.metrics.declare import PROPORTION
from pytest_tom.metrics.declare import UNIT_SCALE
from pytest_tom.metrics.declare import AllRight
from pytest_tom.metrics.declare import Declared
from pytest_tom.metrics.declare import Joint
from pytest_tom.metrics.declare import LabelPairs
from pytest_tom.metrics.declare import Metric
from pytest_tom.metrics.declare import Plot
from pytest_tom.metrics.declare import Value
from pytest_tom.metrics.declare import ValueMean
from pytest_tom.metrics.declare import evaluate
from pytest_tom.metrics.declare import macro_f1_of
from pytest_tom.metrics.declare import mean_of
from pytest_tom.metrics.declare import meta
from pytest_tom.metrics.declare import outcome_value
from pytest_tom.metrics.declare import ratio_of
from pytest_tom.metrics.declare import scenario_of
from pytest_tom.metrics.declare import weighted_f1_of

# the additive summaries of a grouped metric's units (a family's own `summarize`)
from pytest_tom.metrics.intervals import Summaries

# table cells: one number format for every table
from pytest_tom.metrics.numbers import pct
from pytest_tom.metrics.numbers import pct_of
from pytest_tom.metrics.numbers import points
from pytest_tom.metrics.numbers import signed_unit
from pytest_tom.metrics.numbers import tiny_pct
from pytest_tom.metrics.numbers import unit
from pytest_tom.metrics.record_table import RecordTable
from pytest_tom.metrics.resampling import disjoint_samples
from pytest_tom.metrics.resampling import mean_std
from pytest_tom.metrics.thought_contrast import Condition
from pytest_tom.metrics.thought_contrast import Contrast
from pytest_tom.metrics.thought_contrast import condition_of

# the answer parsers: strings in, what the answer says out
from pytest_tom.scoring.choice import LETTERS
from pytest_tom.scoring.choice import letters_named
from pytest_tom.scoring.choice import parse_choice
from pytest_tom.scoring.choice_reader import ChoiceReading
from pytest_tom.scoring.choice_reader import read_choice
from pytest_tom.scoring.embeddings import EmbedderError
from pytest_tom.scoring.embeddings import describe_spec
from pytest_tom.scoring.embeddings import embeddings_available
from pytest_tom.scoring.embeddings import get_embedder
from pytest_tom.scoring.embeddings import looks_like_path
from pytest_tom.scoring.embeddings import resolve_dtype
from pytest_tom.scoring.f1 import token_f1
from pytest_tom.scoring.json_final import BEGIN as JSON_BEGIN
from pytest_tom.scoring.json_final import END as JSON_END
from pytest_tom.scoring.json_final import instruction as json_instruction
from pytest_tom.scoring.json_final import score_final
from pytest_tom.scoring.labels import KeywordTable
from pytest_tom.scoring.labels import first_keyword
from pytest_tom.scoring.labels import last_line
from pytest_tom.scoring.labels import named_place
from pytest_tom.scoring.labels import sole_keyword
from pytest_tom.scoring.labels import yes_no_word
from pytest_tom.scoring.names import mentioned_names
from pytest_tom.scoring.text import after_last
from pytest_tom.scoring.text import contains_normalised
from pytest_tom.scoring.text import has_words
from pytest_tom.scoring.text import normalise
from pytest_tom.scoring.text import word_pattern
from pytest_tom.scoring.yesno import hedge_in
from pytest_tom.scoring.yesno import parse_yes_no

# suite files: the schema toolkit (file:line:col errors) and the YAML writer of converters
from pytest_tom.suite.schema import ID
from pytest_tom.suite.schema import IDENT
from pytest_tom.suite.schema import ITEM_ID
from pytest_tom.suite.schema import TAG
from pytest_tom.suite.schema import Any_
from pytest_tom.suite.schema import Bool
from pytest_tom.suite.schema import Checker
from pytest_tom.suite.schema import Enum
from pytest_tom.suite.schema import Field
from pytest_tom.suite.schema import Int
from pytest_tom.suite.schema import ListOf
from pytest_tom.suite.schema import Node
from pytest_tom.suite.schema import Obj
from pytest_tom.suite.schema import Str
from pytest_tom.suite.schema import Text
from pytest_tom.suite.schema import check_unique_ids
from pytest_tom.suite.schema import checked_scenarios
from pytest_tom.suite.schema import describe
from pytest_tom.suite.schema import did_you_mean
from pytest_tom.suite.schema import type_name
from pytest_tom.suite.yaml_out import dump_suite
from pytest_tom.suite.yaml_tree import Path_

__all__ = [
    "CUT_OFF", "ERROR", "GROUPED", "ID", "IDENT", "ITEM_ID", "JSON_BEGIN", "JSON_END", "LETTERS",
    "NO_VALUE", "PERCENT", "PROPORTION", "REQUEST_FAILED", "SKIPPED", "TAG", "UNAVAILABLE",
    "UNIT_SCALE", "UNPARSEABLE",
    "AllRight", "AllRightGroups", "Any_", "Bool", "Checker", "ChoiceReading", "Condition",
    "Contrast", "Declared", "EmbedderError", "Enum", "Family", "FamilyResult", "Field", "Int",
    "ItemSpec", "JSONObject", "JSONValue", "Joint", "KeywordTable", "LabelPairs", "ListOf",
    "Message", "Metric", "MetricTable", "MetricTableDict", "Node", "Obj", "Opt", "Outcome", "Parts", "Path_", "Plot", "Record",
    "RecordTable", "RecordView", "ScoringContext", "Settings", "Str", "Suite", "Summaries", "Text", "Value",
    "ValueMean",
    "accuracies", "after_last", "check_unique_ids", "checked_scenarios", "choice_problems",
    "condition_of", "contains_normalised", "crosstab", "describe", "describe_spec", "did_you_mean",
    "disjoint_samples", "dump_suite", "embeddings_available", "evaluate", "first_keyword",
    "get_embedder", "has_words", "hedge_in", "is_judged", "is_skipped", "json_instruction",
    "judged", "judged_verdict", "last_line", "letter_outcome", "letters_named", "looks_like_path", "macro_f1_of",
    "mean_of", "mean_std", "mentioned_names", "meta", "meta_text", "meta_texts", "named_place",
    "normalise", "np", "ordered", "outcome_value", "parse_choice", "parse_yes_no", "pct", "pct_of", "points", "ratio",
    "ratio_of", "read_choice", "resolve_dtype", "scenario_of", "score_final", "signed_unit",
    "single_call", "sole_keyword", "status", "table_rows", "tags_of", "tiny_pct", "token_f1",
    "two_calls", "type_name", "unit", "unread_choice", "weighted_f1_of", "word_pattern",
    "yes_no_word",
    # a record's fields without a view object, and one-loop readers (per-record code)
    "answer_rows", "error_of", "error_parsed_of", "extra_of", "extra_verdicts", "gold_of", "kind_of",
    "meta_verdicts", "parsed_of",
    # downloads (download.py)
    "Download", "GitHubRelease", "Licence", "Member", "Remote", "github_file", "github_page",
    # the suite document (schema.py declares the family's own)
    "Defaults", "LineOf", "Scenario", "SuiteDocument", "Tagged",
    # the convert command (convert.py)
    "ConvertError", "add_input_output", "add_suite_limit", "arguments_refused", "convert_kit",
    "problems_reported", "suite_file", "write_suite", "write_suite_in",
]
