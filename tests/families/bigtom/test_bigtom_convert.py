"""`pytest-tom convert bigtom`: the authors' CSV -> a suite of templates, checked against the CSV."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import pytest
import yaml
from bigtom_support import CONDITION_IDS
from conftest import shared_data

from pytest_tom.catalogue.load import load_suite
from pytest_tom.cli import main
from pytest_tom.families.base import Settings


def convert(csv_path: Path, out: Path, *extra: str) -> int:
    return main(["convert", "bigtom", str(csv_path), "-o", str(out), *extra])


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = shared_data("bigtom", "bigtom.csv")
    out = tmp_path_factory.mktemp("bigtom")
    assert convert(src, out) == 0
    return out / "bigtom.tom.yaml"


def test_converted_suite_has_200_templates_and_5000_items(converted: Path) -> None:
    suite = load_suite(converted, Settings(method="1shot-cot"))
    assert suite.scenario_count == 200
    assert len(suite.items) == 5000
    per_condition = Counter(it.meta["condition"] for it in suite.items)
    assert sorted(per_condition) == sorted(CONDITION_IDS)
    assert set(per_condition.values()) == {200}
    assert [it.source["index"] for it in suite.items[::25]] == list(range(200))
    assert all(it.source["upstream"] == "bigtom.csv" for it in suite.items)


def test_converted_text_is_the_csv_text(converted: Path) -> None:
    with shared_data("bigtom", "bigtom.csv").open(encoding="utf-8", newline="") as fh:
        rows = [[c.strip() for c in r] for r in csv.reader(fh, delimiter=";") if r]
    doc = yaml.safe_load(converted.read_text(encoding="utf-8"))
    assert len(rows) == len(doc["scenarios"]) == 200
    for row, t in zip(rows, doc["scenarios"], strict=True):
        story = " ".join([t["context"], t["desire"], t["percept"], t["initial_belief"],
                          t["causal_event"]["event"]])
        assert story == " ".join(row[0].split())
        assert (t["causal_event"]["aware"], t["causal_event"]["not_aware"]) == (row[1], row[2])
        assert (t["action"]["new_state"], t["action"]["initial_state"]) == (row[3], row[4])
        assert t["belief_question"] == {"ask": row[5], "aware": row[8], "not_aware": row[11]}
        assert t["action_question"] == {"ask": row[7], "aware": row[10], "not_aware": row[13]}
        assert t["random_event"] == {"event": row[14], "aware": row[15], "not_aware": row[16]}
        assert "believe" in t["initial_belief"]


def test_limit_and_suite_name(tmp_path: Path) -> None:
    src = shared_data("bigtom", "bigtom.csv")
    assert convert(src, tmp_path, "--limit", "3", "--suite", "bigtom-3") == 0
    suite = load_suite(tmp_path / "bigtom-3.tom.yaml")
    assert (suite.name, suite.scenario_count, len(suite.items)) == ("bigtom-3", 3, 75)


def test_bad_rows_are_reported_by_line_and_nothing_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = ";".join(["Ann is here. Ann wants tea. Ann sees a cup. Ann believes it is full. "
                     "Bo drinks it.", *[f"c{i}." for i in range(1, 19)]])
    short = ";".join(["Ann is here. Ann wants tea.", *[f"c{i}." for i in range(1, 19)]])
    src = tmp_path / "in.csv"
    src.write_text("\n".join([good, "a;b;c", short, good.replace("c5.", " ")]) + "\n",
                   encoding="utf-8")
    out = tmp_path / "out"
    assert convert(src, out) == 1
    err = capsys.readouterr().err
    assert f"{src}:2: expected 19 ';'-separated columns, got 3" in err
    assert f"{src}:3: the story (column 1) should have 5 sentences" in err
    assert f"{src}:4: empty column(s) [6]" in err
    assert "3 problem(s); nothing written" in err
    assert not out.exists()


def test_missing_input_is_a_usage_error(tmp_path: Path) -> None:
    assert convert(tmp_path / "nope.csv", tmp_path) == 2
