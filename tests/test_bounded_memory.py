"""What a run keeps per item (issue 24, point 3): only what its outputs need.

At the end of a run (checked from a conftest hook of the run itself): the
runner holds no future or completion of any item, no item holds its
completions or messages (its record has them), pytest's terminal reporter kept
no passed set-up or tear-down report, and no JUnit property was attached
without `--junitxml`. The files written are complete: the JSON report has every
record, and `report_text` (one string) is the same text as the pieces written.
The figures themselves (KB per item at 20,000 and 100,000 items) are measured by
`benchmarks/scale.py`, not asserted here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chat_server import ChatServer
from embedding_model import embedder  # noqa: F401  (fixture: FANToM's model, loaded once)
from runner_support import expected_right, numbers_suite, respond, tom_args

from pytest_tom.report.json_report import report_chunks, report_text

N = 40

CHECK = '''
import json, pytest
from pytest_tom.plugin.request_phase import REQUESTS_KEY

@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session):
    runner = session.config.stash[REQUESTS_KEY].runner
    outputs = session.config.pluginmanager.get_plugin("tom-outputs")
    items = [i for i in session.items if hasattr(i, "spec")]
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    seen = {
        "futures": len(runner._futures),
        "forgotten": len(runner._taken),
        "holding": sum(1 for i in items if i.completions or i.completion or i._calls),
        "quiet_reports": len(reporter.stats.get("", [])),
        "call_reports": len(reporter.stats.get("passed", [])) + len(reporter.stats.get("failed", [])),
        "properties": sum(len(i.user_properties) for i in items),
        "records": len(outputs.records),
    }
    with open("seen.json", "w") as fh:
        json.dump(seen, fh)
'''


@pytest.mark.parametrize("junit", [False, True])
def test_a_run_keeps_only_the_records(pytester: pytest.Pytester, junit: bool) -> None:
    pytester.makefile(".tom.yaml", numbers=numbers_suite(N))
    pytester.makeconftest(CHECK)
    extra = ["--junitxml=j.xml"] if junit else []
    with ChatServer(respond) as server:
        result = pytester.runpytest(*tom_args(server, "--tom-report=r.json", *extra))
    result.assert_outcomes(passed=expected_right(N), failed=N - expected_right(N))
    seen = json.loads((pytester.path / "seen.json").read_text())
    properties = seen.pop("properties")
    assert seen == {"futures": 0, "forgotten": N, "holding": 0, "quiet_reports": 0,
                    "call_reports": N, "records": N}
    assert properties >= 3 * N if junit else properties == 0  # tom_suite, tom_kind, tom_correct
    report = json.loads((pytester.path / "r.json").read_text())
    assert len(report["items"]) == N
    assert all(r["messages"] and r["responses"] for r in report["items"])
    text = (pytester.path / "r.json").read_text()
    assert report_text(report) == "".join(report_chunks(report)) == text


@pytest.mark.usefixtures("embedder")
@pytest.mark.parametrize("mode", [[], ["--tom-requests-first"]])
def test_a_family_that_prepares_still_asks_each_item_once(pytester: pytest.Pytester,
                                                          mode: list[str]) -> None:
    """FANToM embeds its free answers in batches before scoring (prepare_scoring looks at
    the answers before the items take them): no answer is forgotten and asked again.
    Under xdist (each worker loads the model) the same is checked by the run of
    tests/families/fantom/test_fantom_scores.py::test_xdist_workers_embed_their_queued_answers_in_batches."""
    suite = Path(__file__).resolve().parents[1] / "suites" / "fantom" / "smalltalk.tom.yaml"
    (pytester.path / "smalltalk.tom.yaml").write_text(suite.read_text())
    # in process (the embedder fixture loads FANToM's model once per test process), on a
    # seeded subset of whole conversation sets
    with ChatServer(lambda body: "They talked about the weather.") as server:
        result = pytester.runpytest(*tom_args(server, "--tom-cache=off", "--tom-limit=60",
                                              "--tom-report=r.json", *mode))
        asked = server.requests
        once = set(server.per_prompt.values())
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["items"], result.outlines[-20:]
    assert any(r["item"]["kind"] == "belief_dist" for r in report["items"])  # embedded
    assert once == {1}, server.per_prompt.most_common(3)
    assert asked == sum(r["requests"] for r in report["items"])
