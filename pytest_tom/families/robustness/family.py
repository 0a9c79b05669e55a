"""The robustness family (Nickel et al.): stages, sceneries in complexity classes, scenes.

A suite's scenarios are *stages* (an unexpected-contents or unexpected-transfer
base story). Each stage lists its *sceneries*: the story rewritten for one
complexity class (or `no_complication`). Each scenery yields 16 *scenes* (see
`robustness.scenes`), one item each, with the id `<stage>::<scenery>::<scene>`
and the group `<stage>::<scenery>`, so that goal accuracy is the share of
sceneries whose 16 scenes are all right.

Answers are JSON with a top-level `final` object (`pytest_tom.scoring.json_final`);
the metrics are turn and goal accuracy overall and per complexity class, and turn
accuracy per scene variant (declared in `headline.py`), laid out with the
coin-toss baselines like the paper's Tables 1 and 2 (`metrics.py`).

The parts this module names in `parts` (`families/parts.py`): suite checks `schema`, items
`expand`, prompts `prompts`, answer rule `scoring`, tables `metrics`, declared metrics
`headline`.
"""

from __future__ import annotations

from pytest_tom.families.kit import Family
from pytest_tom.families.kit import Parts

from . import expand
from . import headline
from . import metrics
from . import probes
from . import prompts
from . import schema
from . import scoring


class RobustnessFamily(Family):
    name = "robustness"
    parts = Parts(schema, expand, prompts, scoring, metrics, headline, probes=probes)
    description = ("robustness classes (Nickel et al.): stages, sceneries per complexity class, "
                   "16 scenes each, JSON answers, turn and goal accuracy")
    metric_patterns = ("class.*", "variant.*")  # names beyond aggregate([]) (usage_checks)
    answer_tokens = 128  # the answer is a small JSON between markers
