"""What a family's modules import, in one import: `from pytest_tom.families.kit import ...`.

It lives in the families layer, so a family inside the package imports it without
reaching upward (tests/test_layers.py), and a family in another package imports the same
names; `pytest_tom.api` re-exports all of them beside the backend and run helpers. A
family's `options.py` imports `Opt` from `pytest_tom.core.option_table` instead: the inert
plugin reads it, and this module loads the suite toolkit.
"""

from pytest_tom.core.model import ItemSpec, Suite
from pytest_tom.core.option_table import Opt
from pytest_tom.core.outcome import REQUEST_FAILED, UNAVAILABLE, UNPARSEABLE, Outcome, status
from pytest_tom.core.settings import Settings
from pytest_tom.families.base import (
    Family,
    FamilyResult,
    Message,
    MetricTable,
    ScoringContext,
    single_call,
    two_calls,
)
from pytest_tom.metrics.accuracy import Record, judged, ratio
from pytest_tom.metrics.declare import (
    GROUPED,
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
    macro_f1_of,
    mean_of,
    meta,
    ratio_of,
    scenario_of,
    weighted_f1_of,
)
from pytest_tom.metrics.numbers import pct, pct_of, unit
from pytest_tom.suite.schema import ID, TAG, Checker, Field, ListOf, Obj, Str, Text
from pytest_tom.suite.yaml_out import dump_suite

__all__ = [
    "GROUPED", "ID", "PERCENT", "PROPORTION", "REQUEST_FAILED", "TAG", "UNAVAILABLE",
    "UNIT_SCALE", "UNPARSEABLE", "AllRight", "Checker", "Family", "FamilyResult", "Field",
    "ItemSpec", "Joint", "LabelPairs", "ListOf", "Message", "Metric", "MetricTable", "Obj",
    "Opt", "Outcome", "Plot", "Record", "ScoringContext", "Settings", "Str", "Suite", "Text",
    "Value", "ValueMean", "dump_suite", "judged", "macro_f1_of", "mean_of", "meta", "pct", "pct_of",
    "ratio", "ratio_of", "scenario_of", "single_call", "status", "two_calls", "unit",
    "weighted_f1_of",
]
