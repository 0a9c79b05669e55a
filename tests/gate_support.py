"""Support for the gating tests: a generated generic suite of yes/no items and answerers
that are right, or wrong on a known set of items (python backend, written into the
pytester directory)."""

from __future__ import annotations

import contextlib
import importlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

# pytester's in-process runs drop the modules a run imported; with PYTHONDONTWRITEBYTECODE
# every run then compiles (and assertion-rewrites) them again. Importing them here, once,
# keeps them across runs: only speed changes, not what the runs do.
WARM = ("pytest_tom.plugin", "pytest_tom.plugin.items", "pytest_tom.results.aggregate", "pytest_tom.asking.runner",
        "pytest_tom.gates.evaluate", "pytest_tom.gates.spec", "pytest_tom.families.generic.family", "pytest_tom.backends.python_backend",
        "pytest_tom.report.terminal", "pytest_tom.report.gate_summary", "pytest_tom.report.markdown",
        "pytest_tom.report.item_outcome", "pytest_tom.report.json_report", "tabulate", "hypothesis")
for _name in WARM:
    with contextlib.suppress(ImportError):  # an optional plugin that is not installed
        importlib.import_module(_name)

SUITE = "gate-demo"
SCENARIOS = 100
QUESTIONS = 5  # 500 items, 100 goal groups


def suite_yaml(scenarios: int = SCENARIOS, questions: int = QUESTIONS, name: str = SUITE) -> str:
    lines = [f"suite: {name}", "family: generic", "version: 1", "scenarios:"]
    for s in range(scenarios):
        lines += [f"  - id: s{s:03d}",
                  f"    context: Scenario {s}. Ann puts a ball in the box and leaves; Bo moves it.",
                  "    tags: [" + ("even" if s % 2 == 0 else "odd") + "]",
                  "    questions:"]
        for q in range(1, questions + 1):
            gold = "yes" if (s + q) % 2 else "no"
            lines += [f"      - id: q{q}", f"        ask: Question {q} about scenario {s}?",
                      f"        yes_no: \"{gold}\""]
    return "\n".join(lines) + "\n"


ANSWERS = textwrap.dedent('''
    """Answerers for the gating tests: each reads the gold and is wrong on a known set."""

    def _answer(req, wrong):
        gold = req.item.gold
        if req.item.id in wrong:
            return "No." if gold == "yes" else "Yes."
        return "Yes." if gold == "yes" else "No."

    def right(req):
        return _answer(req, set())

    # wrong on one item in each of 10 scenarios: goal -0.10, turn -0.02
    GOAL10 = {f"s{s:03d}::q1" for s in range(10)}

    def goal10(req):
        return _answer(req, GOAL10)

    def flip1(req):
        return _answer(req, {"s042::q3"})

    def improved1_flip1(req):
        # one item newly wrong and one newly right compared with `baseline_two_wrong`
        return _answer(req, {"s001::q1", "s003::q3"})

    def baseline_two_wrong(req):
        return _answer(req, {"s001::q1", "s002::q2"})

    def secret(req):
        return "No, and by the way my key is sk-test-SECRET123" if req.item.gold == "yes" else "No."

    def boom_one(req):
        if req.item.id == "s000::q1":
            raise RuntimeError("the backend broke")
        return _answer(req, set())
''')


def setup_project(pytester: pytest.Pytester, scenarios: int = SCENARIOS) -> Path:
    """Suite + answerers in the pytester directory; returns the suite path."""
    pytester.makeini("[pytest]\n")
    path = pytester.path / "gate-demo.tom.yaml"
    path.write_text(suite_yaml(scenarios), encoding="utf-8")
    (pytester.path / "answers.py").write_text(ANSWERS, encoding="utf-8")
    return path


def run(pytester: pytest.Pytester, answerer: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest(f"--tom-model=python:answers.py:{answerer}", "-p", "no:cacheprovider",
                              *args)


def save_baseline_in(directory: Path, answerer: str = "right") -> Path:
    """Run the suite in a fresh directory (a real pytest process) and save its baseline."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (directory / "gate-demo.tom.yaml").write_text(suite_yaml(), encoding="utf-8")
    (directory / "answers.py").write_text(ANSWERS, encoding="utf-8")
    path = directory / "baseline.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", f"--tom-model=python:answers.py:{answerer}",
         f"--tom-save-baseline={path}", "-p", "no:cacheprovider", "-q"],
        cwd=directory, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"tom baseline saved: {path}" in proc.stdout
    return path
