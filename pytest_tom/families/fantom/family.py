"""FANToM (Kim et al., 2023): Theory of Mind in conversations with information asymmetry.

A conversation expands into sets; a set (one piece of information one character
missed while away) into a fact question, a choice and a free-response item per
belief question, answerability and info-access list questions, and per-character
yes/no questions. Prompts and answer reading follow the authors' evaluator (with
its listed defects fixed, see `fantom_parsing`); prompts are in `fantom_prompts`, the
answer rules in `fantom_scoring` (free responses by sentence embeddings,
`pytest_tom.scoring.embeddings`); its metrics (Table 9 of both scenarios: ALL*, ALL,
weighted F1, ...; belief accuracy by ToM order) are declared in `fantom.headline`, the
tables that show them and the figures beyond them (the control task's set-level
figures, per character, error types) are in `fantom.metrics`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pytest_tom.families.fantom import prompts as fantom_prompts
from pytest_tom.families.fantom import scoring as fantom_scoring
from pytest_tom.families.fantom.expand import Expander
from pytest_tom.families.fantom.headline import METRICS, PLOTS, grouped_by
from pytest_tom.families.fantom.metrics import aggregate_fantom, grouping_of
from pytest_tom.families.fantom.options import OPTIONS
from pytest_tom.families.fantom.schema import CONVERSATION, DEFAULTS, check_suite
from pytest_tom.families.kit import (
    Checker,
    Family,
    FamilyResult,
    ItemSpec,
    Message,
    Metric,
    Outcome,
    ScoringContext,
    Settings,
    Suite,
    Value,
)


class FantomFamily(Family):
    name = "fantom"
    options = OPTIONS
    converters = {"fantom": "pytest_tom.families.fantom.convert"}
    headline_metrics = METRICS
    plots = PLOTS
    # error counts of the list and yes/no questions (per context, e.g. inaccessible.*)
    lower_is_better = ("*.wrong", "*.unparseable", "*.request_errors", "*.included_unaware",
                       "*.excluded_aware")
    methods = ("vanilla", "cot")
    metric_patterns = ()  # names beyond aggregate([]) (usage_checks)
    answer_tokens = 128  # free answers are a sentence; lists of names
    scenario_schema = CONVERSATION
    defaults_schema = DEFAULTS
    description = (
        "FANToM: conversations where characters leave and rejoin; belief, "
        "answerability and info-access questions; ALL* and the paper's table"
    )

    def check(self, data: dict[str, Any], ck: Checker) -> None:
        check_suite(data, ck)

    def expand(
        self,
        suite: Suite,
        data: dict[str, Any],
        settings: Settings,
        line_of: Callable[[tuple[Any, ...]], int],
    ) -> list[ItemSpec]:
        return Expander(self.name, suite, data, settings, line_of).items()

    def conversation(
        self, item: ItemSpec, method: str, responses: list[str]
    ) -> list[Message] | None:
        return fantom_prompts.conversation(item, method, responses)

    def option_problems(self, options: dict[str, Any]) -> list[str]:
        return fantom_scoring.embedder_option_problems(options)

    def unavailable(self, item: ItemSpec, settings: Settings) -> str | None:
        return fantom_scoring.unavailable_reason(item, settings)

    # -- scoring ----------------------------------------------------------------------
    def shard_unit(self, item: ItemSpec, settings: Settings) -> str:
        """The ALL*/ALL grouping of `--tom-fantom-group`: a set (the item's group), a part
        or a whole conversation."""
        grouping = str(settings.options.get("fantom_group") or "set")
        return str(item.meta.get(grouping) or item.group)

    def score(self, item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
        return fantom_scoring.score_answer(item, response, ctx)

    def prepare_scoring(self, pairs: Iterable[tuple[ItemSpec, str]], ctx: ScoringContext) -> int:
        """Embed the free responses of many items in one batch before they are scored
        (`fantom_scoring.prepare_scoring`). Returns how many were prepared."""
        return fantom_scoring.prepare_scoring(pairs, ctx)

    def declared_metrics(self, settings: Settings) -> tuple[Metric, ...]:
        return grouped_by(grouping_of(settings))

    def aggregate(self, records: list[dict[str, Any]], settings: Settings,
                  declared: Mapping[str, Value]) -> FamilyResult:
        return aggregate_fantom(records, settings, declared)
