"""ToMBench through pytest itself (pytester): the bundled suite by name, python-backend
answerers, the JSON report's declared figures with their intervals, both protocols."""

from __future__ import annotations

import math
from typing import Any

import pytest
from chat_server import ChatServer
from conftest import FAMILY_TESTS, SUITES, load_report
from tombench_support import (
    counts,
    expected_figures,
    kind_of,
    questions,
    subset_right,
    voter_right,
)

from pytest_tom.cli import main

BUNDLED = SUITES / "tombench"
SUPPORT = FAMILY_TESTS / "tombench" / "tombench_support.py"
Z = 1.959963984540054


def run(pytester: pytest.Pytester, answerer: str, *args: str) -> tuple[pytest.RunResult,
                                                                        dict[str, Any]]:
    pytester.makeini("[pytest]\n")
    report = pytester.path / "report.json"
    result = pytester.runpytest("--tom-suite=tombench", f"--tom-model=python:{SUPPORT}:{answerer}",
                                f"--tom-report={report}", "--tom-cache=off", "-p",
                                "no:cacheprovider", *args)
    data = load_report(report)
    (suite,) = data["suites"].values()
    return result, suite


def wilson(right: int, n: int) -> tuple[float, float]:
    p = right / n
    den = 1 + Z * Z / n
    centre = (p + Z * Z / (2 * n)) / den
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / den
    return (0.0 if right == 0 else centre - half), (1.0 if right == n else centre + half)


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_the_gold_answerer_is_right_on_every_bundled_item(pytester: pytest.Pytester,
                                                          xdist: list[str]) -> None:
    rows = questions(BUNDLED)
    assert len(rows) >= 100 and len({r["task"] for r in rows}) >= 8
    result, suite = run(pytester, "gold", *xdist)
    result.assert_outcomes(passed=len(rows))
    m = suite["metrics"]
    assert m["turn"] == 1.0 and m["task_average"] == 1.0 and m["ability_average"] == 1.0
    assert all(v == 1.0 for k, v in m.items() if k.startswith(("task.", "ability.", "dimension.")))
    result.stdout.fnmatch_lines(["*ToMBench accuracy per task (layout of the paper's task table)*",
                                 "FBT False Belief Task * 18 * 100.0% (18/18)",
                                 "average over the paper's tasks (8 of 8) * 100.0%",
                                 "*ToMBench accuracy per ability*"])


def test_a_lowercase_bare_letter_is_read_too(pytester: pytest.Pytester) -> None:
    result, suite = run(pytester, "bare_gold")
    assert suite["metrics"]["turn"] == 1.0 and suite["metrics"]["unparseable"] == 0


@pytest.mark.parametrize("xdist", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_every_figure_of_a_fixed_subset_is_declared_with_its_interval(
        pytester: pytest.Pytester, xdist: list[str]) -> None:
    rows = questions(BUNDLED)
    right = subset_right(rows)
    expected = expected_figures(rows, right)
    result, suite = run(pytester, "subset", "--tom-items=report", *xdist)
    assert result.ret == 0
    m, intervals = suite["metrics"], suite["intervals"]
    groups = {k for k in m if k.startswith(("task.", "ability.", "dimension."))}
    assert groups == {k for k in expected if not k.endswith("_average")}  # every group asked
    for name, value in expected.items():
        assert m[name] == pytest.approx(value, abs=1e-12), name
        iv = intervals[name]
        assert iv["low"] <= value <= iv["high"], name
        assert iv["method"] == ("bootstrap" if name.endswith("_average") else "wilson"), name
    # a per-task interval is the Wilson interval of its counts
    for task, (ok, n) in counts(rows, right).items():
        name = "task." + task.lower().replace(" ", "_").replace("-", "_")
        assert (intervals[name]["low"], intervals[name]["high"]) == pytest.approx(wilson(ok, n))
        assert intervals[name]["n"] == n
    unreadable = sum(kind_of(r["id"]) == "unreadable" for r in rows)
    assert m["unparseable"] == unreadable > 0
    # figures no group asked are not made up: the 10 ability sets the suite leaves out
    assert "task.emotion_regulation" not in m


def test_the_official_protocol_asks_five_times_and_takes_the_majority(
        pytester: pytest.Pytester) -> None:
    rows = questions(BUNDLED)
    right = voter_right(rows)
    assert 0 < sum(right.values()) < len(rows)
    result, suite = run(pytester, "voter", "--tom-items=report", "--tom-tombench-protocol=official")
    assert result.ret == 0
    m, intervals = suite["metrics"], suite["intervals"]
    assert m["items"] == 5 * len(rows)
    for name, value in expected_figures(rows, right).items():
        assert m[name] == pytest.approx(value, abs=1e-12), name
        assert intervals[name]["low"] <= value <= intervals[name]["high"], name
        assert intervals[name]["method"] in ("bootstrap", "wilson over groups"), name
    assert "official: each question asked 5 times" in suite["info"]["tombench protocol"]
    (task_table, *_) = suite["tables"]
    assert task_table["headers"] == ["task", "questions", "accuracy"]
    report = load_report(pytester.path / "report.json")
    orders = {}
    for rec in report["items"]:
        question = rec["item"]["scenario"]
        orders.setdefault(question, set()).add(tuple(rec["item"]["meta"]["order"]))
    # the options are shown in several orders per question (seeded: the same next time)
    assert sum(len(o) > 1 for o in orders.values()) > 0.9 * len(orders)


def test_the_official_tries_are_separate_cached_requests(pytester: pytest.Pytester) -> None:
    """Each try whose options come out in an order of its own is a request of its own (tries
    shown alike are one request: the same prompt, one answer), cached: a second run asks
    nothing, so a rerun after an interruption asks only for what is missing."""
    pytester.makeini("[pytest]\n")
    seen: list[str] = []

    def respond(body: dict[str, Any]) -> str:
        seen.append(body["messages"][-1]["content"])
        return "[[A]]"

    args = ["--tom-suite=tombench", "--tom-tombench-protocol=official", "-k", "fbt-scarf-now",
            "--tom-items=report", "-p", "no:cacheprovider", "--tom-report=r.json"]
    with ChatServer(respond) as server:
        model = ["--tom-model=openai:m", f"--tom-base-url={server.base_url}"]
        first = pytester.runpytest(*model, *args)
        assert first.ret == 0
        records = load_report(pytester.path / "r.json")["items"]
        orders = {tuple(r["item"]["meta"]["order"]) for r in records}
        assert len(records) == 5 and len(seen) == len(set(seen)) == len(orders) > 1
        asked = len(seen)
        again = pytester.runpytest(*model, *args)
        assert again.ret == 0 and len(seen) == asked
        again.stdout.fnmatch_lines(["*5 items*"])


def test_shards_keep_the_tries_together_and_merge_gate_and_compare_work(
        pytester: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    """Two `--tom-shard` jobs of the official protocol, merged: the figures of the unsharded
    run; `pytest-tom gate` and `compare` read them by their declared names."""
    args = ["--tom-tombench-protocol=official", "--tom-items=report"]
    _, full = run(pytester, "voter", *args)
    (pytester.path / "report.json").rename(pytester.path / "full.json")
    shards = []
    for k in (1, 2):
        _, part = run(pytester, "voter", *args, f"--tom-shard={k}/2")
        shards.append(pytester.path / f"part{k}.json")
        (pytester.path / "report.json").rename(shards[-1])
        assert 0 < part["metrics"]["items"] < full["metrics"]["items"]
    questions = [{r["item"]["scenario"] for r in load_report(p)["items"]} for p in shards]
    assert not questions[0] & questions[1]  # no question's tries in both jobs
    merged = pytester.path / "merged.json"
    assert main(["merge", *map(str, shards), "-o", str(merged)]) == 0
    (suite,) = load_report(merged)["suites"].values()
    assert suite["metrics"] == full["metrics"] and suite["intervals"] == full["intervals"]
    average = suite["metrics"]["task_average"]
    floor = math.floor(average * 1000) / 1000
    assert main(["gate", str(merged), "--tom-fail-under",
                 f"tombench.task_average={floor},tombench.ability.faux_pas=0"]) == 0
    assert main(["gate", str(merged), "--tom-fail-under",
                 f"tombench.task_average={average + 0.01:.3f}"]) == 1
    capsys.readouterr()
    assert main(["compare", str(pytester.path / "full.json"), str(merged), "--all"]) == 0
    out = capsys.readouterr().out
    assert "False Belief Task accuracy" in out and "mean accuracy over the abilities" in out
