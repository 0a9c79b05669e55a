"""The bundled Hi-ToM-shaped suite: its size, and every answer worked out again from the
story text by the rules the prompt's Note states."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
import yaml
from conftest import SUITES
from hitom_support import item_lines

from pytest_tom.catalogue.load import load_suite
from pytest_tom.families.hitom.prompts import OWN, choices_line

BUNDLED = SUITES / "hitom" / "higher-order-stories.tom.yaml"


def stories() -> list[dict]:
    return yaml.safe_load(BUNDLED.read_text(encoding="utf-8"))["scenarios"]


def test_at_least_20_stories_of_five_orders_in_every_setting() -> None:
    suite = load_suite(BUNDLED)
    assert suite.scenario_count >= 20 and len(suite.items) == 5 * suite.scenario_count
    assert set(Counter(it.scenario for it in suite.items).values()) == {5}
    settings = Counter((it.meta["deception"], it.meta["style"], it.meta["length"])
                       for it in suite.items)
    assert len(settings) == 2 * 2 * 3  # Tell / No_Tell x VP / CoTP x 1-3 chapters
    assert all(len(it.choices) == 15 for it in suite.items)


def chapter_of(lines: list[str], obj: str) -> tuple[list[str], int]:
    """The lines of the chapter that places `obj`, from its entry to the gathering, and
    where it starts."""
    start = next(i for i, line in enumerate(lines) if line.startswith(f"The {obj} is in the "))
    end = next(i for i in range(start, len(lines)) if lines[i].endswith("the common_room."))
    return lines[start - 1:end + 1], start - 1


@pytest.mark.parametrize("story", stories(), ids=lambda s: s["id"])
def test_every_answer_follows_from_the_story(story: dict) -> None:
    lines = item_lines(story["story"])
    assert len([line for line in lines if line.endswith("common_room.")]) == story["story_length"]
    for q in story["questions"]:
        m = re.fullmatch(r"Where (?:is the (.+) really|does (.+?) (?:really )?thinks? the (.+) is)\?",
                         q["ask"])
        assert m, q["ask"]
        obj = m[1] or m[3]
        chain = [] if m[1] else re.split(r" thinks? ", m[2])
        assert len(chain) == q["order"] and len(set(chain)) == len(chain)
        chapter, at = chapter_of(lines, obj)
        where, seen, exits = None, [], {}
        for i, line in enumerate(chapter):
            placed = re.fullmatch(rf"(?:The {obj} is in|\w+ moved the {obj} to) the (\w+)\.", line)
            if placed:
                where = placed[1]
            left = re.fullmatch(r"(\w+) exited the \w+\.", line)
            if left:
                exits[left[1]] = i
            seen.append(where)
        if not chain:
            assert q["answer"] == where
            continue
        first = min(exits[a] for a in chain)  # what every agent of the chain saw together
        assert q["answer"] == seen[first], (q["ask"], q["answer"], seen[first])
        # claims about the object come only from its chapter's first agent to leave, whom
        # no other agent trusts (the Note: trust an agent that exited later than yourself)
        for line in lines[at + len(chapter):]:
            claim = re.match(rf"(\w+) (?:publicly claimed|privately told \w+) that the {obj} ",
                             line)
            if claim:
                assert exits[claim[1]] == min(exits.values()) and claim[1] not in chain
    assert story["deception"] == any(" publicly claimed " in line or " privately told " in line
                                     for line in lines)


def test_the_bundled_file_is_what_the_suite_folder_holds() -> None:
    assert sorted(p.name for p in Path(SUITES / "hitom").glob("*.tom.yaml")) == [BUNDLED.name]


def test_the_bundled_stories_are_asked_in_pytest_toms_own_words() -> None:
    """The suite sets no `defaults.prompt`: each prompt is the story, question and options
    in the release's layout, between pytest-tom's instruction line of the story's style
    and its note."""
    assert "defaults" not in yaml.safe_load(BUNDLED.read_text(encoding="utf-8"))
    by_id = {s["id"]: s for s in stories()}
    for it in load_suite(BUNDLED).items:
        s = by_id[it.scenario]
        ask = next(q["ask"] for q in s["questions"] if f"order{q['order']}" == it.kind)
        assert it.data["text"] == (
            f"{OWN.instruction[s['prompting'].lower()]}\nStory:\n{s['story'].strip()}\n"
            f"Question: {ask}\nChoices: {choices_line(s['choices'])}\n\n{OWN.note}\n")
