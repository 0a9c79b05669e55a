"""SimpleToM: the converter on the layout sample (invented stories in the release's row
layout: no real data reached us), the two readings on the reply forms of the authors'
protocol, and the declared figures on hand-made answers, the joint one counted by story
here by hand."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import shared_data

from pytest_tom.catalogue.load import load_suite
from pytest_tom.cli import main as cli
from pytest_tom.families.base import Settings
from pytest_tom.families.simpletom.convert import ConvertError, convert
from pytest_tom.families.simpletom.reading import authors_letter, correct_letter
from pytest_tom.items.offline import score_records
from pytest_tom.results.aggregate import family_result


@pytest.fixture(scope="module")
def sample() -> Path:
    return shared_data("simpletom", "layout-sample")


@pytest.fixture(scope="module")
def items(sample: Path, tmp_path_factory: pytest.TempPathFactory) -> list:
    out = tmp_path_factory.mktemp("simpletom")
    assert cli(["convert", "simpletom", str(sample), "-o", str(out), "--expect", "4"]) == 0
    return load_suite(out / "simpletom-full.tom.yaml").items


def test_the_layout_sample_converts_to_one_scenario_per_story(items: list, sample: Path) -> None:
    rows = [json.loads(line) for line in
            (sample / "behavior-qa" / "test.jsonl").read_text().splitlines() if line.strip()]
    assert len(items) == 3 * len(rows) == 12
    assert [i.kind for i in items[:3]] == ["aware", "action", "judge"]
    assert len({i.scenario for i in items}) == 4
    helmet = [i for i in items if i.scenario == "cracked_helmet_sports_sev1"]
    assert [i.gold for i in helmet] == ["B", "A", "B"]
    assert helmet[1].choices == rows[0]["choices"]["text"]
    assert helmet[0].meta["severity"] == 1 and helmet[0].meta["scenario_name"] == "sports"


def test_a_missing_question_and_a_wrong_count_are_named(sample: Path, tmp_path: Path) -> None:
    copy = tmp_path / "release"
    shutil.copytree(sample, copy)
    judge = copy / "judgment-qa" / "test.jsonl"
    lines = judge.read_text().splitlines()
    judge.write_text("\n".join(lines[1:]) + "\n")
    with pytest.raises(ConvertError) as exc:
        convert(copy)
    (problem,) = exc.value.problems
    assert problem.startswith(f"{copy / 'mental-state-qa' / 'test.jsonl'}:1: the story "
                              f"'cracked_helmet_sports_sev1' has no judge question")
    with pytest.raises(ConvertError, match="4 stories, not the 1147 expected"):
        convert(sample, expect=1147)


# the reply forms of the authors' protocol: what "Respond with just (A) or (B)" yields
FORMS = ("({x})", "({x}) {text}", "({x}", "{x}", "{x}.", " ({x})\n", "({x}) {text}.")


def test_both_readings_agree_on_the_reply_forms_of_the_authors_protocol(items: list) -> None:
    for item in items:
        for k, text in enumerate(item.choices):
            letter = "AB"[k]
            for form in FORMS:
                reply = form.format(x=letter, text=text)
                assert authors_letter(reply).letter == letter, reply
                assert correct_letter(reply, item.choices).letter == letter, reply


def test_where_the_readings_part() -> None:
    options = ["Yes", "No"]
    # several letters at one tier: the authors' cascade has no answer; ours the last statement
    reply = "He cannot see the crack, so not (A): the answer is (B)"
    assert authors_letter(reply).letter is None and authors_letter(reply).several
    assert correct_letter(reply, options).letter == "B"
    # the option's text alone: no letter for the cascade
    assert authors_letter("No").letter is None
    assert correct_letter("No", options).letter == "B"
    # the article "A" stands alone as a word: the cascade's bare-letter tier takes it
    assert authors_letter("A helmet with a crack is unsafe.").letter == "A"
    assert correct_letter("A helmet with a crack is unsafe.", options).letter is None


def answers(wrong_aware: set[str], wrong_action: set[str], unreadable: set[str]):
    def answer(req) -> str:
        item = req.item
        if item.id in unreadable:
            return "I cannot tell."
        wrong = (item.kind == "aware" and item.scenario in wrong_aware) or \
            (item.kind == "action" and item.scenario in wrong_action)
        gold = item.gold if not wrong else "AB"["AB".index(item.gold) ^ 1]
        return f"({gold})"
    return answer


def test_accuracy_per_kind_unreadable_share_and_the_joint_figure(items: list) -> None:
    stories = sorted({i.scenario for i in items})
    s0, s1, s2, s3 = stories
    # aware wrong in s0; action wrong in s1 and s0; judge unreadable in s2
    answer = answers({s0}, {s0, s1}, {f"{s2}::judge"})
    for reading in ("correct", "authors"):
        settings = Settings(options={"simpletom_reading": reading})
        records = score_records(items, answer, settings)
        m = family_result("simpletom", records, settings).metrics
        assert m["aware"] == 3 / 4 and m["action"] == 2 / 4 and m["judge"] == 3 / 4
        assert m["unreadable.judge"] == 1 / 4 and m["unreadable.aware"] == 0.0
        # aware right: s1, s2, s3; of these action right in s2, s3; judge right in s1, s3
        assert m["action_given_aware"] == 2 / 3
        assert m["judge_given_aware"] == 2 / 3
        assert m["all_three"] == 1 / 4  # s3 only


def test_the_bundled_suite_and_its_prompt() -> None:
    from conftest import SUITES

    from pytest_tom.families.simpletom.probes import probe_messages

    items = load_suite(SUITES / "simpletom" / "bundled-stories.tom.yaml").items
    assert len(items) == 3 * 42 and len({i.scenario for i in items}) == 42
    assert {i.kind for i in items} == {"aware", "action", "judge"}
    seen = []
    records = score_records(items, lambda req: seen.append(req) or f"({req.item.gold})")
    assert all(r["outcome"]["correct"] for r in records)
    (message,) = seen[0].messages
    assert message["content"].endswith('(A) Yes\n(B) No\n\nReply with just "(A)" or "(B)".')
    assert seen[0].item.family == "simpletom"
    no_story = probe_messages(items[1], "no-story")[0]["content"]
    assert no_story.startswith("Question: What will Helga likely do next?")
    assert "(A)" not in probe_messages(items[1], "no-options")[0]["content"]
