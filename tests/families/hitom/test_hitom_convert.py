"""`pytest-tom convert hitom`: the authors' Hi-ToM_data.json -> one suite of 240 stories and
1,200 items, checked against the raw rows."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml
from conftest import shared_data
from hitom_support import options_of, story_key, vp_line

from pytest_tom.catalogue.load import load_suite
from pytest_tom.cli import main
from pytest_tom.families.base import Settings


def convert(src: Path, out: Path, *extra: str) -> int:
    return main(["convert", "hitom", str(src), "-o", str(out), *extra])


@pytest.fixture(scope="module")
def release() -> Path:
    return shared_data("hitom", "Hi-ToM_data.json")


@pytest.fixture(scope="module")
def rows(release: Path) -> list[dict]:
    return json.loads(release.read_text(encoding="utf-8"))["data"]


@pytest.fixture(scope="module")
def converted(release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hitom")
    assert convert(release, out) == 0
    return out / "hitom.tom.yaml"


def test_1200_rows_give_1200_items_in_240_stories_of_five_orders(converted: Path,
                                                                rows: list[dict]) -> None:
    suite = load_suite(converted)
    assert (len(rows), len(suite.items), suite.scenario_count) == (1200, 1200, 240)
    per_story = Counter(it.scenario for it in suite.items)
    assert set(per_story.values()) == {5}
    assert sorted(it.source["sample_id"] for it in suite.items) == list(range(1200))
    cells = Counter((it.meta["style"], it.meta["deception"], it.meta["length"], it.meta["order"])
                    for it in suite.items)
    assert len(cells) == 2 * 2 * 3 * 5 and set(cells.values()) == {20}


def test_each_item_asks_what_its_row_asks_in_its_rows_style(converted: Path,
                                                           rows: list[dict]) -> None:
    """The layout of the authors' prompt files around pytest-tom's own words: one
    instruction line per style (not the authors' VP line the rows carry) and one note."""
    suite = load_suite(converted)
    stories = {}
    first_lines: dict[str, set[str]] = {"VP": set(), "CoTP": set()}
    notes = set()
    for it in suite.items:
        row = rows[it.source["sample_id"]]
        first, rest = it.data["text"].split("\n", 1)
        story = story_key(row)[3]
        layout = (f"Story:\n{story}\nQuestion: {row['question']}\n"
                  f"Choices: {row['choices']}\n\n")
        assert rest.startswith(layout) and rest.endswith("\n"), it.id
        first_lines[row["prompting_type"]].add(first)
        notes.add(rest[len(layout):])
        assert (it.gold, it.choices) == (row["answer"], options_of(row["choices"]))
        assert it.meta["gold_letter"] == "ABCDEFGHIJKLMNO"[it.choices.index(row["answer"])]
        assert (it.meta["order"], it.meta["length"]) == (row["question_order"], row["story_length"])
        assert it.meta["deception"] == ("tell" if row["deception"] else "no_tell")
        assert it.meta["style"] == row["prompting_type"].lower()
        stories.setdefault(it.scenario, set()).add(story_key(row))
    assert all(len(keys) == 1 for keys in stories.values())  # a story's rows, and only them
    (vp,), (cotp,), (note,) = first_lines["VP"], first_lines["CoTP"], notes
    assert len({vp, cotp, vp_line(rows)}) == 3 and note.startswith("Note:")
    assert "defaults" not in yaml.safe_load(converted.read_text(encoding="utf-8"))


def test_answers_that_differ_between_the_halves_are_kept_and_named(converted: Path,
                                                                   rows: list[dict]) -> None:
    answer = {(story_key(r), r["question_order"]): r["answer"] for r in rows}
    differ = {r["sample_id"] for r in rows
              if answer.get(((("CoTP" if r["prompting_type"] == "VP" else "VP"),
                              *story_key(r)[1:]), r["question_order"]), r["answer"]) != r["answer"]}
    assert len(differ) == 2 * 138
    suite = load_suite(converted)
    marked = {it.source["sample_id"] for it in suite.items
              if "vp_answer" in it.source or "cotp_answer" in it.source}
    assert marked == differ
    for it in suite.items:
        assert it.gold == rows[it.source["sample_id"]]["answer"]  # as released


def test_the_prompting_option_restyles_every_story(converted: Path) -> None:
    release = load_suite(converted)
    cotp_line = next(it.data["text"].split("\n")[0] for it in release.items
                     if it.meta["style"] == "cotp")
    suite = load_suite(converted, Settings(options={"hitom_prompting": "cotp"}))
    assert {it.meta["style"] for it in suite.items} == {"cotp"}
    assert all(it.data["text"].startswith(f"{cotp_line}\n") for it in suite.items)


def test_limit_suite_name_and_the_notes(release: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert convert(release, tmp_path, "--limit", "3", "--suite", "hitom-3") == 0
    out = capsys.readouterr().out
    assert "600 rows' stories began with an instruction line (before the numbered lines)" in out
    assert "6 rows' stories ended with a '***' line" in out
    assert "138 questions have one answer in their VP row and another in their CoTP row" in out
    suite = load_suite(tmp_path / "hitom-3.tom.yaml")
    assert (suite.name, suite.scenario_count, len(suite.items)) == ("hitom-3", 3, 15)


def test_bad_rows_are_reported_by_line_and_nothing_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = {"prompting_type": "VP", "deception": False, "story_length": 1, "question_order": 0,
            "sample_id": 0, "story": "1 Ann entered the hall.\n2 The pea is in the red_box.\n",
            "question": "Where is the pea really?", "choices": "A. red_box, B. blue_box",
            "answer": "red_box"}
    rows = [good, {**good, "question_order": 7}, {**good, "answer": "green_box"},
            {**good, "choices": "red_box or blue_box"}, {**good, "question_order": 0}]
    src = tmp_path / "Hi-ToM_data.json"
    src.write_text(json.dumps({"data": rows}, indent=4), encoding="utf-8")
    out = tmp_path / "out"
    assert convert(src, out) == 1
    err = capsys.readouterr().err
    lines = [i + 1 for i, line in enumerate(src.read_text().splitlines()) if line == "        {"]
    assert f"{src}:{lines[1]}: question_order 7 is not 0-4" in err
    assert f"{src}:{lines[2]}: answer 'green_box' is not one of the choices" in err
    assert f"{src}:{lines[3]}: choices 'red_box or blue_box'... is not 'A. x, B. y, ...'" in err
    assert f"{src}:{lines[4]}: order 0 of this story was asked already on line {lines[0]}" in err
    assert "4 problem(s); nothing written" in err
    assert not out.exists()
    src.write_text("[1, 2", encoding="utf-8")
    assert convert(src, out) == 1
    assert f"{src}:1: not valid JSON" in capsys.readouterr().err
