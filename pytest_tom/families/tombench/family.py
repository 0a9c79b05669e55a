"""The ToMBench family (Chen et al., ACL 2024): multiple-choice questions in 20 task files
(the paper's 8 ToM tasks and 12 sets for single abilities), each labelled with one or two
of 31 abilities in 6 dimensions, in English and Chinese.

A scenario is one question (a row of the release): story, question, two to four options,
the right letter, its task and its ABILITY field. The prompt asks for the letter of the
most likely option as `[[A]]`. The default protocol asks each question once, options in
file order; `--tom-tombench-protocol official` asks it five times with the options in
seeded orders and takes the majority vote, as the authors' scripts do. Replies are read
correctly by default, or as get_results.py reads them with `--tom-tombench-reading
authors`. Accuracy per task, ability and dimension and the paper's two averages are
declared metrics.

The parts this module names in `parts` (`families/parts.py`): suite shape and checks `schema`,
items and the official protocol's tries `expand`, methods and prompts `prompts`, answer
rule and option checks `scoring` (reading a reply both ways: `reading`; the majority
vote: `votes`), tables `metrics`, declared metrics and their choice by the options
`headline`, options `options`, converter `convert`; the tasks and abilities: `catalogue`.
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


class TomBenchFamily(Family):
    name = "tombench"
    parts = Parts(schema, expand, prompts, scoring, metrics, headline, options, download, probes,
                  "pytest_tom.families.tombench.convert")
    description = "ToMBench multiple-choice questions: accuracy per task, ability and dimension"
    # `[[A]]` needs a few tokens; the budget most families use keeps the run header short
    answer_tokens = 128
    metric_patterns = ("ability_as_released.*",)  # declared with the authors' reading only
