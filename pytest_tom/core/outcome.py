"""The outcome of one item: what the scoring rule decided, as plain data."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, cast

from pytest_tom.core.json_value import JSONObject
from pytest_tom.core.record import OutcomeDict

# error kinds
UNPARSEABLE = "unparseable"  # the answer could not be read: counts as wrong
REQUEST_FAILED = "request_failed"  # the model call failed: an error outcome
MISSING_RESPONSE = "missing_response"  # replay file has no response for the item
UNAVAILABLE = "unavailable"  # scoring needs something not installed: item skipped
# the budget (max_tokens) ran out before the answer ended, inside the thought or inside the
# answer: never right, never wrong; it stays in every denominator as not right and is
# counted apart (its own status below)
CUT_OFF = "cut_off"
# pytest stopped the item's test before it was scored (pytest-timeout, a failing fixture,
# another plugin): an error outcome, so the item stays in every denominator
TEST_ERROR = "test_error"


# values `Outcome.to_dict` copies as they are (immutable): anything else is deep-copied
_PLAIN = frozenset({str, int, float, bool, type(None)})


@dataclass
class Outcome:
    """What one item scored.

    `correct` is None for items that are measured rather than judged (a token
    F1 against a free answer); such items pass and are left out of accuracies.
    `error` names what went wrong, if anything: an unparseable answer is wrong
    *and* carries `error="unparseable"`; a failed request carries
    `error="request_failed"` and counts as wrong in every denominator.
    """

    correct: bool | None
    parsed: Any = None
    value: float | None = None
    error: str | None = None
    detail: str = ""  # a short human explanation (shown in the failure text)
    extra: JSONObject = field(default_factory=dict)  # the family's details, free-form

    def to_dict(self) -> OutcomeDict:
        # the common outcome holds plain scalars only: the same dict as `asdict` without its
        # recursive deep copy of every field (a share of each item's record at 20,000 items)
        extra = self.extra
        if (type(self.correct) in _PLAIN and type(self.parsed) in _PLAIN
                and type(self.value) in _PLAIN and type(self.error) in _PLAIN
                and type(self.detail) in _PLAIN and type(extra) is dict
                and all(type(v) in _PLAIN for v in extra.values())):
            return {"correct": self.correct, "parsed": self.parsed, "value": self.value,
                    "error": self.error, "detail": self.detail, "extra": dict(extra)}
        return cast(OutcomeDict, asdict(self))  # the fields are `OutcomeDict`'s keys

    @classmethod
    def failed(cls, error: str, detail: str) -> Outcome:
        return cls(correct=False, error=error, detail=detail)


# an outcome's status: the one rule every report, comparison and count reads
RIGHT, WRONG, ERROR, SKIPPED, MEASURED = "right", "wrong", "error", "skipped", "measured"
STATUSES = (RIGHT, WRONG, UNPARSEABLE, CUT_OFF, ERROR, SKIPPED, MEASURED)


def status(outcome: OutcomeDict | Outcome | None) -> str:
    """right | wrong | unparseable | cut_off | error | skipped | measured, of an outcome (as
    a dict on a record, or an `Outcome`). Skipped: scoring needed something not installed;
    cut_off: the budget ran out before the answer ended; error: the request failed (or any
    error kind but these three); measured: not judged (`correct` is None, e.g. a token F1).
    Unparseable and error outcomes count as wrong; a cut-off one as not right, never as
    wrong (counted apart)."""
    if outcome is None:
        return ERROR
    if isinstance(outcome, Outcome):
        error, correct = outcome.error, outcome.correct
    else:
        error, correct = outcome.get("error"), outcome.get("correct")
    if error == UNAVAILABLE:
        return SKIPPED
    if error == UNPARSEABLE:
        return UNPARSEABLE
    if error == CUT_OFF:
        return CUT_OFF
    if error:
        return ERROR
    if correct is None:
        return MEASURED
    return RIGHT if correct else WRONG
