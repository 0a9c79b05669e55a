"""`core/record_view.RecordView` reads a record as the writers build it, copies nothing,
and the TypedDicts of `core/record.py` declare every key the writers write."""

from __future__ import annotations

from dataclasses import fields

import pytest

from pytest_tom.core.model import ItemSpec, ProbePoint, SweepPoint
from pytest_tom.core.outcome import CUT_OFF, ERROR, MEASURED, Outcome
from pytest_tom.core.record import ItemSummary, OutcomeDict, ProbeRecord, SweepRecord
from pytest_tom.core.record_view import (
    RecordView,
    answer_rows,
    by_suite,
    by_tags,
    error_of,
    error_parsed_of,
    extra_of,
    extra_verdicts,
    facet_rows,
    gold_of,
    key_of,
    kind_of,
    meta_verdicts,
    most_samples,
    parsed_of,
    shows_reasoning,
    unit_of,
    verdict_of,
    verdicts,
)
from pytest_tom.items.item import build_record
from pytest_tom.metrics.record_table import UndeclaredRead, guarded


def _spec(**kw: object) -> ItemSpec:
    base = {"id": "s1::q1", "suite": "toy", "family": "generic", "scenario": "s1",
            "kind": "yes_no", "question": "Is it?", "gold": "yes", "tags": ["fb"],
            "meta": {"order": 2}, "source": {"file": "suites/toy.yaml"}, "line": 7}
    return ItemSpec(**{**base, **kw})  # type: ignore[arg-type]


def test_the_declarations_are_what_the_writers_write() -> None:
    spec = _spec()
    assert set(spec.summary()) == set(ItemSummary.__annotations__)
    assert set(Outcome(correct=True).to_dict()) == set(OutcomeDict.__annotations__)
    assert set(Outcome(correct=True, extra={"x": object()}).to_dict()) == \
        set(OutcomeDict.__annotations__)
    swept = build_record(_spec(sweep=SweepPoint("temperature", 0.5, "temperature=0.5", "toy", 1)),
                         Outcome(correct=True), ["yes"])
    assert set(swept["sweep"]) == set(SweepRecord.__annotations__)
    probed = build_record(_spec(probe=ProbePoint("shuffle", "probe=shuffle", "toy", (1, 0), 1)),
                          Outcome(correct=True), ["yes"])
    assert set(probed["probe"]) == set(ProbeRecord.__annotations__)
    assert {f.name for f in fields(ItemSpec)} - {"data", "sweep", "probe"} == \
        set(ItemSummary.__annotations__)


def test_the_view_reads_a_built_record_without_copying() -> None:
    rec = build_record(_spec(group="g1"), Outcome(correct=False, parsed="no", error=CUT_OFF,
                                                  detail="budget", extra={"in_thought": True}),
                       ["no"], requests=2, usage={"total_tokens": 5})
    view = RecordView(rec)
    assert view.item is rec["item"] and view.outcome is rec["outcome"]
    assert view.meta is rec["item"]["meta"] and view.tags is rec["item"]["tags"]
    assert (view.suite, view.id, view.kind, view.scenario, view.family) == \
        ("toy", "s1::q1", "yes_no", "s1", "generic")
    assert view.key == key_of(rec) == ("toy", "s1::q1")
    assert (view.correct, view.parsed, view.error, view.detail) == (False, "no", CUT_OFF,
                                                                     "budget")
    assert view.status == CUT_OFF and view.extra["in_thought"] is True
    assert view.unit == unit_of(rec) == "g1" and verdict_of(rec) == (CUT_OFF, False)
    assert view.source_file == "suites/toy.yaml" and view.line == 7
    assert view.responses == ["no"] and view.requests == 2 and view.usage == {"total_tokens": 5}
    assert list(facet_rows([rec], None)) == [(rec, {"order": 2}, ("fb",), "yes_no", CUT_OFF,
                                               False)]


def test_defaults_of_a_record_saved_before_a_field_existed() -> None:
    rec = {"item": {"suite": "toy", "id": "q", "scenario": "s", "kind": "k", "family": "f"},
           "outcome": {"correct": None}}
    view = RecordView(rec)
    assert view.unit == "s" and view.group == "" and view.tags == [] and dict(view.meta) == {}
    assert view.thoughts is None and view.finish is None and not view.has_thoughts
    assert (view.requests, view.cached, view.samples, view.endpoints) == (0, 0, [], {})
    assert view.sweep is None and view.sweep_index == 0 and view.probe is None
    assert view.status == MEASURED and view.detail == "" and dict(view.extra) == {}
    # a record with no outcome: its fields absent, its status an error
    bare = RecordView({"item": rec["item"]})
    assert bare.correct is None and bare.outcome_or_none is None and bare.status == ERROR
    # the item's identity is on every record: reading it from one without is an error
    with pytest.raises(KeyError):
        _ = RecordView({"outcome": {}}).suite


def test_the_one_loop_readers_read_what_the_view_reads() -> None:
    a = build_record(_spec(), Outcome(correct=True), ["yes"])
    b = build_record(_spec(id="s1::q2", suite="other", tags=[]), Outcome(correct=False,
                     error=CUT_OFF), ["no"], usage={"reasoning_tokens": 3})
    c = build_record(_spec(id="s1::q3"), Outcome(correct=None), ["4"])
    c["samples"] = [{"outcome": c["outcome"], "responses": ["4"]}] * 3
    recs = [a, b, c]
    assert by_suite(recs) == {"toy": [a, c], "other": [b]}
    assert by_tags(recs) == {("fb",): [a, c], (): [b]}
    assert most_samples(recs) == 3 == max(len(RecordView(r).samples) for r in recs)
    assert most_samples([a, b]) == 0
    assert [(r, e, v) for r, e, v in verdicts(recs)] == \
        [(r, RecordView(r).error, RecordView(r).correct) for r in recs]
    # reasoning shows as a thought (even an empty one) or a positive token count
    assert [shows_reasoning(r) for r in recs] == [False, True, False]
    assert shows_reasoning({**a, "thoughts": [None]})
    assert shows_reasoning({**a, "cached_usage": {"reasoning_tokens": 1}})
    assert not shows_reasoning({**a, "usage": {"reasoning_tokens": 0}})


def test_the_families_readers_read_what_the_view_reads() -> None:
    """The plain readers the families' per-record code uses (no view object) give the
    view's value and default for each field, an outcome-less record included."""
    a = build_record(_spec(group="g1"), Outcome(correct=False, parsed="no", error=CUT_OFF,
                                                extra={"named": ["x"]}), ["no"])
    b = {"item": {"suite": "toy", "id": "q", "scenario": "s", "kind": "k", "family": "f"},
         "outcome": {"correct": None}}  # saved before meta, gold, extra existed
    c = {"item": b["item"]}  # no outcome
    recs = [a, b, c]
    pairs = [(r, RecordView(r)) for r in recs]
    views = [v for _, v in pairs]
    assert [kind_of(r) for r in recs] == [v.kind for v in views] == ["yes_no", "k", "k"]
    assert [gold_of(r) for r in recs] == [v.gold for v in views] == ["yes", None, None]
    assert [error_of(r) for r in recs] == [v.error for v in views] == [CUT_OFF, None, None]
    assert [parsed_of(r) for r in recs] == [v.parsed for v in views] == ["no", None, None]
    assert [error_parsed_of(r) for r in recs] == [(v.error, v.parsed) for v in views]
    assert [dict(extra_of(r)) for r in recs] == [dict(v.extra) for v in views] == \
        [{"named": ["x"]}, {}, {}]
    assert [(r, dict(m), u, e, ok) for r, m, u, e, ok in meta_verdicts(recs)] == \
        [(r, dict(v.meta), v.unit, v.error, v.correct) for r, v in pairs]
    assert [(r, dict(x), e, ok) for r, x, e, ok in extra_verdicts(recs)] == \
        [(r, dict(v.extra), v.error, v.correct) for r, v in pairs]
    rows = [(r, k, dict(m), sc, st, e, ok, p, g, dict(x))
            for r, k, m, sc, st, e, ok, p, g, x in answer_rows(recs)]
    assert rows == [(r, v.kind, dict(v.meta), v.scenario, v.status, v.error, v.correct,
                     v.parsed, v.gold, dict(v.extra)) for r, v in pairs]
    assert [row[4] for row in rows] == [CUT_OFF, MEASURED, ERROR]
    # a selection's guarded record answers the readers of what it may see as the view
    seen = guarded(a, frozenset())
    assert (kind_of(seen), error_of(seen)) == ("yes_no", CUT_OFF)
    with pytest.raises(UndeclaredRead):
        gold_of(seen)


def test_a_selection_sees_only_what_it_declares() -> None:
    rec = build_record(_spec(meta={"order": 2, "secret": 1}), Outcome(correct=True), ["yes"])
    seen = guarded(rec, frozenset({"order"}))
    meta = seen["item"]["meta"]
    assert meta["order"] == 2 and meta.get("order") == 2 and "order" in meta
    assert dict(meta) == {"order": 2} and len(meta) == 1 and meta
    assert seen["item"].get("kind") == "yes_no" and seen["outcome"]["correct"] is True
    assert seen["outcome"].get("error") is None and "error" in seen["outcome"]
    for read in (lambda: meta["secret"], lambda: meta.get("secret"), lambda: "secret" in meta,
                 lambda: seen["item"]["gold"], lambda: seen["outcome"].get("parsed")):
        with pytest.raises(UndeclaredRead):
            read()
    # a declared key the record lacks reads as absent; a meta with none of the declared
    # keys is empty (falsy), whatever else it holds
    other = guarded(rec, frozenset({"rank"}))["item"]["meta"]
    assert other.get("rank", "-") == "-" and "rank" not in other and not other
    with pytest.raises(KeyError):
        other["rank"]
