"""`pytest-tom convert tomi`: parsing, checks, the real test split, and runs through pytest."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import FAMILY_TESTS, load_report, shared_data
from robustness_support import generic_right, reality_tracker

from pytest_tom.catalogue.load import load_suite
from pytest_tom.cli import main
from pytest_tom.families.base import Settings
from pytest_tom.items.offline import score_records
from pytest_tom.results.aggregate import family_result

SUPPORT = FAMILY_TESTS / "robustness" / "robustness_support.py"

# Counts per (question type, story type) of ToMi's fb_all_test split (from its .trace).
EXPECTED = {
    ("memory", "true_belief"): 333, ("memory", "false_belief"): 333,
    ("memory", "second_order_false_belief"): 333,
    ("reality", "true_belief"): 333, ("reality", "false_belief"): 333,
    ("reality", "second_order_false_belief"): 333,
    ("first_order_0_no_tom", "true_belief"): 333, ("first_order_0_no_tom", "false_belief"): 333,
    ("first_order_0_no_tom", "second_order_false_belief"): 333,
    ("first_order_1_no_tom", "true_belief"): 288, ("first_order_1_no_tom", "false_belief"): 37,
    ("first_order_1_no_tom", "second_order_false_belief"): 270,
    ("first_order_1_tom", "true_belief"): 45, ("first_order_1_tom", "false_belief"): 296,
    ("first_order_1_tom", "second_order_false_belief"): 63,
    ("second_order_0_no_tom", "true_belief"): 304, ("second_order_0_no_tom", "false_belief"): 133,
    ("second_order_0_no_tom", "second_order_false_belief"): 287,
    ("second_order_0_tom", "true_belief"): 29, ("second_order_0_tom", "false_belief"): 200,
    ("second_order_0_tom", "second_order_false_belief"): 46,
    ("second_order_1_no_tom", "true_belief"): 304, ("second_order_1_no_tom", "false_belief"): 133,
    ("second_order_1_no_tom", "second_order_false_belief"): 287,
    ("second_order_1_tom", "true_belief"): 29, ("second_order_1_tom", "false_belief"): 200,
    ("second_order_1_tom", "second_order_false_belief"): 46,
}

STORY = """\
1 Ann entered the hall.
2 Bob entered the hall.
3 The apple is in the red_box.
4 Bob exited the hall.
5 Ann moved the apple to the blue_bag.
"""
SMALL = (STORY + "6 Where will Bob look for the apple?\tred_box\t3\n"
         + STORY + "6 Where is the apple really?\tblue_bag\t5\n"
         + "1 Cy entered the TV_room.\n2 The pear is in the green_tin.\n"
         + "3 Where was the pear at the beginning?\tgreen_tin\t2\n")
SMALL_TRACE = ("enter_agent_0,enter_agent_1,agent_1_exits,agent_0_moves_obj,first_order_1_tom,"
               "false_belief\n"
               "enter_agent_0,enter_agent_1,agent_1_exits,agent_0_moves_obj,reality,false_belief\n"
               "enter_agent_0,memory,true_belief\n")


def write_split(folder: Path, text: str = SMALL, trace: str | None = SMALL_TRACE) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    src = folder / "split.txt"
    src.write_text(text, encoding="utf-8")
    if trace is not None:
        (folder / "split.trace").write_text(trace, encoding="utf-8")
    return src


def convert(src: Path, out: Path, *args: str) -> int:
    return main(["convert", "tomi", str(src), "-o", str(out), *args])


def test_small_split(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = write_split(tmp_path / "in")
    assert convert(src, tmp_path / "out") == 0
    assert "2 stories, 3 questions" in capsys.readouterr().out
    suite = load_suite(tmp_path / "out" / "tomi.tom.yaml")
    items = {it.id: it for it in suite.items}
    assert list(items) == ["story-0001::first_order_1_tom", "story-0001::reality",
                           "story-0002::memory"]
    first = items["story-0001::first_order_1_tom"]
    assert first.gold == {"contains": ["red box"], "excludes": ["blue bag"]}
    assert first.question == "Where will Bob look for the apple?"
    assert first.tags == ["false_belief", "first_order_1_tom"]
    assert first.meta["tomi"] == {"question_type": "first_order_1_tom",
                                  "story_type": "false_belief", "question": 1}
    assert items["story-0002::memory"].gold == {"contains": ["green tin"], "excludes": []}
    context = yaml.safe_load((tmp_path / "out" / "tomi.tom.yaml").read_text())["scenarios"][1]
    assert context["context"] == "Cy entered the TV room.\nThe pear is in the green tin."
    assert context["source"] == {"upstream": "ToMi", "upstream_file": "split.txt",
                                 "upstream_line": 13}


def test_keep_underscores_and_limit(tmp_path: Path) -> None:
    src = write_split(tmp_path / "in")
    assert convert(src, tmp_path / "out", "--keep-underscores", "--limit", "1", "--suite",
                   "slice") == 0
    items = load_suite(tmp_path / "out" / "slice.tom.yaml").items
    assert [it.id for it in items] == ["story-0001::first_order_1_tom", "story-0001::reality"]
    assert items[0].gold["contains"] == ["red_box"]


@pytest.mark.parametrize(("text", "trace", "message"), [
    (SMALL, SMALL_TRACE.rsplit("\n", 2)[0] + "\n", "the trace has 2 lines but the split has 3 "
     "questions"),
    (SMALL, None, "cannot read"),
    ("Ann entered the hall.\n", "", "line 1: expected '<number> <sentence>'"),
    ("1 Where?\tbox\n", "x,memory,true_belief\n", "line 1: a question line has"),
    (SMALL, SMALL_TRACE.replace("reality", "realty"), "trace line 2: expected"),
])
def test_bad_input_exits_2_with_a_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         text: str, trace: str | None, message: str) -> None:
    src = write_split(tmp_path / "in", text, trace)
    assert convert(src, tmp_path / "out") == 2
    assert message in capsys.readouterr().err


def test_unconvertible_question_is_reported_not_dropped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = write_split(tmp_path / "in", SMALL.replace("?\tgreen_tin\t2", "?\tred_box\t2"))
    assert convert(src, tmp_path / "out") == 1
    err = capsys.readouterr().err
    assert "left out: question 3 (line 15" in err and "'red_box'" in err


def _upstream() -> Path:
    return shared_data("tomi", "fb_all_test.txt")


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = _upstream()
    out = tmp_path_factory.mktemp("tomi")
    assert main(["convert", "tomi", str(src), "-o", str(out)]) == 0
    return out / "tomi.tom.yaml"


@pytest.fixture(scope="module")
def upstream_items(converted: Path) -> list[Any]:
    return load_suite(converted).items


def test_upstream_split_counts(upstream_items: list[Any]) -> None:
    assert len(upstream_items) == 5994
    counts = Counter((it.meta["tomi"]["question_type"], it.meta["tomi"]["story_type"])
                     for it in upstream_items)
    assert counts == EXPECTED
    trace = _upstream().with_suffix(".trace").read_text(encoding="utf-8").splitlines()
    assert counts == Counter(tuple(line.split(",")[-2:]) for line in trace)
    assert len({it.scenario for it in upstream_items}) == 999
    for it in upstream_items:
        qtype, stype = it.meta["tomi"]["question_type"], it.meta["tomi"]["story_type"]
        assert qtype in it.tags and stype in it.tags
        assert len(it.gold["contains"]) == 1 and len(it.gold["excludes"]) == 1


def _records(items: list[Any], answerer: Any) -> list[dict[str, Any]]:
    return score_records(items, answerer)


def test_upstream_scores_and_table_in_process(upstream_items: list[Any]) -> None:
    right = family_result("generic", _records(upstream_items, generic_right), Settings())
    assert right.metrics["tomi.all.all.turn"] == 1.0
    table = right.tables[0]
    assert table.headers == ["question type", "true_belief", "false_belief",
                             "second_order_false_belief", "all"]
    assert table.rows[-1][-1] == "100.0% (5994/5994)"
    reality = family_result("generic", _records(upstream_items, reality_tracker), Settings()).metrics
    for (qtype, stype), _n in EXPECTED.items():
        needs_tom = qtype == "memory" or (qtype.endswith("_tom") and not qtype.endswith("no_tom"))
        assert reality[f"tomi.{qtype}.{stype}.turn"] == (0.0 if needs_tom else 1.0), (qtype, stype)
    assert reality["tomi.first_order_1_tom.all.turn"] == 0.0
    assert reality["tomi.all.all.turn"] == pytest.approx(1 - (999 + 404 + 550) / 5994)


def run(pytester: pytest.Pytester, suite: Path, answerer: str, *args: str) -> pytest.RunResult:
    pytester.makeini("[pytest]\n")
    return pytester.runpytest(str(suite), f"--tom-model=python:{SUPPORT}:{answerer}",
                              "-p", "no:cacheprovider", *args)


def test_upstream_slice_through_pytest(pytester: pytest.Pytester) -> None:
    src = _upstream()
    out = pytester.path / "suites"
    assert main(["convert", "tomi", str(src), "-o", str(out), "--limit", "30"]) == 0
    suite = out / "tomi.tom.yaml"
    result = run(pytester, suite, "generic_right")
    result.assert_outcomes(passed=180)
    result.stdout.fnmatch_lines(["*ToMi accuracy by question type x story type*",
                                 "question type * true_belief * false_belief *",
                                 "memory * 100.0% (*",
                                 "all * 100.0% (180/180)"])
    report = pytester.path / "r.json"
    result = run(pytester, suite, "reality_tracker", "-n", "2", f"--tom-report={report}")
    m = load_report(report)["suites"]["tomi"]["metrics"]
    assert m["tomi.memory.all.turn"] == 0.0 and m["tomi.reality.all.turn"] == 1.0
    assert m["tomi.first_order_0_no_tom.all.turn"] == 1.0
    assert m["tomi.second_order_0_tom.all.turn"] in (0.0, None)
    failed = m["items"] - m["correct"]
    result.assert_outcomes(passed=180 - failed, failed=failed)
    result.stdout.fnmatch_lines(["memory * 0.0% (*"])
