"""Each family's headline metrics are declared once (`metrics.declare`): the declarations
give the hand-computed values on small record sets, a declaration that cannot work is an
error when the family is defined, and a selection reading a field it did not declare is
an error at the first record, never a silently wrong count or a dropped interval."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import SUITES
from embedding_model import embedder  # noqa: F401  (fixture: FANToM's model, loaded once)

from pytest_tom import families
from pytest_tom.catalogue.load import load_suite
from pytest_tom.core.outcome import UNAVAILABLE
from pytest_tom.core.settings import Settings
from pytest_tom.families.base import Family
from pytest_tom.items.offline import score_records
from pytest_tom.metrics.declare import (
    GROUPED,
    AllRight,
    DeclarationError,
    Metric,
    Plot,
    evaluate,
    ratio_of,
)
from pytest_tom.metrics.record_table import RecordTable, UndeclaredRead
from pytest_tom.results.aggregate import aggregate
from pytest_tom.results.headline import reads_of


def rec(i: int, scenario: str, kind: str, meta: dict[str, Any], correct: bool | None,
        error: str | None = None, gold: Any = None, parsed: Any = None,
        group: str | None = None, value: float | None = None) -> dict[str, Any]:
    return {"item": {"suite": "s", "id": f"{scenario}::{i}", "scenario": scenario, "kind": kind,
                     "tags": [], "meta": meta, "gold": gold, "group": group},
            "outcome": {"correct": correct, "error": error, "parsed": parsed, "value": value}}


def values(family: str, records: list[dict[str, Any]], *names: str) -> dict[str, Any]:
    """The declared metrics' values, from a faceted table (as a run computes them) and
    record by record (a plain list): both must agree."""
    declared = {m.name: m for m in families.get(family).declared_metrics(Settings())}
    table = RecordTable(records, reads_of(declared.values()))
    out = {}
    for name in names:
        out[name] = declared[name].value(table)
        assert declared[name].value(records) == out[name], name
    return out


def test_bigtom_condition_accuracies_and_joint_score_by_hand() -> None:
    def item(i: int, scenario: str, belief: str, right: bool) -> dict[str, Any]:
        return rec(i, scenario, "belief", {
            "condition": f"forward_belief.{belief}.with_init", "belief_condition": belief,
            "inference": "forward_belief", "initial_belief": True}, right)

    records = [item(0, "s1", "true_belief", True), item(1, "s1", "false_belief", True),
               item(2, "s2", "true_belief", True), item(3, "s2", "false_belief", False),
               item(4, "s3", "true_belief", False), item(5, "s3", "false_belief", True)]
    got = values("bigtom", records, "true_belief", "false_belief", "tb_and_fb",
                 "forward_belief.true_belief.with_init", "true_control")
    # TB right in s1, s2; FB right in s1, s3; both of a pair right in s1 only
    assert got == {"true_belief": 2 / 3, "false_belief": 2 / 3, "tb_and_fb": 1 / 3,
                   "forward_belief.true_belief.with_init": 2 / 3, "true_control": None}


def test_fantom_set_scores_and_weighted_f1_by_hand() -> None:
    def tom(i: int, set_id: str, kind: str, right: bool, access: str = "inaccessible",
            **kw: Any) -> dict[str, Any]:
        return rec(i, "conv", kind, {"set": set_id, "accessibility": access}, right, **kw)

    records = [
        tom(0, "A", "belief_choice", True), tom(1, "A", "answerability_list", True),
        tom(2, "A", "answerability_yn", True, gold="yes", parsed="yes"),
        tom(3, "A", "belief_choice", False, access="accessible"),  # the control: not counted
        tom(4, "B", "belief_choice", True),
        tom(5, "B", "answerability_yn", False, gold="yes", parsed="no"),
        tom(6, "B", "answerability_yn", True, gold="no", parsed="no"),
        tom(7, "C", "belief_dist", None, error=UNAVAILABLE),  # skipped: C not all right
        tom(8, "C", "belief_choice", True),
    ]
    got = values("fantom", records, "all_star", "all", "belief_choice", "answerability_yn_f1",
                 "answerability_all")
    # ALL*: A right, B not, C has a skipped free response; ALL leaves Dist. out: A and C
    assert got["all_star"] == 1 / 3 and got["all"] == 2 / 3
    assert got["belief_choice"] == 1.0  # the accessible control's wrong answer is not counted
    assert got["answerability_all"] == 1 / 2  # set A right, set B not
    # gold yes, yes, no; answered yes, no, no: F1(yes) = F1(no) = 2/3, weights 2 and 1
    assert got["answerability_yn_f1"] == pytest.approx(2 / 3)


def test_opentom_macro_f1_by_hand() -> None:
    def att(i: int, gold: str, said: str) -> dict[str, Any]:
        return rec(i, f"n{i}", "attitude", {"genre": "attitude", "gold_label": gold},
                   gold == said, parsed=said)

    records = [att(0, "positive", "positive"), att(1, "positive", "negative"),
               att(2, "negative", "negative")]
    # positive: precision 1, recall 1/2; negative: precision 1/2, recall 1: F1 2/3 each
    assert values("opentom", records, "f1.attitude")["f1.attitude"] == pytest.approx(2 / 3)
    decl = families.declared("opentom", "f1.attitude")
    assert decl is not None and not decl.percent and decl.plot == "f1"  # 0–1, its plot


def test_robustness_class_goal_by_hand() -> None:
    def scene(i: int, scenery: str, cls: str, right: bool) -> dict[str, Any]:
        return rec(i, "stage", "belief", {"class": cls}, right, group=f"stage::{scenery}")

    records = [scene(0, "a", "late_label", True), scene(1, "a", "late_label", True),
               scene(2, "b", "late_label", True), scene(3, "b", "late_label", False),
               scene(4, "c", "no_complication", False)]
    got = values("robustness", records, "class.late_label.goal", "class.late_label.turn",
                 "class.no_complication.goal")
    assert got == {"class.late_label.goal": 1 / 2, "class.late_label.turn": 3 / 4,
                   "class.no_complication.goal": 0.0}


# -- declarations that cannot work --------------------------------------------------------
def test_a_declaration_that_cannot_work_is_an_error_when_declared() -> None:
    with pytest.raises(DeclarationError, match="grouped metric needs `summarize`"):
        Metric("x", "x", GROUPED)
    with pytest.raises(DeclarationError, match="reads"):
        Metric("x", "x", reads="condition")  # a string, not a tuple of keys
    with pytest.raises(DeclarationError, match="display"):
        Metric("x", "x", display="%")
    with pytest.raises(DeclarationError, match="names plot 'nope', which is not declared"):
        class _Bad(Family):
            name = "bad"
            headline_metrics = (Metric("x", "x", plot="nope"),)
    with pytest.raises(DeclarationError, match="metric 'x' is declared twice"):
        class _Twice(Family):
            name = "twice"
            headline_metrics = (Metric("x", "x"), Metric("x", "y"))
            plots = (Plot("p", "p"),)


class YesNoFamily(Family):
    """A small yes/no family as docs/adding-a-family.md builds one, with a metric whose
    selection reads the item's gold answer (not something a selection may read)."""

    name = "yesno"
    headline_metrics = (Metric("yes_accuracy", "accuracy on yes questions",
                               select=lambda r: r["item"]["gold"] == "yes"),
                        Metric("pairs", "pairs right", GROUPED, summarize=AllRight(),
                               finish=ratio_of(), unit=lambda r: r["item"]["meta"]["pair"]))


def test_a_selection_reading_the_gold_answer_is_an_error_at_the_first_record(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(families._cache, "yesno", YesNoFamily())
    records = [rec(i, f"q{i}", "yn", {"pair": i // 2}, right, gold=gold)
               for i, (gold, right) in enumerate([("yes", True), ("yes", False),
                                                  ("no", True), ("no", True)])]
    for r in records:
        r["item"]["family"] = "yesno"
        r["item"]["source"] = {}
    # before: the facets of the table knew nothing of the gold answer, so the first
    # record's verdict stood for all and the table counted (2, 2) instead of (1, 2)
    with pytest.raises(UndeclaredRead, match=r"metric 'yes_accuracy'.*item\['gold'\]"):
        aggregate(records, Settings())


def test_a_declared_metric_the_family_does_not_compute_gets_its_value_and_interval(
        monkeypatch: pytest.MonkeyPatch) -> None:
    class PairsOnly(YesNoFamily):
        headline_metrics = YesNoFamily.headline_metrics[1:]

    monkeypatch.setitem(families._cache, "yesno", PairsOnly())
    records = [rec(i, f"q{i}", "yn", {"pair": i // 2}, right)
               for i, right in enumerate([True, False, True, True, True, True])]
    for r in records:
        r["item"]["family"] = "yesno"
        r["item"]["source"] = {}
    suite = aggregate(records, Settings())["suites"]["s"]
    assert suite["metrics"]["pairs"] == 2 / 3  # pair 0 has a wrong answer
    iv = suite["intervals"]["pairs"]
    assert iv["method"] == "bootstrap" and iv["low"] <= 2 / 3 <= iv["high"] and iv["n"] == 3


@pytest.fixture(scope="module")
def weak_run(embedder: Any) -> dict[str, Any]:  # noqa: F811 (the fixture)
    """Every bundled suite answered by the `weak` stand-in model (tests/demo_answerers.py),
    scored in process, and aggregated as a run's report is: {"suites", "items"}."""
    import demo_answerers  # noqa: PLC0415 imports every family's support module

    records: list[dict[str, Any]] = []
    for path in sorted(SUITES.rglob("*.tom.yaml")):
        records += score_records(load_suite(path).items, demo_answerers.weak, Settings())
    return {"suites": aggregate(records, Settings())["suites"], "items": records}


def test_the_paper_tables_show_the_declared_values(weak_run: dict[str, Any]) -> None:
    """Each family's `aggregate` is handed the declared values: a declared metric it still
    reports itself (a figure counted in its own code) must be that value, or None where
    it is unavailable. The tables of BigToM, robustness and OpenToM read the values handed
    in; their own tests hand them sentinel values (tests/families/*/test_*_tables.py,
    test_opentom_declared.py)."""
    report = weak_run
    checked = set()
    for name, suite in report["suites"].items():
        recs = sorted((r for r in report["items"] if r["item"]["suite"] == name),
                      key=lambda r: r["item"]["id"])
        fam = families.get(suite["family"])
        declared = evaluate(fam.declared_metrics(Settings()), RecordTable(recs, None))
        own = fam.aggregate(recs, Settings(), declared).metrics
        for m in fam.declared_metrics(Settings()):
            if own.get(m.name) is not None:
                assert own[m.name] == pytest.approx(declared[m.name].value, abs=1e-12), \
                    (name, m.name)
            if declared[m.name].value is not None and own.get(m.name, 0) is not None:
                assert suite["metrics"][m.name] == pytest.approx(declared[m.name].value,
                                                                 abs=1e-12), (name, m.name)
        checked.add(suite["family"])
    assert checked == {"bigtom", "fantom", "generic", "hitom", "mmtomqa", "opentom", "robustness",
                       "simpletom", "tomato", "tombench"}


class YesNoRun(YesNoFamily):
    """The yes/no family with items, to run through pytest."""

    from pytest_tom.families.kit import ID, Field, Obj, Str

    scenario_schema = Obj(what="yes/no question", fields={
        "id": Field(ID, required=True), "answer": Field(Str(), required=True)})
    headline_metrics = YesNoFamily.headline_metrics[:1]

    def expand(self, suite, data, settings, line_of):  # type: ignore[no-untyped-def]
        from pytest_tom.families.kit import ItemSpec
        return [ItemSpec(id=f"{s['id']}::q", suite=suite.name, family=self.name,
                         scenario=s["id"], kind="yn", question="yes or no?", gold=s["answer"],
                         line=line_of(("scenarios", i)))
                for i, s in enumerate(data["scenarios"])]

    def conversation(self, item, method, responses):  # type: ignore[no-untyped-def]
        from pytest_tom.families.kit import single_call
        return single_call([{"role": "user", "content": item.question}], responses)

    def score(self, item, response, ctx):  # type: ignore[no-untyped-def]
        from pytest_tom.families.kit import Outcome
        return Outcome(correct=response.strip() == item.gold)


def test_a_run_stops_with_one_line_naming_the_family_and_the_field(
        monkeypatch: pytest.MonkeyPatch, pytester: pytest.Pytester) -> None:
    monkeypatch.setattr(families, "_cache", {"yesno": YesNoRun()})
    monkeypatch.setitem(families.BUILTIN, "yesno", "test_declared_metrics:YesNoRun")
    (pytester.path / "yn.tom.yaml").write_text(
        "suite: yn\nfamily: yesno\nversion: 1\nscenarios:\n"
        "  - {id: a, answer: 'yes'}\n  - {id: b, answer: 'no'}\n")
    (pytester.path / "ans.py").write_text("def answer(req):\n    return 'yes'\n")
    result = pytester.runpytest("yn.tom.yaml", "-p", "no:cacheprovider", "-q", "--tom-cache=off",
                                f"--tom-model=python:{pytester.path / 'ans.py'}:answer")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: family yesno (suite yn): metric 'yes_accuracy': its "
                                 "selection reads item[[]'gold'[]]*"])
