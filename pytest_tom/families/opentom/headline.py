"""OpenToM's headline metrics and plots, declared once (see `pytest_tom.metrics.declare`):
macro-F1 per genre and order, resampled by narrative, on 0–1 as the paper's Table 2."""

from __future__ import annotations

from collections.abc import Callable, Hashable

from pytest_tom.families.opentom.metrics import ROLE_KEYS, TABLE2_ROWS, keys_of, predicted
from pytest_tom.metrics.accuracy import Record, is_skipped
from pytest_tom.metrics.declare import (
    GROUPED,
    UNIT_SCALE,
    LabelPairs,
    Metric,
    Plot,
    macro_f1_of,
    meta,
    scenario_of,
)

PLOTS = (
    Plot("f1", "OpenToM macro-F1 per genre and order", ylabel="macro-F1 (%)"),
    Plot("roles", "OpenToM macro-F1, mover vs observer", ylabel="macro-F1 (%)",
         also=tuple((k, label) for k, label in TABLE2_ROWS if k in ROLE_KEYS),
         series=(("mover", "f1_mover.{}"), ("observer", "f1_observer.{}"))),
)


def pair(r: Record) -> tuple[Hashable, Hashable]:
    return meta(r)["gold_label"], predicted(r)


def counted_in(key: str) -> Callable[[Record], bool]:
    return lambda r: not is_skipped(r) and key in keys_of(meta(r))


METRICS = tuple(
    Metric(f"f1.{key}", f"{label} macro-F1", GROUPED, select=counted_in(key),
           reads=("genre", "order", "role"), summarize=LabelPairs(pair), finish=macro_f1_of,
           unit=scenario_of, display=UNIT_SCALE, plot="f1", short=label)
    for key, label in TABLE2_ROWS)
