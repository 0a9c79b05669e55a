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

import re
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from chat_server import ChatServer
from conftest import REPO, TESTS, load_report
from embedding_model import embedder  # noqa: F401  (fixture: FANToM's model, loaded once)
from thinking_server import responder, table_answers

# one suite file of each bundled family, a few scenarios of each (--tom-limit)
SUITE_FILES = ["suites/bigtom", "suites/fantom", "suites/generic", "suites/hitom",
               "suites/mmtomqa", "suites/opentom", "suites/robustness/uc1-button-tin.tom.yaml",
               "suites/tombench/false-belief-task.tom.yaml"]
FAMILIES = {"bigtom", "fantom", "generic", "hitom", "mmtomqa", "opentom", "robustness",
            "tombench"}
SPARE = ("--tom-thinking-tokens=1000",)


# every run is in process (pytester.runpytest): FANToM's free answers are scored by the
# embedding model the `embedder` fixture loaded once, not loaded again by each run
pytestmark = pytest.mark.usefixtures("embedder")


def bundled_run(pytester: pytest.Pytester, name: str, model: str, *extra: str,
                files: list[str] | None = None) -> tuple[dict[str, Any], str, int]:
    """(report, terminal output, exit code) of the chosen bundled suites (`files`: others;
    the repository's configuration, as the suites are under its root)."""
    report = pytester.path / f"{name}.json"
    result = pytester.runpytest(
        *(str(REPO / f) for f in (files or SUITE_FILES)), "-p", "no:cacheprovider",
        f"--tom-model={model}", "--tom-limit=3", "--tom-items=report",
        f"--tom-report={report}", "--tom-cache=off", *extra)
    out = result.stdout.str()
    assert report.exists(), out[-3000:] + result.stderr.str()[-3000:]
    (pytester.path / f"{name}.out").write_text(out, encoding="utf-8")
    return load_report(report), out, int(result.ret)


@pytest.fixture(scope="module")
def made_once() -> dict[str, Any]:
    """What the first test of this module (in this process) that needs it made: the plain
    model's answers and its run. A module-scoped fixture cannot use pytester (a test's own
    folder and in-process runner), so the function-scoped ones below keep theirs here."""
    return {}


@pytest.fixture
def answers(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch,
            made_once: dict[str, Any]) -> Path:
    """The table of the plain model's answers (a stand-in model of every family)."""
    if "answers" not in made_once:
        table = pytester.path / "answers.jsonl"
        with monkeypatch.context() as env:
            env.setenv("TOM_ANSWER_TABLE", str(table))
            bundled_run(pytester, "table", f"python:{TESTS / 'thinking_server.py'}:record_weak",
                        *SPARE)
        made_once["answers"] = table
    return made_once["answers"]


@pytest.fixture
def plain_run(pytester: pytest.Pytester, answers: Path, made_once: dict[str, Any]
              ) -> tuple[dict[str, Any], str]:
    """The plain model's run (report, terminal) with the budget to spare."""
    if "plain" not in made_once:
        report, out, _ = served(pytester, "plain", answers, *SPARE)
        made_once["plain"] = report, out
    return made_once["plain"]


def served(pytester: pytest.Pytester, shape: str, answers: Path | None, *extra: str,
           files: list[str] | None = None, name: str = "") -> tuple[dict[str, Any], str, int]:
    kwargs = {"answer_of": table_answers(answers)} if answers else {}
    with ChatServer(responder(shape, **kwargs)) as server:
        return bundled_run(pytester, name or shape, "openai:m",
                           f"--tom-base-url={server.base_url}", *extra, files=files)


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
        pytester: pytest.Pytester, answers: Path, plain_run: tuple[dict[str, Any], str],
        shape: str, xdist: list[str]) -> None:
    plain, plain_out = plain_run
    if xdist:
        # FANToM's free answers left out of this run and of the plain model's it is compared
        # with: each -n 2 worker would load the embedding model for them (about 16 s each),
        # and the thought is taken apart in the workers the same way for every kind of item
        xdist = [*xdist, "-m", "not belief_dist"]
        plain, plain_out, _ = served(pytester, "plain", answers, *SPARE, *xdist[2:],
                                     name="plain-no-free-answers")
        assert not any(r["item"]["kind"] == "belief_dist" for r in plain["items"])
    report, out, _ = served(pytester, shape, answers, *SPARE, *xdist)
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
        pytester: pytest.Pytester) -> None:
    junit = pytester.path / "junit.xml"
    report, out, code = served(pytester, "lone_close", None, "--tom-early-stop=off",
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


def test_a_budget_too_small_for_one_suite_stops_that_suite_alone(
        pytester: pytest.Pytester) -> None:
    """Issue 46: the early stop is decided per suite, on its own answer length. A thought of
    400 tokens and --tom-thinking-tokens=300: BigToM's calls get 64 + 300 (cut off), Hi-ToM's
    256 + 300 and ToMBench's 128 + 300 (room to spare). Under -n 2 each worker decides on
    its own first answers; bigtom alone stops, the others run to their end."""
    baseline = pytester.path / "b.json"
    report, out, code = served(
        pytester, "reasoning_content", None, "--tom-thinking-tokens=300",
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
