"""The generic family's headline metrics and plots: none beyond those every suite has
(turn and goal accuracy, one turn accuracy per tag, declared by `engine.headline`). A
generic suite's groups are its scenarios (or the items' `group:`)."""

from __future__ import annotations

from pytest_tom.metrics.declare import Metric, Plot

METRICS: tuple[Metric, ...] = ()
PLOTS: tuple[Plot, ...] = ()
