"""How the `no-options` probe's open-ended replies are scored: the option-matching test.

The model was asked the question without its options, so its reply names no letter; it
is read against the options' texts alone with the kit's reader (`read_choice`, every
level of it: the whole reply, its opening, an answer statement, a conclusion, the last
line), and it is right when the option it names is the gold one. The reader is given
labels no English reply writes (Greek capitals), so a stray `A` or `(b)` in the reply is
never taken for an option the model was not shown. A reply naming no option's text, or
several, is wrong and reported unparseable, with the reader's reason.
"""

from __future__ import annotations

from typing import Any

from pytest_tom.core.model import ItemSpec, ProbePoint
from pytest_tom.core.outcome import UNPARSEABLE, Outcome
from pytest_tom.core.record import ProbeRecord
from pytest_tom.scoring.choice_reader import read_choice

# labels for the reader that an open-ended English reply never contains
UNSEEN_LABELS = "ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ"


def score_open_ended(family: Any, spec: ItemSpec, reply: str) -> Outcome:
    """The outcome of `spec`'s no-options reply: right when it names the gold option's
    text (`family.gold_place(spec)`), unparseable when it names none or several."""
    if len(spec.choices) > len(UNSEEN_LABELS):
        raise ValueError(f"{spec.suite} {spec.id}: more than {len(UNSEEN_LABELS)} options")
    reading = read_choice(reply, spec.choices, UNSEEN_LABELS[:len(spec.choices)])
    if reading.index is None:
        how = "names several options' texts" if len(reading.named) > 1 else \
            "names no option's text"
        return Outcome(correct=False, error=UNPARSEABLE,
                       detail=f"open-ended reply {how} ({reading.rule})")
    gold = family.gold_place(spec)
    return Outcome(correct=reading.index == gold, parsed=spec.choices[reading.index],
                   detail=f"read as option {reading.index + 1} by its text ({reading.rule}); "
                          f"gold: {spec.choices[gold]!r}")


def probe_record(point: ProbePoint) -> ProbeRecord:
    """A probe copy's `probe` field of its record: the probe, the suite of its file and,
    under `shuffle`, the order and where the gold was shown (from 0)."""
    out: ProbeRecord = {"probe": point.probe, "label": point.label, "suite": point.suite}
    if point.probe == "shuffle":
        out["order"] = list(point.order)
        out["gold_position"] = point.gold_position
    return out
