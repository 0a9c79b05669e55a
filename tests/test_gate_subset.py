"""`pytest-tom gate` on a saved or merged report says that the gates judged a subset, in
the words of the live run, in the terminal and in the Markdown (issue 33 point 4): the
report records how its items were selected (`settings.selection`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

from pytest_tom.cli import main as cli

ANSWERER = "python:tests/demo_answerers.py:weak"
GATE = "--tom-fail-under=turn=0.1"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(REPO), os.environ.get("PYTHONPATH", "")]))}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "suites/generic", "suites/bigtom", "-q",
         "-p", "no:cacheprovider", "-p", "no:randomly", f"--tom-model={ANSWERER}",
         "--tom-cache=off", "--tom-limit=12", *args],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=900)


def subset_lines(text: str) -> list[str]:
    return [line.strip().removeprefix("- ").removeprefix("note: ").strip("_* ")
            for line in text.splitlines() if "the gates judged a subset" in line]


def test_gate_of_a_saved_and_a_merged_report_says_what_the_live_run_said(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    live = run(GATE, f"--tom-report={tmp_path / 'live.json'}",
               f"--tom-markdown={tmp_path / 'live.md'}")
    said = subset_lines(live.stdout)
    assert len(said) == 1, live.stdout[-3000:]
    assert said[0].startswith("the gates judged a subset: ")
    assert "item(s) deselected by --tom-limit" in said[0]
    report = json.loads((tmp_path / "live.json").read_text())
    selection = report["settings"]["selection"]
    assert selection["by"] == ["--tom-limit"] and selection["deselected"] > 0
    assert f"{len(report['items'])} item(s) ran ({selection['deselected']} item(s) " in said[0]
    assert subset_lines((tmp_path / "live.md").read_text()) == said

    # the saved report gated: the same line, in the terminal and the Markdown
    assert cli(["gate", str(tmp_path / "live.json"), GATE,
                f"--markdown={tmp_path / 'saved.md'}"]) == 0
    assert subset_lines(capsys.readouterr().out) == said
    assert subset_lines((tmp_path / "saved.md").read_text()) == said

    # two shards of the same selection, merged, gated: the same line again. Shard 1 runs
    # under -n 2 (its selection is recorded by the controller), shard 2 plainly: the two
    # must merge into the line the live run said (one xdist run: it starts 3 processes)
    parts = [str(tmp_path / "shard1.json"), str(tmp_path / "shard2.json")]
    shard_one = run("--tom-shard=1/2", f"--tom-report={parts[0]}", "-n", "2", GATE,
                    f"--tom-markdown={tmp_path / 'shard1.md'}")
    run("--tom-shard=2/2", f"--tom-report={parts[1]}")
    merged = tmp_path / "merged.json"
    assert cli(["merge", *parts, "-o", str(merged)]) == 0
    capsys.readouterr()
    assert cli(["gate", str(merged), GATE, f"--markdown={tmp_path / 'merged.md'}"]) == 0
    assert subset_lines(capsys.readouterr().out) == said
    assert subset_lines((tmp_path / "merged.md").read_text()) == said

    # one shard alone: what its live run would say (the other shard's items too), and that
    # it is one shard
    assert cli(["gate", parts[0], GATE]) == 0
    lines = subset_lines(capsys.readouterr().out)
    assert len(lines) == 2
    assert "deselected by --tom-limit, --tom-shard" in lines[0]
    assert "of shard 1/2 (--tom-shard)" in lines[1]
    # ... which is what shard 1's live run under xdist said, in its terminal and Markdown
    assert subset_lines(shard_one.stdout) == lines[:1], shard_one.stdout[-3000:]
    assert subset_lines((tmp_path / "shard1.md").read_text()) == lines[:1]


def test_a_run_of_every_item_records_no_selection(tmp_path: Path) -> None:
    proc = run("--tom-limit=100000", f"--tom-report={tmp_path / 'r.json'}", GATE)
    assert not subset_lines(proc.stdout)
    assert "selection" not in json.loads((tmp_path / "r.json").read_text())["settings"]
