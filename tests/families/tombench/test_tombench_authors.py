"""The authors' reading reproduces get_results.py: on replies well formed for the authors'
scripts (`[[X]]`), given to the items of the converted release, the per-task and
per-ability accuracies pytest-tom reports with `--tom-tombench-reading authors` equal those
of the authors' own get_results.py, run unchanged from ../shared in a subprocess on result
files written as their run_api.py writes them (the same shuffles, mapped back by their
rule). Skipped when ../shared is absent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import shared_data
from tombench_support import share

from pytest_tom.catalogue.load import load_suite
from pytest_tom.cli import main as cli
from pytest_tom.core.model import ItemSpec
from pytest_tom.families.base import Settings
from pytest_tom.families.tombench.catalogue import released_name
from pytest_tom.items.offline import score_records
from pytest_tom.results.aggregate import family_result

LETTERS = "ABCD"
EN_OPTIONS = ("OPTION-A", "OPTION-B", "OPTION-C", "OPTION-D")
NEVER_RIGHT = "Emotion Regulation"  # a task with no right answer: dropped from their table


def plan(question: str, task: str, options: int, answer: str) -> list[str]:
    """The file's letters the five tries vote for: right throughout, by majority, a 2-2-1
    tie with the right letter first or last, wrong by majority (fixed by the question)."""
    wrong = [x for x in LETTERS[:options] if x != answer]
    if task == NEVER_RIGHT:
        return [wrong[0]] * 5
    return [
        [answer] * 5,
        [answer, answer, answer, wrong[0], wrong[-1]],
        [answer, answer, wrong[0], wrong[0], wrong[-1]],
        [wrong[0], wrong[0], answer, answer, wrong[-1]],
        [wrong[0]] * 3 + [answer] * 2,
    ][int(share(question) * 5)]


def their_map(row: dict[str, Any], order: list[str]) -> dict[str, str]:
    """run_api.py's map for options shown in `order` (file letters): each shown letter to
    the first file option whose text, with `X. ` removed, is the text shown there."""
    texts = [row[k].replace(f"{x}. ", "") for x, k in zip(LETTERS, EN_OPTIONS, strict=True)
             if isinstance(row[k], str)]
    shown = [texts[LETTERS.index(o)] for o in order]
    out = dict.fromkeys(LETTERS, "")
    for pos, text in enumerate(shown):
        out[LETTERS[pos]] = LETTERS[texts.index(text)]
    return out


@pytest.fixture(scope="module")
def release() -> Path:
    return shared_data("tombench", "data", "False Belief Task.jsonl").parent


@pytest.fixture(scope="module")
def converted(release: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tombench-authors")
    assert cli(["convert", "tombench", str(release), "-o", str(out)]) == 0
    return out


@pytest.mark.parametrize("tries", [5, 1], ids=["official", "one-pass"])
def test_the_authors_reading_equals_get_results(release: Path, converted: Path, tmp_path: Path,
                                                tries: int) -> None:
    script = shared_data("tombench", "upstream", "get_results.py")
    options = {"tombench_reading": "authors"}
    if tries > 1:
        options |= {"tombench_protocol": "official", "tombench_tries": tries}
    settings = Settings(options=options)
    items = [i for p in sorted(converted.glob("*.tom.yaml"))
             for i in load_suite(p, settings).items]
    assert len(items) == 2860 * tries

    def vote(item: ItemSpec) -> str:
        attempt = max(1, item.meta["try"])
        return plan(item.scenario, item.meta["task"], len(item.choices),
                    item.meta["answer"])[attempt - 1]

    replies = {}
    for item in items:
        replies[item.id] = f"[[{LETTERS[item.meta['order'].index(vote(item))]}]]"

    # their side: results/<task>_<model>_results.jsonl as run_api.py writes them
    results = tmp_path / "results"
    results.mkdir()
    rows = {t: [json.loads(line) for line in (release / f"{t}.jsonl").read_text(
        encoding="utf-8").splitlines()] for t in {i.meta["task"] for i in items}}
    lines: dict[str, list[str]] = {t: [] for t in rows}
    for item in items:  # in file order, the tries of a question in try order
        task, idx = item.meta["task"], item.source["line"] - 1
        row = rows[task][idx]
        lines[task].append(json.dumps({
            "idx": idx, "number": max(1, item.meta["try"]) - 1, "data": row,
            "map": their_map(row, item.meta["order"]), "answer": row["答案\nANSWER"],
            "output": replies[item.id]}, ensure_ascii=False))
    for task, text in lines.items():
        (results / f"{task}_model_results.jsonl").write_text("\n".join(text) + "\n",
                                                             encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script), "--try_times", str(tries)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    theirs = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))

    # our side: the same replies through the family's scoring and declared metrics
    records = score_records(items, lambda req: replies[req.item.id], settings)
    ours = family_result("tombench", records, settings).metrics
    tasks = {i.meta["task"] for i in items}
    assert NEVER_RIGHT not in theirs["tasks"] and ours["task.emotion_regulation"] is None
    for task in tasks:
        name = "task." + task.lower().replace(" ", "_").replace("-", "_")
        assert ours[name] == theirs["tasks"].get(task), task
    fields = {i.meta["ability_field"] for i in items}
    assert len(fields) == 34
    for field in fields:
        assert ours[f"ability_as_released.{released_name(field)}"] == \
            theirs["abilities"].get(field), repr(field)
    # the ties and the answer written "A. " are where the correct reading differs
    plain = Settings(options={k: v for k, v in options.items() if k != "tombench_reading"})
    correct = family_result("tombench", score_records(
        items, lambda req: replies[req.item.id], plain), plain).metrics
    assert correct["task.emotion_regulation"] == 0.0
    if tries > 1:
        assert correct["task.false_belief_task"] < ours["task.false_belief_task"]
