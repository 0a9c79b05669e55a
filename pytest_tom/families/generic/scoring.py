"""The generic family's answer rules: reading an answer and judging it (choices, yes/no,
names, contains/excludes, JSON final)."""

from __future__ import annotations

from pytest_tom.families.generic.schema import alternatives, words_text
from pytest_tom.families.kit import (
    LETTERS,
    UNPARSEABLE,
    ItemSpec,
    Outcome,
    ScoringContext,
    after_last,
    has_words,
    hedge_in,
    mentioned_names,
    parse_choice,
    parse_yes_no,
    score_final,
)


def score(item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
    """The outcome of `response` to `item` under the item's answer rule (its kind)."""
    if item.kind == "json_final":
        verdict = score_final(response, item.gold, item.meta.get("wrong"))
        return Outcome(correct=verdict.correct, parsed=verdict.parsed or None,
                       error=UNPARSEABLE if verdict.unparseable else None, detail=verdict.detail)
    text = after_last(response, ("Answer:", "the answer is:")).strip()
    if not text:
        return Outcome(correct=False, error=UNPARSEABLE, detail="empty answer")
    if item.kind == "choice":
        parsed = parse_choice(text, item.choices)
        if not parsed.letters:
            return Outcome(correct=False, error=UNPARSEABLE, detail="no option named")
        if parsed.ambiguous:
            return Outcome(correct=False, parsed=sorted(parsed.letters),
                           detail="names more than one option")
        letter = parsed.letter
        return Outcome(correct=letter == item.meta["gold_letter"],
                       parsed=f"{letter}) {item.choices[LETTERS.index(letter)]}")
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
