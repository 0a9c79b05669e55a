"""How long the model reasoned, in real runs of the plugin (issue 32 point 5): the bundled
BigToM and FANToM suites answered by a model that thinks, plainly and under `-n 2`. Every
figure of the JSON report is computed here again from the report's own item records; the
terminal prints them within 120 columns and the HTML page plots them. The figures'
definitions on synthetic records: tests/test_reasoning_figures.py."""

from __future__ import annotations

import json
import math
import statistics
from pathlib import Path
from typing import Any

import pytest
from embedding_model import embedder  # noqa: F401  (fixture: FANToM's model, loaded once)

TESTS = Path(__file__).resolve().parent
MODEL = f"python:{TESTS / 'thinking_answerers.py'}"
SUITES = ("bigtom-everyday", "fantom-smalltalk")
WIDTH = 120
# the -n 2 comparison: a seeded subset of each suite, in whole scenarios (the figures are
# checked on whole suites: FANToM pairs its conditions in few scenarios, its contrast needs
# them all)
LIMIT = "--tom-limit=160"


def run(pytester: pytest.Pytester, answerer: str, *args: str) -> tuple[dict[str, Any], str]:
    """The JSON report and the terminal output of a run of the bundled suites (in process:
    the embedding model the `embedder` fixture loaded scores FANToM's free answers)."""
    result = pytester.runpytest(
        f"--tom-model={MODEL}:{answerer}", "--tom-suite=bigtom,fantom", "--tom-items=report",
        "--tom-report=r.json", "--tom-early-stop=off",
        "--tom-cache=off", "-p", "no:cacheprovider", *args)
    out = result.stdout.str()
    assert result.ret == 0, out[-3000:]
    return json.loads((pytester.path / "r.json").read_text(encoding="utf-8")), out


def judged(rec: dict[str, Any]) -> bool:
    out = rec["outcome"]
    return out.get("error") != "unavailable" and out.get("correct") is not None


def wilson(k: int, n: int) -> tuple[float, float]:
    z = 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (0.0 if k == 0 else centre - half), (1.0 if k == n else centre + half)


def check_figures(report: dict[str, Any], length: Any) -> None:
    """The report's reasoning figures of each suite, from its records by definition."""
    for name in SUITES:
        suite = report["suites"][name]
        metrics, intervals, block = suite["metrics"], suite["intervals"], suite["reasoning"]
        every = [r for r in report["items"] if r["item"]["suite"] == name]
        # a cut-off item was never answered: its length is a lower bound, apart (issue 46)
        cut = [r for r in every if r["outcome"].get("error") == "cut_off"]
        records = [r for r in every if r["outcome"].get("error") != "cut_off"]
        lengths = {r["item"]["id"]: length(r) for r in records}
        assert block["items"] == len(records)
        bounds = sorted(length(r) for r in cut)
        assert block["cut_off"] == {"items": len(cut), "with_length": len(cut),
                                    "low": bounds[0], "high": bounds[-1],
                                    "median": statistics.median(bounds)}
        assert metrics["reasoning.mean"] == pytest.approx(statistics.fmean(lengths.values()))
        assert metrics["reasoning.median"] == statistics.median(lengths.values())
        assert intervals["reasoning.mean"]["low"] < metrics["reasoning.mean"]
        scored = sorted(lengths[r["item"]["id"]] for r in records if judged(r))
        cuts = [scored[math.ceil(q * len(scored)) - 1] for q in (0.25, 0.5, 0.75)]
        edges = [-math.inf, *cuts, math.inf]
        for k, quartile in enumerate(block["quartiles"], start=1):
            inside = [r for r in records
                      if judged(r) and edges[k - 1] < lengths[r["item"]["id"]] <= edges[k]]
            right = sum(r["outcome"]["correct"] is True for r in inside)
            assert quartile["judged"] == len(inside)
            assert metrics[f"reasoning.q{k}.turn"] == right / len(inside)
            iv = intervals[f"reasoning.q{k}.turn"]
            assert (iv["low"], iv["high"]) == pytest.approx(wilson(right, len(inside)))
        # the cut-off answers are in no quartile, but still counted (and not right)
        assert cut and metrics["cut_off"] == len(cut)
        assert sum(q["judged"] for q in block["quartiles"]) == sum(map(judged, records))
    bigtom = report["suites"]["bigtom-everyday"]["metrics"]
    fantom = report["suites"]["fantom-smalltalk"]["metrics"]
    # the answerer thinks 2.3x as long on false-belief items: read from the declared accuracies
    assert 2.0 < bigtom["reasoning.mean.false_belief"] / bigtom["reasoning.mean.true_belief"] < 2.6
    assert 2.0 < (fantom["reasoning.mean.belief_choice"]
                  / fantom["reasoning.mean.accessible.belief_choice"]) < 2.6
    # the declared contrasts: the ratio of the means, paired by scenario (issue 46 item 3)
    for name, reference, level in (("bigtom-everyday", "true_belief", "false_belief"),
                                   ("fantom-smalltalk", "accessible.belief_choice",
                                    "belief_choice")):
        block = report["suites"][name]["reasoning"]
        (contrast,) = block["contrasts"]
        (row,) = contrast["levels"]
        assert (contrast["reference"], row["name"], contrast["paired"]) == (reference, level, True)
        assert row["ratio"] == pytest.approx(row["mean"] / row["reference_mean"])
        # 2.3 times the words of the same base; the bases differ by item: near 2.3
        assert row["low"] <= row["ratio"] <= row["high"] and 1.6 < row["ratio"] < 3.0
        assert row["groups"] >= 3
        assert [c["name"] for c in block["conditions"]] == [reference, level]


def scores_section(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if "tom scores" in line)
    return lines[start + 1:]


def reasoning_of(report: dict[str, Any]) -> dict[str, Any]:
    return {name: {"metrics": {k: v for k, v in s["metrics"].items() if k.startswith("reasoning")},
                   "intervals": {k: v for k, v in s["intervals"].items()
                                 if k.startswith("reasoning")},
                   "block": s["reasoning"]}
            for name, s in report["suites"].items()}


@pytest.mark.usefixtures("embedder")
def test_a_thinking_run_reports_its_reasoning_plainly_and_under_xdist(
        pytester: pytest.Pytester) -> None:
    plain, out = run(pytester, "counted", "--tom-html=r.html")
    check_figures(plain, lambda r: r["usage"]["reasoning_tokens"])
    section = scores_section(out)
    assert max(map(len, section)) <= WIDTH
    text = "\n".join(section)
    answered = sum(1 for r in plain["items"] if r["item"]["suite"] == "bigtom-everyday"
                   and r["outcome"].get("error") != "cut_off")
    assert f"reasoning, reasoning tokens of {answered} answered items: mean" in text
    assert "cut off, never answered (in no mean): " in text
    assert "mean reasoning tokens, false against true belief (ratio to TB, paired by scenario)" \
        in text
    assert "turn accuracy by quartile of reasoning tokens    Q1 (judged)" in text
    assert "turn accuracy by quartile of reasoning tokens: Q1" in text
    assert "FB accuracy" in text and "× suite mean" in text
    page = (pytester.path / "r.html").read_text(encoding="utf-8")
    assert page.count("Thought length by condition") == 2
    assert page.count("Turn accuracy by quartile of reasoning tokens (95% intervals)") == 2
    # under -n 2 the same figures: FANToM's free answers left out of both runs, as each
    # worker would load the embedding model for them (about 16 s each); the controller's
    # figures from the workers' records are the subject, the same for every kind of item
    subset = (LIMIT, "-m", "not belief_dist")
    plain, _ = run(pytester, "counted", *subset)
    xdist, _ = run(pytester, "counted", "-n", "2", *subset)
    assert reasoning_of(xdist) == reasoning_of(plain)
    assert set(reasoning_of(xdist)) == set(SUITES)
    assert not any(r["item"]["kind"] == "belief_dist" for r in xdist["items"])
    assert len(xdist["items"]) == len(plain["items"]) > 150


@pytest.mark.usefixtures("embedder")
def test_without_token_counts_the_thought_is_measured_in_characters(
        pytester: pytest.Pytester) -> None:
    report, out = run(pytester, "uncounted")
    check_figures(report, lambda r: sum(len(t) for t in r["thoughts"] if t))
    for name in SUITES:
        block = report["suites"][name]["reasoning"]
        assert (block["unit"], block["measure"]) == ("characters", "thought length in characters")
    text = "\n".join(scores_section(out))
    answered = sum(1 for r in report["items"] if r["item"]["suite"] == "bigtom-everyday"
                   and r["outcome"].get("error") != "cut_off")
    assert f"reasoning, thought length in characters of {answered} answered items" in text
    assert "no token count in every record" in text
