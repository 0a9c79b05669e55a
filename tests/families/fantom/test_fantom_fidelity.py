"""FANToM aggregation rules of issue 13 on small hand-made suites, with the expected figures
worked out by hand in each test: the control task's sets (rule 1), the per-character groups
by outer believer (rule 2), case-sensitive belief token F1 (rule 3), and ToM-order figures
that are n/a, not 0, for an order without questions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pytest_tom.catalogue.load import load_suite
from pytest_tom.core.outcome import Outcome
from pytest_tom.families.base import ScoringContext, Settings
from pytest_tom.families.fantom.expand import outer_believer
from pytest_tom.families.fantom.family import FantomFamily
from pytest_tom.results.aggregate import family_result
from pytest_tom.scoring.embeddings import Comparison
from pytest_tom.scoring.f1 import token_f1

HEAD = """\
suite: fidelity
family: fantom
version: 1
scenarios:
  - id: garden
    characters: [Uma, Dee, Cy, Bo, Eve]
    contexts:
      full: |
        Bo: I must go, bye.
        Uma: Cy, hold the hose.
        Cy: Back in a minute.
        Uma: Dee, I planted tulips.
        Cy: I'm back.
        Eve: Hi all.
      short: |
        Cy: Back in a minute.
        Uma: Dee, I planted tulips.
        Cy: I'm back.
    sets:
"""

# s1: Cy missed the tulips; one of its belief questions (Dee's own belief) is accessible
S1 = """\
      - id: s1
        missed_by: Cy
        fact: {question: What did Uma plant?, answer: Uma planted tulips.}
        beliefs:
          - {question: What does Cy believe Uma planted?, answer: Cy does not know.,
             wrong_answer: Cy thinks tulips., order: first-order}
          - {question: What does Dee believe Uma planted?, answer: Dee thinks tulips.,
             wrong_answer: Dee does not know., order: first-order, accessibility: accessible}
        aware: [Uma, Dee]
        unaware: [Cy]
"""
# s2: said while everyone was there: fully accessible in both contexts
S2 = """\
      - id: s2
        fact: {question: Who holds the hose?, answer: Cy holds the hose.}
        beliefs:
          - {question: What does Uma believe Cy holds?, answer: Uma thinks the hose.,
             wrong_answer: Uma does not know., order: first-order}
        aware: [Uma, Dee, Cy]
        accessibility: accessible
"""
# s3: accessible, but Bo (gone before the short part) does not know: in full context its
# lists and yes/no questions become inaccessible, so it is a control set only when short
S3 = """\
      - id: s3
        fact: {question: Who left?, answer: Bo left.}
        beliefs:
          - {question: What does Dee believe about who left?, answer: Dee thinks Bo left.,
             wrong_answer: Dee does not know., order: first-order}
        aware: [Uma, Dee, Cy]
        unaware: [Bo]
        full_only: [Bo]
        accessibility: accessible
"""


def load(tmp_path: Path, sets: str, context: str = "short") -> list[Any]:
    path = tmp_path / "s.tom.yaml"
    path.write_text(HEAD + sets, encoding="utf-8")
    return load_suite(path, Settings(options={"fantom_context": context})).items


def answer(item: Any, right: bool) -> str:
    """A right or wrong answer in the item's form (not for belief_dist or fact)."""
    if item.kind == "belief_choice":
        letter = item.meta["gold_letter"]
        return f"({letter if right else 'ab'.replace(letter, '')})"
    if item.kind.endswith("_list"):
        names = item.meta["aware"] if right else item.meta["aware"] + item.meta["unaware"]
        return ", ".join(names) or "Nobody."
    if item.kind.endswith("_yn"):
        return "Yes." if (item.gold == "yes") == right else "No."
    return str(item.gold)


def records(items: list[Any], wrong: set[str], dist_wrong: set[str] = frozenset()) -> list[Any]:
    """Item records: every answer right except the item ids in `wrong`; free responses are
    judged by hand (right unless in `dist_wrong`), since no embedder is used here."""
    fam = FantomFamily()
    ctx = ScoringContext(Settings())
    out = []
    for it in items:
        if it.kind == "belief_dist":
            ok = it.id not in dist_wrong
            outcome = Outcome(correct=ok, parsed=str(it.gold), value=1.0 if ok else 0.0)
        else:
            outcome = fam.score(it, answer(it, it.id not in wrong), ctx)
        out.append({"item": it.summary(), "outcome": outcome.to_dict()})
    return out


def metrics(items: list[Any], wrong: set[str], context: str = "short") -> dict[str, Any]:
    settings = Settings(options={"fantom_context": context})
    return family_result("fantom", records(items, wrong), settings).metrics


# -- rule 1: the control task counts only fully accessible sets ---------------------------

@pytest.mark.parametrize("context", ["short", "full"])
def test_control_all_counts_only_fully_accessible_sets(tmp_path: Path, context: str) -> None:
    items = load(tmp_path, S1 + S2 + S3, context)
    # s3's belief answer is wrong; s1's accessible belief question (Dee) is answered right
    m = metrics(items, {"s3::belief_choice::b1"}, context)
    if context == "short":
        # control sets: s2 (all right) and s3 (wrong) -> 1/2; s1 has an inaccessible belief
        # question, so its one accessible question is no control group of its own (that
        # would give 2/3)
        assert m["accessible.sets"] == 2
        assert m["accessible.all"] == pytest.approx(1 / 2)
        assert m["accessible.all_star"] == pytest.approx(1 / 2)
    else:
        # full context: s3's lists and yes/no questions are inaccessible (Bo does not know),
        # so only s2 is a control set -> 1/1 (the old grouping: s1, s2, s3 -> 2/3)
        assert m["accessible.sets"] == 1
        assert m["accessible.all"] == 1.0
        assert m["accessible.all_star"] == 1.0
    # the question-level control figures still use every accessible question:
    # choice answers s1/b2 right, s2/b1 right, s3/b1 wrong -> 2/3
    assert m["accessible.belief_choice"] == pytest.approx(2 / 3)
    # the FANToM scores: s1 (short) / s1 and s3 (full) are the inaccessible sets, all right
    assert m["inaccessible.all"] == 1.0


def test_control_answerability_all_counts_only_control_sets(tmp_path: Path) -> None:
    items = load(tmp_path, S1 + S2 + S3, "full")
    m = metrics(items, {"s2::answerability_yn::Cy"}, "full")
    # full context: the only control set is s2, whose Cy yes/no answer is wrong -> 0/1
    assert m["accessible.answerability_all"] == 0.0
    assert m["accessible.infoaccess_all"] == 1.0
    # s3's answerability list and yes/no questions are inaccessible in full context
    assert m["inaccessible.answerability_all"] == 1.0


# -- rule 2: per character, belief questions belong to their outer believer ----------------

def test_outer_believer_is_the_character_after_does() -> None:
    names = ["Daniel", "Sofia", "Kai"]
    q = "What does Daniel believe about Sofia's belief regarding what Kai said?"
    assert outer_believer(q, names) == "Daniel"
    assert outer_believer("Where does Sofia think the party is?", names) == "Sofia"
    assert outer_believer("How did Kai's trip go, according to Sofia?", names) == "Kai"
    assert outer_believer("What is the plan?", names) is None


def test_per_character_groups_by_outer_believer(tmp_path: Path) -> None:
    s4 = """\
      - id: s4
        missed_by: Cy
        fact: {question: What did Uma plant?, answer: Uma planted tulips.}
        beliefs:
          - {question: What does Cy believe Uma planted?, answer: Cy does not know.,
             wrong_answer: Cy thinks tulips., order: first-order}
          - {question: What does Dee believe about Cy's belief on what Uma planted?,
             answer: Dee thinks Cy does not know., wrong_answer: Dee thinks Cy knows.,
             order: second-order:acyclic}
          - {question: What does Eve believe about Cy's belief on what Uma planted?,
             answer: Eve thinks Cy does not know., wrong_answer: Eve thinks Cy knows.,
             order: second-order:acyclic}
        aware: [Uma, Dee]
        unaware: [Cy]
"""
    items = load(tmp_path, s4)
    wrong = {"s4::answerability_yn::Dee", "s4::belief_choice::b2"}
    m = metrics(items, wrong)
    # (s4, character) groups: Uma, Dee, Cy (yes/no questions) and Eve (a believer only).
    # Uma: 2 yes/no right, named by both lists (gold yes) -> right
    # Dee: answerability yes/no wrong, and her own belief b2 wrong -> wrong
    # Cy: 2 yes/no right, left out by both lists (gold no), b1 right -> right
    # Eve: only b3, right -> right                                   => 3 of 4
    # (filing b2 under Cy, who missed the information, and leaving Eve out gives 1 of 3)
    assert m["inaccessible.characters"] == 4
    assert m["inaccessible.all_for_each_character"] == pytest.approx(3 / 4)
    # consistency over the pairs with yes/no answers: Uma yes/yes/named/named; Dee no/yes/
    # named/named (inconsistent); Cy no/no/left out/left out -> 2 of 3
    assert m["inaccessible.answer_consistency"] == pytest.approx(2 / 3)


# -- rule 3: the belief token F1 is case-sensitive ----------------------------------------

def test_belief_token_f1_is_case_sensitive_and_fact_token_f1_is_not() -> None:
    gold = "he assumes the tulips are roses"
    # 6 tokens each; "He" is not "he": 5 shared -> P = R = 5/6 -> F1 = 5/6
    assert token_f1("He assumes the tulips are roses", gold, lowercase=False) == pytest.approx(5 / 6)
    assert token_f1("He assumes the tulips are roses", gold) == 1.0


class FakeEmbedder:
    """Says every answer is closer to the right option (the distance rule is not tested)."""

    description = "fake"

    def prime(self, key: str, texts: list[str]) -> None:
        pass

    def compare(self, text: str, right: str, wrong: str) -> Comparison:
        return Comparison(0.9, 0.1, "float32")


def test_belief_dist_token_f1_in_the_report_is_case_sensitive(tmp_path: Path) -> None:
    items = load(tmp_path, S1)
    fam = FantomFamily()
    settings = Settings(options={"fantom_context": "short"})
    ctx = ScoringContext(settings)
    ctx.service("fantom.embedder", FakeEmbedder)
    recs = []
    for it in items:
        if it.kind == "belief_dist" and it.meta["belief"] == "b1":
            text = "cy does not know."  # gold "Cy does not know.": 3 of 4 tokens as written
        elif it.kind == "fact":
            text = "UMA PLANTED TULIPS."  # the fact's token F1 ignores case: 1.0
        else:
            text = answer(it, True) if it.kind != "belief_dist" else str(it.gold)
        recs.append({"item": it.summary(), "outcome": fam.score(it, text, ctx).to_dict()})
    m = family_result("fantom", recs, settings).metrics
    # inaccessible Dist.-correct answers: b1 only -> F1 = 3/4
    assert m["inaccessible.belief_dist_token_f1"] == pytest.approx(3 / 4)
    assert m["accessible.belief_dist_token_f1"] == 1.0  # b2 answered with its gold
    assert m["fact_token_f1"] == 1.0


# -- ToM orders without questions are n/a, not 0 -----------------------------------------

def test_orders_without_questions_are_none_and_n_a(tmp_path: Path) -> None:
    items = load(tmp_path, S1 + S2)  # first-order questions only
    wrong = {"s1::belief_choice::b1"}
    result = family_result("fantom", records(items, wrong), Settings(options={}))
    m = result.metrics
    assert m["inaccessible.belief_choice.first_order"] == 0.0  # one question, wrong
    for order in ("second_order", "second_order_cyclic", "second_order_acyclic"):
        assert m[f"inaccessible.belief_choice.{order}"] is None, order
        assert m[f"accessible.belief_dist.{order}"] is None, order
    table = next(t for t in result.tables if "ToM order" in t.title)
    row = next(r for r in table.rows if r[:2] == ["inaccessible", "belief_choice"])
    assert row[2:] == ["0.0", "n/a", "n/a", "n/a"]
