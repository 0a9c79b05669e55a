"""The generic family's answer rules: reading an answer and judging it (choices, yes/no,
names, contains/excludes, JSON final). A choice is read by the kit's multiple-choice
reader over the whole reply (its opening, else its last answer statement, ...); the other
kinds read what follows the reply's last `Answer:`."""

from __future__ import annotations

from pytest_tom.families.generic.schema import alternatives
from pytest_tom.families.generic.schema import words_text
from pytest_tom.families.kit import LETTERS
from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Outcome
from pytest_tom.families.kit import ScoringContext
from pytest_tom.families.kit import after_last
from pytest_tom.families.kit import has_words
from pytest_tom.families.kit import hedge_in
from pytest_tom.families.kit import mentioned_names
from pytest_tom.families.kit import parse_yes_no
from pytest_tom.families.kit import read_choice
from pytest_tom.families.kit import score_final


def score(item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
    """The outcome of `response` to `item` under the item's answer rule (its kind)."""
    if item.kind == "json_final":
        wrong = item.meta.get("wrong")  # the schema's mapping of wrong answers, if any
        verdict = score_final(response, item.gold, wrong if isinstance(wrong, dict) else None)
        return Outcome(correct=verdict.correct, parsed=verdict.parsed or None,
                       error=UNPARSEABLE if verdict.unparseable else None, detail=verdict.detail)
    text = after_last(response, ("Answer:", "the answer is:")).strip()
    if not text:
        return Outcome(correct=False, error=UNPARSEABLE, detail="empty answer")
    if item.kind == "choice":  # the whole reply, read where its answer is (`read_choice`)
        reading = read_choice(response, item.choices, LETTERS[:len(item.choices)])
        if not reading.named:
            return Outcome(correct=False, error=UNPARSEABLE, detail="no option named")
        if reading.ambiguous:
            return Outcome(correct=False, parsed=sorted(LETTERS[i] for i in reading.named),
                           detail=f"names more than one option ({reading.rule})")
        letter = LETTERS[reading.named[0]]
        return Outcome(correct=letter == item.meta["gold_letter"],
                       parsed=f"{letter}) {item.choices[reading.named[0]]}")
    if item.kind == "yes_no":
        yn = parse_yes_no(text)
        if yn is None:
            hedge = hedge_in(text)
            return Outcome(correct=False, error=UNPARSEABLE,
                           detail=f"a hedge or refusal ({hedge!r}), not yes or no" if hedge
                           else "neither yes nor no")
        return Outcome(correct=yn == item.gold, parsed=yn)
    if item.kind == "names":
        named = mentioned_names(text, item.data["characters"])
        gold = {n.lower() for n in item.gold}
        return Outcome(correct={n.lower() for n in named} == gold, parsed=sorted(named))
    gold = item.gold
    missing = [words_text(w) for w in gold["contains"]
               if not any(has_words(text, a) for a in alternatives(w))]
    present = [w for w in gold["excludes"] if has_words(text, w)]
    detail = "; ".join(filter(None, [missing and f"missing {missing}", present and f"has {present}"]))
    return Outcome(correct=not missing and not present, parsed=text, detail=detail)
