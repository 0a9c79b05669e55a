"""Hi-ToM and MMToM-QA through shards, merge, gate and compare, with nothing outside their
folders: two `--tom-shard` runs of `--tom-suite=hitom,mmtomqa` merge into the report of the
unsharded run (every declared figure, interval and table), a family option that changes
the scores travels with the parts, `pytest-tom gate` gates the family metrics of the
merged report as a live run does, and `pytest-tom compare` tests them paired."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_tom.cli import main as cli

ANSWERER = """\
import hashlib

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def answer(req):
    it = req.item
    right = int(hashlib.sha256(it.id.encode()).hexdigest(), 16) % 3 != 0
    letter = it.meta["gold_letter"]
    if it.family == "hitom":
        i = LETTERS.index(letter) if right else (LETTERS.index(letter) + 1) % len(it.choices)
        return LETTERS[i]
    # MMToM-QA: "(b)" is right for pytest-tom, wrong for the authors' first character
    return f"({letter})" if right else ("b" if letter == "a" else "a")
"""
ARGS = ("--tom-suite=hitom,mmtomqa", "--tom-model=python:answer.py:answer", "--tom-items=report",
        "-p", "no:cacheprovider", "-p", "no:randomly", "-q")


def figures(data: dict[str, Any]) -> dict[str, Any]:
    return {name: {k: v for k, v in s.items() if k != "path"}
            for name, s in data["suites"].items()}


@pytest.mark.parametrize("reading", ["answer", "authors"])
def test_shards_merge_into_the_unsharded_report_and_gate_and_compare(
        pytester: pytest.Pytester, reading: str, capsys: pytest.CaptureFixture[str]) -> None:
    pytester.makepyfile(answer=ANSWERER)
    option = f"--tom-mmtomqa-reading={reading}"
    whole = pytester.path / "whole.json"
    pytester.runpytest(*ARGS, option, f"--tom-report={whole}")
    parts = []
    for k in (1, 2):
        part = pytester.path / f"part-{k}.json"
        result = pytester.runpytest(*ARGS, option, f"--tom-shard={k}/2", f"--tom-report={part}")
        result.stdout.fnmatch_lines(["*deselected*"])
        parts.append(str(part))
    merged = pytester.path / "merged.json"
    assert cli(["merge", *parts, "-o", str(merged)]) == 0
    live, data = (json.loads(p.read_text(encoding="utf-8")) for p in (whole, merged))
    assert set(live["suites"]) == {"hitom-stories", "mmtomqa-household"}
    assert figures(data) == figures(live)
    sizes = [len(json.loads(Path(p).read_text())["items"]) for p in parts]
    assert sum(sizes) == len(live["items"]) and min(sizes) > 0
    mm = data["suites"]["mmtomqa-household"]["metrics"]
    assert (mm["all"] < 0.2) == (reading == "authors")  # "(b)" is wrong for the authors
    capsys.readouterr()

    floor = data["suites"]["hitom-stories"]["metrics"]["joint.order2"]
    code = cli(["gate", str(merged), f"--tom-fail-under=hitom.joint.order2={floor - 0.01},"
                "mmtomqa.goal_inference=0.99"])
    printed = capsys.readouterr().out
    assert code == 1
    assert "passed hitom-stories:joint.order2" in printed
    assert "FAILED mmtomqa-household:goal_inference" in printed
    assert cli(["gate", str(merged), f"--tom-baseline={whole}", "--tom-max-drop=0.02"]) == 0

    assert cli(["compare", str(whole), str(merged), "--all"]) == 0
    printed = capsys.readouterr().out
    for label in ("joint to order 4", "Tell · CoTP · order 3", "goal inference",
                  "2.3 goal given updated belief"):
        assert label in printed
