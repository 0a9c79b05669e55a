"""The robustness family (Nickel et al.): stages, sceneries in complexity classes, scenes.

A suite's scenarios are *stages* (an unexpected-contents or unexpected-transfer
base story). Each stage lists its *sceneries*: the story rewritten for one
complexity class (or `no_complication`). Each scenery yields 16 *scenes* (see
`robustness_scenes`), one item each, with the id `<stage>::<scenery>::<scene>`
and the group `<stage>::<scenery>`, so that goal accuracy is the share of
sceneries whose 16 scenes are all right.

Answers are JSON with a top-level `final` object (`pytest_tom.scoring.json_final`);
the metrics are turn and goal accuracy overall and per complexity class, and turn
accuracy per scene variant (declared in `headline.py`), laid out with the
coin-toss baselines like the paper's Tables 1 and 2 (`metrics.py`).

Suite checks: `robustness_schema`; items: `robustness_expand`; prompts:
`robustness_prompts`; answer rule: `robustness_scoring`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_tom.families.kit import (
    Checker,
    Family,
    FamilyResult,
    ItemSpec,
    Message,
    Outcome,
    Record,
    ScoringContext,
    Settings,
    Suite,
    Value,
)
from pytest_tom.families.robustness import expand as robustness_expand
from pytest_tom.families.robustness import prompts as robustness_prompts
from pytest_tom.families.robustness import schema as robustness_schema
from pytest_tom.families.robustness import scoring as robustness_scoring
from pytest_tom.families.robustness.headline import METRICS, PLOTS
from pytest_tom.families.robustness.metrics import aggregate_records
from pytest_tom.families.robustness.schema import DEFAULTS, STAGE


class RobustnessFamily(Family):
    name = "robustness"
    methods = ("vanilla", "cot")
    headline_metrics = METRICS
    plots = PLOTS
    metric_patterns = ("class.*", "variant.*")  # names beyond aggregate([]) (usage_checks)
    answer_tokens = 128  # the answer is a small JSON between markers
    scenario_schema = STAGE
    defaults_schema = DEFAULTS
    description = ("robustness classes (Nickel et al.): stages, sceneries per complexity class, "
                   "16 scenes each, JSON answers, turn and goal accuracy")

    # -- loading ----------------------------------------------------------------------
    def check(self, data: dict[str, Any], ck: Checker) -> None:
        robustness_schema.check_suite(data, ck)

    def expand(self, suite: Suite, data: dict[str, Any], settings: Settings,
               line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
        return robustness_expand.expand_items(self.name, suite, data, settings, line_of)

    # -- asking and scoring -----------------------------------------------------------
    def conversation(self, item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
        return robustness_prompts.conversation(item, method, responses)

    def score(self, item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
        return robustness_scoring.score_answer(item, response)

    def aggregate(self, records: list[Record], settings: Settings,
                  declared: Mapping[str, Value]) -> FamilyResult:
        return aggregate_records(records, settings, declared)
