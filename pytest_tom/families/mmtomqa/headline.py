"""MMToM-QA's metrics and plot, declared once (see `pytest_tom.metrics.declare`): the
accuracy of each question type (`true_belief` ... `goal_future_actions`), of belief
inference and goal inference (`belief_inference`, `goal_inference`) and of all questions
(`all`), each a share of items with its Wilson interval. The table in the paper's layout
(`mmtomqa.metrics`) shows these values."""

from __future__ import annotations

from collections.abc import Callable

from pytest_tom.families.kit import Contrast
from pytest_tom.families.kit import Metric
from pytest_tom.families.kit import Plot
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import condition_of
from pytest_tom.families.kit import meta

from .question_types import BELIEF
from .question_types import GOAL
from .question_types import INFERENCE_LABEL
from .question_types import TYPES

PLOTS = (Plot("types", "MMToM-QA (text) accuracy per question type", baselines=(("chance", 0.5),)),)


def of_type(code: str) -> Callable[[Record], bool]:
    return lambda r: meta(r).get("type") == code


def of_inference(inference: str) -> Callable[[Record], bool]:
    return lambda r: meta(r).get("inference") == inference


METRICS = (
    *(Metric(t.name, f"{t.code} {t.label}", select=of_type(t.code), reads=("type",),
             headline=False, plot="types", short=t.code) for t in TYPES),
    *(Metric(f"{i}_inference", INFERENCE_LABEL[i], select=of_inference(i), reads=("inference",),
             plot="types", short=INFERENCE_LABEL[i]) for i in (BELIEF, GOAL)),
    Metric("all", "all questions", plot="types", short="all"),
)


def _declared(name: str) -> Metric:
    return next(m for m in METRICS if m.name == name)


# a reasoning model's thought length on false-belief against true-belief questions (each
# question its own episode: not paired)
CONTRASTS = (
    Contrast("belief", "false against true belief",
             condition_of(_declared("true_belief"), "true belief"),
             (condition_of(_declared("false_belief"), "false belief"),)),
)
