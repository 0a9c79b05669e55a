"""The Hi-ToM authors' released replies of real models (GPT-4, GPT-3.5-turbo twice,
Claude-instant, Guanaco-65B), replayed through the converter and the family's answer rule.

Each reply is scored by `hitom.scoring.score` against the item the converter made of its
question (found by the reply file's path: `<Tell|No_Tell>/<MC|CoT>/length_L/sample_S/
order_O.txt` is the scenario `<vp|cotp>-<tell|no_tell>-lenL-sSS`, question `orderO`). What
a careful reader takes the answer to be is written out here again, independently of the
reader: the authors' own extraction for GPT-4, and, for every model, the letter of the
reply's last answer statement ("the answer is K", "Answer: **K**").
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest
from conftest import shared_data

from pytest_tom.catalogue.load import load_suite
from pytest_tom.families.hitom.convert import write
from pytest_tom.families.hitom.scoring import score
from pytest_tom.families.kit import ItemSpec

LETTERS = "ABCDEFGHIJKLMNO"
MODELS = ("API_responses", "result_gpt-3.5-turbo-v0", "result_gpt-3.5-turbo-v1",
          "result_Claude-instant", "result_llama65b-v1")
# unparseable replies per model with the reader before issue 45 (commit 9eac4dc: the first
# place of the reply, after its first `Answer:`, that names an option)
UNPARSEABLE_BEFORE = {"API_responses": 16, "result_gpt-3.5-turbo-v0": 119,
                      "result_gpt-3.5-turbo-v1": 265, "result_Claude-instant": 26,
                      "result_llama65b-v1": 61}
# the last "answer is K" / "Answer: K" / "answer would be **K**" of a reply, the letter
# followed by punctuation, a dash or the end of its line (not "the answer is I think ...")
FINAL = re.compile(r"(?i:\banswer\b[^.\n]{0,40}?(?:\bis|\bbe|:))\s*[*\"(\[]*\s*"
                   r"(?:[Oo]ption\s*)?[*\"(\[]*([A-O])(?=[.):*\"\]]|\s*$|\s+[-–])", re.M)
AFTER = re.compile(r"[\s.:)*\"\]\-–]*([a-z]+(?:_[a-z]+)+)")  # the text after a letter: "K. green_drawer"
FIRST_LETTER = re.compile(r"\s*(?:Answer:\s*)?([A-O])\.\s")  # GPT-4: "K. green_drawer", "Answer: K. ..."


@pytest.fixture(scope="module")
def items(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ItemSpec]:
    release = shared_data("hitom", "Hi-ToM_data.json")
    out = tmp_path_factory.mktemp("hitom-replies")
    write(release, out)
    return {it.id: it for it in load_suite(out / "hitom.tom.yaml").items}


def replies(name: str) -> list[dict[str, Any]]:
    path = shared_data("hitom", "outputs", f"{name}.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def item_of(row: dict[str, Any], items: dict[str, ItemSpec]) -> ItemSpec:
    style = "vp" if row["prompting"] == "MC" else "cotp"
    setting = "tell" if row["tell"] == "Tell" else "no_tell"
    return items[f"{style}-{setting}-len{row['story_length']}-s{row['sample']:02d}"
                 f"::order{row['order']}"]


def final_letter(reply: str, options: list[str]) -> str | None:
    """The letter of the reply's last answer statement, when it names one option (not a
    letter followed by another option's text, "E. red_box" where E is red_crate)."""
    said = list(FINAL.finditer(reply))
    if not said:
        return None
    letter = said[-1].group(1)
    text = AFTER.match(reply, said[-1].end())
    if text and text.group(1) in options and options.index(text.group(1)) != LETTERS.index(letter):
        return None
    return letter


def letter_read(outcome: Any) -> str | None:
    return outcome.parsed[0] if isinstance(outcome.parsed, str) else None


def test_gpt4_replies_are_read_as_the_authors_extracted_them(items: dict[str, ItemSpec]) -> None:
    raw = {r["path"]: r for r in replies("API_responses")}
    kept = agree = 0
    overwritten = []
    filtered = set()
    for row in replies("extracted_response"):
        item, reply = item_of(row, items), raw[row["path"]]["response"]
        extracted = FIRST_LETTER.match(row["response"])
        outcome = score(item, reply)
        if extracted is None:  # the content filter's replies, extracted as such
            assert "FILRER" in row["response"] and "FILRER" in reply
            assert outcome.error == "unparseable"
            filtered.add(row["path"])
            continue
        first = FIRST_LETTER.match(reply)
        if first and first.group(1) != extracted.group(1):
            # an extraction that is not what the reply says: the gold answer, put there later
            assert extracted.group(1) == item.meta["gold_letter"]
            overwritten.append(row)
            continue
        kept += 1
        agree += letter_read(outcome) == extracted.group(1)
    assert len(filtered) == 16 and len(overwritten) == 19
    assert {r["prompting"] for r in overwritten} == {"CoT"}
    assert Counter(r["tell"] for r in overwritten)["No_Tell"] == 18
    assert kept == 1165 and agree / kept >= 0.99, (agree, kept)
    # every unparseable GPT-4 reply is a content-filter reply
    unreadable = {r["path"] for r in replies("API_responses")
                  if score(item_of(r, items), r["response"]).error == "unparseable"}
    assert unreadable == filtered


def test_every_model_s_final_answer_statement_is_read(items: dict[str, ItemSpec]) -> None:
    shares, unparseable = {}, {}
    for name in MODELS:
        finals = read = 0
        unparseable[name] = 0
        for row in replies(name):
            item = item_of(row, items)
            outcome = score(item, row["response"])
            unparseable[name] += outcome.error == "unparseable"
            said = final_letter(row["response"], item.choices)
            if said:
                finals += 1
                read += letter_read(outcome) == said
        assert finals >= 150, (name, finals)
        shares[name] = read / finals
    assert all(share >= 0.97 for share in shares.values()), shares
    assert all(unparseable[m] <= UNPARSEABLE_BEFORE[m] for m in MODELS), unparseable
    assert unparseable["API_responses"] == 16


def test_reasoning_first_replies_are_read_at_their_conclusion(items: dict[str, ItemSpec]) -> None:
    """Where a reply's final answer statement names another option than the first container
    of its reasoning (Claude: step 1 names K, the reply concludes `So the answer is: O.
    green_bathtub`), the conclusion decides, and the outcome says where it was read."""
    for name in MODELS[1:]:
        cases = read = 0
        for row in replies(name):
            item, reply = item_of(row, items), row["response"]
            said = final_letter(reply, item.choices)
            firsts = sorted((m.start(), i) for i, o in enumerate(item.choices)
                            if (m := re.search(re.escape(o), reply)))
            if not said or not firsts or LETTERS[firsts[0][1]] == said:
                continue
            cases += 1
            outcome = score(item, reply)
            read += letter_read(outcome) == said and "statement" in outcome.detail
        assert cases >= 10 and read / cases >= 0.97, (name, read, cases)


def test_the_authors_reading_counts_the_answer_s_text_or_capital_letter_at_the_end() -> None:
    """`--tom-hitom-reading authors`: the notebooks' count, on hand-made replies."""
    from pytest_tom.families.kit import ScoringContext, Settings
    options = ["blue_drawer", "green_crate", "red_bucket"]
    item = ItemSpec(id="s::order1", suite="t", family="hitom", scenario="s", kind="order1",
                    question="Where?", gold="green_crate", choices=options,
                    meta={"gold_letter": "B"})
    authors = ScoringContext(Settings(options={"hitom_reading": "authors"}))
    correct = ScoringContext(Settings(options={"hitom_reading": "correct"}))
    reasoning = "It starts in the green_crate. " + "x" * 60 + " So the answer is A."
    cases = [("It is in the Green Crate.", True, True), ("B", True, True),
             ("A. blue_drawer. By the way, Ann left.", True, False),  # the B of "By"
             (reasoning, False, False), ("Unknown", False, False)]
    for reply, as_authors, as_correct in cases:
        assert score(item, reply, authors).correct is as_authors, reply
        assert score(item, reply, correct).correct is as_correct, reply
    assert score(item, "Unknown", authors).error is None
    assert score(item, "Unknown", correct).error == "unparseable"
