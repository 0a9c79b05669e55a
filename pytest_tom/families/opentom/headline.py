"""OpenToM's metrics and plots, declared once (see `pytest_tom.metrics.declare`), per
question key (genre and order, see `keys_of`):

- `f1.<key>`: macro-F1 over the pool, resampled by narrative, on 0–1 as the paper's
  Table 2 (the headline);
- `accuracy.<key>`: share of right answers (a proportion, on 0–1 as the table shows it);
- `parse_failure.<key>`: share of unparseable answers (lower is better; failed requests
  are counted by the core metrics);
- `f1_mover.<key>`, `f1_observer.<key>`: macro-F1 over each perspective's subset of the
  role keys (`labels.perspective_subsets`: narrator questions in both, attitude in the
  observer's only), the paper's Table 4.

The tables of `opentom.metrics` show these values; what no declaration can express (the
mover − observer gap, the unfaithful location pairs, the samples protocol's mean ± std)
stays there. `--tom-opentom-protocol` changes none of these definitions: the pool figures
are reported under both protocols, and the samples protocol evaluates the same
definitions on each sample."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Hashable
from collections.abc import Sequence
from typing import cast

from pytest_tom.families.kit import GROUPED
from pytest_tom.families.kit import PERCENT
from pytest_tom.families.kit import PROPORTION
from pytest_tom.families.kit import UNIT_SCALE
from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import Condition
from pytest_tom.families.kit import Contrast
from pytest_tom.families.kit import LabelPairs
from pytest_tom.families.kit import Metric
from pytest_tom.families.kit import Plot
from pytest_tom.families.kit import Record
from pytest_tom.families.kit import ValueMean
from pytest_tom.families.kit import error_of
from pytest_tom.families.kit import error_parsed_of
from pytest_tom.families.kit import is_skipped
from pytest_tom.families.kit import macro_f1_of
from pytest_tom.families.kit import mean_of
from pytest_tom.families.kit import meta
from pytest_tom.families.kit import scenario_of
from pytest_tom.families.opentom.expand import OpentomMeta

# (metric key, row label in the paper's notation)
TABLE2_ROWS = (
    ("loc_coarse.first", "Loc_c (F)"),
    ("loc_coarse.second", "Loc_c (S)"),
    ("loc_fine.first", "Loc_f (F)"),
    ("loc_fine.second", "Loc_f (S)"),
    ("mhop.first", "MHop (F)"),
    ("mhop.second", "MHop (S)"),
    ("mhop_fullness.first", "MHop fullness (F)"),
    ("mhop_fullness.second", "MHop fullness (S)"),
    ("mhop_accessibility.first", "MHop accessibility (F)"),
    ("mhop_accessibility.second", "MHop accessibility (S)"),
    ("attitude", "Att"),
    ("loc_fine.narrator", "Loc_f narrator (control)"),
)
KEYS = tuple(k for k, _ in TABLE2_ROWS)
ROLE_KEYS = tuple(k for k in KEYS if k != "loc_fine.narrator")
ROLE_NAMES = ("mover", "observer")
READS = ("genre", "order", "role")  # the meta keys of `keys_of`


def item_meta(r: Record) -> OpentomMeta:
    """The meta `expand.item_of` wrote for the item of `r` (typed: a record keeps any
    family's meta)."""
    return cast(OpentomMeta, meta(r))


def keys_of(meta: OpentomMeta) -> list[str]:
    """The F1 keys an item counts in."""
    genre, order = meta["genre"], meta.get("order")
    if genre == "attitude":
        return ["attitude"]
    keys = [f"{genre}.{order}"]
    if meta.get("role") == "narrator":
        keys.append(f"{genre}.narrator")
    if genre.startswith("mhop_"):
        keys.append(f"mhop.{order}")
    return keys


def subsets_of(meta: OpentomMeta) -> Sequence[str | None]:
    """The perspective subsets (mover, observer) an item counts in."""
    subsets: Sequence[str | None] | None = meta.get("subsets")
    if subsets is None:  # records written before subsets were recorded
        subsets = ["observer"] if meta["genre"] == "attitude" else (
            list(ROLE_NAMES) if meta.get("role") == "narrator" else [meta.get("role")])
    return subsets


def predicted(rec: Record) -> str | None:
    """The label the answer gave; None for an unparseable answer or a failed request."""
    return predicted_from(*error_parsed_of(rec))


def predicted_from(error: str | None, parsed: str | None) -> str | None:
    """`predicted` of an answer with this outcome error and parsed label."""
    return parsed if not error else None


def pair(r: Record) -> tuple[Hashable, Hashable]:
    return item_meta(r)["gold_label"], predicted(r)


def unparseable(r: Record) -> float:
    return 1.0 if error_of(r) == UNPARSEABLE else 0.0


def counted_in(key: str) -> Callable[[Record], bool]:
    return lambda r: not is_skipped(r) and key in keys_of(item_meta(r))


def counted_for(key: str, role: str) -> Callable[[Record], bool]:
    """In `key` and in `role`'s perspective subset."""
    return lambda r: (not is_skipped(r) and key in keys_of(item_meta(r))
                      and role in subsets_of(item_meta(r)))


PLOTS = (
    Plot("f1", "OpenToM macro-F1 per genre and order", ylabel="macro-F1 (%)"),
    Plot("roles", "OpenToM macro-F1, mover vs observer", ylabel="macro-F1 (%)",
         also=tuple((k, label) for k, label in TABLE2_ROWS if k in ROLE_KEYS),
         series=(("mover", "f1_mover.{}"), ("observer", "f1_observer.{}"))),
)

F1 = tuple(
    Metric(f"f1.{key}", f"{label} macro-F1", GROUPED, select=counted_in(key), reads=READS,
           summarize=LabelPairs(pair), finish=macro_f1_of, unit=scenario_of, display=UNIT_SCALE,
           plot="f1", short=label)
    for key, label in TABLE2_ROWS)
ACCURACY = tuple(
    Metric(f"accuracy.{key}", f"{label} accuracy", PROPORTION, select=counted_in(key),
           reads=READS, display=UNIT_SCALE, headline=False)
    for key, label in TABLE2_ROWS)
PARSE_FAILURE = tuple(
    Metric(f"parse_failure.{key}", f"{label} unparseable", GROUPED, select=counted_in(key),
           reads=READS, summarize=ValueMean(unparseable), finish=mean_of, unit=scenario_of,
           higher_is_better=False, display=PERCENT, headline=False)
    for key, label in TABLE2_ROWS)
ROLE_F1 = tuple(
    Metric(f"f1_{role}.{key}", f"{label} {role} macro-F1", GROUPED,
           select=counted_for(key, role), reads=(*READS, "subsets"), summarize=LabelPairs(pair),
           finish=macro_f1_of, unit=scenario_of, display=UNIT_SCALE, headline=False)
    for key, label in TABLE2_ROWS if key in ROLE_KEYS for role in ROLE_NAMES)

METRICS = (*F1, *ACCURACY, *PARSE_FAILURE, *ROLE_F1)


def of_order(order: str) -> Callable[[Record], bool]:
    return lambda r: meta(r).get("order") == order


# a reasoning model's thought length on second-order questions against first-order ones,
# over every genre; a narrative asks both (paired by narrative)
CONTRASTS = (
    Contrast("order", "second against first order",
             Condition("first_order", "first-order questions", of_order("first"), ("order",)),
             (Condition("second_order", "second-order questions", of_order("second"),
                        ("order",)),), paired=True),
)
