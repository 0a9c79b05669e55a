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
from pytest_tom.suite.schema import ID, TAG, Checker, Field, ListOf, Obj, Str, Text
from pytest_tom.suite.yaml_out import dump_suite

__all__ = [
    "ID", "REQUEST_FAILED", "TAG", "UNAVAILABLE", "UNPARSEABLE", "Backend", "BackendError",
    "Checker", "Family", "FamilyResult", "Field", "ItemSpec", "ItemView", "ListOf", "Message",
    "MetricTable", "ModelReply", "ModelRequest", "Obj", "Opt", "Outcome", "Record",
    "SamplingParams", "ScoringContext", "Settings", "Str", "Suite", "Text", "dump_suite",
    "judged", "load_suite", "ratio", "score_records", "single_call", "two_calls",
]
