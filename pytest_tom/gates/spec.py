"""The gate options as written: metric names (totals, suite, every suite, family),
thresholds (`turn=0.7,errors<=0`) and allowed drops (`0.02,goal=0.05`).

Parsing only; what the names resolve to is decided after aggregation (`gate.py`).
"""

from __future__ import annotations

import difflib
import fnmatch
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pytest_tom import families
from pytest_tom.core.option_table import TomOptions
from pytest_tom.families.base import Settings
from pytest_tom.metrics.accuracy import accuracy_block
from pytest_tom.metrics.declare import evaluate
from pytest_tom.suite.schema import did_you_mean

TOTALS = "totals"
TOTALS_METRICS: tuple[str, ...] = tuple(accuracy_block([]))
# core metrics (of the totals and of every suite) where lower is better; a family declares
# its own (`Family.lower_is_better`)
LOWER_IS_BETTER = frozenset({"errors", "unparseable", "cut_off", "wrong", "skipped",
                             "parse_failure_rate"})
RATES = frozenset({"turn", "goal", "parse_failure_rate"})  # core metrics that are fractions
# a suite name may hold a sweep's value in brackets, `=` included: `bigtom[thinking-tokens=1024]`
_REF = r"(?:\[[^\]\s]*\]|[^=<>\s\[])+"
_ENTRY = re.compile(rf"^(?P<ref>{_REF})\s*(?P<op>>=|<=|=)\s*(?P<value>\S+)$")
_DROP = re.compile(rf"^(?P<ref>{_REF})=(?P<value>.*)$")


class GateSpecError(ValueError):
    """A gate option that cannot be used (a usage error, exit status 4)."""


# -- addressing metrics ------------------------------------------------------------------
@dataclass(frozen=True)
class MetricRef:
    """A metric name as written in a gate option: totals, one suite, every suite, or a family."""

    metric: str
    suite: str | None = None  # a suite name, or "*" for every suite
    family: str | None = None
    text: str = ""

    @property
    def is_totals(self) -> bool:
        return self.suite is None and self.family is None


def family_names() -> set[str]:
    """Names that make `<name>.<metric>` a family-qualified metric."""
    return set(families.BUILTIN) | set(families.available())


def is_core(metric: str) -> bool:
    return metric in TOTALS_METRICS or metric == "parse_failure_rate" or metric.startswith("tag.")


def lower_is_better(metric: str, family: str | None = None) -> bool:
    """Is lower better for `metric` of a suite of `family` (None: the totals)?

    Core metrics by name; a family's own metrics as the family declares them."""
    if metric in LOWER_IS_BETTER:
        return True
    if family is None:
        return False

    return families.lower_is_better(family, metric)


def is_rate(metric: str) -> bool:
    return metric.rsplit(".", 1)[-1] in RATES and is_core(metric)


def parse_ref(text: str, known_families: set[str]) -> MetricRef:
    text = text.strip()
    if not text:
        raise GateSpecError("empty metric name")
    if ":" in text:
        scope, _, metric = text.partition(":")
        if not scope or not metric:
            raise GateSpecError(f"{text!r}: write <suite>:<metric>, e.g. my-suite:turn")
        if scope == TOTALS:
            ref = MetricRef(metric, text=text)
        else:
            return MetricRef(metric, suite=scope, text=text)
    else:
        head, dot, rest = text.partition(".")
        if dot and rest and head in known_families:
            return MetricRef(rest, family=head, text=text)
        ref = MetricRef(text, text=text)
    if ref.metric not in TOTALS_METRICS:
        raise GateSpecError(
            f"unknown metric {ref.metric!r} for the totals{did_you_mean(ref.metric, TOTALS_METRICS)}; "
            f"the totals have: {', '.join(TOTALS_METRICS)}. A suite's metrics are named "
            f"<suite>:<metric>, *:<metric> (every suite) or <family>.<metric> "
            f"(families: {', '.join(sorted(known_families))})")
    return ref


def parse_number(text: str, where: str) -> float:
    text = text.strip()
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise GateSpecError(f"{where}: {text!r} is not a number (write 0.7 or 70%)") from None
    if not math.isfinite(value):
        raise GateSpecError(f"{where}: {text!r} is not a finite number")
    return value


def _entries(spec: str) -> list[str]:
    return [e.strip() for e in spec.split(",") if e.strip()]


@dataclass(frozen=True)
class Threshold:
    ref: MetricRef
    op: str  # ">=" (a floor), "<=" (a ceiling), "=" (as the suite's family declares)
    value: float
    text: str


def parse_thresholds(spec: str | None, known_families: set[str]) -> list[Threshold]:
    """`turn=0.7,fantom.all_star>=0.05,my-suite:errors<=0` -> thresholds (GateSpecError if bad)."""
    out: list[Threshold] = []
    for entry in _entries(spec or ""):
        m = _ENTRY.match(entry)
        if not m:
            raise GateSpecError(f"--tom-fail-under: {entry!r} is not <metric>=<value> "
                                f"(e.g. turn=0.7,goal>=0.1,errors<=0)")
        ref = parse_ref(m["ref"], known_families)
        value = parse_number(m["value"], f"--tom-fail-under {entry!r}")
        op = m["op"]
        if op == "=" and (is_core(ref.metric) or ref.is_totals or ref.family is not None):
            op = "<=" if lower_is_better(ref.metric, ref.family) else ">="
        # else (`<suite>:<metric>`, `*:<metric>`) "=" stays: the direction follows the family
        # of each suite the name resolves to
        if is_rate(ref.metric) and not 0 <= value <= 1:
            raise GateSpecError(f"--tom-fail-under {entry!r}: {ref.metric} is a fraction between "
                                f"0 and 1; write {value / 100:g} or {value:g}%")
        out.append(Threshold(ref, op, value, entry))
    return out


@dataclass
class DropSpec:
    """Allowed worsening per metric: a default and overrides (`0.02,goal=0.05`)."""

    default: float = 0.0
    overrides: list[tuple[MetricRef, float]] = field(default_factory=list)

    def allowed(self, suite: str | None, family: str | None, metric: str) -> float:
        """The most specific override: suite, then family, then `*:`; totals by bare name."""
        ranked: list[tuple[int, float]] = []
        for ref, value in self.overrides:
            if ref.metric != metric:
                continue
            if suite is None:
                if ref.is_totals:
                    ranked.append((0, value))
            elif ref.suite == suite:
                ranked.append((0, value))
            elif ref.family is not None and ref.family == family:
                ranked.append((1, value))
            elif ref.suite == "*":
                ranked.append((2, value))
        return min(ranked)[1] if ranked else self.default


def parse_max_drop(spec: str | None, known_families: set[str]) -> DropSpec:
    out = DropSpec()
    seen_default = False
    for entry in _entries(spec or ""):
        if "=" not in entry:
            if seen_default:
                raise GateSpecError(f"--tom-max-drop: two default values ({entry!r}); give one "
                                    f"number and per-metric overrides as <metric>=<value>")
            out.default = _drop_value(entry, entry)
            seen_default = True
            continue
        m = _DROP.match(entry)
        ref_text, value = (m["ref"], m["value"]) if m else entry.partition("=")[::2]
        out.overrides.append((parse_ref(ref_text, known_families), _drop_value(value, entry)))
    return out


def _drop_value(text: str, entry: str) -> float:
    value = parse_number(text, f"--tom-max-drop {entry!r}")
    if value < 0:
        raise GateSpecError(f"--tom-max-drop {entry!r}: an allowed drop cannot be negative")
    return value


@dataclass(frozen=True)
class GateOptions:
    """The gate options as given, typed: from a run's `TomOptions` (`of`) or the
    `pytest-tom gate` command's arguments. The specs stay text until `GateConfig` parses
    them (a usage error names the option)."""

    fail_under: str | None = None
    baseline: str | None = None
    max_drop: str | None = None
    alpha: float = 0.05
    save_baseline: str | None = None
    markdown: str | None = None
    items: str | None = None

    @classmethod
    def of(cls, options: TomOptions) -> GateOptions:
        return cls(fail_under=options.fail_under, baseline=options.baseline,
                   max_drop=options.max_drop, alpha=options.alpha,
                   save_baseline=options.save_baseline, markdown=options.markdown,
                   items=options.items)


# -- family metric names, known before the run -------------------------------------------
SHOWN_NAMES = 12  # names listed in an unknown-metric message (the rest counted)


def family_metric_names(family_name: str, options: Mapping[str, Any]
                        ) -> tuple[set[str], tuple[str, ...]] | None:
    """(the metric names a family's suite reports, patterns of data-dependent names), or None
    when the family cannot say before the run (`Family.metric_patterns` is None)."""
    fam = families.get(family_name)
    if fam.metric_patterns is None:
        return None
    try:
        settings = Settings(options=options)
        # a family's aggregate takes the values of its declared metrics (none here)
        no_records = evaluate(fam.declared_metrics(settings), [])
        static = set(fam.aggregate([], settings, no_records).metrics)
    except Exception:  # a family whose aggregation needs records: checked after the run
        return None
    declared = {m.name for m in fam.headline_metrics}
    # every suite's data-dependent names: its tags' and, when it reasoned, the reasoning
    # figures (results/reasoning/reasoning_length)
    return (static | declared | set(TOTALS_METRICS) | {"parse_failure_rate"},
            (*fam.metric_patterns, "tag.*", "reasoning.*"))


def name_list(names: Iterable[str], near: str = "") -> str:
    """At most SHOWN_NAMES names, the closest to `near` first, and how many more there are."""
    names = sorted(set(names))
    close = difflib.get_close_matches(near, names, n=SHOWN_NAMES, cutoff=0.3) if near else []
    shown = close + [n for n in names if n not in close][: max(0, SHOWN_NAMES - len(close))]
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" ... and {more} more (every name: the JSON report's "
                               f"suites.<suite>.metrics)" if more > 0 else "")


def check_family_metrics(gate: GateOptions, options: Mapping[str, Any]) -> None:
    """GateSpecError when `--tom-fail-under`/`--tom-max-drop` name a family metric the family
    never reports, with the closest valid name; before the run rather than after it.
    `options`: the families' option values, with which a family says its metric names."""
    known = family_names()
    refs = [t.ref for t in parse_thresholds(gate.fail_under, known)]
    refs += [ref for ref, _ in parse_max_drop(gate.max_drop, known).overrides]
    problems = []
    for ref in refs:
        if ref.family is None:
            continue
        names = family_metric_names(ref.family, options)
        if names is None:
            continue
        static, patterns = names
        if ref.metric in static or any(fnmatch.fnmatchcase(ref.metric, p) for p in patterns):
            continue
        close = difflib.get_close_matches(ref.metric, sorted(static), n=1, cutoff=0.6)
        hint = f" (did you mean {ref.family + '.' + close[0]!r}?)" if close else ""
        problems.append(f"unknown metric {ref.text!r}{hint}; family {ref.family} reports: "
                        f"{name_list(static, ref.metric)}")
    if problems:
        raise GateSpecError("\n".join(dict.fromkeys(problems)))
