"""The fast paths of the 95% intervals give what the plain definitions give: selections
evaluated once per facet of the records, unit summaries read from integer codes, sums
over resamples by indexing or draw counts, the array forms of the F1s, and chunked
32-bit draws. (How fast they are is measured by benchmarks/aggregation.py.)"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest
from report_runs import load

from pytest_tom import families as registry
from pytest_tom.metrics.accuracy import group_key, judged
from pytest_tom.metrics.declare import GROUPED, PROPORTION, Joint
from pytest_tom.metrics.declare import Metric as Spec
from pytest_tom.metrics.intervals import (
    Resampler,
    Summaries,
    apply,
    chunks,
    label_pairs,
    macro_f1_of,
    ratio_of,
    weighted_f1_of,
)
from pytest_tom.metrics.pairing import joint_score
from pytest_tom.metrics.record_table import RecordTable, UndeclaredRead
from pytest_tom.results.headline import catalog, suite_of, table_of, totals_catalog


def suites_of(report: dict) -> dict[str, tuple[str, list[dict]]]:
    by: dict[str, list[dict]] = defaultdict(list)
    for r in report["items"]:
        by[r["item"]["suite"]].append(r)
    return {name: (suite["family"], by[name]) for name, suite in report["suites"].items()}


def plain_summaries(spec: Spec, records: list[dict]) -> dict:
    """The definition read record by record: the selected records of each unit."""
    units: dict = defaultdict(list)
    unit = spec.unit if callable(spec.unit) else (lambda r: tuple(f(r) for f in spec.unit))
    for r in records:
        if spec.select(r):
            units[unit(r)].append(r)
    return dict(sorted(units.items(), key=lambda kv: str(kv[0])))


# -- facets ---------------------------------------------------------------------------
def test_facets_give_every_selection_its_record_by_record_verdict(
        demo_reports: dict[str, Path]) -> None:
    for answerer in ("weak", "strong"):
        report = load(demo_reports[answerer])
        families = set()
        for name, (family, records) in suites_of(report).items():
            families.add(family)
            table = table_of(family, records)
            assert len(table.representatives) < len(records), name  # facets are shared
            for spec in catalog(family, table).specs:
                mask = spec.selected(table)
                assert mask.tolist() == [bool(spec.select(r)) for r in records], (name, spec.name)
                if spec.kind == PROPORTION:
                    j = [r for r in judged(records) if spec.select(r)]
                    assert spec.counts(table) == (
                        sum(1 for r in j if r["outcome"]["correct"]), len(j)), (name, spec.name)
        declaring = {n for n in registry.BUILTIN if registry.get(n).headline_metrics}
        assert declaring and declaring <= families  # every family's metrics were checked


def test_a_selection_reading_an_undeclared_key_is_an_error_not_a_wrong_count() -> None:
    # a selection reading a meta key the facets leave out would count the facets' first
    # records only: the guarded view refuses the read instead
    records = [{"item": {"suite": "s", "id": f"q{i}", "scenario": "s", "tags": [], "kind": "k",
                         "meta": {"x": i % 2}}, "outcome": {"correct": True}}
               for i in range(6)]
    reads_x = Spec("x", "x", PROPORTION, select=lambda r: r["item"]["meta"]["x"] == 1,
                   reads=("x",))
    assert reads_x.counts(RecordTable(records, ("x",))) == (3, 3)
    undeclared = Spec("x", "x", PROPORTION, select=reads_x.select)
    with pytest.raises(UndeclaredRead, match=r"metric 'x'.*item\['meta'\]\['x'\]"):
        undeclared.counts(RecordTable(records, ("x",)))
    with pytest.raises(UndeclaredRead, match="x"):  # declared, but not faceted by the table
        reads_x.counts(RecordTable(records, ()))
    assert undeclared.counts(RecordTable(records, None)) == (3, 3)  # record by record


# -- unit summaries ---------------------------------------------------------------------
def test_unit_summaries_equal_the_record_by_record_definitions(
        demo_reports: dict[str, Path]) -> None:
    report = load(demo_reports["weak"])
    checked = Counter()
    for name, (family, records) in suites_of(report).items():
        table = table_of(family, records)
        for spec in catalog(family, table).specs:
            if spec.kind != GROUPED:
                continue
            got = spec.summaries(table)
            plain = plain_summaries(spec, records)
            assert list(got) == list(plain), (name, spec.name)  # same units, same order
            for unit, recs in plain.items():
                want = reference_summary(spec, recs)
                assert {k: v for k, v in got[unit].items() if v} == \
                    {k: v for k, v in want.items() if v}, (name, spec.name, unit)
            checked[type(spec.summarize).__name__] += 1
    assert set(checked) == {"AllRight", "Joint", "LabelPairs", "ValueMean", "GroupShares",
                            "GivenRight"}


def reference_summary(spec: Spec, recs: list[dict]) -> Counter:
    """Each summary kind written out plainly over one unit's selected records."""
    kind = type(spec.summarize).__name__
    s = spec.summarize
    if kind == "AllRight":
        pool = recs if s.include_skipped else judged(recs)
        return Counter(ok=int(bool(pool) and all(r["outcome"].get("correct") is True
                                                  for r in pool)), n=int(bool(pool)))
    if kind == "Joint":
        j = joint_score(recs, key=s.key, role=s.role, anchor=s.anchor, dependent=s.dependent)
        return Counter(ok=j.both, n=j.pairs)
    if kind == "LabelPairs":
        pairs = [s.pair(r) for r in recs]
        return label_pairs([g for g, _ in pairs], [p for _, p in pairs])
    if kind == "ValueMean":
        return Counter(sum=sum(s.value(r) for r in recs), n=len(recs))
    if kind == "GroupShares":  # ToMBench's averages: one question per unit, one try by default
        (rec,) = recs
        right = int(rec["outcome"].get("correct") is True)
        return Counter({key: value for group in s.groups(rec)
                        for key, value in ((("n", group), 1), (("ok", group), right))})
    if kind == "GivenRight":  # SimpleToM: the dependent question among stories whose anchor
        # question was answered right (one story a unit, one question of each kind)
        pool = judged(recs)
        anchor = any(r["item"]["meta"]["kind"] == s.anchor and r["outcome"].get("correct") is True
                     for r in pool)
        dependent = [r for r in pool if r["item"]["meta"]["kind"] == s.dependent]
        n = int(anchor and bool(dependent))
        return Counter(ok=int(n and dependent[-1]["outcome"].get("correct") is True), n=n)
    raise AssertionError(kind)


def test_joint_pairs_within_a_unit_and_raises_on_two_records_of_one_role_and_key() -> None:
    def rec(i: int, role: str, scenario: str = "sc", right: bool = True) -> dict:
        return {"item": {"suite": "s", "id": f"q{i}", "scenario": scenario, "tags": [],
                         "kind": "k", "meta": {"role": role, "t": 1}},
                "outcome": {"correct": right}}
    spec = Spec("j", "j", GROUPED, summarize=Joint(lambda r: r["item"]["meta"]["t"],
                                                   lambda r: r["item"]["meta"]["role"], "a", "d"),
                finish=ratio_of(), unit=lambda r: r["item"]["scenario"])
    got = spec.summaries([rec(0, "a"), rec(1, "d"), rec(2, "a", "other", False),
                          rec(3, "d", "third")])
    # the anchor of "other" is wrong, and the dependent of "third" has no anchor there
    assert got == {"other": Counter(ok=0, n=0), "sc": Counter(ok=1, n=1),
                   "third": Counter(ok=0, n=0)}
    assert spec.summaries([rec(0, "a", right=False), rec(1, "d")])["sc"] == Counter(ok=0, n=1)
    with pytest.raises(ValueError, match="two a records share the pairing key 1"):
        spec.summaries([rec(0, "a"), rec(1, "d"), rec(2, "a")])


def test_totals_from_the_suites_tables_equal_a_table_of_all_records(
        demo_reports: dict[str, Path]) -> None:
    report = load(demo_reports["weak"])
    tables = []
    for name, (family, records) in suites_of(report).items():
        table = table_of(family, records)
        table.constant(suite_of, name)
        catalog(family, table).get("goal").summaries(table)  # reads the groups of some
        tables.append(table)
    joined = RecordTable.concat(tables)
    whole = RecordTable([r for t in tables for r in t.records], None)
    for spec in totals_catalog().specs:
        if spec.kind == PROPORTION:
            assert joined.counts(spec.select) == whole.counts(spec.select)
        else:
            got = spec.summaries(joined)
            assert got == spec.summaries(whole)
            assert list(got) == sorted(got, key=str)
            assert list(got) == list(plain_summaries(spec, whole.records))
            assert all(isinstance(u, tuple) and len(u) == 2 for u in got)
    assert suite_of in joined._columns and group_key in joined._columns  # merged, not re-read


# -- resampling ---------------------------------------------------------------------------
def naive_sums(summaries: Summaries, draws: np.ndarray) -> dict:
    return {k: np.array([summaries.matrix[row, j].sum() for row in draws])
            for j, k in enumerate(summaries.keys)}


@pytest.mark.parametrize("keys", [1, 3, 7])
def test_resampler_sums_equal_the_sums_of_the_drawn_groups(keys: int) -> None:
    rng = random.Random(keys)
    counters = [Counter({f"k{j}": rng.randint(0, 4) for j in range(keys)} | {"same": 2})
                for _ in range(40)]
    summaries = Summaries.of(counters)
    sampler = Resampler(summaries)
    assert sampler.fixed == {"same": 80.0} and len(sampler.varying) == keys
    draws = sampler.draws(np.random.default_rng(1), 25)
    got, want = sampler.sums(draws), naive_sums(summaries, draws)
    assert set(got) == set(want)
    for k in want:
        assert np.array_equal(got[k], want[k]), k


def test_chunked_32_bit_draws_are_the_same_draws_as_one_64_bit_draw() -> None:
    # what the intervals drew before chunks and 32-bit indices: one (1000, n) int64 draw
    for n in (1, 7, 560, 6384):
        whole = np.random.default_rng(11).integers(0, n, size=(1000, n))
        sampler = Resampler(Summaries.of([Counter(ok=i % 2, n=1) for i in range(n)]))
        for sizes in (chunks(1000, n), [333, 1, 500, 166]):
            rng = np.random.default_rng(11)
            parts = [sampler.draws(rng, m) for m in sizes]
            assert parts[0].dtype == np.int32
            assert np.array_equal(np.concatenate(parts), whole), (n, sizes)


def test_summaries_total_adds_group_after_group() -> None:
    values = [0.1, 0.7, 1e-17, 0.2, 1 / 3]
    s = Summaries.of([Counter(sum=v, n=1) for v in values])
    running = 0.0
    for v in values:
        running += v
    assert s.total() == Counter(sum=running, n=5)
    assert isinstance(s.total()["n"], int)


@pytest.mark.parametrize("finish", [macro_f1_of, weighted_f1_of])
def test_f1_array_forms_equal_their_scalar_forms(finish) -> None:
    rng = np.random.default_rng(3)
    labels = ["a", "b", "c", None, "irrelevant"]
    keys = [("pair", g, p) for g in labels[:3] for p in labels]
    keys.append("other")  # not a pair: ignored by both forms
    m = 400
    # sparse counts: many resamples lack some labels entirely, some lack every pair
    sums = {k: rng.integers(0, 4, m) * (rng.random(m) < 0.3) for k in keys}
    sums = {k: v.astype(np.float64) for k, v in sums.items()}
    sums[keys[0]][:5] = 0.0
    for k in keys[1:-1]:
        sums[k][:5] = 0.0  # resamples 0-4: no pairs at all
    batch = apply(finish, sums, m)
    scalar = np.array([np.nan if (v := finish(Counter({k: int(c[i]) for k, c in sums.items()})))
                       is None else v for i in range(m)])
    assert np.isnan(batch[:5]).all() and np.isnan(scalar[:5]).all()
    assert np.allclose(batch, scalar, rtol=1e-12, atol=0, equal_nan=True)
    assert not np.isnan(batch[5:]).all()


@pytest.mark.parametrize("distinct", [3, 5000])
def test_codes_of_a_tuple_of_functions_are_the_tuples_of_their_values(distinct: int) -> None:
    # few combinations are found by counting, many by sorting: both give the same units
    rng = random.Random(distinct)
    records = [{"item": {"suite": "s", "id": f"q{i}", "scenario": f"sc{rng.randrange(distinct)}",
                         "group": f"g{rng.randrange(distinct)}"}, "outcome": {"correct": True}}
               for i in range(300)]
    table = RecordTable(records, None)
    rows = np.arange(0, 300, 2)
    key = (lambda r: r["item"]["scenario"], group_key)
    codes, labels = table.codes(key, rows)
    assert [labels[c] for c in codes.tolist()] == \
        [(records[i]["item"]["scenario"], group_key(records[i])) for i in rows.tolist()]
    unit_of, units = table.units(key, rows)
    assert units == sorted({labels[c] for c in codes.tolist()}, key=str)
    assert [units[u] for u in unit_of.tolist()] == [labels[c] for c in codes.tolist()]


def test_facets_of_unhashable_meta_values() -> None:
    records = [{"item": {"suite": "s", "id": f"q{i}", "scenario": "s", "tags": ["t"],
                         "meta": {"x": [i % 3]}}, "outcome": {"correct": i % 2 == 0}}
               for i in range(12)]
    table = RecordTable(records, ("x",))
    assert len(table.representatives) == 6  # 3 values of x × right or wrong

    def select(r: dict) -> bool:
        return r["item"]["meta"]["x"] == [1]

    assert table.selected(select, ("x",)).tolist() == [select(r) for r in records]
    assert table.counts(select, ("x",)) == (2, 4)


def test_a_selection_runs_once_per_facet_for_the_value_and_the_interval() -> None:
    """A run evaluates a declared metric for its value and again for its interval over one
    table: the selection's verdicts are kept, not computed twice."""
    records = [{"item": {"suite": "s", "id": f"q{i}", "scenario": f"s{i % 4}", "tags": [],
                         "meta": {"x": i % 3}}, "outcome": {"correct": i % 2 == 0}}
               for i in range(24)]
    table = RecordTable(records, ("x",))
    calls: list[int] = []

    def select(r: dict) -> bool:
        calls.append(1)
        return r["item"]["meta"]["x"] == 1

    spec = Spec("m", "m", PROPORTION, select=select, reads=("x",))
    value = spec.evaluate(table)
    interval = spec.interval(table, 0, "s")
    assert len(calls) == len(table.representatives) == 6
    assert value.count() == (4, 8) and interval.n == 8 and interval.value == value.value == 0.5
    with pytest.raises(ValueError):  # the kept verdicts cannot be changed by a caller
        table.verdicts(select, ("x",))[0] = True
