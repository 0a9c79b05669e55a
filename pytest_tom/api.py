"""What family and backend authors need, in one import: `from pytest_tom.api import ...`.

A family's `options.py` imports `Opt` from `pytest_tom.core.option_table` instead: the
inert plugin reads it, and this module loads the suite toolkit (and PyYAML).
See docs/adding-a-family.md and docs/backends.md.
"""

from pytest_tom.backends.base import (
    Backend,
    BackendError,
    ItemView,
    ModelReply,
    ModelRequest,
    SamplingParams,
)
from pytest_tom.core.model import ItemSpec, Suite
from pytest_tom.core.option_table import Opt
from pytest_tom.core.outcome import REQUEST_FAILED, UNAVAILABLE, UNPARSEABLE, Outcome
from pytest_tom.core.settings import Settings
from pytest_tom.engine.load import load_suite
from pytest_tom.engine.offline import score_records
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
    ValueMean,
    macro_f1_of,
    mean_of,
    ratio_of,
    weighted_f1_of,
)
from pytest_tom.suite.schema import ID, TAG, Checker, Field, ListOf, Obj, Str, Text
from pytest_tom.suite.yaml_out import dump_suite

__all__ = [
    "GROUPED", "ID", "PERCENT", "PROPORTION", "REQUEST_FAILED", "TAG", "UNAVAILABLE",
    "UNIT_SCALE", "UNPARSEABLE", "AllRight", "Backend", "BackendError", "Checker", "Family",
    "FamilyResult", "Field", "ItemSpec", "ItemView", "Joint", "LabelPairs", "ListOf", "Message",
    "Metric", "MetricTable", "ModelReply", "ModelRequest", "Obj", "Opt", "Outcome", "Plot",
    "Record", "SamplingParams", "ScoringContext", "Settings", "Str", "Suite", "Text",
    "ValueMean", "dump_suite", "judged", "load_suite", "macro_f1_of", "mean_of", "ratio",
    "ratio_of", "score_records", "single_call", "two_calls", "weighted_f1_of",
]
