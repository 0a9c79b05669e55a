"""The bundled MMToM-QA-shaped suite: its size, and every right option checked again against
what the home holds and what the person does."""

from __future__ import annotations

import re
from collections import Counter

import pytest
import yaml
from conftest import SUITES

from pytest_tom.catalogue.load import load_suite

BUNDLED = SUITES / "mmtomqa" / "household-goals-and-beliefs.tom.yaml"


def questions() -> list[dict]:
    return yaml.safe_load(BUNDLED.read_text(encoding="utf-8"))["scenarios"]


def test_at_least_50_items_of_every_type() -> None:
    suite = load_suite(BUNDLED)
    assert len(suite.items) >= 50
    types = Counter(it.meta["type"] for it in suite.items)
    assert sorted(types) == ["1.1", "1.2", "1.3", "2.1", "2.2", "2.3", "2.4"]
    assert min(types.values()) >= 7
    assert set(Counter(it.meta["gold_letter"] for it in suite.items)) == {"a", "b"}


def holds(apartment: str) -> dict[str, set[str]]:
    """place -> the objects the apartment text puts there."""
    out: dict[str, set[str]] = {}
    for part in re.split(r"; |\n", re.sub(r"(?m)^In the [a-z ]+?, ", "", apartment)):
        m = re.search(r"(?:the (.+?) holds|on the (.+?) there is) (.+?)\.?$", part)
        if m:
            out[m[1] or m[2]] = {re.sub(r"^an? ", "", x) for x in re.split(r", | and ", m[3])}
        m = re.search(r"the (.+?) is (?:empty|bare)", part)
        if m:
            out[m[1]] = set()
    return out


def room_of(apartment: str, place: str) -> str:
    line = next(line for line in apartment.splitlines() if f"the {place} " in line)
    return re.match(r"In the (.+?),", line)[1]


@pytest.mark.parametrize("q", questions(), ids=lambda q: q["id"])
def test_the_right_option_follows_from_the_home_and_the_actions(q: dict) -> None:
    home = holds(q["apartment"])
    right = q["options"]["ab".index(q["answer"])]
    wrong = q["options"]["ba".index(q["answer"])]
    kind = str(q["type"])
    if kind.startswith("1."):
        obj = re.search(r"looking for the (.+?), which", q["question"])[1]
        place = re.search(r"is (?:not )?in the (.+)\.$", right)[1]
        believes_in = " is not in " not in right
        if kind == "1.1":  # heads for the place that holds it
            assert q["actions"].endswith(f"towards the {place}.") and obj in home[place]
            assert believes_in
        elif kind == "1.2":  # heads for a place that does not hold it: a false belief
            assert q["actions"].endswith(f"towards the {place}.") and obj not in home[place]
            assert believes_in
        else:  # looked inside it and moved on
            assert f"opens the {place}, looks inside and closes it" in q["actions"]
            assert obj not in home[place] and not believes_in
        return
    goal = re.search(r"looking for the (.+)\.$", right)[1]
    other = re.search(r"looking for the (.+)\.$", wrong)[1]
    if kind == "2.1":  # heads for a place that holds the goal, not the excluded object
        place = re.search(r"towards the (.+)\.$", q["actions"])[1]
        excluded = re.search(r"there is no (.+) in the", q["question"])[1]
        assert goal in home[place] and excluded == other and other not in home[place]
    elif kind == "2.2":  # walked past the other object in plain sight
        assert f"where the {other} lies in plain sight, without taking it" in q["actions"]
        place = re.search(r"towards the (.+)\.$", q["actions"])[1]
        assert goal not in home[place]
    elif kind == "2.3":  # saw the other object inside and left it
        place = re.search(r"opens the (.+?), looks inside", q["actions"])[1]
        assert other in home[place] and goal not in home[place]
    else:  # walks into the room of the goal, away from the other's
        room = re.search(r"walks into the (.+)\.$", q["actions"])[1]
        away = re.search(r"turns away from the (.+?) and", q["actions"])[1]
        spot = {o: p for p, objs in home.items() for o in objs}
        assert room_of(q["apartment"], spot[goal]) == room
        assert room_of(q["apartment"], spot[other]) == away
