"""The generic family: custom suites of stories with questions and one answer rule each.

Answer rules: `choices` + `answer` (lettered options, shuffled per item with the
seed unless `shuffle: false`), `yes_no`, `names` (the exact set of characters,
from the scenario's `characters`), `contains` / `excludes` (whole words), and
`json_final` / `wrong` (a JSON answer with a top-level `final` object, judged per
object as in the robustness family; see `pytest_tom.scoring.json_final`).
A question's `meta:` mapping travels with its item to the aggregation: items
converted from ToMi carry `meta.tomi` and get a question type x story type table.

Suite shape and checks: `generic_schema`; items: `generic_expand`; prompts:
`generic_prompts`; answer rules: `generic_scoring`; the ToMi table: `generic_metrics`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pytest_tom.families.generic import expand as generic_expand
from pytest_tom.families.generic import prompts as generic_prompts
from pytest_tom.families.generic import schema as generic_schema
from pytest_tom.families.generic import scoring as generic_scoring
from pytest_tom.families.generic.headline import METRICS, PLOTS
from pytest_tom.families.generic.metrics import tomi_result
from pytest_tom.families.generic.schema import DEFAULTS, SCENARIO
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
)


class GenericFamily(Family):
    name = "generic"
    converters = {"tomi": "pytest_tom.families.generic.convert"}  # ToMi is a generic suite
    methods = ("vanilla", "cot")
    headline_metrics = METRICS  # none beyond turn, goal and the tags
    plots = PLOTS
    metric_patterns = ("tomi.*",)  # names beyond aggregate([]) (usage_checks)
    answer_tokens = 128  # json_final answers are a small JSON between markers
    scenario_schema = SCENARIO
    defaults_schema = DEFAULTS
    description = "custom suites: context + questions with choices, yes/no, names or word rules"

    # -- suite files -------------------------------------------------------------------
    def check(self, data: dict[str, Any], ck: Checker) -> None:
        generic_schema.check_suite(data, ck)

    def expand(self, suite: Suite, data: dict[str, Any], settings: Settings,
               line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
        return generic_expand.expand_items(self.name, suite, data, settings, line_of)

    # -- model calls and scoring -------------------------------------------------------
    def conversation(self, item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
        return generic_prompts.conversation(item, method, responses)

    def score(self, item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
        return generic_scoring.score_answer(item, response)

    def aggregate(self, records: list[dict[str, Any]], settings: Settings) -> FamilyResult:
        return tomi_result(records)
