"""The record of one item: the plain data a run leaves (on `report.tom`, in the JSON
report's `items`, in replay files) and aggregation reads. A TypedDict, so the record
stays a dict across xdist while its shape is written down in one place.

Every key a run writes is declared here (`engine/item.build_record` writes the item,
outcome and responses, `engine/sample_requests.call_fields` the request side, the pytest
item the messages and seconds). A new field is one line here plus the line that writes
it; a report saved before the field existed lacks it, so readers take it with `.get`
(see `engine/run_report` for the report's format version).
"""

from __future__ import annotations

from typing import Any, TypedDict


class Record(TypedDict, total=False):
    item: dict[str, Any]  # ItemSpec.summary(): id, suite, family, scenario, kind, gold, meta ...
    outcome: dict[str, Any]  # Outcome.to_dict(): correct, parsed, value, error, detail, extra
    responses: list[str]  # every response of the conversation; the last one is scored
    # what the model saw, call by call (engine/transcript.call_messages): a list of calls,
    # each a list of {"role", "content"}
    messages: list[list[dict[str, Any]]]
    seconds: float
    usage: dict[str, int]  # tokens the server reported (summed over samples)
    cached_usage: dict[str, int]  # tokens of calls answered by the response cache
    requests: int
    retries: int
    cached: int
    shared: int  # calls answered by an identical call in flight in this process (not cached)
    model: str | None  # the model name the server reported
    # several endpoints of one model: per endpoint (redacted URL) requests, failures, moved
    endpoints: dict[str, dict[str, int]]
    samples: list[dict[str, Any]]  # --tom-samples > 1: outcome and responses per sample
