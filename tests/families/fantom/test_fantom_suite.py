"""FANToM suites: the scenario format and its errors, expansion into items, prompts, the
bundled suite, and the converter from the authors' data layout."""

from __future__ import annotations

import copy
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import FAMILY_TESTS, SUITES, load_report, shared_data

from pytest_tom.catalogue.load import load_suite
from pytest_tom.cli import main as cli_main
from pytest_tom.families.base import Settings
from pytest_tom.families.fantom.family import FantomFamily
from pytest_tom.suite import SuiteError

BUNDLED = SUITES / "fantom" / "smalltalk.tom.yaml"
SUPPORT = FAMILY_TESTS / "fantom" / "fantom_support.py"

SMALL = textwrap.dedent("""\
    suite: fantom-small
    family: fantom
    version: 1
    scenarios:
      - id: picnic
        contexts:
          full: |
            Uma: Let's plan the picnic.
            Bo: I have to leave, see you all.
            Cy: I'll get ice, back soon.
            Uma: Dee, the picnic moved to the lake.
            Dee: The lake, great.
            Cy: I'm back.
            Uma: Bring a blanket, Cy.
          short:
            away: |
              Cy: I'll get ice, back soon.
              Uma: Dee, the picnic moved to the lake.
              Dee: The lake, great.
              Cy: I'm back.
            after: |
              Cy: I'm back.
              Uma: Bring a blanket, Cy.
        sets:
          - id: lake
            part: away
            missed_by: Cy
            fact:
              question: Where is the picnic?
              answer: The picnic moved to the lake.
            beliefs:
              - question: Where does Cy think the picnic is?
                answer: Cy does not know where the picnic is.
                wrong_answer: Cy thinks the picnic moved to the lake.
                order: first-order
              - question: What does Dee think Cy believes about the picnic?
                answer: Dee thinks Cy does not know the picnic moved.
                wrong_answer: Dee thinks Cy believes the picnic moved to the lake.
                order: second-order:acyclic
              - question: Where does Dee think the picnic is?
                answer: Dee thinks the picnic is at the lake.
                wrong_answer: Dee does not know where the picnic is.
                order: first-order
                accessibility: accessible
            aware: [Uma, Dee]
            unaware: [Cy, Bo]
            full_only: [Bo]
          - id: blanket
            part: after
            fact:
              question: What should Cy bring?
              answer: Cy should bring a blanket.
            beliefs:
              - question: What does Cy think he should bring?
                answer: Cy thinks he should bring a blanket.
                wrong_answer: Cy does not know what to bring.
                order: first-order
            aware: [Uma, Cy, Dee]
            unaware: [Bo]
            full_only: [Bo]
            accessibility: accessible
    """)


def load(text: str, tmp_path: Path, **options: Any) -> Any:
    path = tmp_path / "s.tom.yaml"
    path.write_text(text, encoding="utf-8")
    return load_suite(path, Settings(options={"fantom_context": "short", **options}))


def by_id(suite: Any) -> dict[str, Any]:
    return {i.id: i for i in suite.items}


def test_short_context_items_and_accessibility(tmp_path: Path) -> None:
    items = by_id(load(SMALL, tmp_path))
    lake = sorted(i for i in items if i.startswith("lake::"))
    assert lake == sorted(
        [
            "lake::fact",
            "lake::belief_choice::b1",
            "lake::belief_dist::b1",
            "lake::belief_choice::b2",
            "lake::belief_dist::b2",
            "lake::belief_choice::b3",
            "lake::belief_dist::b3",
            "lake::answerability_list",
            "lake::infoaccess_list",
            "lake::answerability_yn::Uma",
            "lake::answerability_yn::Dee",
            "lake::answerability_yn::Cy",
            "lake::infoaccess_yn::Uma",
            "lake::infoaccess_yn::Dee",
            "lake::infoaccess_yn::Cy",
        ]
    )
    # Bo (absent from the short context: no:long) gets no yes/no question with short contexts
    assert items["lake::answerability_yn::Cy"].gold == "no"
    assert items["lake::answerability_list"].meta["unaware"] == ["Cy", "Bo"]
    assert items["lake::answerability_list"].meta["accessibility"] == "inaccessible"
    assert items["lake::belief_choice::b3"].meta["accessibility"] == "accessible"
    assert items["blanket::answerability_list"].meta["accessibility"] == "accessible"
    assert items["blanket::answerability_yn::Cy"].meta["accessibility"] == "accessible"
    assert items["lake::fact"].meta["accessibility"] is None
    assert "Bo: I have to leave" not in items["lake::fact"].data["context"]
    assert items["blanket::fact"].data["context"].startswith("Cy: I'm back.")
    # rule 2: each belief question is filed under its outer believer, the character named
    # after "does" (who holds the belief), not the character who missed the information
    assert items["lake::belief_dist::b1"].meta["believer"] == "Cy"
    assert items["lake::belief_dist::b2"].meta["believer"] == "Dee"
    assert items["lake::belief_dist::b3"].meta["believer"] == "Dee"
    m = items["lake::belief_choice::b2"]
    assert m.group == "lake" and m.scenario == "picnic" and m.meta["part"] == "picnic/away"
    assert {"belief_choice", "inaccessible", "second_order_acyclic"} <= set(m.markers)


def test_full_context_counts_no_long_as_no_and_recomputes_accessibility(tmp_path: Path) -> None:
    items = by_id(load(SMALL, tmp_path, fantom_context="full"))
    assert items["lake::answerability_yn::Bo"].gold == "no"
    assert items["lake::fact"].data["context"].startswith("Uma: Let's plan the picnic.")
    # blanket: accessible with short contexts, but Bo does not know -> inaccessible in full
    assert items["blanket::answerability_list"].meta["accessibility"] == "inaccessible"
    assert items["blanket::infoaccess_yn::Cy"].meta["accessibility"] == "inaccessible"
    assert items["blanket::belief_choice::b1"].meta["accessibility"] == "accessible"


def test_choice_order_is_seeded_per_item(tmp_path: Path) -> None:
    letters = {}
    for seed in range(8):
        path = tmp_path / "s.tom.yaml"
        path.write_text(SMALL, encoding="utf-8")
        suite = load_suite(path, Settings(seed=seed, options={"fantom_context": "short"}))
        for it in suite.items:
            if it.kind == "belief_choice":
                assert it.choices[" ab".index(it.meta["gold_letter"]) - 1] == it.gold
                letters.setdefault(it.id, set()).add(it.meta["gold_letter"])
    assert all(v == {"a", "b"} for v in letters.values())
    again = by_id(load(SMALL, tmp_path))
    assert (
        again["lake::belief_choice::b1"].choices
        == by_id(load(SMALL, tmp_path))["lake::belief_choice::b1"].choices
    )


def test_prompts_follow_the_released_shapes(tmp_path: Path) -> None:
    items = by_id(load(SMALL, tmp_path))
    fam = FantomFamily()
    ctx = items["lake::fact"].data["context"]

    def msg(item_id: str) -> str:
        return fam.conversation(items[item_id], "vanilla", [])[0]["content"]

    assert msg("lake::fact") == f"{ctx}\n\nQuestion: Where is the picnic?\nAnswer:"
    a, b = items["lake::belief_choice::b1"].choices
    assert msg("lake::belief_choice::b1") == (
        f"{ctx}\n\nQuestion: Where does Cy think the picnic is?\n(a) {a}\n(b) {b}\n\n"
        f"Choose an answer from above:"
    )
    assert msg("lake::answerability_list") == (
        f"{ctx}\n\nTarget: Where is the picnic?\nQuestion: List all the characters who know the "
        f"precise correct answer to this question.\nAnswer:"
    )
    assert msg("lake::infoaccess_yn::Dee") == (
        f"{ctx}\n\nInformation: Where is the picnic? The picnic moved to the lake.\nQuestion: "
        f"Does Dee know this information? Answer yes or no.\nAnswer:"
    )
    assert fam.conversation(items["lake::fact"], "vanilla", ["x"]) is None
    cot = fam.conversation(items["lake::fact"], "cot", [])
    assert cot[0]["content"].endswith("Answer: Let's think step by step.")
    second = fam.conversation(items["lake::fact"], "cot", ["reasoning"])
    assert second[-1]["content"] == "Therefore, the answer is:"
    assert second[1] == {"role": "assistant", "content": "reasoning"}


def test_format_errors_are_reported_with_positions(tmp_path: Path) -> None:
    doc = yaml.safe_load(SMALL)
    bad = copy.deepcopy(doc)
    sets = bad["scenarios"][0]["sets"]
    sets[0]["full_only"] = ["Uma"]
    sets[0]["beliefs"][0]["order"] = "second-order"
    sets[0]["belief"] = []
    sets[1]["id"] = "lake"
    del sets[1]["part"]
    sets[1]["missed_by"] = "Zed"
    with pytest.raises(SuiteError) as err:
        load(yaml.safe_dump(bad, sort_keys=False), tmp_path)
    text = err.value.render()
    assert "unknown key 'belief'" in text and "did you mean 'beliefs'" in text
    assert "expected one of first-order, second-order:cyclic, second-order:acyclic" in text
    bad2 = copy.deepcopy(doc)
    s2 = bad2["scenarios"][0]["sets"]
    s2[0]["full_only"] = ["Uma"]
    s2[1]["id"] = "lake"
    del s2[1]["part"]
    s2[1]["missed_by"] = "Zed"
    s2[1]["unaware"] = ["Bo", "Uma"]
    with pytest.raises(SuiteError) as err:
        load(yaml.safe_dump(bad2, sort_keys=False), tmp_path)
    text = err.value.render()
    for needle in [
        "'Uma' must also be listed in 'unaware'",
        "duplicate set id 'lake'",
        "missing 'part'",
        "'Zed' is not in the set's aware/unaware lists",
        "'Uma' is also in 'aware'",
    ]:
        assert needle in text, needle
    assert all(p.line > 1 for p in err.value.problems)


def test_broken_suite_is_a_collection_error_naming_file_and_line(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\n")
    pytester.makefile(".tom.yaml", broken=SMALL.replace("order: first-order", "order: first", 1))
    result = pytester.runpytest(f"--tom-model=python:{SUPPORT}:personx", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["*broken.tom.yaml:*:*: *order: expected one of first-order*"])
    assert result.ret != 0


# -- the bundled suite ------------------------------------------------------------------


def test_bundled_suite_shape() -> None:
    doc = yaml.safe_load(BUNDLED.read_text(encoding="utf-8"))
    convs = doc["scenarios"]
    sets = [s for c in convs for s in c["sets"]]
    assert len(convs) >= 12 and len(sets) >= 40
    orders = {b["order"] for s in sets for b in s["beliefs"]}
    assert orders == {"first-order", "second-order:cyclic", "second-order:acyclic"}
    assert any(s.get("full_only") for s in sets)
    assert any(isinstance(c["contexts"]["short"], dict) for c in convs)
    controls = [s for s in sets if not s.get("unaware")]
    assert len(controls) >= 8
    for c in convs:
        shorts = c["contexts"]["short"]
        for text in shorts.values() if isinstance(shorts, dict) else [shorts]:
            assert text.strip() in c["contexts"]["full"], c["id"]
        for s in c["sets"]:
            if s.get("missed_by"):  # the character leaves and comes back in the short context
                short = shorts[s["part"]] if isinstance(shorts, dict) else shorts
                lines = [ln for ln in short.splitlines() if ln.startswith(f"{s['missed_by']}:")]
                assert len(lines) >= 2, s["id"]
    suite = load_suite(BUNDLED, Settings(options={"fantom_context": "short"}))
    assert len({i.scenario for i in suite.items}) == len(convs)


def test_bundled_wrong_answers_share_more_words_with_the_context() -> None:
    """The paper's mentalizing criterion: copying from the conversation should not pass."""
    doc = yaml.safe_load(BUNDLED.read_text(encoding="utf-8"))

    def words(text: str) -> set[str]:
        return {w.strip(".,!?'\"").lower() for w in text.split()} - {""}

    wins = total = 0
    for c in doc["scenarios"]:
        ctx = words(c["contexts"]["full"])
        for s in c["sets"]:
            for b in s["beliefs"]:
                if (
                    b.get("accessibility", "inaccessible" if s.get("unaware") else "accessible")
                    != "inaccessible"
                ):
                    continue
                total += 1
                wrong = len(words(b["wrong_answer"]) & ctx) / len(words(b["wrong_answer"]))
                right = len(words(b["answer"]) & ctx) / len(words(b["answer"]))
                wins += wrong > right
    assert total >= 80
    assert wins / total >= 0.9


# -- the converter ----------------------------------------------------------------------


def _expected_items(sets: list[dict[str, Any]]) -> int:
    n = 0
    for s in sets:
        n += 1 + 2 * len(s["beliefQAs"]) + 2  # fact, choice + dist per belief, two lists
        n += sum(
            1
            for q in s["answerabilityQAs_binary"] + s["infoAccessibilityQAs_binary"]
            if q["correct_answer"] != "no:long"
        )
    return n


def test_convert_the_authors_layout(pytester: pytest.Pytester, tmp_path: Path) -> None:
    sample = shared_data("fantom", "fantom_layout_sample.json")
    raw = json.loads(sample.read_text(encoding="utf-8"))
    out = tmp_path / "converted"
    assert cli_main(["convert", "fantom", str(sample), "-o", str(out)]) == 0
    suite_file = out / "fantom.tom.yaml"
    suite = load_suite(suite_file, Settings(options={"fantom_context": "short"}))
    assert len(suite.items) == _expected_items(raw)
    for s in raw:
        fact = next(i for i in suite.items if i.id == f"{s['set_id']}::fact")
        assert fact.source["set_id"] == s["set_id"]
        assert fact.source["part_id"] == s["part_id"] and fact.source["conv_id"] == s["conv_id"]
        assert fact.data["context"] == s["short_context"].strip()
        n_yn = sum(1 for i in suite.items if i.group == s["set_id"] and i.kind.endswith("_yn"))
        assert n_yn == sum(
            1
            for q in s["answerabilityQAs_binary"] + s["infoAccessibilityQAs_binary"]
            if q["correct_answer"] != "no:long"
        )
        for k, b in enumerate(s["beliefQAs"]):
            item = next(i for i in suite.items if i.id == f"{s['set_id']}::belief_dist::b{k + 1}")
            assert item.gold == b["correct_answer"] and item.meta["tom_order"] == b["tom_type"]
            assert item.meta["accessibility"] == b["missed_info_accessibility"]
    full = load_suite(suite_file, Settings(options={"fantom_context": "full"}))
    first = raw[0]
    assert (
        next(i for i in full.items if i.id == f"{first['set_id']}::fact").data["context"]
        == first["full_context"].strip()
    )
    # the converted suite runs, and the report keeps the upstream ids
    pytester.makeini("[pytest]\n")
    report = pytester.path / "r.json"
    result = pytester.runpytest(
        str(suite_file),
        f"--tom-model=python:{SUPPORT}:personx",
        "-p",
        "no:cacheprovider",
        f"--tom-report={report}",
        "-m",
        "not belief_dist",
    )
    assert result.ret == 0
    data = load_report(report)
    assert {r["item"]["source"]["set_id"] for r in data["items"]} == {s["set_id"] for s in raw}


def _set(set_id: str, part: str, short: str, **over: Any) -> dict[str, Any]:
    base = {
        "set_id": set_id,
        "part_id": part,
        "conv_id": 7,
        "full_context": "A: hi\nB: hey\nC: yo",
        "short_context": short,
        "missed_info": "x",
        "joining_speaker": "C",
        "factQA": {"question": "What?", "question_type": "fact", "correct_answer": "That."},
        "beliefQAs": [
            {
                "question": "What does C think?",
                "question_type": "tom:belief:inaccessible",
                "tom_type": "first-order",
                "correct_answer": "C does not know.",
                "wrong_answer": "C thinks that.",
                "missed_info_accessibility": "inaccessible",
            }
        ],
        "answerabilityQA_list": {
            "question": "List",
            "question_type": "tom:answerability:list",
            "correct_answer": ["A", "B"],
            "wrong_answer": ["C"],
            "missed_info_accessibility": "inaccessible",
        },
        "infoAccessibilityQA_list": {
            "question": "List",
            "question_type": "tom:info_accessibility:list",
            "correct_answer": ["A", "B"],
            "wrong_answer": ["C"],
            "missed_info_accessibility": "inaccessible",
        },
        "answerabilityQAs_binary": [
            {
                "question": f"Does {n} know the precise correct answer to this question?",
                "question_type": "tom:answerability:binary",
                "correct_answer": g,
                "missed_info_accessibility": "inaccessible",
            }
            for n, g in (("A", "yes"), ("B", "yes"), ("C", "no"))
        ],
        "infoAccessibilityQAs_binary": [
            {
                "question": f"Does {n} know this information?",
                "question_type": "tom:info_accessibility:binary",
                "correct_answer": g,
                "missed_info_accessibility": "inaccessible",
            }
            for n, g in (("A", "yes"), ("B", "yes"), ("C", "no"))
        ],
    }
    base.update(over)
    return base


def test_convert_keeps_what_the_lists_do_not_imply_and_reports_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd_binary = _set("7-1-0", "7-1", "B: hey\nC: yo")
    odd_binary["answerabilityQAs_binary"][2]["correct_answer"] = "yes"  # disagrees with the list
    odd_info = _set("7-0-1", "7-0", "A: hi\nB: hey")
    odd_info["infoAccessibilityQA_list"] = {
        **odd_info["infoAccessibilityQA_list"],
        "correct_answer": ["A"],
        "wrong_answer": ["B", "C"],
    }
    odd_info["infoAccessibilityQAs_binary"][1]["correct_answer"] = "no"
    broken = _set("7-0-2", "7-0", "A: hi\nB: hey")
    broken["infoAccessibilityQAs_binary"][0]["missed_info_accessibility"] = "accessible"
    sets = [_set("7-0-0", "7-0", "A: hi\nB: hey"), odd_info, odd_binary, broken]
    src = tmp_path / "fantom_v1.json"
    src.write_text(json.dumps(sets), encoding="utf-8")
    assert cli_main(["convert", "fantom", str(src), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "7-0-2" in err and "disagree on accessibility" in err
    doc = yaml.safe_load((tmp_path / "out" / "fantom.tom.yaml").read_text(encoding="utf-8"))
    conv = doc["scenarios"][0]
    assert set(conv["contexts"]["short"]) == {"7-0", "7-1"}
    by = {s["id"]: s for s in conv["sets"]}
    assert set(by) == {"7-0-0", "7-0-1", "7-1-0"}
    assert "yes_no" not in by["7-0-0"] and "infoaccess" not in by["7-0-0"]
    assert by["7-0-1"]["infoaccess"] == {"aware": ["A"], "unaware": ["B", "C"]}
    assert "yes_no" not in by["7-0-1"]
    assert by["7-1-0"]["yes_no"]["answerability"] == {"A": "yes", "B": "yes", "C": "yes"}
    suite = load_suite(
        tmp_path / "out" / "fantom.tom.yaml", Settings(options={"fantom_context": "short"})
    )
    items = by_id(suite)
    assert items["7-1-0::answerability_yn::C"].gold == "yes"
    assert items["7-0-1::infoaccess_yn::B"].gold == "no"
    assert items["7-1-0::fact"].data["context"] == "B: hey\nC: yo"
