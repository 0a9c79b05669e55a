"""The OpenToM scenario format: validation with positions, expansion into items, prompts,
and the bundled suite."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml
from conftest import SUITES

from pytest_tom.catalogue.load import load_suite
from pytest_tom.families.base import ScoringContext, Settings
from pytest_tom.families.opentom.family import OpenTomFamily
from pytest_tom.results.aggregate import family_result
from pytest_tom.suite import SuiteError

BUNDLED = SUITES / "opentom" / "bundled-narratives.tom.yaml"

HEAD = """\
suite: t
family: opentom
version: 1
scenarios:
  - id: s1
    mover: Ana
    observer: Ben
    entity: cup
    original_place: the shelf
    new_place: the sink
    observed: false
    narrative: Ana puts the cup from the shelf into the sink while Ben is out.
    questions:
"""


def write(tmp_path: Path, questions: str, head: str = HEAD) -> Path:
    path = tmp_path / "s.tom.yaml"
    path.write_text(head + questions, encoding="utf-8")
    return path


def problems(path: Path, settings: Settings | None = None) -> list[str]:
    with pytest.raises(SuiteError) as info:
        load_suite(path, settings)
    return [str(p) for p in info.value.problems]


def test_every_problem_is_reported_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, """\
      - {genre: loc_coarse, order: first, perspective: mover, answer: "Maybe"}
      - {genre: mhop_fullness, order: first, perspective: mover, answer: "less full"}
      - {genre: attitude, order: first, answer: positive}
      - {genre: loc_fine, order: first, perspective: observer, answer: the garden}
      - {genre: loc_fine, order: first, perspective: narrator, answer: the sink}
      - {genre: mhop_accessibility, order: third, perspective: mover, answer: "more accessible"}
      - {genre: loc_coarse, perspective: observer, answer: "Yes"}
""")
    found = problems(path)
    text = "\n".join(found)
    assert f"{path}:14:" in text and "'Maybe' is not an answer of a loc_coarse question" in text
    assert f"{path}:15:" in text and "needs 'container:'" in text
    assert f"{path}:16:" in text and "attitude questions have no order" in text
    assert f"{path}:17:" in text and "must name exactly one of the two places" in text
    assert f"{path}:18:" in text and "narrator question needs 'ask:'" in text
    assert f"{path}:19:" in text and "expected one of first, second, got 'third'" in text
    assert f"{path}:20:" in text and "needs 'order: first' or 'order: second'" in text
    assert len(found) == 7


def test_contradictory_gold_answers_are_an_error(tmp_path: Path) -> None:
    path = write(tmp_path, """\
      - {genre: loc_coarse, order: first, perspective: observer, answer: "No"}
      - {genre: loc_fine, order: first, perspective: observer, answer: the shelf}
""")
    (found,) = problems(path)
    assert f"{path}:15:" in found and "contradict" in found and "original place" in found


def test_duplicate_questions_and_places_that_read_alike(tmp_path: Path) -> None:
    head = HEAD.replace("new_place: the sink", "new_place: The Shelf.")
    path = write(tmp_path, """\
      - {genre: attitude, answer: neutral}
      - {genre: attitude, answer: neutral}
""", head=head)
    found = "\n".join(problems(path))
    assert "reads the same as the original place" in found
    assert "duplicate question id 'attitude'" in found


def test_long_default_needs_long_narratives(tmp_path: Path) -> None:
    head = HEAD.replace("scenarios:\n", "defaults:\n  narrative: long\nscenarios:\n")
    path = write(tmp_path, "      - {genre: attitude, answer: neutral}\n", head=head)
    (found,) = problems(path)
    assert "has no 'long_narrative'" in found


def test_yaml_booleans_as_coarse_answers_and_default_questions(tmp_path: Path) -> None:
    path = write(tmp_path, """\
      - {genre: loc_coarse, order: first, perspective: observer, answer: yes}
      - {genre: loc_coarse, order: second, perspective: mover, answer: Yes}
      - {genre: loc_fine, order: first, perspective: observer, answer: the shelf}
      - {genre: mhop_fullness, order: second, perspective: observer, container: new, answer: equally full}
      - {genre: mhop_accessibility, order: second, perspective: mover, answer: less accessible}
      - {genre: attitude, answer: neutral}
""")
    suite = load_suite(path)
    items = {it.id.split("::")[1]: it for it in suite.items}
    assert list(items) == ["loc_coarse-fo-observer", "loc_coarse-so-mover", "loc_fine-fo-observer",
                           "mhop_fullness-so-observer-new", "mhop_accessibility-so-mover",
                           "attitude"]
    assert items["loc_coarse-fo-observer"].gold == "Yes"
    assert items["loc_coarse-so-mover"].question == (
        "From Ana's perspective, does Ben think that the cup is in its initial location by the "
        "end of the story?")
    assert items["mhop_fullness-so-observer-new"].question == (
        "From Ben's perspective, how does Ana think the sink's fullness would change by the end "
        "of the story?")
    assert items["attitude"].question == (
        "As Ben, what is your attitude towards Ana's action of moving the cup from the shelf to "
        "the sink?")
    fine = items["loc_fine-fo-observer"]
    assert fine.gold == "the shelf"
    assert fine.meta["gold_label"] == "original" and fine.meta["gold_place"] == "shelf"
    assert fine.markers == ["loc_fine", "first_order", "observer"]
    assert items["attitude"].markers == ["attitude", "observer"]
    assert items["attitude"].choices == ["positive", "neutral", "negative"]
    assert {it.group for it in suite.items} == {"s1"}


def test_prompts_of_the_three_methods(tmp_path: Path) -> None:
    path = write(tmp_path, """\
      - {genre: loc_coarse, order: first, perspective: observer, answer: "Yes"}
      - {id: where, genre: loc_fine, order: first, perspective: narrator, ask: Where is the cup?, answer: the sink}
      - {genre: attitude, answer: neutral}
""")
    coarse, narrator, attitude = load_suite(path).items
    fam = OpenTomFamily()
    (msg,) = fam.conversation(coarse, "vanilla", [])
    assert msg["content"].startswith("Story:\nAna puts the cup")
    assert 'Answer the question with "Yes" or "No". Do not give any explanation.' in msg["content"]
    assert fam.conversation(coarse, "vanilla", ["Yes"]) is None
    (cot,) = fam.conversation(coarse, "cot", [])
    assert "Reason step by step before answering. Write the answer in the end" in cot["content"]
    assert fam.conversation(coarse, "cot", ["...\nYes"]) is None
    (first,) = fam.conversation(coarse, "simtom", [])
    assert "Which events of this story does Ben know about?" in first["content"]
    (second,) = fam.conversation(coarse, "simtom", ["Ben saw Ana with the cup."])
    assert "Ben saw Ana with the cup." in second["content"]
    assert "Answer from Ben's perspective." in second["content"]
    assert "Ana puts the cup" in second["content"]  # the whole narrative stays (the paper's form)
    assert fam.conversation(coarse, "simtom", ["a", "b"]) is None
    (narr,) = fam.conversation(narrator, "simtom", [])  # no character: a single call
    assert "Question: Where is the cup?" in narr["content"]
    assert fam.conversation(narrator, "simtom", ["the sink"]) is None
    (att,) = fam.conversation(attitude, "vanilla", [])
    assert "a) positive\nb) neutral\nc) negative" in att["content"]


def test_chain_of_thought_scores_the_last_line_only(tmp_path: Path) -> None:
    path = write(tmp_path, "      - {genre: loc_coarse, order: first, perspective: observer, "
                           "answer: \"Yes\"}\n")
    (item,) = load_suite(path).items
    fam = OpenTomFamily()
    cot = ScoringContext(Settings(method="cot"))
    assert fam.score(item, "No, wait.\nOn reflection:\nYes.", cot).correct is True
    out = fam.score(item, "Yes.\nThat is all.", cot)
    assert out.correct is False and out.error == "unparseable"
    vanilla = ScoringContext(Settings())
    assert fam.score(item, "Yes.\nThat is all.", vanilla).correct is True


def test_long_option_uses_long_narratives_and_skips_the_rest(tmp_path: Path) -> None:
    head = HEAD.replace("    questions:\n", "    long_narrative: A much longer story.\n"
                        "    questions:\n")
    head += "      - {genre: attitude, answer: neutral}\n"
    head += HEAD.split("scenarios:\n")[1].replace("id: s1", "id: s2")
    path = write(tmp_path, "      - {genre: attitude, answer: neutral}\n", head=head)
    settings = Settings(options={"opentom_long": True})
    with_long, without = load_suite(path, settings).items
    fam = OpenTomFamily()
    assert with_long.data["narrative"] == "A much longer story."
    assert fam.unavailable(with_long, settings) is None
    assert "has no long narrative" in fam.unavailable(without, settings)
    short = load_suite(path).items[0]
    assert short.data["narrative"].startswith("Ana puts the cup") and short.meta["narrative"] == "short"


# -- the bundled suite --------------------------------------------------------------------

def test_bundled_suite_has_enough_varied_narratives() -> None:
    doc = yaml.safe_load(BUNDLED.read_text(encoding="utf-8"))
    scenarios = doc["scenarios"]
    assert len(scenarios) >= 15
    assert Counter(sc["observed"] for sc in scenarios).keys() == {True, False}
    for sc in scenarios:
        assert {"personality", "preferences", "intention"} <= sc.keys(), sc["id"]
        assert {"mover", "observer"} <= sc["preferences"].keys(), sc["id"]
    personalities = {sc["personality"].split(" is ")[1] for sc in scenarios}
    assert personalities == {"a considerate person.", "an inconsiderate person.",
                             "a negativistic person."}
    suite = load_suite(BUNDLED)
    keys = Counter((it.kind, it.meta["order"], it.meta["role"]) for it in suite.items)
    for genre in ("loc_coarse", "loc_fine", "mhop_fullness", "mhop_accessibility"):
        for order in ("first", "second"):
            for role in ("mover", "observer"):
                assert keys[(genre, order, role)] >= 16
    assert keys[("attitude", None, "observer")] == len(scenarios)
    assert {it.gold for it in suite.items if it.kind == "attitude"} == {
        "positive", "neutral", "negative"}


def test_bundled_golds_follow_the_documented_rules() -> None:
    """The conventions in the suite's header comment, checked story by story."""
    doc = yaml.safe_load(BUNDLED.read_text(encoding="utf-8"))
    for sc in doc["scenarios"]:
        seen = sc["tags"][0]
        knows = {("first", "mover"): True,
                 ("first", "observer"): seen != "unobserved",
                 ("second", "mover"): seen == "observed_openly",
                 ("second", "observer"): seen != "unobserved"}
        assert sc["observed"] == (seen != "unobserved")
        for q in sc["questions"]:
            role = q.get("perspective")
            if q["genre"] == "attitude" or role == "narrator":
                continue
            k = knows[(q["order"], role)]
            a = q["answer"]
            where = f"{sc['id']}: {q}"
            if q["genre"] == "loc_coarse":
                assert a == ("No" if k else "Yes"), where
            elif q["genre"] == "loc_fine":
                assert a == (sc["new_place"] if k else sc["original_place"]), where
            elif q["genre"] == "mhop_fullness":
                moved = "less full" if q["container"] == "original" else "more full"
                assert a == (moved if k else "equally full"), where
            elif (q["order"], role) != ("second", "mover"):
                assert (a == "equally accessible") == (not k or "equally" in a), where


def test_failed_requests_count_as_wrong_and_skipped_items_do_not_count(tmp_path: Path) -> None:
    path = write(tmp_path, """\
      - {genre: loc_coarse, order: first, perspective: mover, answer: "No"}
      - {genre: loc_coarse, order: first, perspective: observer, answer: "Yes"}
      - {genre: loc_fine, order: first, perspective: mover, answer: the sink}
""")
    mover, observer, fine = load_suite(path).items
    fam = OpenTomFamily()
    settings = Settings()
    ctx = ScoringContext(settings)

    def rec(item: object, outcome: dict) -> dict:
        return {"item": item.summary(), "outcome": outcome}

    records = [
        rec(mover, fam.score(mover, "No.", ctx).to_dict()),
        rec(observer, {"correct": False, "parsed": None, "value": None,
                       "error": "request_failed", "detail": "timeout", "extra": {}}),
        rec(fine, {"correct": None, "parsed": None, "value": None,
                   "error": "unavailable", "detail": "skipped", "extra": {}}),
    ]
    m = family_result("opentom", records, settings).metrics
    # gold No, No-answer right; gold Yes, failed request = class "unparsed":
    # F1(No) = 1, F1(Yes) = 0, F1(unparsed) = 0
    assert m["f1.loc_coarse.first"] == pytest.approx(1 / 3)
    assert m["accuracy.loc_coarse.first"] == 0.5
    assert m["parse_failure.loc_coarse.first"] == 0.0  # a failed request is no parse failure
    assert m["items.loc_fine.first"] == 0 and m["f1.loc_fine.first"] is None
    assert m["role_gap.loc_coarse.first"] == 1.0
    assert m["faithfulness_pairs.first"] == 0  # the fine answer was skipped: no pair


def test_fine_classes_and_perspective_subsets_by_hand(tmp_path: Path) -> None:
    """Rules 4 and 5 on a hand-made narrative: fine answers are classed original / new,
    narrator questions count in Loc_f (F) and in both perspective subsets, attitude in the
    observer's only, an unparseable answer is the class "unparsed"."""
    path = write(tmp_path, """\
      - {genre: loc_fine, order: first, perspective: mover, answer: the sink}
      - {genre: loc_fine, order: first, perspective: observer, answer: the shelf}
      - {id: end, genre: loc_fine, order: first, perspective: narrator, answer: the sink,
         ask: Where is the cup at the end of the story?}
      - {id: start, genre: loc_fine, order: first, perspective: narrator, answer: the shelf,
         ask: Where is the cup at the beginning of the story?}
      - {genre: attitude, answer: negative}
""")
    items = load_suite(path).items
    assert [it.meta["subsets"] for it in items] == [
        ["mover"], ["observer"], ["mover", "observer"], ["mover", "observer"], ["observer"]]
    assert [it.meta["gold_label"] for it in items[:4]] == ["new", "original", "new", "original"]
    assert items[0].meta["gold_place"] == "sink"  # the place is kept for reading
    fam = OpenTomFamily()
    settings = Settings()
    ctx = ScoringContext(settings)
    answers = ["In the sink.", "The sink, I guess.", "sink", "I don't know.", "Negative."]
    outcomes = [fam.score(it, a, ctx) for it, a in zip(items, answers, strict=True)]
    assert [o.parsed for o in outcomes] == ["new", "new", "new", None, "negative"]
    assert outcomes[0].extra == {"place": "sink"}
    m = family_result("opentom", [{"item": it.summary(), "outcome": o.to_dict()}
                                  for it, o in zip(items, outcomes, strict=True)], settings).metrics
    # Loc_f (F), all four: gold new, original, new, original; predicted new, new, new, unparsed
    # new: TP 2 FP 1 -> 4/5; original: FN 2 -> 0; unparsed: FP 1 -> 0
    assert m["items.loc_fine.first"] == 4
    assert m["f1.loc_fine.first"] == pytest.approx((4 / 5 + 0 + 0) / 3)
    assert m["accuracy.loc_fine.first"] == pytest.approx(2 / 4)
    # mover subset: mover + both narrator questions: new TP 2 -> 1; original 0; unparsed 0
    assert m["f1_mover.loc_fine.first"] == pytest.approx(1 / 3)
    # observer subset: observer + narrator: new TP 1 FP 1 -> 2/3; original FN 2 -> 0; unparsed 0
    assert m["f1_observer.loc_fine.first"] == pytest.approx((2 / 3) / 3)
    assert m["role_gap.loc_fine.first"] == pytest.approx(1 / 3 - 2 / 9)
    # the narrator's own row: new 1, original 0, unparsed 0
    assert m["f1.loc_fine.narrator"] == pytest.approx(1 / 3)
    assert m["f1_observer.attitude"] == 1.0 and m["f1_mover.attitude"] is None
