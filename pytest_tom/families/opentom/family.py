"""The OpenToM family (Xu et al., 2024): narratives in which a mover moves an entity
while an observer may or may not see it, with 23 questions per narrative.

A scenario is one narrative with its plot facts (mover, observer, entity, the
original and the new place, whether the observer saw the move, personality,
preferences, intention) and its questions, each of a genre (`loc_coarse`,
`loc_fine`, `mhop_fullness`, `mhop_accessibility`, `attitude`), an order
(first / second) and a perspective (mover, observer, or the narrator for the
fine-location controls). Every question is one item; its answer is read as a
class label and the suite is scored by macro-F1 per genre and order, declared with
its other metrics in `opentom.headline` (on 0–1 as the paper's Table 2, accuracy,
role F1); the paper's tables: `opentom.metrics`.

The parts this module names in `parts` (`families/parts.py`): suite shape and checks `schema`,
items and the OpenToM-L skip `expand`, methods and prompts `prompts`, answer rule
`scoring` (label parsing: `labels`), tables `metrics`, declared metrics `headline`,
options `options`, converter `convert`.
"""

from __future__ import annotations

from pytest_tom.families.kit import Family
from pytest_tom.families.kit import Parts

from . import download
from . import expand
from . import headline
from . import metrics
from . import options
from . import probes
from . import prompts
from . import schema
from . import scoring


class OpenTomFamily(Family):
    name = "opentom"
    parts = Parts(schema, expand, prompts, scoring, metrics, headline, options, download, probes,
                  "pytest_tom.families.opentom.convert")
    description = "OpenToM narratives: location, multi-hop and attitude questions, macro-F1"
    lower_is_better = ("unfaithful.*", "unfaithful_rate.*", "parse_failure.*")
    metric_patterns = ()  # names beyond aggregate([]) (usage_checks)
