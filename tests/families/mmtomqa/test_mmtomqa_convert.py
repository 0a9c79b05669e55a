"""`pytest-tom convert mmtomqa`: the authors' questions.json -> 600 items whose prompts are
the release's question texts, byte for byte."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import shared_data

from pytest_tom import families
from pytest_tom.catalogue.load import load_suite
from pytest_tom.cli import main


def convert(src: Path, out: Path, *extra: str) -> int:
    return main(["convert", "mmtomqa", str(src), "-o", str(out), *extra])


@pytest.fixture(scope="module")
def release() -> Path:
    return shared_data("mmtomqa", "questions.json")


@pytest.fixture(scope="module")
def rows(release: Path) -> list[dict]:
    return [json.loads(line) for line in release.read_text(encoding="utf-8").splitlines()
            if line.strip()]


@pytest.fixture(scope="module")
def converted(release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mmtomqa")
    assert convert(release, out) == 0
    return out / "mmtomqa.tom.yaml"


def test_600_questions_give_600_two_option_items(converted: Path, rows: list[dict]) -> None:
    suite = load_suite(converted)
    assert (len(rows), len(suite.items), suite.scenario_count) == (600, 600, 600)
    assert Counter(it.meta["type"] for it in suite.items) == {
        "1.1": 100, "1.2": 100, "1.3": 100, "2.1": 75, "2.2": 75, "2.3": 75, "2.4": 75}
    assert all(len(it.choices) == 2 for it in suite.items)
    assert len({it.group for it in suite.items}) == len({r["episode"] for r in rows}) == 134


def test_each_prompt_is_the_release_question_and_the_gold_its_answer(converted: Path,
                                                                    rows: list[dict]) -> None:
    suite = load_suite(converted)
    family = families.get("mmtomqa")
    for it, row in zip(suite.items, rows, strict=True):
        messages = family.conversation(it, "vanilla", [])
        assert messages == [{"role": "system", "content": "You are a helpful assistant."},
                            {"role": "user", "content": row["question"] + "\nAnswer: "}]
        assert it.meta["gold_letter"] == row["answer"]
        assert it.meta["type"] == str(row["question_type"])
        assert f"(a) {it.choices[0]} (b) {it.choices[1]} Please" in row["question"]
        assert it.gold == it.choices["ab".index(row["answer"])]
        assert it.group == f"episode{row['episode']}"


def test_limit_and_bad_lines(release: Path, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    assert convert(release, tmp_path, "--limit", "7", "--suite", "mm-7") == 0
    suite = load_suite(tmp_path / "mm-7.tom.yaml")
    assert (suite.name, len(suite.items)) == ("mm-7", 7)
    lines = release.read_text(encoding="utf-8").splitlines()[:3]
    broken = json.loads(lines[1])
    broken["question"] = broken["question"].replace("Actions taken by", "Actions by")
    bad = [lines[0], json.dumps(broken), '{"question": "x", "answer": "c", "question_type": 3.1}',
           "{not json"]
    src = tmp_path / "questions.json"
    src.write_text("\n".join(bad) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    assert convert(src, out) == 1
    err = capsys.readouterr().err
    assert f"{src}:2: question is not laid out as the release's" in err
    assert f"{src}:3: question_type 3.1 is not one of 1.1, 1.2, 1.3, 2.1, 2.2, 2.3, 2.4" in err
    assert f"{src}:3: answer 'c' is not 'a' or 'b'" in err
    assert f"{src}:4: not a JSON object" in err
    assert "5 problem(s); nothing written" in err and not out.exists()
