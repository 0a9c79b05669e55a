"""OpenToM's metrics are defined once (`opentom.headline`) and its tables read them: the
declarations against hand-computed values on hand-built records, and the tables shown
with sentinel values in place of the declared ones (a table that counted on its own would
show the records' figures instead)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from test_opentom_suite import HEAD, write

from pytest_tom.catalogue.load import load_suite
from pytest_tom.families.base import ScoringContext, Settings
from pytest_tom.families.opentom.family import OpenTomFamily
from pytest_tom.families.opentom.headline import KEYS, METRICS, ROLE_KEYS, TABLE2_ROWS
from pytest_tom.metrics.declare import Value, evaluate
from pytest_tom.results.aggregate import aggregate, family_result

QUESTIONS = """\
      - {genre: loc_coarse, order: first, perspective: mover, answer: "No"}
      - {genre: loc_coarse, order: first, perspective: observer, answer: "Yes"}
      - {genre: loc_fine, order: first, perspective: mover, answer: the sink}
      - {genre: loc_fine, order: first, perspective: observer, answer: the shelf}
      - {id: end, genre: loc_fine, order: first, perspective: narrator, answer: the sink,
         ask: Where is the cup at the end of the story?}
      - {genre: attitude, answer: negative}
"""
FAILED = {"correct": False, "parsed": None, "value": None, "error": "request_failed",
          "detail": "timeout", "extra": {}}
SKIPPED = {"correct": None, "parsed": None, "value": None, "error": "unavailable",
           "detail": "skipped", "extra": {}}


def records(tmp_path: Path, answers: list[str | dict[str, Any]],
            narratives: int = 1) -> list[dict[str, Any]]:
    """The records of QUESTIONS answered with `answers` (a text is scored by the family, a
    dict is the outcome itself), in `narratives` copies of the narrative."""
    scenario = HEAD[HEAD.index("  - id: s1"):]
    more = "".join(scenario.replace("id: s1", f"id: s{n}") + QUESTIONS
                   for n in range(2, narratives + 1))
    items = load_suite(write(tmp_path, QUESTIONS + more)).items
    answers = answers * narratives
    fam, ctx = OpenTomFamily(), ScoringContext(Settings())
    return [{"item": it.summary(),
             "outcome": a if isinstance(a, dict) else fam.score(it, a, ctx).to_dict()}
            for it, a in zip(items, answers, strict=True)]


# mover "No" right; observer: a failed request; fine mover "the sink" right; fine observer
# unparseable; narrator "the shelf" wrong (class original for gold new); attitude skipped
ANSWERS: list[str | dict[str, Any]] = [
    "No.", FAILED, "In the sink.", "I have no idea.", "On the shelf.", SKIPPED]


def test_new_declarations_by_hand(tmp_path: Path) -> None:
    values = evaluate(METRICS, records(tmp_path, ANSWERS))
    # Loc_c (F): mover right, observer's request failed: 1 of 2 right, neither unparseable
    assert values["accuracy.loc_coarse.first"].value == 0.5
    assert values["accuracy.loc_coarse.first"].count() == (1, 2)
    assert values["parse_failure.loc_coarse.first"].value == 0.0  # a failed request is no parse failure
    # Loc_f (F): mover, observer and narrator; gold new, original, new; predicted new,
    # (unparseable), original: 1 of 3 right, 1 of 3 unparseable
    assert values["accuracy.loc_fine.first"].value == pytest.approx(1 / 3)
    assert values["parse_failure.loc_fine.first"].value == pytest.approx(1 / 3)
    assert values["parse_failure.loc_fine.first"].total == Counter({"sum": 1, "n": 3})
    # mover subset of Loc_f (F): mover + narrator; gold new, new; predicted new, original:
    # new TP 1 FN 1 -> 2/3; original FP 1 -> 0
    assert values["f1_mover.loc_fine.first"].value == pytest.approx((2 / 3 + 0) / 2)
    # observer subset: observer + narrator; gold original, new; predicted unparsed, original:
    # original TP 0 FP 1 FN 1 -> 0; new FN 1 -> 0; unparsed FP 1 -> 0
    assert values["f1_observer.loc_fine.first"].value == 0.0
    # Loc_c (F) mover subset: only the mover's question, answered right
    assert values["f1_mover.loc_coarse.first"].value == 1.0
    # the observer's: gold Yes, failed request = class unparsed: Yes 0, unparsed 0
    assert values["f1_observer.loc_coarse.first"].value == 0.0
    # the attitude question was skipped: nothing counted, no value
    for name in ("accuracy.attitude", "parse_failure.attitude", "f1_observer.attitude",
                 "f1_mover.attitude"):
        assert values[name].value is None, name
    # the narrator's row: gold new, predicted original
    assert values["accuracy.loc_fine.narrator"].count() == (0, 1)


def test_new_declarations_get_intervals_and_directions(tmp_path: Path) -> None:
    recs = records(tmp_path, ANSWERS, narratives=2)  # a bootstrap needs two narratives
    suite = aggregate(recs, Settings())["suites"]["t"]
    metrics, intervals = suite["metrics"], suite["intervals"]
    for name in ("accuracy.loc_fine.first", "parse_failure.loc_fine.first",
                 "f1_mover.loc_fine.first", "f1_observer.loc_fine.first"):
        assert intervals[name]["value"] == metrics[name], name
    assert intervals["accuracy.loc_fine.first"]["method"] == "wilson"
    assert intervals["f1_mover.loc_fine.first"]["n"] == 2  # resampled by narrative
    assert metrics["f1_mover.attitude"] is None and "f1_mover.attitude" not in intervals
    by_name = {m.name: m for m in METRICS}
    assert not by_name["parse_failure.attitude"].higher_is_better
    assert by_name["f1_mover.attitude"].higher_is_better
    assert not any(m.headline for m in METRICS if not m.name.startswith("f1."))


def sentinels() -> dict[str, Value]:
    """A distinct value for every declared metric, none a figure the records could give,
    with (gold, predicted) pair counts behind each F1 that sum to 100 + its row's index."""
    out: dict[str, Value] = {}
    for i, (key, _label) in enumerate(TABLE2_ROWS):
        out[f"f1.{key}"] = Value(0.1001 + i / 1000, Counter({("pair", "x", "x"): 100 + i}), 1)
        out[f"accuracy.{key}"] = Value(0.2002 + i / 1000, Counter({"ok": 1, "n": 2}), 2)
        out[f"parse_failure.{key}"] = Value(0.0303 + i / 1000, Counter({"sum": 1, "n": 33}), 1)
        if key in ROLE_KEYS:
            out[f"f1_mover.{key}"] = Value(0.7007 + i / 1000)
            out[f"f1_observer.{key}"] = Value(0.4004 + i / 1000)
    assert set(out) == {m.name for m in METRICS}
    return out


@pytest.mark.parametrize("protocol", ["pool", "samples"])
def test_tables_read_the_declared_values(tmp_path: Path, protocol: str) -> None:
    recs = records(tmp_path, ANSWERS)
    settings = Settings(options={"opentom_protocol": protocol, "opentom_samples": 1,
                                 "opentom_sample_size": 1})
    declared = sentinels()
    result = OpenTomFamily().aggregate(recs, settings, declared)
    table2, faith, roles = result.tables
    rows = {row[0]: row for row in table2.rows}
    assert len(rows) == len(TABLE2_ROWS)  # every row has items: the declared pairs say so
    for i, (key, label) in enumerate(TABLE2_ROWS):
        row = rows[label]
        assert row[1:5] == [round(0.1001 + i / 1000, 3), round(0.2002 + i / 1000, 3), 100 + i,
                            f"{100 * (0.0303 + i / 1000):.1f}%"], label
        assert result.metrics[f"items.{key}"] == 100 + i
    assert len(roles.rows) == len(ROLE_KEYS)
    for row, (i, (key, label)) in zip(roles.rows, [(i, r) for i, r in enumerate(TABLE2_ROWS)
                                                   if r[0] in ROLE_KEYS], strict=True):
        assert row == [label, round(0.7007 + i / 1000, 3), round(0.4004 + i / 1000, 3), "+0.300"]
        assert result.metrics[f"role_gap.{key}"] == pytest.approx(0.3003)
    # the declared metrics themselves are the engine's to set, not the family's
    assert not set(result.metrics) & set(declared)


def test_a_declared_metric_without_value_stays_none(tmp_path: Path) -> None:
    recs = records(tmp_path, ANSWERS)
    declared = {**sentinels(), "f1_mover.loc_coarse.first": Value(None)}
    result = OpenTomFamily().aggregate(recs, Settings(), declared)
    assert result.metrics["f1_mover.loc_coarse.first"] is None
    assert result.metrics["role_gap.loc_coarse.first"] is None
    assert result.tables[2].rows[0] == ["Loc_c (F)", "n/a", 0.4, "n/a"]


def test_a_run_reports_the_declared_values_in_the_tables(tmp_path: Path) -> None:
    recs = records(tmp_path, ANSWERS)
    result = family_result("opentom", recs, Settings())
    values = evaluate(METRICS, recs)
    for name, v in values.items():
        assert result.metrics[name] == v.value, name
    rows = {row[0]: row for row in result.tables[0].rows}
    assert rows["Loc_f (F)"][1:5] == [round(values["f1.loc_fine.first"].value, 3),
                                      0.333, 3, "33.3%"]
    assert set(result.metrics) >= {f"items.{k}" for k in KEYS}
