"""`results/token_usage.request_usage`: the request figures of a run from one pass over its
records (one row per configured model, the counts per endpoint, the failed items), the same
figures the separate readers give."""

from __future__ import annotations

from pytest_tom.core.model import ItemSpec
from pytest_tom.core.outcome import Outcome
from pytest_tom.items.item import build_record
from pytest_tom.results.token_usage import EndpointUsage, request_usage, usage_by_endpoint


def _spec(i: int) -> ItemSpec:
    return ItemSpec(id=f"s{i}::q", suite="toy", family="generic", scenario=f"s{i}",
                    kind="yes_no", question="Is it?", gold="yes")


def test_one_pass_gives_models_endpoints_and_failures() -> None:
    records = [
        build_record(_spec(0), Outcome(correct=True), ["yes"], requests=2, retries=1,
                     usage={"prompt_tokens": 10, "completion_tokens": 2}, model="m-2024",
                     endpoints={"http://b/v1": {"requests": 1, "failures": 1, "moved": 1},
                                "http://a/v1": {"requests": 1}}),
        build_record(_spec(1), Outcome(correct=False), ["no"], requests=1, cached=1,
                     cached_usage={"total_tokens": 7},
                     endpoints={"http://a/v1": {"requests": 1}}),
        build_record(_spec(2), Outcome.failed("request_failed", "HTTP 500: boom"), [],
                     requests=3, endpoints={"http://a/v1": {"requests": 3, "failures": 3}}),
    ]
    usage = request_usage(records, "openai:m", "m")
    [row] = usage.models
    assert (row.model, row.name, row.items, row.requests, row.retries, row.cached,
            row.errors) == ("openai:m", "m", 3, 6, 1, 1, 1)
    assert row.tokens == {"prompt_tokens": 10, "completion_tokens": 2}
    assert row.cached_tokens == {"total_tokens": 7} and row.served == {"m-2024"}
    assert usage.endpoints == {"http://a/v1": EndpointUsage(5, 3, 0),
                               "http://b/v1": EndpointUsage(1, 1, 1)}
    assert list(usage.endpoints) == ["http://a/v1", "http://b/v1"]  # sorted by URL
    assert usage.failed == [("toy::s2::q", "HTTP 500: boom")]
    assert usage.flagged == 1  # outcomes with an error of any kind (-q shows the section then)
    unparsed = build_record(_spec(3), Outcome(correct=False, error="unparseable"), ["?"])
    assert (request_usage([unparsed], "m").flagged, request_usage([unparsed], "m").failed) == \
        (1, [])
    assert usage_by_endpoint(records) == usage.endpoints
    assert request_usage([], "openai:m").models == []
