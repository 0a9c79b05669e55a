"""`pytest-tom convert tomato` on the authors' ToMATO-FB file (806 questions), an oracle
right on every item, and the per-mental-state accuracy of an answerer that always says
`[A]` equal to the counts of `a_idx == 0` read from the file itself (in process, the
plugin's steps without pytest). Skipped, with the reason, where `../shared/data` is absent."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import shared_data

from pytest_tom.catalogue.load import load_suite
from pytest_tom.cli import main as cli
from pytest_tom.families.base import Settings
from pytest_tom.families.tomato.convert import ConvertError, convert
from pytest_tom.items.offline import score_records
from pytest_tom.results.aggregate import family_result

STATES = ("belief", "intention", "desire", "emotion", "knowledge")


@pytest.fixture(scope="module")
def fb_file() -> Path:
    return shared_data("tomato", "tomato_fb.json")


@pytest.fixture(scope="module")
def items(fb_file: Path, tmp_path_factory: pytest.TempPathFactory) -> list:
    out = tmp_path_factory.mktemp("tomato")
    assert cli(["convert", "tomato", str(fb_file), "-o", str(out)]) == 0
    (path,) = out.glob("*.tom.yaml")
    return load_suite(path).items


def test_806_questions_all_second_order_false_belief(items: list, fb_file: Path) -> None:
    rows = json.loads(fb_file.read_text())
    assert len(items) == 806 == len(rows)
    assert {i.suite for i in items} == {"tomato-fb"}
    assert Counter(i.meta["mental_state"] for i in items) == Counter(r["mental_state"] for r in rows)
    assert {i.meta["order"] for i in items} == {2} and all(i.meta["false_belief"] for i in items)
    first = items[0]
    assert first.id == rows[0]["q_id"] and first.choices == [rows[0][f"a{k}"] for k in range(4)]
    assert first.gold == "ABCD"[rows[0]["a_idx"]]


def test_an_oracle_is_right_on_every_item_both_readings(items: list) -> None:
    for reading in ("correct", "authors"):
        settings = Settings(options={"tomato_reading": reading})
        records = score_records(items, lambda req: f"[{req.item.gold}]", settings)
        assert all(r["outcome"]["correct"] is True for r in records), reading
        metrics = family_result("tomato", records, settings).metrics
        assert metrics["accuracy"] == metrics["fb"] == 1.0
        assert metrics["unreadable"] == 0.0


def test_per_mental_state_accuracy_is_the_count_of_option_a_in_the_file(
        items: list, fb_file: Path) -> None:
    rows = json.loads(fb_file.read_text())
    asked = Counter(r["mental_state"] for r in rows)
    a_right = Counter(r["mental_state"] for r in rows if r["a_idx"] == 0)
    for reading in ("correct", "authors"):
        settings = Settings(options={"tomato_reading": reading})
        records = score_records(items, lambda req: "[A] seems most likely.", settings)
        metrics = family_result("tomato", records, settings).metrics
        for state in STATES:
            assert metrics[f"state.{state}"] == pytest.approx(a_right[state] / asked[state])
            assert metrics[f"state.{state}.order2"] == metrics[f"state.{state}"]
            assert metrics.get(f"state.{state}.order1") is None
        assert metrics["fb"] == pytest.approx(sum(a_right.values()) / 806)


def test_string_fields_are_read_and_every_problem_is_named_with_its_line(tmp_path: Path) -> None:
    row = {"conversation": "Ana: \"Hi\"\nBo: \"Hello\"", "q": "What does Bo think?",
           "a0": "one", "a1": "two", "a2": "three", "a3": "four", "a_idx": "2",
           "a_str": "three", "mental_state": "belief", "order": "1", "false_belief": "False",
           "q_id": "q-1", "big_five": "Openness - High"}
    good = tmp_path / "tomato.json"
    good.write_text(json.dumps([row], indent=1))
    conv = convert(good)
    assert conv.suite == "tomato-all"
    (sc,) = conv.scenarios
    assert (sc["answer"], sc["order"], sc["false_belief"]) == ("C", 1, False)
    twice = tmp_path / "tomato_second.json"
    twice.write_text(json.dumps([row, row]))
    conv = convert(twice)
    assert [sc["id"] for sc in conv.scenarios] == ["q-1", "q-1-2"]
    assert conv.notes == [f"{twice}:1: q_id 'q-1' was given before (line 1): this question "
                          f"is 'q-1-2'"]
    bad = tmp_path / "tomato_first.json"
    bad.write_text(json.dumps([row, {**row, "q_id": "q-2", "a_idx": 7, "order": 3},
                               {**row, "q_id": "q-3", "a_str": "four"}], indent=1))
    with pytest.raises(ConvertError) as exc:
        convert(bad)
    problems = exc.value.problems
    assert len(problems) == 3
    line2 = bad.read_text().splitlines().index(" {", 2) + 1
    assert problems[0].startswith(f"{bad}:{line2}: a_idx 7 is not 0, 1, 2 or 3")
    assert "order 3 is not 1 or 2" in problems[1]
    assert "a_str 'four' is not option a2" in problems[2]
