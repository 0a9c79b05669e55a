"""`--tom-probe no-story,no-options,shuffle` (issue 46 item 2), as units: the option, the
copies of each item as its family declares them, what each copy asks, how it is scored,
and the probes' block (paired tests, story-free accuracy against chance, consistency and
position bias). One whole run (plain, then `-n 2`): tests/test_probe_runs.py."""

from __future__ import annotations

import pytest
from conftest import SUITES

from pytest_tom import families
from pytest_tom.core.option_table import build_options
from pytest_tom.core.probe import Probes, node_name
from pytest_tom.engine.load import load_suite
from pytest_tom.engine.offline import score_records
from pytest_tom.engine.probe_expand import not_applicable, probe_copies
from pytest_tom.engine.probe_results import binomial_test, probe_block, right_count_pmf

ITEMS = load_suite(SUITES / "simpletom" / "bundled-stories.tom.yaml").items[:12]
LETTERS = "ABCD"


def _copies(probes: str, orders: int = 4) -> list:
    return probe_copies(ITEMS, build_options({"probe": probes, "probe_orders": str(orders)}))


def _first_choice(req) -> str:
    return "(A)"


def _oracle(req) -> str:
    return f"({req.item.gold})"


def test_the_option_and_its_usage_errors() -> None:
    assert build_options({"probe": "shuffle, no_story"}).probe == Probes(("no-story", "shuffle"))
    assert build_options({}).probe is None and build_options({}).probe_orders == 4
    for values, says in [({"probe": "no-story,no-plot"}, "'no-plot' is not a probe"),
                         ({"probe": "shuffle", "probe_orders": "1"}, "at least 2 orders"),
                         ({"probe": "no-story", "sweep": "thinking-tokens=16,32"},
                          "not in one run")]:
        with pytest.raises(ValueError, match="--tom-probe") as err:
            build_options(values)
        assert says in str(err.value)


def test_each_item_is_followed_by_its_copies_named_and_suited_apart() -> None:
    specs = _copies("no-story,no-options,shuffle", orders=3)
    assert len(specs) == len(ITEMS) * (1 + 2 + 3)
    assert specs[0] is ITEMS[0]  # the base item as it was
    first = specs[1:6]
    assert [s.suite for s in first] == [f"{ITEMS[0].suite}[probe={p}]" for p in
                                       ("no-story", "no-options", "shuffle-1", "shuffle-2",
                                        "shuffle-3")]
    assert node_name(first[0], "q") == "q[probe=no-story]"
    assert {s.base_suite for s in specs} == {ITEMS[0].suite}
    assert _copies("shuffle") == _copies("shuffle")  # seeded: the same orders every run
    # a family that declares no probe gives its items none, and says why in one line
    assert "no-story" in families.get("bigtom").probes_not_applicable
    assert not_applicable(["bigtom", "simpletom"], Probes(("no-story",))) == [
        f"bigtom: no no-story probe ({families.get('bigtom').probes_not_applicable['no-story']})"]


def test_no_story_requests_hold_no_sentence_of_the_story() -> None:
    seen = []
    score_records([s for s in _copies("no-story") if s.probe], lambda r: seen.append(r) or "(A)")
    assert len(seen) == len(ITEMS)
    for req, item in zip(seen, ITEMS, strict=True):
        sent = " ".join(m["content"] for m in req.messages)
        sentences = [s.strip() for s in item.data["story"].split(".") if len(s.strip()) > 8]
        # (SimpleToM's awareness question restates the story's key fact: that is the
        # question, which the probe keeps; no other sentence of the story is sent)
        told = [s for s in sentences if s not in item.question]
        assert told and not any(s in sent for s in told)
        assert item.question in sent and all(c in sent for c in item.choices)


def test_no_options_requests_hold_no_option_and_the_gold_text_is_right() -> None:
    copies = [s for s in _copies("no-options") if s.probe]
    seen = []

    golds = {s.id: s.choices[LETTERS.index(s.gold)] for s in copies}

    def gold_text(req) -> str:  # the gold option's text, as a sentence
        seen.append(req)
        return f"I think the answer is: {golds[req.item.id]}."

    records = score_records(copies, gold_text)
    assert all(r["outcome"]["correct"] for r in records)
    for req, item in zip(seen, ITEMS, strict=True):
        sent = " ".join(m["content"] for m in req.messages)
        assert item.question in sent and not any(f"({x})" in sent for x in LETTERS)
        assert not any(f"\n{c}" in sent or f") {c}" in sent for c in item.choices)
    # a letter alone is no option (the model was shown none); a wrong text is wrong
    wrong = score_records(copies[:1], lambda r: "(A)")[0]["outcome"]
    assert wrong["correct"] is False and wrong["error"] == "unparseable"


def test_shuffle_first_option_answerer_shows_position_bias_and_an_oracle_is_consistent() -> None:
    copies = _copies("shuffle")
    block = probe_block(score_records(copies, _first_choice))["suites"][0]
    shuffle = block["shuffle"]
    assert shuffle["orders"] == 4 and shuffle["items"] == len(ITEMS)
    by_place = {row["position"]: row for row in shuffle["by_position"]}
    assert by_place[1]["accuracy"] == 1.0 and by_place[1]["n"] > 0
    assert all(row["right"] == 0 for p, row in by_place.items() if p != 1)
    assert len(by_place) > 1 and shuffle["consistency"] == 0.0
    oracle = probe_block(score_records(copies, _oracle))["suites"][0]
    assert oracle["shuffle"]["consistency"] == 1.0
    assert all(row["accuracy"] == 1.0 for row in oracle["probes"])
    assert all(row["paired"]["newly_wrong"] == 0 for row in oracle["probes"])


def test_the_block_pairs_each_probe_with_the_base_and_tests_no_story_against_chance() -> None:
    records = score_records(_copies("no-story"), _oracle)
    for r in records:  # without the story, wrong on every item but the first two
        if "probe" in r and r["item"]["id"] not in {ITEMS[0].id, ITEMS[1].id}:
            r["outcome"] = {**r["outcome"], "correct": False}
    (suite,) = probe_block(records)["suites"]
    assert suite["base"] == {"n": 12, "right": 12, "accuracy": 1.0}
    (row,) = suite["probes"]
    assert row["label"] == "probe=no-story" and row["right"] == 2
    assert row["paired"] == {"n": 12, "newly_right": 0, "newly_wrong": 10,
                             "p_value": pytest.approx(2 / 2 ** 10)}
    story = suite["no_story"]
    assert story["right_items"] == [ITEMS[0].id, ITEMS[1].id]
    chances = [1 / len(i.choices) for i in ITEMS]
    assert story["chance"] == pytest.approx(sum(chances) / 12)
    assert story["p_value"] == pytest.approx(binomial_test(2, chances))
    assert probe_block(score_records(ITEMS, _oracle)) is None  # no probe, no block


def test_the_exact_binomial_test() -> None:
    # Binomial(10, 1/2): P(X <= 1) + P(X >= 9) = 22 / 1024, exact
    assert binomial_test(1, [0.5] * 10) == pytest.approx(22 / 1024)
    assert binomial_test(5, [0.5] * 10) == pytest.approx(1.0)
    # unequal chances: a Poisson binomial, its pmf summing to one
    pmf = right_count_pmf([0.5, 0.25])
    assert pmf == pytest.approx([0.375, 0.5, 0.125])
    assert binomial_test(2, [0.5, 0.25]) == pytest.approx(0.125)
    assert binomial_test(0, []) == 1.0
