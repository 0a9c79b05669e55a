"""BigToM's initial_state_rate is an error rate: a gate on it is a ceiling, through the plugin."""

from __future__ import annotations

import pytest
from conftest import SUITES, load_report

BUNDLED = SUITES / "bigtom" / "everyday-causal-templates.tom.yaml"
ANSWERS = '''
def initial(req):
    return "Answer:" + req.item.meta["initial_state_letter"] + ")"

def other(req):
    return "Answer:" + ("b" if req.item.meta["initial_state_letter"] == "a" else "a") + ")"
'''


@pytest.mark.parametrize(("answerer", "status"), [("initial", 1), ("other", 0)])
def test_initial_state_rate_threshold_is_a_ceiling(pytester: pytest.Pytester, answerer: str,
                                                   status: int) -> None:
    pytester.makepyfile(answers=ANSWERS)
    pytester.makeini("[pytest]\n")
    report = pytester.path / "report.json"
    result = pytester.runpytest(str(BUNDLED), f"--tom-model=python:{pytester.path / 'answers.py'}:{answerer}",
                                "--tom-fail-under=bigtom.initial_state_rate=0.2",
                                f"--tom-report={report}", "-p", "no:cacheprovider", "-q",
                                "--tb=no")
    rate = load_report(report)["suites"]["bigtom-everyday"]["metrics"]["initial_state_rate"]
    assert rate == (1.0 if answerer == "initial" else 0.0)  # the answerers do what they say
    assert result.ret == status
    if status:
        result.stdout.fnmatch_lines(
            ["*bigtom-everyday:initial_state_rate*required <= 0.2*above the allowed 0.2*"])
