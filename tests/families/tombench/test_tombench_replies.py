"""ToMBench read as a careful reader reads plain answers: the right option's text alone,
and the option as the `python:` item view shows it (`d) text`), on all 2,860 questions of
the release, scored through the family's answer rule."""

from __future__ import annotations

import pytest
from conftest import shared_data

from pytest_tom.catalogue.load import load_suite
from pytest_tom.cli import main as cli
from pytest_tom.families.base import Settings
from pytest_tom.items.offline import score_records

LETTERS = "ABCD"


@pytest.fixture(scope="module")
def items(tmp_path_factory: pytest.TempPathFactory) -> list:
    data = shared_data("tombench", "data", "False Belief Task.jsonl").parent
    folder = tmp_path_factory.mktemp("tombench-replies")
    assert cli(["convert", "tombench", str(data), "-o", str(folder)]) == 0
    return [i for p in sorted(folder.glob("*.tom.yaml")) for i in load_suite(p).items]


def shown(request) -> str:  # noqa: ANN001
    """The right option as the item view shows it: `d) text`."""
    return request.item.choices[LETTERS.index(request.item.gold)]


def text_alone(request) -> str:  # noqa: ANN001
    return shown(request).split(") ", 1)[1]


@pytest.mark.parametrize("answer", [shown, text_alone])
def test_the_option_as_shown_or_its_text_alone_is_read(items: list, answer) -> None:  # noqa: ANN001
    records = score_records(items, answer)
    assert len(records) == 2860
    wrong = [r for r in records if not r["outcome"]["correct"]]
    # an option text given twice in one question cannot tell its two letters apart
    twice = [r for r in wrong if len(set(r["item"]["choices"])) < len(r["item"]["choices"])]
    assert len(wrong) == len(twice) <= (0 if answer is shown else 10), \
        [(r["item"]["id"], r["responses"], r["outcome"]) for r in wrong[:3]]


def test_the_authors_reading_is_unchanged_by_it(items: list) -> None:
    """As get_results.py reads a reply with no letter: A."""
    settings = Settings(options={"tombench_reading": "authors"})
    records = score_records(items[:40], text_alone, settings)
    assert all(r["outcome"]["parsed"] == "A" or any(c in r["responses"][0] for c in LETTERS)
               for r in records)
