"""Thought-length statistics that answer the questions researchers ask of a reasoning model
(issue 46): does it think longer on false-belief items, on higher orders, on one ability
than on the others, and is it more often right when it thinks longer?

For every contrast the suite's family declares (`metrics.thought_contrast.Contrast`,
`CONTRASTS` of its headline.py), per level:

* **the ratio of mean thought lengths**, level over reference (`×2.30`: 2.3 times as
  long), with a 95% percentile interval from a cluster bootstrap over the suite's groups
  (scenarios, FANToM sets; `metrics.intervals.bootstrap`, seeded as every interval of the
  run). A contrast whose family asks both conditions in one scenario (`paired`) is taken
  over the scenarios with answered items of both, resampled together: the interval
  holds the scenario's own effect once, not twice;
* each condition's mean and answered items, and the scenarios the interval resampled.

Per condition (each reference and level), **the accuracy by quartile of thought
length**: the judged, answered items of that condition cut at their own quartiles (the
inverted-CDF quantiles, as the suite's `reasoning.q*.turn`), each quartile's turn accuracy
with its Wilson interval: whether thinking longer goes with being right *within* one
condition, not because false-belief items are both longer and harder.

**Cut-off items are never answered**: their thought ran out of budget, so its length is
a lower bound of what it would have been. They are counted apart, per suite and per
condition, with the range and median of their lower bounds, and never enter a mean, a
ratio or a quartile (`metrics.record_table.Reasoning.bounds`).

The result is the `contrasts`, `conditions` and `cut_off` keys of the suite's
`reasoning` block (none of them without reasoning; `contrasts` and `conditions` only
for a family that declares a contrast).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence

from pytest_tom import families
from pytest_tom.core.lazy_numpy import np  # at its first use: an xdist worker never imports it
from pytest_tom.core.outcome import CUT_OFF
from pytest_tom.core.record_view import RecordView
from pytest_tom.metrics.accuracy import group_key
from pytest_tom.metrics.intervals import RESAMPLES, Summaries, bootstrap, derive_seed, wilson
from pytest_tom.metrics.record_table import RecordTable
from pytest_tom.metrics.thought_contrast import Condition, Contrast
from pytest_tom.results.results import (
    ConditionJSON,
    ConditionQuartileJSON,
    ContrastJSON,
    CutOffJSON,
    LevelJSON,
    ReasoningJSON,
)

QUARTILES = (0.25, 0.5, 0.75)


def ratio_of_means(c: Counter) -> float | None:
    """(sum_b / n_b) / (sum_a / n_a): the level's mean over the reference's (None when a
    condition has no answered item or the reference's mean is 0)."""
    if not (c["na"] and c["nb"] and c["sa"]):
        return None
    return (c["sb"] / c["nb"]) / (c["sa"] / c["na"])


def _ratio_batch(sums: dict[Hashable, np.ndarray], m: int) -> np.ndarray:
    """The array form of `ratio_of_means` over resamples (NaN where undefined)."""
    zero = np.zeros(m)
    sa, na = sums.get("sa", zero), sums.get("na", zero)
    sb, nb = sums.get("sb", zero), sums.get("nb", zero)
    out = np.full(m, np.nan)
    ok = (na != 0) & (nb != 0) & (sa != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out[ok] = (sb[ok] / nb[ok]) / (sa[ok] / na[ok])
    return out


ratio_of_means.batch = _ratio_batch  # type: ignore[attr-defined]


def _mask(table: RecordTable, condition: Condition, who: str) -> np.ndarray:
    return table.selected(condition.select, condition.reads, who)


def _bounds_of(bounds: np.ndarray) -> CutOffJSON:
    """Cut-off items and their lower bounds: how many, the least, median and greatest."""
    known = bounds[~np.isnan(bounds)]
    return {"items": int(len(bounds)), "with_length": int(len(known)),
            "low": float(known.min()) if len(known) else None,
            "median": float(np.median(known)) if len(known) else None,
            "high": float(known.max()) if len(known) else None}


def cut_off_block(table: RecordTable, mask: np.ndarray | None = None) -> CutOffJSON:
    """The cut-off items (of `mask`, else of the suite): counted apart, lower bounds."""
    reasoning = table.reasoning
    bounds = reasoning.bounds
    cut = table_cut(table)
    if mask is not None:
        cut = cut & mask
    if bounds is None:
        return _bounds_of(np.full(int(np.count_nonzero(cut)), np.nan))
    return _bounds_of(bounds[cut])


def table_cut(table: RecordTable) -> np.ndarray:
    """The mask of the cut-off records (`Reasoning.bounds` marks them; a cut-off record
    with no length known is found by its outcome)."""
    out = table.kept("thought_stats.cut")
    if out is None:
        out = np.array([RecordView(r).status == CUT_OFF
                        for r in table.records], dtype=bool).reshape(len(table))
        table.keep("thought_stats.cut", out)
    return out


def quartile_accuracy(table: RecordTable, mask: np.ndarray) -> list[ConditionQuartileJSON]:
    """The turn accuracy of the judged, answered items of `mask` in each quartile of their
    own thought lengths, with Wilson intervals (none when no such item)."""
    lengths = table.reasoning.lengths
    rows = mask & table.judged & ~np.isnan(lengths)
    values = lengths[rows]
    if not len(values):
        return []
    cuts = [float(c) for c in np.quantile(values, QUARTILES, method="inverted_cdf")]
    edges: list[float | None] = [None, *cuts, None]
    right = table.right[rows]
    out = []
    for low, high in zip(edges[:-1], edges[1:], strict=True):
        inside = np.ones(len(values), dtype=bool)
        if low is not None:
            inside &= values > low
        if high is not None:
            inside &= values <= high
        n = int(np.count_nonzero(inside))
        k = int(np.count_nonzero(right[inside]))
        w = wilson(k, n) if n else None
        out.append({"low": float(values[inside].min()) if n else None,
                    "high": float(values[inside].max()) if n else None,
                    "judged": n, "right": k, "accuracy": k / n if n else None,
                    "ci_low": w.low if w else None, "ci_high": w.high if w else None})
    return out


def condition_block(table: RecordTable, condition: Condition, mask: np.ndarray
                    ) -> ConditionJSON:
    """One condition: its answered items' mean length, quartile accuracies, cut-offs."""
    lengths = table.reasoning.lengths
    known = mask & ~np.isnan(lengths)
    return {"name": condition.name, "label": condition.label,
            "items": int(np.count_nonzero(known)),
            "mean": float(lengths[known].mean()) if known.any() else None,
            "quartiles": quartile_accuracy(table, mask),
            "cut_off": cut_off_block(table, mask)}


def level_ratio(table: RecordTable, reference: np.ndarray, level: np.ndarray, paired: bool,
                seed: int, resamples: int) -> LevelJSON | None:
    """The ratio of the level's mean thought length to the reference's, with its bootstrap
    interval over the suite's groups (paired: those with answered items of both); None
    without an answered item on either side."""
    lengths = table.reasoning.lengths
    known = ~np.isnan(lengths)
    a, b = reference & known, level & known
    rows = np.flatnonzero(a | b)
    unit_of, units = table.units(group_key, rows)
    n_units = len(units)
    at = np.zeros(len(table), dtype=np.int64)
    at[rows] = unit_of
    sums = {"sa": np.bincount(at[a], weights=lengths[a], minlength=n_units),
            "na": np.bincount(at[a], minlength=n_units),
            "sb": np.bincount(at[b], weights=lengths[b], minlength=n_units),
            "nb": np.bincount(at[b], minlength=n_units)}
    keep = (sums["na"] > 0) & (sums["nb"] > 0) if paired else np.ones(n_units, dtype=bool)
    counters = [Counter({k: float(v[i]) for k, v in sums.items()})
                for i in np.flatnonzero(keep).tolist()]
    total = Counter()
    for c in counters:
        total.update(c)
    if not (int(total["nb"]) and int(total["na"])):
        return None  # no answered item of the level, or of its reference
    iv = bootstrap(Summaries.of(counters), ratio_of_means, seed, resamples) if counters \
        else None
    return {"ratio": iv.value if iv is not None else None,
            "low": iv.low if iv is not None else None,
            "high": iv.high if iv is not None else None,
            "reference_mean": total["sa"] / total["na"] if total["na"] else None,
            "reference_items": int(total["na"]),
            "mean": total["sb"] / total["nb"] if total["nb"] else None,
            "items": int(total["nb"]), "groups": len(counters), "paired": paired,
            "method": (f"bootstrap over {len(counters)} groups"
                       + (" with both conditions (paired)" if paired else "")),
            "resamples": resamples, "seed": seed}


def contrast_blocks(table: RecordTable, contrasts: Sequence[Contrast], seed: int,
                    family: str = "", resamples: int = RESAMPLES
                    ) -> tuple[list[ContrastJSON], list[ConditionJSON]]:
    """(contrasts, conditions) of a suite (module docstring): each contrast's levels with
    their ratio to the reference, and each condition named once with its quartile
    accuracies and cut-off items. A level without an answered item of its own and of its
    reference (in a paired contrast: in one scenario) is left out, and so is a contrast
    with no level left."""
    out: list[ContrastJSON] = []
    conditions: dict[str, ConditionJSON] = {}
    everything = np.ones(len(table), dtype=bool)
    for contrast in contrasts:
        ref_mask = (None if contrast.reference is None
                    else _mask(table, contrast.reference, f"contrast {contrast.name}"))
        if ref_mask is not None and not ref_mask.any():
            continue
        if contrast.reference is not None and ref_mask is not None:  # named first
            conditions.setdefault(contrast.reference.name,
                                  condition_block(table, contrast.reference, ref_mask))
        levels = []
        for level in contrast.levels:
            mask = _mask(table, level, f"contrast {contrast.name}")
            if not mask.any():
                continue
            reference = ref_mask if ref_mask is not None else everything & ~mask
            figures = level_ratio(table, reference, mask, contrast.paired,
                                  derive_seed(seed, "thought", family, contrast.name,
                                              level.name), resamples)
            if figures is None:
                continue  # no answered item on one side (every one cut off, say)
            levels.append({"name": level.name, "label": level.label, **figures})
            conditions.setdefault(level.name, condition_block(table, level, mask))
        if not levels:
            if contrast.reference is not None:
                conditions.pop(contrast.reference.name, None)
            continue
        out.append({"name": contrast.name, "label": contrast.label,
                    "reference": contrast.reference.name if contrast.reference else None,
                    "reference_label": (contrast.reference.label if contrast.reference
                                        else "the suite's other items"),
                    "paired": contrast.paired, "levels": levels})
    return out, list(conditions.values())


def contrasts_of(family: str) -> tuple[Contrast, ...]:
    """The contrasts `family` declares (none for a family not installed)."""
    try:
        return tuple(families.get(family).thought_contrasts)
    except KeyError:
        return ()


def extra_block(table: RecordTable, family: str, seed: int,
                resamples: int = RESAMPLES) -> ReasoningJSON:
    """What this module adds to a suite's `reasoning` block: `cut_off` when an item was
    cut off; `contrasts` and `conditions` when its family declares contrasts."""
    out: ReasoningJSON = {}
    if table_cut(table).any():
        out["cut_off"] = cut_off_block(table)
    contrasts, conditions = contrast_blocks(table, contrasts_of(family), seed, family,
                                            resamples)
    if contrasts:
        out["contrasts"] = contrasts
        out["conditions"] = conditions
    return out
