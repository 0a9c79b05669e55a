"""The generic family: custom suites of stories with questions and one answer rule each.

Answer rules: `choices` + `answer` (lettered options, shuffled per item with the
seed unless `shuffle: false`), `yes_no`, `names` (the exact set of characters,
from the scenario's `characters`), `contains` / `excludes` (whole words), and
`json_final` / `wrong` (a JSON answer with a top-level `final` object, judged per
object as in the robustness family; see `pytest_tom.scoring.json_final`).
A question's `meta:` mapping travels with its item to the aggregation: items
converted from ToMi carry `meta.tomi` and get a question type x story type table.

The parts this module names in `parts` (`families/parts.py`): suite shape and checks `schema`,
items `expand`, prompts and methods `prompts`, answer rules `scoring`, the ToMi table
`metrics`, no headline metrics of its own (`headline`).
"""

from __future__ import annotations

from pytest_tom.families.kit import Family
from pytest_tom.families.kit import Parts

from . import download
from . import expand
from . import headline
from . import metrics
from . import probes
from . import prompts
from . import schema
from . import scoring


class GenericFamily(Family):
    name = "generic"
    parts = Parts(schema, expand, prompts, scoring, metrics, headline, download=download,
                  probes=probes)
    description = "custom suites: context + questions with choices, yes/no, names or word rules"
    converters = {"tomi": "pytest_tom.families.generic.convert"}  # ToMi: a generic suite
    metric_patterns = ("tomi.*",)  # names beyond aggregate([]) (usage_checks)
    answer_tokens = 128  # json_final answers are a small JSON between markers
