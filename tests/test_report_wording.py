"""What the reports say where a number alone misleads: the answer length that was sent (not
`max_tokens None`), no interval over fewer than 2 groups, what the model wrote beside its
reading, a `contains` gold in words, and each baseline gate's smallest detectable drop."""

from __future__ import annotations

from collections import Counter
from math import comb
from typing import Any

import pytest
from runner_support import numbers_suite
from test_gate_unit import cfg, rec, report_of

from pytest_tom.asking.answer_length import sent_text
from pytest_tom.core.record_view import RecordView
from pytest_tom.families.base import Settings
from pytest_tom.gates.evaluate import evaluate, settings_notes
from pytest_tom.metrics.intervals import bootstrap
from pytest_tom.metrics.mcnemar import mcnemar_exact, smallest_significant
from pytest_tom.metrics.numbers import fmt_interval
from pytest_tom.report.gate_summary import gate_line
from pytest_tom.report.html.build import gold_of
from pytest_tom.report.html.filters import settings_text
from pytest_tom.report.markdown import render
from pytest_tom.report.markdown_items import answer_of
from pytest_tom.results.aggregate import aggregate
from pytest_tom.results.run_report import RunReport

# -- the answer length -----------------------------------------------------------------------


def test_settings_say_what_was_sent_never_none() -> None:
    family_defaults = "max_tokens 64 per answer (fantom 128) (family defaults; ...)"
    run = {"method": "vanilla", "seed": 0, "max_tokens": None, "answer_length": family_defaults}
    assert settings_text(run) == f"method vanilla · seed 0 · {family_defaults}"
    assert "None" not in settings_text(run)
    assert sent_text({"max_tokens": 256, "answer_length": "max_tokens 256"}) == "max_tokens 256"
    # a report from before the key was recorded: said so, still not "None"
    assert "not given" in sent_text({"max_tokens": None})


def test_gate_note_compares_what_was_sent() -> None:
    base = {"max_tokens": None, "answer_length": "max_tokens 64 per answer (family defaults)"}
    [note] = settings_notes(RunReport({"settings": base}),
                            {"max_tokens": 16, "answer_length": "max_tokens 16"})
    assert note == ("the baseline used max_tokens 64 per answer (family defaults), "
                    "this run max_tokens 16")
    assert settings_notes(RunReport({"settings": base}), dict(base)) == []


def test_html_header_of_a_run_says_what_was_sent(pytester: pytest.Pytester) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(4))
    pytester.makepyfile(answerer="def answer(req):\n    return 'Yes.'\n")
    pytester.syspathinsert()
    result = pytester.runpytest("--tom-model=python:answerer:answer", "--tom-html=r.html",
                                "--tom-items=report", "-p", "no:cacheprovider")
    assert result.ret == 0
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert "max_tokens None" not in page
    assert "max_tokens none sent (the answerer&#39;s own length" in page or \
        "max_tokens none sent (the answerer's own length" in page


# -- intervals -------------------------------------------------------------------------------


def share(s: Counter) -> float:
    return s["ok"] / s["n"]


def test_no_bootstrap_interval_over_fewer_than_two_groups() -> None:
    one = bootstrap([Counter(ok=1, n=6)], share, seed=1)
    assert one.value == pytest.approx(1 / 6) and one.low is None and one.high is None
    assert fmt_interval(one) == "(no interval: 1 group)"
    two = bootstrap([Counter(ok=1, n=6), Counter(ok=5, n=6)], share, seed=1)
    assert two.low is not None and two.low < two.high
    assert fmt_interval(two).startswith("[")


# -- Markdown answers and HTML gold ----------------------------------------------------------


def record(response: str, parsed: Any, error: str | None = None) -> dict[str, Any]:
    return {"outcome": {"parsed": parsed, "error": error}, "responses": [response]}


def test_markdown_answer_is_what_the_model_wrote_with_the_reading() -> None:
    assert answer_of(record("I think Anne and Bob know it.", ["anne", "bob"])) == \
        "I think Anne and Bob know it. (read: anne, bob)"
    assert answer_of(record("Yes", "yes")) == "Yes"  # the reading adds nothing
    assert answer_of(record("hmm " * 40, None, "unparseable")).endswith("… (unparseable)")
    assert answer_of(None) == "—"


def test_markdown_changed_items_show_the_written_answer() -> None:
    base = [rec("s", f"a{i}::q", True) for i in range(3)]
    now = [rec("s", f"a{i}::q", i != 0) for i in range(3)]
    now[0]["responses"] = ["Well, probably yes, in the box."]
    results = aggregate(now, Settings())
    md = render(results, evaluate(cfg(report_of(base)), results, now), {"model": "m"},
                records=now, baseline_items=base)
    assert "Well, probably yes, in the box. (read: yes)" in md


def test_html_gold_of_a_contains_question_is_words() -> None:
    item = {"kind": "contains", "gold": {"contains": [["crayon", "crayons"], "box"],
                                         "excludes": ["bag"]}}
    assert gold_of(RecordView({"item": item})) == \
        "an answer containing crayon or crayons, box; not bag"
    assert gold_of(RecordView({"item": {"kind": "choice", "gold": "b"}})) == "b"


# -- the power of a baseline gate ------------------------------------------------------------


@pytest.mark.parametrize("alpha", [0.5, 0.1, 0.05, 0.01, 0.001])
def test_smallest_significant_by_enumeration(alpha: float) -> None:
    for paired in range(0, 16):
        # k newly wrong, none newly right: two-sided exact p = 2 * C(k, 0) / 2**k
        expected = next((k for k in range(1, paired + 1)
                         if min(1.0, 2 * comb(k, 0) / 2 ** k) <= alpha), None)
        assert smallest_significant(paired, alpha) == expected
        if expected is not None and expected > 1:
            assert mcnemar_exact(expected, 0) <= alpha < mcnemar_exact(expected - 1, 0)


def test_a_small_gate_says_it_cannot_see_the_drop_and_warns() -> None:
    # the case: 7 shared items, 4 right (57%) in the baseline, 1 right (14%) now
    base = [rec("s", f"a{i}::q", i < 4) for i in range(7)]
    now = [rec("s", f"a{i}::q", i < 1) for i in range(7)]
    results = aggregate(now, Settings())
    report = evaluate(cfg(report_of(base), max_drop="turn=0.05"), results, now)
    turn = next(r for r in report.results if r.label == "totals:turn")
    assert turn.passed  # p 0.25: correctly not significant ...
    assert (turn.detectable_items, turn.paired) == (6, 7)  # ... and it says why
    line = gate_line(turn, report.alpha)
    assert "smallest detectable drop 0.857 (6 of 7 shared items newly wrong" in line
    warnings = [n for n in report.notes if n.startswith("warning: totals:turn: ")]
    assert any("smallest detectable drop 0.857" in n and "allowed drop 0.05" in n
               for n in warnings)


def test_a_large_gate_has_no_warning() -> None:
    base = [rec("s", f"a{i}::q", True) for i in range(400)]
    now = [rec("s", f"a{i}::q", i >= 10) for i in range(400)]
    results = aggregate(now, Settings())
    report = evaluate(cfg(report_of(base), max_drop="turn=0.05"), results, now)
    turn = next(r for r in report.results if r.label == "totals:turn")
    assert turn.detectable_items == 6 and turn.detectable == pytest.approx(6 / 400)
    assert not [n for n in report.notes if n.startswith("warning: ")]


def test_a_gate_line_says_what_its_p_value_tested() -> None:
    """Issue 33 point 7: `passed totals:goal ... delta +0.000 ... p 9.5e-07` read as a
    contradiction. The McNemar p is of the paired items' right/wrong, not of goal: here
    every scenario loses one right item, goal (already 0) stays put, the items' change is
    significant, and the line says both."""
    base = [rec("s", f"s{i}::q{j}", j == 0) for i in range(20) for j in range(2)]
    now = [rec("s", f"s{i}::q{j}", False) for i in range(20) for j in range(2)]
    results = aggregate(now, Settings())
    report = evaluate(cfg(report_of(base)), results, now)
    goal = next(r for r in report.results if r.label == "totals:goal")
    assert goal.passed and goal.delta == 0 and goal.p_value is not None and goal.p_value < 1e-5
    line = gate_line(goal, report.alpha)
    assert ("delta +0.000 (allowed drop 0.000)  McNemar test of the 40 paired items' "
            "right/wrong: p 1.907e-06 (20 newly wrong / 0 newly right, alpha 0.05)") in line
    assert line.endswith("-- the items got significantly worse, but goal did not drop by more "
                         "than allowed")
    turn = next(r for r in report.results if r.label == "totals:turn")
    assert not turn.passed and "-- drop larger than allowed and significant" in \
        gate_line(turn, report.alpha)
    md = render(results, report, {"model": "m"}, records=now, baseline_items=base)
    assert ("| 0.000 | 1.907e-06 (McNemar test of the 40 paired items' right/wrong: 20 worse / "
            "0 better) | the items got significantly worse, but goal did not drop by more than "
            "allowed; smallest detectable drop") in md
