"""A reasoning model behind a real chat-completions server, in each shape servers send
(tests/thinking_server.py), on the bundled suites of every family (issue 32's "Done when"):

- with budget to spare, every metric (but the reasoning figures a thought adds), every
  table of the terminal and every item's verdict are those of the plain model that gives
  the same answers, plainly and under `-n 2`;
- with too small a budget, every asked item is cut off in its record, counted apart in
  each suite, none counted wrong; the terminal says how many and what to raise; the run
  stops early with that line and a valid report, and `--tom-early-stop=off` runs it to
  the end.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from chat_server import ChatServer
from conftest import REPO, TESTS, load_report
from thinking_server import responder, table_answers

# one suite file of each bundled family, a few scenarios of each (--tom-limit)
SUITE_FILES = ["suites/bigtom", "suites/fantom", "suites/generic", "suites/hitom",
               "suites/mmtomqa", "suites/opentom", "suites/robustness/uc1-button-tin.tom.yaml",
               "suites/tombench/false-belief-task.tom.yaml"]
FAMILIES = {"bigtom", "fantom", "generic", "hitom", "mmtomqa", "opentom", "robustness",
            "tombench"}
SPARE = ("--tom-thinking-tokens=1000",)


def bundled_run(out: Path, name: str, model: str, *extra: str,
                env: dict[str, str] | None = None, files: list[str] | None = None
                ) -> tuple[dict[str, Any], str, int]:
    """(report, terminal output, exit code) of the chosen bundled suites (`files`: others)."""
    report = out / f"{name}.json"
    path = os.pathsep.join(filter(None, [str(REPO), str(TESTS), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *(files or SUITE_FILES), "-p", "no:cacheprovider",
         "-p", "no:randomly", f"--tom-model={model}", "--tom-limit=3", "--tom-items=report",
         f"--tom-report={report}", "--tom-cache=off", *extra],
        cwd=REPO, env={**os.environ, "PYTHONPATH": path, **(env or {})},
        capture_output=True, text=True, timeout=900)
    assert report.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    (out / f"{name}.out").write_text(proc.stdout, encoding="utf-8")
    return load_report(report), proc.stdout, proc.returncode


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The table of the plain model's answers (a stand-in model of every family)."""
    out = tmp_path_factory.mktemp("answers")
    table = out / "answers.jsonl"
    bundled_run(out, "table", "python:tests/thinking_server.py:record_weak", *SPARE,
                env={"TOM_ANSWER_TABLE": str(table)})
    return table


@pytest.fixture(scope="module")
def plain_run(tmp_path_factory: pytest.TempPathFactory, answers: Path
              ) -> tuple[dict[str, Any], str]:
    """The plain model's run (report, terminal) with the budget to spare."""
    report, out, _ = served(tmp_path_factory.mktemp("plain"), "plain", answers, *SPARE)
    return report, out


def served(out: Path, shape: str, answers: Path | None, *extra: str,
           files: list[str] | None = None) -> tuple[dict[str, Any], str, int]:
    kwargs = {"answer_of": table_answers(answers)} if answers else {}
    with ChatServer(responder(shape, **kwargs)) as server:
        return bundled_run(out, shape, "openai:m", f"--tom-base-url={server.base_url}", *extra,
                           files=files)


def verdicts(report: dict[str, Any]) -> dict[tuple[str, str], Any]:
    return {(r["item"]["suite"], r["item"]["id"]): r["outcome"] for r in report["items"]}


def plain_metrics(report: dict[str, Any]) -> dict[str, Any]:
    return {suite: {k: v for k, v in block["metrics"].items() if not k.startswith("reasoning")}
            for suite, block in report["suites"].items()}


def tables(out: str) -> list[str]:
    """The tom scores section of the terminal, without the reasoning figures (each from its
    "reasoning, ..." line to the blank line that ends them, thought-length statistics
    included) and the model's port."""
    lines = out[out.index("tom scores"):out.index("tom report:")].splitlines()
    keep: list[str] = []
    figures = False
    for line in lines:
        if line.startswith("reasoning, "):
            figures = True
        elif figures and not line.strip():
            figures = False
            continue
        if not figures:
            keep.append(re.sub(r"127\.0\.0\.1:\d+", "HOST", line))
    return keep


@pytest.mark.parametrize("shape, xdist", [("content", []), ("fields", []),
                                          ("content", ["-n", "2"])],
                         ids=["think-tags", "reasoning-fields", "think-tags-xdist"])
@pytest.mark.slow
def test_with_budget_to_spare_every_family_scores_as_the_plain_model(
        tmp_path: Path, answers: Path, plain_run: tuple[dict[str, Any], str], shape: str,
        xdist: list[str]) -> None:
    plain, plain_out = plain_run
    report, out, _ = served(tmp_path, shape, answers, *SPARE, *xdist)
    assert {r["item"]["family"] for r in report["items"]} == FAMILIES
    assert verdicts(report) == verdicts(plain)
    outcomes = [o["correct"] for o in verdicts(plain).values()]
    assert any(outcomes) and not all(outcomes)  # right and wrong answers both compared
    assert plain_metrics(report) == plain_metrics(plain)
    assert all(r["thoughts"] and all(r["thoughts"]) for r in report["items"])
    assert not any("thoughts" in r for r in plain["items"])
    assert all(set(r["finish"]) == {"stop"} for r in report["items"])
    assert tables(out) == tables(plain_out)
    # the thought adds the reasoning figures, and only them
    assert all(any(k.startswith("reasoning.") for k in block["metrics"])
               for block in report["suites"].values())


@pytest.mark.slow
def test_with_too_small_a_budget_every_item_is_cut_off_and_counted_apart(
        tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    report, out, code = served(tmp_path, "lone_close", None, "--tom-early-stop=off",
                               f"--junitxml={junit}")
    assert code == 0
    items = report["items"]
    assert {r["item"]["family"] for r in items} == FAMILIES
    assert all(r["outcome"]["error"] == "cut_off" and r["finish"][-1] == "length"
               for r in items)
    for suite, block in report["suites"].items():
        metrics = block["metrics"]
        asked = sum(1 for r in items if r["item"]["suite"] == suite)
        assert metrics["cut_off"] == asked and metrics["wrong"] == 0, suite
    assert report["totals"]["cut_off"] == len(items)
    # JUnit: each cut-off item says so (tom_error=cut_off), an expected failure in report mode
    cases = ElementTree.parse(junit).getroot().iter("testcase")
    marked = [c for c in cases if any(p.get("name") == "tom_error" and p.get("value") == "cut_off"
                                      for p in c.iter("property"))]
    assert len(marked) == len(items)
    assert f"{len(items)} cut off" in out  # the totals
    n = len(items)  # the line under them: how many, what to raise
    unwrapped = out.replace(";\n  ", "; ")  # the line wraps at 120 columns
    assert (f"tom: {n} of {n} answers cut off by the budget, counted apart, never wrong; "
            f"give the thought room with --tom-thinking=on (4096 tokens) or "
            f"--tom-thinking-tokens N, or raise --tom-max-tokens") in unwrapped


def test_a_budget_too_small_for_one_suite_stops_that_suite_alone(tmp_path: Path) -> None:
    """Issue 46: the early stop is decided per suite, on its own answer length. A thought of
    400 tokens and --tom-thinking-tokens=300: BigToM's calls get 64 + 300 (cut off), Hi-ToM's
    256 + 300 and ToMBench's 128 + 300 (room to spare). Under -n 2 each worker decides on
    its own first answers; bigtom alone stops, the others run to their end."""
    baseline = tmp_path / "b.json"
    report, out, code = served(
        tmp_path, "reasoning_content", None, "--tom-thinking-tokens=300",
        f"--tom-save-baseline={baseline}", "-n", "2",
        files=["suites/bigtom", "suites/hitom", "suites/tombench/false-belief-task.tom.yaml"])
    assert code == 1
    assert "xdist.dsession.Interrupted" not in out  # the run itself was not stopped
    unwrapped = re.sub(r";\n  ", "; ", out)
    stops = [line for line in unwrapped.splitlines()
             if "stopped early" in line and not line.startswith("tom gates")]
    assert len(stops) == 1, out[-3000:]
    assert stops[0].startswith("tom: suite bigtom-everyday stopped early: ")
    assert "cut off by the budget (max_tokens 364, all inside the thought)" in stops[0]
    assert "raise --tom-thinking-tokens (now 300)" in stops[0]
    assert "--tom-early-stop=off" in stops[0] and "of its items not asked" in stops[0]
    by_suite: dict[str, list[str | None]] = {}
    for r in report["items"]:
        by_suite.setdefault(r["item"]["family"], []).append(r["outcome"]["error"])
    assert set(by_suite["bigtom"]) == {"cut_off"}
    assert len(by_suite["bigtom"]) < 40  # stopped after its first answers, not at its end
    assert "cut_off" not in by_suite["hitom"] + by_suite["tombench"]
    assert len(by_suite["hitom"]) >= 3 and len(by_suite["tombench"]) >= 3  # ran to the end
    assert report["status"] == "interrupted"  # bigtom's items not asked: not a whole run
    assert not baseline.exists()
    assert ("tom gates: suite bigtom-everyday stopped early: gates not evaluated, baseline not "
            "saved") in out
    # what the model was asked, as fields (issue 46 item 4): the budget, per family
    asked = report["settings"]["asked"]
    assert asked["thinking_tokens"] == 300 and asked["max_tokens"] is None
    assert (asked["answer_tokens"]["bigtom"], asked["answer_tokens"]["hitom"]) == (64, 256)
    assert asked["thinking"] is None and asked["request_fields"] == {}
