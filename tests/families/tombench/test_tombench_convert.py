"""`pytest-tom convert tombench` on the authors' 20 task files, in both languages, and the
gold answerer right on every converted item (in process: the plugin's steps without
pytest, as tests/families/bigtom does for its 5,000 items)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import shared_data
from tombench_support import gold

from pytest_tom.catalogue.load import load_suite
from pytest_tom.cli import main as cli
from pytest_tom.families.base import Settings
from pytest_tom.families.tombench.convert import ConvertError, convert, write
from pytest_tom.items.offline import score_records
from pytest_tom.results.aggregate import family_result

PER_TASK = {
    "Ambiguous Story Task": 200, "Completion of Failed Actions": 20, "Discrepant Desires": 20,
    "Discrepant Emotions": 40, "Discrepant Intentions": 40, "Emotion Regulation": 20,
    "False Belief Task": 600, "Faux-pas Recognition Test": 560, "Hidden Emotions": 80,
    "Hinting Task Test": 103, "Knowledge-Attention Links": 20,
    "Knowledge-Pretend Play Links": 30, "Moral Emotions": 40, "Multiple Desires": 20,
    "Percepts-Knowledge Links": 40, "Persuasion Story Task": 100, "Prediction of Actions": 20,
    "Scalar Implicature Test": 200, "Strange Story Task": 407,
    "Unexpected Outcome Test": 300,
}


def data_dir() -> Path:
    return shared_data("tombench", "data", "False Belief Task.jsonl").parent


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = {}
    for language in ("en", "zh"):
        folder = tmp_path_factory.mktemp(f"tombench-{language}")
        assert cli(["convert", "tombench", str(data_dir()), "-o", str(folder),
                    "--language", language]) == 0
        out[language] = folder
    return out


def items_of(folder: Path, settings: Settings | None = None) -> list:
    return [i for p in sorted(folder.glob("*.tom.yaml")) for i in load_suite(p, settings).items]


@pytest.mark.parametrize("language", ["en", "zh"])
def test_2860_items_per_language_in_20_task_files(converted: dict[str, Path],
                                                  language: str) -> None:
    items = items_of(converted[language])
    assert len(items) == 2860
    assert Counter(i.meta["task"] for i in items) == PER_TASK
    assert len({i.suite for i in items}) == 1  # one suite: one table over every task
    options = Counter(len(i.choices) for i in items)
    assert options == ({4: 2377, 2: 483} if language == "en" else {4: 2376, 2: 484})
    assert {i.meta["language"] for i in items} == {language}
    # no option keeps its own letter in front (the prompt letters them)
    assert not any(c[:2] in ("A.", "B.", "C.", "D.", "A:", "B:") for i in items for c in i.choices)
    abilities = Counter(a for i in items for a in i.meta["abilities"])
    assert len(abilities) == 32 and abilities["Belief: Second-order beliefs"] == 200
    assert abilities["Knowledge: Information-knowledge links"] == 200  # one written with a space
    dims = Counter(d for i in items for d in i.meta["dimensions"])
    assert set(dims) == {"Emotion", "Desire", "Intention", "Knowledge", "Belief",
                         "Non-Literal Communication"}


def test_the_answer_written_a_dot_space_is_read_as_a_and_kept(converted: dict[str, Path],
                                                              capsys: pytest.CaptureFixture[str]
                                                              ) -> None:
    items = [i for i in items_of(converted["en"]) if i.meta["answer_as_released"] != i.meta["answer"]]
    assert [(i.meta["task"], i.source["line"], i.meta["answer_as_released"], i.gold)
            for i in items] == [("Knowledge-Attention Links", 11, "A. ", "A")]
    conv = convert(data_dir())
    assert any("is written 'A. ': read as A" in n for n in conv.notes)
    assert conv.prefixes == 102 and convert(data_dir(), "zh").prefixes == 6900


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_gold_answerer_is_right_on_every_converted_item(converted: dict[str, Path],
                                                            language: str) -> None:
    items = items_of(converted[language])
    records = score_records(items, gold)
    assert all(r["outcome"]["correct"] for r in records)
    result = family_result("tombench", records, Settings())
    m = result.metrics
    assert m["task_average"] == m["ability_average"] == 1.0
    assert sum(k.startswith("task.") for k in m) == 20
    assert sum(k.startswith("ability.") for k in m) == 32
    assert sum(k.startswith("dimension.") for k in m) == 6


def test_the_gold_answerer_is_right_on_every_try_of_the_official_protocol(
        converted: dict[str, Path]) -> None:
    settings = Settings(options={"tombench_protocol": "official", "tombench_tries": 5})
    items = items_of(converted["en"], settings)
    assert len(items) == 5 * 2860
    records = score_records(items, gold, settings)
    assert all(r["outcome"]["correct"] for r in records)
    m = family_result("tombench", records, settings).metrics
    assert m["task.false_belief_task"] == 1.0 and m["ability_average"] == 1.0


def test_the_folder_holding_data_is_accepted_and_limit_keeps_the_first_rows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["convert", "tombench", str(data_dir().parent), "-o", str(tmp_path),
                "--limit", "3", "--language", "zh"]) == 0
    out = capsys.readouterr().out
    assert "suite tombench-zh (zh), 20 task files, 60 questions" in out
    assert len(items_of(tmp_path)) == 60
    assert cli(["validate", str(tmp_path)]) == 0


def small_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    for name in ("False Belief Task.jsonl", "Moral Emotions.jsonl"):
        lines = (data_dir() / name).read_text(encoding="utf-8").splitlines()[:4]
        (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def test_every_problem_is_named_with_file_and_line_and_nothing_is_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = small_copy(tmp_path)
    fbt = folder / "False Belief Task.jsonl"
    rows = [json.loads(line) for line in fbt.read_text(encoding="utf-8").splitlines()]
    rows[1]["答案\nANSWER"] = "E"
    rows[2]["能力\nABILITY"] = "Belief: Locaton false beliefs"
    rows[3]["OPTION-B"] = float("nan")
    fbt.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n{broken\n",
                   encoding="utf-8")
    shutil.copy(folder / "Moral Emotions.jsonl", folder / "Moral Emotion.jsonl")
    out = tmp_path / "out"
    assert cli(["convert", "tombench", str(folder), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"{fbt}:2: the answer 'E'" in err
    assert f"{fbt}:3: 'Belief: Locaton false beliefs' is not a ToMBench ability (did you mean " \
           f"'Belief: Location false beliefs'?)" in err
    assert f"{fbt}:4: 'OPTION-C' is given but an option before it is missing" in err
    assert f"{fbt}:5: not a JSON object" in err
    assert "Moral Emotion.jsonl: not a ToMBench task file" in err
    assert "5 problem(s); nothing written" in err
    assert not out.exists()
    with pytest.raises(ConvertError):
        convert(folder)


def test_convert_is_a_function_of_local_files(tmp_path: Path) -> None:
    """What `pytest-tom fetch` calls: files in, suite documents out, written on request."""
    conv = convert(small_copy(tmp_path), "en")
    assert conv.questions == 8 and list(conv.per_task) == ["False Belief Task", "Moral Emotions"]
    assert any("18 of the 20 task files are not in" in n for n in conv.notes)
    paths = write(conv, tmp_path / "suites")
    assert [p.name for p in paths] == ["false-belief-task.tom.yaml", "moral-emotions.tom.yaml"]
    assert len(items_of(tmp_path / "suites")) == 8
