"""The generic family's headline metrics and plots: none beyond those every suite has
(turn and goal accuracy, one turn accuracy per tag, declared by `results.headline`). A
generic suite's groups are its scenarios (or the items' `group:`).

The cells of the ToMi table (`tomi.<question type>.<story type>.turn`, see
`generic.metrics`) are proportions, but not declared here: a selection would read
`meta.tomi`, which holds each question's index in the split, so every record would be a
facet of its own in the record table and the 44 cells' selections would run once per
record (about 60 times the table's one pass: 1.5 s for ToMi's 5,994 questions instead of
0.03 s). They stay the table's own counts until a selection can declare that it reads
only `meta.tomi.question_type` and `meta.tomi.story_type`."""

from __future__ import annotations

from pytest_tom.families.kit import Metric
from pytest_tom.families.kit import Plot

METRICS: tuple[Metric, ...] = ()
PLOTS: tuple[Plot, ...] = ()
