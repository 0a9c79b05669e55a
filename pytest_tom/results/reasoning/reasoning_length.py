"""How long the model reasoned, per suite, for every family alike: metrics declared from
the suite's record table (`metrics.record_table.Reasoning`: reasoning tokens where every
answered record has a count, else the thought's length in characters), added to the
common metrics by `results.headline` when the suite's records show any reasoning, and
none otherwise (a plain model's report is unchanged):

* `reasoning.mean`: the mean reasoning length of the answered items (a cut-off one is
  not answered), with a bootstrap
  interval over the suite's groups (as goal accuracy's);
* `reasoning.median`: their median, with the distribution-free interval of order
  statistics;
* `reasoning.q1.turn` ... `reasoning.q4.turn`: the turn accuracy of the judged items in
  each quartile of reasoning length (Wilson intervals). The quartiles are cut at the
  judged items' lengths (`QUARTILES`, the inverted-CDF quantiles: actual lengths), so
  tied lengths stay in one quartile and a quartile may be empty;
* `reasoning.mean.<metric>`: for every accuracy of the suite (a proportion of selected
  items: each tag's, and each the family declares), the mean reasoning length of the
  items it selects ("thinks 2.3x longer on false-belief items": the means of the FB and
  TB accuracies' items).

A cut-off answer (the budget ran out) was never answered: its length is only a lower
bound (`metrics.record_table.Reasoning.bounds`), so it is in no mean, median or quartile
(`results.reasoning.thought_stats` reports the cut-off items apart, with their lower bounds). What
the metrics cannot hold (the unit, the quartiles' ranges, which accuracy each mean
belongs to) is the suite's `reasoning` block (`block`).
"""

from __future__ import annotations

from collections.abc import Iterable

from pytest_tom.core.lazy_numpy import np  # at its first use: an xdist worker never imports it
from pytest_tom.metrics.accuracy import group_key
from pytest_tom.metrics.declare import (
    AMOUNT,
    GROUPED,
    MEDIAN,
    PROPORTION,
    REASONING,
    Metric,
    QuantityMean,
    everything,
    mean_of,
)
from pytest_tom.metrics.record_table import RecordTable
from pytest_tom.results.results import ReasoningJSON

PREFIX = "reasoning."
MEAN = "reasoning.mean"
MEDIAN_NAME = "reasoning.median"
QUARTILES = (0.25, 0.5, 0.75)


def quartile_name(k: int) -> str:
    """`reasoning.q2.turn`: the turn accuracy of the k-th quartile (1-4)."""
    return f"reasoning.q{k}.turn"


def selection_name(metric: str) -> str:
    """`reasoning.mean.false_belief`: the mean reasoning length of a metric's items."""
    return f"{MEAN}.{metric}"


def is_reasoning(name: str) -> bool:
    return name.startswith(PREFIX)


def bands(table: RecordTable) -> list[tuple[float | None, float | None]]:
    """The four quartiles of the judged items' reasoning lengths as (low, high] bands (the
    first open below, the last above); none when no judged item has a length."""
    lengths = table.reasoning.lengths[table.judged]
    lengths = lengths[~np.isnan(lengths)]
    if not len(lengths):
        return []
    cuts = [float(c) for c in np.quantile(lengths, QUARTILES, method="inverted_cdf")]
    edges: list[float | None] = [None, *cuts, None]
    return list(zip(edges[:-1], edges[1:], strict=True))


def specs(table: RecordTable, catalog: Iterable[Metric]) -> list[Metric]:
    """The reasoning metrics of a suite whose records are `table` and whose other metrics
    are `catalog` (none when no record shows reasoning)."""
    measure = table.reasoning.measure
    if not measure:
        return []
    out = [
        Metric(MEAN, f"mean {measure}", GROUPED, summarize=QuantityMean(REASONING),
               finish=mean_of, unit=group_key, quantity=REASONING, display=AMOUNT),
        Metric(MEDIAN_NAME, f"median {measure}", MEDIAN, quantity=REASONING, display=AMOUNT,
               headline=False),
    ]
    for k, band in enumerate(bands(table), start=1):
        out.append(Metric(quartile_name(k), f"turn accuracy, {measure} quartile {k}",
                          quantity=REASONING, band=band, headline=False))
    taken = {m.name for m in out}
    for m in catalog:
        if (m.kind != PROPORTION or m.quantity or m.select is everything
                or selection_name(m.name) in taken):
            continue
        out.append(Metric(selection_name(m.name), f"mean {measure}: {m.label}", GROUPED,
                          select=m.select, reads=m.reads, summarize=QuantityMean(REASONING),
                          finish=mean_of, unit=group_key, quantity=REASONING, display=AMOUNT,
                          headline=m.headline, short=m.short))
    return out


def block(table: RecordTable, metrics: Iterable[Metric]) -> ReasoningJSON | None:
    """The suite's `reasoning` block (None without reasoning metrics): the unit and what
    it counts, how many items have a length, each quartile's metric, range of lengths
    (lowest, highest), judged items and median length, and each mean's accuracy."""
    metrics = [m for m in metrics if is_reasoning(m.name)]
    reasoning = table.reasoning
    if not metrics or not reasoning.unit:
        return None
    lengths = reasoning.lengths
    quartiles = []
    selections = []
    for m in metrics:
        if m.band is not None:
            mask = m.selected(table) & table.judged
            inside = lengths[mask]
            quartiles.append({
                "metric": m.name,
                "low": float(inside.min()) if len(inside) else None,
                "high": float(inside.max()) if len(inside) else None,
                "judged": int(len(inside)),
                "median": float(np.median(inside)) if len(inside) else None,
            })
        elif m.name.startswith(MEAN + "."):
            # the label is "mean <measure>: <the accuracy's label>" (no ": " in a measure)
            selections.append({"metric": m.name, "of": m.name[len(MEAN) + 1:],
                               "label": m.label.split(": ", 1)[-1],
                               "items": int(np.count_nonzero(m.selected(table))),
                               "headline": m.headline})
    return {"unit": reasoning.unit, "measure": reasoning.measure, "source": reasoning.source,
            "items": int(np.count_nonzero(~np.isnan(lengths))), "quartiles": quartiles,
            "selections": selections}
