"""The record of one item: the plain data a run leaves (on `report.tom`, in the JSON
report's `items`, in replay files) and aggregation reads. A TypedDict, so the record
stays a dict across xdist while its shape is written down in one place.

Every key a run writes is declared here (`items/item.build_record` writes the item,
outcome and responses, `items/sample_requests.call_fields` the request side, the pytest
item the messages and seconds), its parts too (`ItemSummary`, `OutcomeDict`, `Sample`,
`SweepRecord`, `ProbeRecord`). A new field is one line here, the line that writes it and
a property of `core/record_view.RecordView`, the one reader of a record's keys (a report
saved before the field existed lacks it: the property gives its default; see
`results/run_report` for the report's format version). tests/test_report_model.py takes
the keys from these declarations and fails on a read of one by string elsewhere.
"""

from __future__ import annotations

from typing import Any, TypedDict

from pytest_tom.core.json_value import JSONObject


class ItemSummary(TypedDict, total=False):
    """`ItemSpec.summary()`: every field of the item but its `data`, `sweep` and `probe`
    (tests/test_record_view checks the two agree). Readers go through
    `core/record_view.RecordView`."""

    id: str  # "<scenario>::<question>", unique within the suite
    suite: str
    family: str
    scenario: str
    kind: str
    question: str
    gold: Any
    group: str  # goal accuracy's unit ("": the scenario)
    choices: list[str]
    tags: list[str]
    markers: list[str]
    source: JSONObject  # file, line, upstream id ...: free-form, as the suite gives it
    meta: JSONObject  # the family's plain-JSON facts about the item, free-form
    line: int


class OutcomeDict(TypedDict, total=False):
    """`Outcome.to_dict()`: what the item scored (see `core/outcome.Outcome`)."""

    correct: bool | None
    parsed: Any
    value: float | None
    error: str | None
    detail: str
    extra: JSONObject  # the family's scoring details (`Outcome.extra`), free-form


class SweepRecord(TypedDict, total=False):
    """--tom-sweep: the setting, the value the item was asked with (typed as the setting
    takes it), the suite of its file and the value's place in the sweep (from 0)."""

    setting: str
    value: Any
    suite: str
    index: int


class ProbeRecord(TypedDict, total=False):
    """--tom-probe: the probe, its label, the suite of its file and (shuffle) the order
    of the options and where the gold was shown (from 0)."""

    probe: str
    label: str
    suite: str
    order: list[int]
    gold_position: int | None


class Sample(TypedDict, total=False):
    """One sample of a `--tom-samples` run: its outcome and answers (and, as on the
    record, its thoughts and finish reasons when some reply had one)."""

    outcome: OutcomeDict
    responses: list[str]
    thoughts: list[str | None]
    finish: list[str | None]


class Record(TypedDict, total=False):
    item: ItemSummary
    outcome: OutcomeDict
    responses: list[str]  # every answer of the conversation; the last one is scored
    # a reasoning model's thought of each call, parallel to `responses` (None: the reply
    # showed none); present only when some reply had one, so plain runs lack the key
    thoughts: list[str | None]
    # each call's finish reason, parallel to `responses` ("stop", "length": the budget ran
    # out, others as the server says; None: unknown); present only when some reply had one
    finish: list[str | None]
    # what the model saw, call by call (items/transcript.call_messages): a list of calls,
    # each a list of {"role", "content"} (backends.base.Message)
    messages: list[list[dict[str, str]]]
    seconds: float
    # tokens the server reported (summed over calls and samples): prompt_tokens,
    # completion_tokens, total_tokens, and reasoning_tokens where they are known
    usage: dict[str, int]
    cached_usage: dict[str, int]  # tokens of calls answered by the response cache
    requests: int
    retries: int
    cached: int
    shared: int  # calls answered by an identical call in flight in this process (not cached)
    model: str | None  # the model name the server reported
    # several endpoints of one model: per endpoint (redacted URL) requests, failures, moved
    endpoints: dict[str, dict[str, int]]
    # --tom-sweep: the setting, the value this item was asked with (typed as the setting
    # takes it: int tokens, float temperature, str effort, JSON of a request field) and the
    # suite of its file (its `item.suite` is `<suite>[<setting>=<value>]`) and the value's
    # place in the sweep (`index`, from 0: the reports' order); absent otherwise
    sweep: SweepRecord
    # --tom-probe: the probe this copy was asked under, its label, the suite of its file
    # and (shuffle) the order of the options and the gold's place; absent otherwise
    probe: ProbeRecord
    # --tom-samples > 1: outcome and responses per sample (and its thoughts and finish, as above)
    samples: list[Sample]
