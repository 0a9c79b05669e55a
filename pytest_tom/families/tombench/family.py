"""The ToMBench family (Chen et al., ACL 2024): multiple-choice questions in 20 task files
(the paper's 8 ToM tasks and 12 sets for single abilities), each labelled with one or two
of 31 abilities in 6 dimensions, in English and Chinese.

A scenario is one question (a row of the release): story, question, two to four options,
the right letter, its task and its ABILITY field. The prompt asks for the letter of the
most likely option as `[[A]]` (`tombench.prompts`). The default protocol asks each
question once, options in file order; `--tom-tombench-protocol official` asks it five
times with the options in seeded orders and takes the majority vote, as the authors'
scripts do (`tombench.expand`, `tombench.votes`). Replies are read correctly by default,
or as get_results.py reads them with `--tom-tombench-reading authors`
(`tombench.reading`, `tombench.scoring`). Accuracy per task, ability and dimension and the
paper's two averages are declared metrics (`tombench.headline`); the tables:
`tombench.metrics`; the converter of the release: `tombench.convert`.
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
    Metric,
    Outcome,
    ScoringContext,
    Settings,
    Suite,
    Value,
)

from . import expand, prompts, schema, scoring
from . import metrics as tables
from .headline import METRIC_SETS, METRICS, PLOTS
from .options import OPTIONS, PROTOCOLS, READINGS


class TomBenchFamily(Family):
    name = "tombench"
    options = OPTIONS
    converters = {"tombench": "pytest_tom.families.tombench.convert"}
    headline_metrics = METRICS
    plots = PLOTS
    methods = prompts.METHODS
    metric_patterns = ("ability_as_released.*",)  # declared with the authors' reading only
    scenario_schema = schema.SCENARIO
    defaults_schema = schema.DEFAULTS
    # `[[A]]` needs a few tokens; the budget most families use keeps the run header short
    answer_tokens = 128
    description = "ToMBench multiple-choice questions: accuracy per task, ability and dimension"

    def declared_metrics(self, settings: Settings) -> tuple[Metric, ...]:
        opts = settings.options
        return METRIC_SETS[(opts.get("tombench_protocol", "default") == "official",
                            opts.get("tombench_reading") == "authors")]

    def option_problems(self, options: dict[str, Any]) -> list[str]:
        problems = []
        if options.get("tombench_protocol", "default") not in PROTOCOLS:
            problems.append(f"--tom-tombench-protocol: one of {', '.join(PROTOCOLS)}")
        if options.get("tombench_reading", "correct") not in READINGS:
            problems.append(f"--tom-tombench-reading: one of {', '.join(READINGS)}")
        tries = options.get("tombench_tries", 5)
        if not isinstance(tries, int) or tries < 1:
            problems.append(f"--tom-tombench-tries {tries!r}: must be at least 1")
        return problems

    # -- suite files -------------------------------------------------------------------
    def check(self, data: dict[str, Any], ck: Checker) -> None:
        schema.check_suite(data, ck)

    def expand(self, suite: Suite, data: dict[str, Any], settings: Settings,
               line_of: Callable[[tuple[Any, ...]], int]) -> list[ItemSpec]:
        return expand.expand_items(self.name, suite, data, settings, line_of)

    # -- model calls and scoring -------------------------------------------------------
    def conversation(self, item: ItemSpec, method: str, responses: list[str]) -> list[Message] | None:
        return prompts.conversation(item, method, responses)

    def score(self, item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
        as_authors = ctx.settings.options.get("tombench_reading") == "authors"
        return scoring.score_answer(item, response, ctx.settings.method, as_authors)

    def aggregate(self, records: list[dict[str, Any]], settings: Settings,
                  declared: Mapping[str, Value]) -> FamilyResult:
        return tables.aggregate(records, settings, declared)
