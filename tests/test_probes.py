"""`--tom-probe no-story,no-options,shuffle` (issue 46 item 2), as units: the option, the
copies of each item as its family declares them, what each copy asks, how it is scored,
and the probes' block (paired tests, story-free accuracy against chance, consistency and
position bias). One whole run (plain, then `-n 2`): tests/test_probe_runs.py."""

from __future__ import annotations

import pytest
from conftest import SUITES

from pytest_tom import families
from pytest_tom.catalogue.load import load_suite
from pytest_tom.core.model import ItemSpec
from pytest_tom.core.option_table import build_options
from pytest_tom.core.probe import Probes, node_name
from pytest_tom.core.settings import Settings
from pytest_tom.items.item import ItemEngine
from pytest_tom.items.offline import score_records
from pytest_tom.items.probe_expand import not_applicable, probe_copies
from pytest_tom.results.reasoning.probe_results import binomial_test, probe_block, right_count_pmf

ITEMS = load_suite(SUITES / "simpletom" / "bundled-stories.tom.yaml").items[:12]
LETTERS = "ABCD"
# (suite file, the reply naming option k in the family's answer format, the story)
FAMILIES = {
    "simpletom": ("simpletom/bundled-stories.tom.yaml", lambda k: f"({LETTERS[k]})",
                  lambda i: i.data["story"]),
    "bigtom": ("bigtom/everyday-causal-templates.tom.yaml", lambda k: f"Answer:{'ab'[k]})",
               lambda i: i.data["story"]),
    "tombench": ("tombench/false-belief-task.tom.yaml", lambda k: f"[[{LETTERS[k]}]]",
                 lambda i: i.data["story"]),
    "hitom": ("hitom/higher-order-stories.tom.yaml",
              lambda k: "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[k], lambda i: i.data["story"]),
    "mmtomqa": ("mmtomqa/household-goals-and-beliefs.tom.yaml", lambda k: f"({'ab'[k]})",
                lambda i: f"{i.data['scenario']['apartment']}. {i.data['scenario']['actions']}"),
    "generic": ("generic/classic-false-belief.tom.yaml", lambda k: f"({'abcdefgh'[k]})",
                lambda i: i.data["context"]),
}

# families that take no option probe: the no-story copy alone
STORY_ONLY = {
    "opentom": ("opentom/bundled-narratives.tom.yaml", None, lambda i: i.data["narrative"]),
    "fantom": ("fantom/smalltalk.tom.yaml", None, lambda i: i.data["context"]),
}
FAMILIES_ALL = {**FAMILIES, **STORY_ONLY}


def _items(family: str, options: bool = False) -> list:
    """The family's first 12 items (`options`: of those with options)."""
    items = load_suite(SUITES / FAMILIES_ALL[family][0]).items
    return [i for i in items if len(i.choices) > 1 or not options][:12]


def _copies_of(family: str, probes: str) -> list:
    return probe_copies(_items(family, probes != "no-story"), build_options({"probe": probes}))


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
    skip = families.get("robustness").probes_not_applicable
    assert set(skip) == {"no-options", "shuffle"}
    assert not_applicable(["robustness", "simpletom"], Probes(("no-story", "shuffle"))) == [
        f"robustness: no shuffle probe ({skip['shuffle']})"]


@pytest.mark.parametrize("family", FAMILIES_ALL)
def test_no_story_requests_hold_no_sentence_of_the_story(family: str) -> None:
    items = _items(family)
    engine = ItemEngine(Settings())  # the requests as a run sends them (unscored: fast)
    seen = [engine.conversation(s)([]) for s in _copies_of(family, "no-story") if s.probe]
    assert len(seen) == len(items)
    for req, item in zip(seen, items, strict=True):
        sent = " ".join(m["content"] for m in req.messages)
        sentences = [s.strip() for s in FAMILIES_ALL[family][2](item).replace("\n", ".").split(".")
                     if len(s.strip()) > 8]
        # (SimpleToM's awareness question restates the story's key fact, and an option
        # may name a place as the story does: the question and options are what the probe
        # keeps; no other sentence of the story is sent)
        told = [s for s in sentences if s not in item.question
                and not any(s in c for c in item.choices)]
        assert told and not any(s in sent for s in told)
        assert item.question.strip() in sent and all(c.strip() in sent for c in item.choices)


@pytest.mark.parametrize("family", FAMILIES)
def test_no_options_requests_hold_no_option_and_the_gold_text_is_right(family: str) -> None:
    items = _items(family, options=True)
    copies = [s for s in _copies_of(family, "no-options") if s.probe]
    fam = families.get(family)
    golds = {s.id: s.choices[fam.gold_place(s)] for s in copies}
    seen = []

    def gold_text(req) -> str:  # the gold option's text, as a sentence
        seen.append(req)
        return f"I think the answer is: {golds[req.item.id]}"

    records = score_records(copies, gold_text)
    assert len(records) == len(items) and all(r["outcome"]["correct"] for r in records)
    for req, item in zip(seen, items, strict=True):
        sent = " ".join(m["content"] for m in req.messages)
        assert item.question.strip() in sent
        # (Hi-ToM's choices are the story's places: what is left beside the story and
        # the question names none)
        rest = sent.replace(FAMILIES[family][2](item).strip(), "")
        rest = rest.replace(item.question.strip(), "")
        assert not any(c.strip() in rest for c in item.choices)
    # a letter alone is no option (the model was shown none): unparseable, wrong
    wrong = score_records(copies[:1], lambda r: FAMILIES[family][1](0))[0]["outcome"]
    assert wrong["correct"] is False and wrong["error"] == "unparseable"


@pytest.mark.parametrize("family", FAMILIES)
def test_shuffle_first_option_answerer_shows_position_bias_and_an_oracle_is_consistent(
        family: str) -> None:
    copies = _copies_of(family, "shuffle")
    fam, say = families.get(family), FAMILIES[family][1]
    block = probe_block(score_records(copies, lambda r: say(0)))["suites"][0]
    shuffle = block["shuffle"]
    assert shuffle["orders"] == 4 and shuffle["items"] == len(_items(family, options=True))
    by_place = {row["position"]: row for row in shuffle["by_position"]}
    assert by_place[1]["accuracy"] == 1.0 and by_place[1]["n"] > 0
    assert all(row["right"] == 0 for p, row in by_place.items() if p != 1)
    assert len(by_place) > 1 and shuffle["consistency"] == 0.0
    place = {(s.suite, s.id): fam.gold_place(s) for s in copies}
    oracle = probe_block(score_records(copies, lambda r: say(place[r.item.suite, r.item.id])))
    (suite,) = oracle["suites"]
    assert suite["shuffle"]["consistency"] == 1.0 and suite["base"]["accuracy"] == 1.0
    assert all(row["accuracy"] == 1.0 for row in suite["probes"])
    assert all(row["paired"]["newly_wrong"] == 0 for row in suite["probes"])


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
    assert story["right_items"] == sorted([ITEMS[0].id, ITEMS[1].id])
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


def test_a_letter_gold_moves_with_its_option_by_the_kits_default() -> None:
    item = ItemSpec(id="s::q", suite="t", family="tomato", scenario="s", kind="belief",
                    question="What does Ann think?", gold="C",
                    choices=["one", "two", "three", "four"],
                    data={"conversation": "Ann: the keys are in the drawer."})
    copies = [c for c in probe_copies([item], build_options({"probe": "shuffle"})) if c.probe]
    for c in copies:
        assert c.choices[LETTERS.index(c.gold)] == "three"  # the gold letter follows "three"
        assert c.probe.gold_position == LETTERS.index(c.gold)
    assert sorted(c.probe.gold_position for c in copies) == [0, 1, 2, 3]  # each place once
