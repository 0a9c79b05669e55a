"""The OpenToM family (Xu et al., 2024): narratives in which a mover moves an entity
while an observer may or may not see it, with 23 questions per narrative.

A scenario is one narrative with its plot facts (mover, observer, entity, the
original and the new place, whether the observer saw the move, personality,
preferences, intention) and its questions, each of a genre (`loc_coarse`,
`loc_fine`, `mhop_fullness`, `mhop_accessibility`, `attitude`), an order
(first / second) and a perspective (mover, observer, or the narrator for the
fine-location controls). Every question is one item; its answer is read as a
class label and the suite is scored by macro-F1 per genre and order, declared with
its other metrics in `opentom_headline`; the paper's tables: `opentom_metrics`. Prompts: `opentom_prompts`; label parsing: `opentom_labels`;
suite shape and checks: `opentom_schema`; items: `opentom_expand`; answer rule:
`opentom_scoring`.
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
    ScoringContext,
    Settings,
    Suite,
    Value,
    evaluate,
)
from pytest_tom.families.opentom import expand as opentom_expand
from pytest_tom.families.opentom import metrics as opentom_metrics
from pytest_tom.families.opentom import prompts as opentom_prompts
from pytest_tom.families.opentom import schema as opentom_schema
from pytest_tom.families.opentom import scoring as opentom_scoring
from pytest_tom.families.opentom.headline import METRICS, PLOTS
from pytest_tom.families.opentom.options import OPTIONS
from pytest_tom.families.opentom.schema import DEFAULTS, SCENARIO


class OpenTomFamily(Family):
    name = "opentom"
    options = OPTIONS
    converters = {"opentom": "pytest_tom.families.opentom.convert"}
    lower_is_better = ("unfaithful.*", "unfaithful_rate.*", "parse_failure.*")
    headline_metrics = METRICS  # macro-F1 on 0–1 as the paper's Table 2, accuracy, role F1
    plots = PLOTS
    methods = ("vanilla", "cot", "simtom")
    metric_patterns = ()  # names beyond aggregate([]) (usage_checks)
    scenario_schema = SCENARIO
    defaults_schema = DEFAULTS
    description = "OpenToM narratives: location, multi-hop and attitude questions, macro-F1"

    # -- validation -----------------------------------------------------------------
    def check(self, data: dict[str, Any], ck: Checker) -> None:
        opentom_schema.check_suite(data, ck)

    # -- items ----------------------------------------------------------------------
    def expand(self, suite: Suite, data: dict[str, Any], settings: Settings,
               line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
        return opentom_expand.expand_items(self.name, suite, data, settings, line_of)

    def unavailable(self, item: ItemSpec, settings: Settings) -> str | None:
        return opentom_expand.unavailable_reason(item)

    # -- model calls and scoring ----------------------------------------------------
    def conversation(self, item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
        return opentom_prompts.conversation(item, method, responses)

    def score(self, item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
        return opentom_scoring.score_answer(item, response, ctx.settings.method)

    def aggregate(self, records: list[dict[str, Any]], settings: Settings,
                  declared: Mapping[str, Value] | None = None) -> FamilyResult:
        # without `declared` (a direct call), the values come from the same declarations
        if declared is None:
            declared = evaluate(self.declared_metrics(settings), records)
        return opentom_metrics.aggregate(records, settings, declared)
