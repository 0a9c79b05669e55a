"""`Outcome.to_dict` (issue 35: a share of every record) is `dataclasses.asdict`: the same
keys in the same order, and no value shared with the outcome that could change later."""

from __future__ import annotations

import json
from dataclasses import asdict

from pytest_tom.core.model import ItemSpec
from pytest_tom.core.outcome import Outcome


def test_to_dict_is_asdict_for_plain_and_nested_outcomes() -> None:
    outcomes = [
        Outcome(correct=True, parsed="yes"),
        Outcome(correct=False, parsed="b", value=0.0, error="unparseable", detail="no letter",
                extra={"budget": 16, "in_thought": True}),
        Outcome(correct=None, value=0.5, extra={"f1": 0.5, "note": None}),
        Outcome(correct=True, parsed=["a", "b"], extra={"pairs": [[1, 2]], "by": {"x": 1}}),
    ]
    for outcome in outcomes:
        got = outcome.to_dict()
        assert json.dumps(got) == json.dumps(asdict(outcome))
        # a copy: changing the outcome afterwards leaves the record as it was
        before = json.dumps(got)
        outcome.extra["later"] = 1
        if isinstance(outcome.parsed, list):
            outcome.parsed.append("c")
            outcome.extra["pairs"][0].append(3)
        assert json.dumps(got) == before


def test_summary_keeps_every_field_but_data_in_order() -> None:
    spec = ItemSpec(id="q1", suite="s", family="generic", scenario="sc", kind="yes_no",
                    question="Q?",
                    gold="yes", data={"big": 1}, line=3)
    # a sweep's or a probe's copy label is the record's own field, not the item's summary
    names = [n for n in spec.__dataclass_fields__ if n not in ("data", "sweep", "probe")]
    assert list(spec.summary()) == names
    assert spec.summary()["line"] == 3 and "data" not in spec.summary()
