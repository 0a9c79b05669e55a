"""FANToM's tables read the declared metrics (issue 22): every cell that shows a declared
metric shows the value the engine hands to `aggregate`, never a count of the family's
own; and the metrics declared for the control task's Table 9 columns, the Belief TokenF1
and the ToM orders, against values worked out by hand on small hand-built records."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import SUITES

from pytest_tom.catalogue.load import load_suite
from pytest_tom.core.outcome import Outcome
from pytest_tom.families.base import FamilyResult, ScoringContext, Settings
from pytest_tom.families.fantom.family import FantomFamily
from pytest_tom.families.fantom.metrics import COLUMNS, CONTROL_SET_LEVEL
from pytest_tom.metrics.declare import Value, evaluate
from pytest_tom.metrics.numbers import points
from pytest_tom.results.aggregate import aggregate, family_result

SETTINGS = Settings(options={"fantom_context": "short"})
ORDER_SUFFIXES = ("first_order", "second_order", "second_order_cyclic", "second_order_acyclic")


def bundled_records(skip_dist: bool = False) -> list[dict[str, Any]]:
    """The bundled FANToM suite, every answer right, one in five list answers wrong (so
    that real counts are not all 100); free responses judged by hand (no embedder), or
    skipped as without the embeddings extra."""
    fam = FantomFamily()
    ctx = ScoringContext(SETTINGS)
    items = load_suite(SUITES / "fantom" / "smalltalk.tom.yaml", SETTINGS).items
    out = []
    for i, it in enumerate(items):
        if it.kind == "belief_dist":
            outcome = (Outcome(correct=None, error="unavailable", detail="no embedder here")
                       if skip_dist else Outcome(correct=True, parsed=str(it.gold), value=1.0))
        elif it.kind == "belief_choice":
            outcome = fam.score(it, f"({it.meta['gold_letter']})", ctx)
        elif it.kind.endswith("_list"):
            wrong = i % 5 == 0
            names = [*it.meta["aware"], *(it.meta["unaware"] if wrong else [])]
            outcome = fam.score(it, ", ".join(names) or "Nobody.", ctx)
        elif it.kind.endswith("_yn"):
            outcome = fam.score(it, "Yes." if it.gold == "yes" else "No.", ctx)
        else:
            outcome = fam.score(it, str(it.gold), ctx)
        out.append({"item": it.summary(), "outcome": outcome.to_dict()})
    return out


def sentinels(records: list[dict[str, Any]]) -> dict[str, Value]:
    """A value for every declared metric that no count of these records gives: distinct
    values (0.7, 1.4, 2.1, ... in percent points) and counts (`ok` 1000+i of `n` 2000+i,
    `sum` 3000+i)."""
    declared = evaluate(FantomFamily().declared_metrics(SETTINGS), records)
    return {name: Value(0.007 * (i + 1), Counter({"ok": 1000 + i, "n": 2000 + i,
                                                  "sum": 3000.0 + i}), 7)
            for i, name in enumerate(declared)}


def table(result: FamilyResult, title: str) -> Any:
    return next(t for t in result.tables if title in t.title)


def test_tables_show_the_declared_values_not_their_own_counts() -> None:
    records = bundled_records()
    declared = sentinels(records)
    result = FantomFamily().aggregate(records, SETTINGS, declared)

    def shown(name: str) -> str:
        return points(declared[name].value)

    main = table(result, "FANToM scores")
    inaccessible, control = main.rows
    assert inaccessible[0] == "inaccessible" and control[0] == "control"
    for i, (col, _) in enumerate(COLUMNS, start=1):
        assert inaccessible[i] == shown(col), col
        if col == "fact_token_f1":
            assert control[i] == shown(col)
        elif col not in CONTROL_SET_LEVEL:
            assert control[i] == shown(f"accessible.{col}"), col
    orders = table(result, "ToM order")
    for row in orders.rows:
        scen = "inaccessible" if row[0] == "inaccessible" else "accessible"
        assert row[2:] == [shown(f"{scen}.{row[1]}.{o}") for o in ORDER_SUFFIXES], row[:2]
    assert len(orders.rows) == 4
    m = result.metrics
    # figures beside the declared ones read them too: the counts behind them, and the
    # inaccessible scenario's names of the FANToM scores
    assert m["fact_questions"] == 2000 + list(declared).index("fact_token_f1")
    assert m["inaccessible.groups"] == declared["all"].count()[1]
    for col, _ in COLUMNS:
        if col != "fact_token_f1":
            assert m[f"inaccessible.{col}"] == declared[col].value, col
    # and the declared metrics themselves are the engine's to set: none is reported here
    assert not set(m) & set(declared)


def test_control_set_level_figures_and_the_rest_are_the_familys_own() -> None:
    """The figures the declarations cannot express keep their own counts, whatever the
    declared values: the control task's set-level columns and the per-character table."""
    records = bundled_records()
    declared = sentinels(records)
    result = FantomFamily().aggregate(records, SETTINGS, declared)
    reported = family_result("fantom", records, SETTINGS)
    control = table(result, "FANToM scores").rows[1]
    for i, (col, _) in enumerate(COLUMNS, start=1):
        if col in CONTROL_SET_LEVEL:
            assert control[i] == points(reported.metrics[f"accessible.{col}"]) == "100.0", col
    assert table(result, "per character").rows == table(reported, "per character").rows


def test_unavailable_free_responses_stay_unavailable_whatever_is_declared() -> None:
    records = bundled_records(skip_dist=True)
    declared = sentinels(records)
    result = FantomFamily().aggregate(records, SETTINGS, declared)
    main = table(result, "FANToM scores")
    for row in main.rows:
        for i, (col, _) in enumerate(COLUMNS, start=1):
            if col in ("all_star", "belief_dist", "belief_dist_token_f1"):
                assert row[i] == "unavailable", (row[0], col)
    for name in ("all_star", "belief_dist", "belief_dist_token_f1", "accessible.belief_dist",
                 "accessible.belief_dist_token_f1", "inaccessible.belief_dist.first_order",
                 "accessible.belief_dist.second_order"):
        assert name in result.metrics and result.metrics[name] is None, name
    # through the engine: None in the report, not the declared value
    reported = family_result("fantom", records, SETTINGS).metrics
    assert reported["all_star"] is None and reported["accessible.belief_dist"] is None
    assert reported["all"] is not None and reported["belief_choice"] == 1.0


# -- the newly declared metrics, by hand ---------------------------------------------------

def rec(n: int, kind: str, set_id: str, scen: str, correct: bool, *, order: str | None = None,
        value: float | None = None, gold: str | None = None, parsed: Any = None,
        error: str | None = None) -> dict[str, Any]:
    meta = {"set": set_id, "accessibility": scen, "part": "p1", "conversation": "c1",
            "context": "short"}
    if order:
        meta["tom_order"] = order
    if kind.endswith("_yn"):
        meta["character"] = f"Char{n}"
    item = {"id": f"{set_id}::{kind}::{n}", "suite": "hand", "family": "fantom", "kind": kind,
            "scenario": "c1", "group": set_id, "tags": [], "gold": gold, "meta": meta,
            "source": {"file": "hand.tom.yaml"}}
    outcome = Outcome(correct=correct, parsed=parsed, value=value, error=error)
    return {"item": item, "outcome": outcome.to_dict()}


FIRST, CYCLIC, ACYCLIC = "first-order", "second-order:cyclic", "second-order:acyclic"
ACC, INACC = "accessible", "inaccessible"

HAND = [
    # accessible beliefs: choice right/wrong/right by order in set A, a failed request in B
    rec(1, "belief_choice", "A", ACC, True, order=FIRST),
    rec(2, "belief_choice", "A", ACC, False, order=CYCLIC),
    rec(3, "belief_choice", "A", ACC, True, order=ACYCLIC),
    rec(4, "belief_choice", "B", ACC, False, order=FIRST, error="request_failed"),
    rec(5, "belief_dist", "A", ACC, True, order=FIRST, value=0.5),
    rec(6, "belief_dist", "A", ACC, True, order=CYCLIC, value=1.0),
    rec(7, "belief_dist", "A", ACC, False, order=ACYCLIC, value=0.2),
    # accessible answerability: list right in A, wrong in B; yes/no (gold, answer) pairs
    rec(8, "answerability_list", "A", ACC, True),
    rec(9, "answerability_list", "B", ACC, False),
    rec(10, "answerability_yn", "A", ACC, True, gold="yes", parsed="yes"),
    rec(11, "answerability_yn", "A", ACC, False, gold="no", parsed="yes"),
    rec(12, "answerability_yn", "B", ACC, False, gold="yes", parsed=None, error="unparseable"),
    rec(13, "answerability_yn", "B", ACC, True, gold="no", parsed="no"),
    # inaccessible beliefs: second orders only; free responses right, right, wrong
    rec(14, "belief_choice", "C", INACC, True, order=CYCLIC),
    rec(15, "belief_choice", "C", INACC, False, order=CYCLIC),
    rec(16, "belief_choice", "D", INACC, False, order=ACYCLIC),
    rec(17, "belief_dist", "C", INACC, True, order=CYCLIC, value=0.25),
    rec(18, "belief_dist", "D", INACC, True, order=ACYCLIC, value=0.75),
    rec(19, "belief_dist", "D", INACC, False, order=CYCLIC, value=0.9),
]

BY_HAND = {
    "accessible.belief_choice": 2 / 4,  # the failed request counts as wrong
    "accessible.belief_dist": 2 / 3,
    "accessible.belief_dist_token_f1": (0.5 + 1.0) / 2,  # the Dist.-correct answers only
    "accessible.answerability_list": 1 / 2,
    # yes: P 1/2 R 1/2 F1 1/2; no: P 1 R 1/2 F1 2/3; each weighted by its 2 golds of 4
    "accessible.answerability_yn_f1": (2 * (1 / 2) + 2 * (2 / 3)) / 4,
    "accessible.infoaccess_list": None,  # no such question
    "accessible.belief_choice.first_order": 1 / 2,
    "accessible.belief_choice.second_order": 1 / 2,
    "accessible.belief_choice.second_order_cyclic": 0.0,
    "accessible.belief_choice.second_order_acyclic": 1.0,
    "accessible.belief_dist.second_order": 1 / 2,
    "belief_dist_token_f1": (0.25 + 0.75) / 2,
    "inaccessible.belief_choice.first_order": None,  # no first-order question: n/a, not 0
    "inaccessible.belief_choice.second_order": 1 / 3,
    "inaccessible.belief_choice.second_order_cyclic": 1 / 2,
    "inaccessible.belief_choice.second_order_acyclic": 0.0,
    "inaccessible.belief_dist.second_order_cyclic": 1 / 2,
}


def test_newly_declared_metrics_against_hand_computed_values() -> None:
    declared = evaluate(FantomFamily().declared_metrics(SETTINGS), HAND)
    reported = family_result("fantom", HAND, SETTINGS).metrics
    for name, want in BY_HAND.items():
        if want is None:
            assert declared[name].value is None, name
            assert name in reported and reported[name] is None, name  # null, not left out
        else:
            assert declared[name].value == pytest.approx(want), name
            assert reported[name] == pytest.approx(want), name
    assert declared["accessible.belief_choice"].count() == (2, 4)
    assert declared["accessible.belief_dist_token_f1"].count("sum", "n") == (1, 2)


def test_newly_declared_metrics_get_intervals_in_a_run(tmp_path: Path) -> None:
    """Declared once, a metric gets its 95% interval in the report with no other code:
    Wilson for a proportion, the set bootstrap for the token F1 (set A alone: too few
    sets for a bootstrap, so null bounds there)."""
    results = aggregate(HAND, SETTINGS)
    intervals = results["suites"]["hand"]["intervals"]
    iv = intervals["accessible.belief_choice"]
    assert (iv["method"], iv["n"], iv["value"]) == ("wilson", 4, 0.5)
    assert 0 < iv["low"] < 0.5 < iv["high"] < 1
    iv = intervals["inaccessible.belief_choice.second_order"]
    assert (iv["method"], iv["n"]) == ("wilson", 3) and iv["headline"] is False
    assert intervals["belief_dist_token_f1"]["method"] == "bootstrap"  # sets C and D
    one = intervals["accessible.belief_dist_token_f1"]  # one set: no bootstrap, null bounds
    assert (one["method"], one["n"], one["low"], one["high"]) == ("bootstrap", 1, None, None)
    assert "inaccessible.belief_choice.first_order" not in intervals  # no value
