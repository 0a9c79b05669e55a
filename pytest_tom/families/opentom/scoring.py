"""The OpenToM family's answer rule: the answer (the last line under CoT) read as one class
label of the question's genre, judged against the gold label."""

from __future__ import annotations

from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Outcome
from pytest_tom.families.kit import ScoringContext
from pytest_tom.families.kit import last_line
from pytest_tom.families.opentom.labels import parse_label
from pytest_tom.families.opentom.labels import place_label


def score(item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
    """The outcome of `response` to `item` asked with the run's method (vanilla, cot,
    simtom)."""
    method = ctx.settings.method
    text = last_line(response) if method == "cot" else response.strip()
    label = parse_label(item.kind, text, item.data["places"])
    if label is None:
        what = "the last line" if method == "cot" else "the answer"
        return Outcome(correct=False, error=UNPARSEABLE,
                       detail=f"{what} gives no single {item.kind} label")
    correct = label == item.meta["gold_label"]
    if item.kind == "loc_fine":
        place = place_label(item.data["places"][0 if label == "original" else 1][0])
        detail = f"names the {label} place ({place!r})"
        return Outcome(correct=correct, parsed=label, detail=detail, extra={"place": place})
    return Outcome(correct=correct, parsed=label)
