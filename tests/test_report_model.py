"""The typed report model holds the keys: aggregation results and saved reports are read
through `results.results` and `results.run_report`, never by their JSON keys elsewhere in the
package, so a new figure or field is named in one place (docs/architecture.md)."""

from __future__ import annotations

import re

from conftest import REPO

from pytest_tom.core.outcome import Outcome
from pytest_tom.core.settings import Settings
from pytest_tom.results.aggregate import aggregate
from pytest_tom.results.results import Results
from pytest_tom.results.run_report import RunReport
from pytest_tom.suite import ItemSpec

PACKAGE = REPO / "pytest_tom"
# the modules that know the keys of results and reports
MODEL = {"results/results.py", "results/run_report.py", "results/saved_report.py"}
RESULT_KEYS = ("suites", "totals", "totals_intervals", "totals_spread", "metrics", "intervals",
               "tables", "info", "spread")
KEYS = "|".join(RESULT_KEYS)
LOOKUP = re.compile(rf"""(\[|\.get\()\s*["']({KEYS})["']""")


def test_results_are_read_through_the_model_only() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel in MODEL:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if LOOKUP.search(line):
                found.append(f"{rel}:{n}: {line.strip()}")
    assert not found, ("results or reports read by key outside results/results.py and "
                       "results/run_report.py (use their accessors):\n" + "\n".join(found))


def test_the_guard_sees_a_lookup() -> None:
    assert LOOKUP.search('x = results["suites"][name]')
    assert LOOKUP.search("block.get('intervals') or {}")
    assert not LOOKUP.search('rec["item"]["suite"]')


def _records(k: int) -> list[dict]:
    out = []
    for i in range(6):
        spec = ItemSpec(id=f"g{i // 2}::q{i}", suite="s", family="generic", scenario=f"g{i // 2}",
                        kind="yes_no", question="?", gold="yes")
        samples = [{"outcome": Outcome(correct=(i + s) % 3 != 0).to_dict(), "responses": ["x"]}
                   for s in range(k)]
        out.append({"item": spec.summary(), "outcome": samples[0]["outcome"], "responses": ["x"],
                    **({"samples": samples} if k > 1 else {})})
    return out


def test_sample_runs_keep_their_spread_in_the_report() -> None:
    results = aggregate(_records(3), Settings())
    assert isinstance(results, Results) and results.samples == 3
    suite = results.suite("s")
    assert suite is not None and suite.samples == 3 and "turn" in suite.spread
    assert not suite.intervals  # means over samples: the spread is shown instead
    report = RunReport.build(results, _records(3), {"model": "m"}, 0.0, 1.0)
    assert report.data["samples"] == 3 and report.results.totals_spread == results.totals_spread
    assert list(report.data)[-1] == "items"
    one = aggregate(_records(1), Settings())
    assert one.samples is None and one.suite("s").intervals  # type: ignore[union-attr]
