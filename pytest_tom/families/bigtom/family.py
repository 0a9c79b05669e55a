"""The BigToM family: causal templates expanded into 25 conditions each.

One scenario of a BigToM suite is a causal template: one sentence per variable
(context, desire, percept, initial belief, causal event with the agent's aware /
not-aware percept, the actions given the new / initial state, the belief and
action questions with their aware / not-aware answers, a random event with its
percepts). At collection each template becomes 25 items
(`<template>::<condition>`, see `bigtom_conditions`), two options each, their
order shuffled per item with the seed. An answer is right when it names the
right letter and not the other one. Aggregates: accuracy per condition, and the
joint scores TB ∧ FB and TC ∧ FC, declared in `bigtom.headline`, laid out like
Table 2 of the paper by `bigtom.metrics`.

Suite shape and checks: `bigtom_schema`; items: `bigtom_expand`; answer rule:
`bigtom_scoring`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pytest_tom.families.bigtom import expand as bigtom_expand
from pytest_tom.families.bigtom import prompts
from pytest_tom.families.bigtom import schema as bigtom_schema
from pytest_tom.families.bigtom import scoring as bigtom_scoring
from pytest_tom.families.bigtom.headline import METRICS, PLOTS
from pytest_tom.families.bigtom.metrics import aggregate_records
from pytest_tom.families.bigtom.schema import DEFAULTS, TEMPLATE
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
)


class BigTomFamily(Family):
    name = "bigtom"
    converters = {"bigtom": "pytest_tom.families.bigtom.convert"}
    headline_metrics = METRICS
    plots = PLOTS
    lower_is_better = ("initial_state_rate",)  # answers naming the initial state: an error rate
    methods = prompts.METHODS
    metric_patterns = ()  # names beyond aggregate([]) (usage_checks)
    scenario_schema = TEMPLATE
    defaults_schema = DEFAULTS
    description = "BigToM causal templates: 25 conditions per template, TB ∧ FB joint scores"

    # -- suite files -------------------------------------------------------------------
    def check(self, data: dict[str, Any], ck: Checker) -> None:
        bigtom_schema.check_suite(data, ck)

    def expand(self, suite: Suite, data: dict[str, Any], settings: Settings,
               line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
        return bigtom_expand.expand_items(self.name, suite, data, settings, line_of)

    # -- model calls and scoring -------------------------------------------------------
    def conversation(self, item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
        return prompts.messages(method, item.data["text"], responses)

    def score(self, item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
        """Right when the answer (after its last `Answer:`) names the right letter and not the other."""
        return bigtom_scoring.score_answer(item, response)

    def aggregate(self, records: list[dict[str, Any]], settings: Settings,
                  declared: Mapping[str, Value]) -> FamilyResult:
        return aggregate_records(records, settings, declared)
