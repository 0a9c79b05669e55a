"""The JSON `final` answer format: extraction, entry lookup, whole-word judgement."""

from __future__ import annotations

import pytest

from pytest_tom.scoring.json_final import (
    BEGIN,
    END,
    answer_for,
    extract_final,
    instruction,
    judge,
    score_final,
)

RIGHT = {"tin": "biscuits"}
WRONG = {"tin": ["buttons"]}


@pytest.mark.parametrize(("response", "where"), [
    (f'{BEGIN}\n{{"final": {{"tin": "biscuits"}}}}\n{END}', "markers"),
    (f'Sure! Here it is.\n{BEGIN}\n{{"final": {{"tin": "biscuits"}}}}\n{END}\nHope it helps.',
     "markers"),
    (f'{BEGIN}\n```json\n{{"final": {{"tin": "biscuits"}}}}\n```\n{END}', "markers"),
    (f'{BEGIN}\n{{"final": {{"tin": "biscuits"}}}}', "markers"),  # END marker missing
    (f'{BEGIN.lower()}\n{{"final": {{"tin": "biscuits"}}}}\n{END.lower()}', "markers"),
    ('```json\n{\n  "final": {\n    "tin": "biscuits"\n  }\n}\n```', "fence"),
    ('Reasoning first.\n```\n{"final": {"tin": "biscuits"}}\n```\nDone.', "fence"),
    ('So the answer is {"final": {"tin": "biscuits"}} and nothing else.', "text"),
    ('{"answer": {"final": {"tin": "biscuits"}}}', "text"),  # nested final
    (f'I will write it between {BEGIN} and {END} as asked.\n{BEGIN}\n'
     f'{{"final": {{"tin": "biscuits"}}}}\n{END}', "markers"),  # markers echoed in prose
])
def test_extracted_and_right(response: str, where: str) -> None:
    ex = extract_final(response)
    assert ex.found and ex.where == where, ex
    verdict = score_final(response, RIGHT, WRONG)
    assert verdict.correct and not verdict.unparseable
    assert verdict.parsed == {"tin": "biscuits"}


@pytest.mark.parametrize(("response", "why"), [
    ("", "empty"),
    ("biscuits", "no JSON"),
    (f'{BEGIN}\n{{"final": {{"tin": "biscuits",}}}}\n{END}', "broken JSON"),
    (f"{BEGIN}\n{{'final': {{'tin': 'biscuits'}}}}\n{END}", "broken JSON"),
    (f'{BEGIN}\n{{"final": {{"tin": "biscuits"}}\n{END}', "broken JSON"),
    (f'{BEGIN}\n{{"answer": "biscuits"}}\n{END}', "no 'final'"),
    ('```json\n{"final": {"tin": "biscuits"\n```', "no JSON object"),
    ('{"final": {"tin": "biscuits"', "no JSON object"),
    ('{"tin": "biscuits"}', "no JSON object"),
    (f'{BEGIN}\nbiscuits\n{END}', "no JSON object"),
])
def test_unparseable(response: str, why: str) -> None:
    verdict = score_final(response, RIGHT, WRONG)
    assert verdict.unparseable and not verdict.correct
    assert why in verdict.detail or (why == "empty" and "empty" in verdict.detail), verdict.detail


def test_broken_marked_block_does_not_fall_back_to_other_json() -> None:
    # a valid object outside the markers must not rescue broken JSON inside them
    response = f'{{"final": {{"tin": "biscuits"}}}}\n{BEGIN}\n{{"final": {{"tin": }}}}\n{END}'
    assert score_final(response, RIGHT, WRONG).unparseable


def test_last_marked_block_wins() -> None:
    response = (f'{BEGIN}\n{{"final": {{"tin": "buttons"}}}}\n{END}\nNo, wait.\n'
                f'{BEGIN}\n{{"final": {{"tin": "biscuits"}}}}\n{END}')
    assert score_final(response, RIGHT, WRONG).correct


def test_missing_entry_is_unparseable_and_wrong_answer_is_wrong() -> None:
    two = {"tin": "biscuits", "box": "marbles"}
    v = score_final('{"final": {"tin": "biscuits", "jar": "marbles"}}', two)
    assert v.unparseable and "'box'" in v.detail
    v = score_final('{"final": {"tin": "buttons"}}', RIGHT, WRONG)
    assert not v.unparseable and not v.correct and "buttons" in v.detail
    v = score_final('{"final": {"tin": "biscuits, or maybe buttons"}}', RIGHT, WRONG)
    assert not v.correct and not v.unparseable


def test_answer_for_keys_and_values() -> None:
    assert answer_for({"The Tin": "x"}, "tin") == "x"
    assert answer_for({"metal tin": "x", "box": "y"}, "tin", asked=2) == "x"
    assert answer_for({"container": "x"}, "tin") == "x"  # single entry, single object asked
    assert answer_for({"a": "x", "b": "y"}, "tin") is None
    assert answer_for("biscuits", "tin") == "biscuits"
    assert answer_for({"tin": {"contents": ["dry", "biscuits"]}}, "tin") == "dry biscuits"
    assert answer_for({"tin": None}, "tin") == ""
    assert answer_for(["a"], "tin", asked=2) is None


@pytest.mark.parametrize(("answer", "right", "wrong", "correct"), [
    ("Biscuits.", ["biscuits"], ["buttons"], True),
    ("the biscuits", ["biscuits"], ["buttons"], True),
    ("biscuit", ["biscuits"], ["buttons"], False),  # whole words, no stemming
    ("biscuitsandbuttons", ["biscuits"], ["buttons"], False),
    ("lavender soap", ["lavender soap"], ["soap"], True),  # wrong inside right: masked
    ("soap", ["soap"], ["lavender soap"], True),
    ("lavender soap", ["soap"], ["lavender soap"], False),
    ("soap and lavender soap", ["lavender soap"], ["soap"], False),
    ("in the blue container", ["blue container"], ["green bucket"], True),
    ("Unknown", ["unknown"], ["buttons", "biscuits"], True),
    ("unknown, probably buttons", ["unknown"], ["buttons", "biscuits"], False),
    ("", ["biscuits"], ["buttons"], False),
])
def test_judge(answer: str, right: list[str], wrong: list[str], correct: bool) -> None:
    assert judge(answer, right, wrong).correct is correct


def test_instruction_names_markers_and_keys() -> None:
    text = instruction(["tin", "box"])
    assert BEGIN in text and END in text and '"final"' in text
    assert '"tin", "box"' in text
