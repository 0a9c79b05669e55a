"""The robustness family's answer rule: a JSON answer with a top-level `final` object,
judged per object (`pytest_tom.scoring.json_final`)."""

from __future__ import annotations

from pytest_tom.families.kit import UNPARSEABLE
from pytest_tom.families.kit import ItemSpec
from pytest_tom.families.kit import Outcome
from pytest_tom.families.kit import ScoringContext
from pytest_tom.families.kit import score_final


def score(item: ItemSpec, response: str, ctx: ScoringContext) -> Outcome:
    """The outcome of `response` to `item`: unparseable when no `final` object is read."""
    verdict = score_final(response, item.data["right"], item.data["wrong"])
    if verdict.unparseable:
        return Outcome(correct=False, parsed=verdict.parsed or None, error=UNPARSEABLE,
                       detail=verdict.detail)
    return Outcome(correct=verdict.correct, parsed=verdict.parsed, detail=verdict.detail)
