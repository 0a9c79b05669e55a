"""Reports saved by an older pytest-tom stay readable, mergeable, comparable, gateable and
renderable, through the one typed report model (`results.run_report`) and its one reader
(`results.saved_report`).

`tests/data/saved-ffd460d/` holds four reports written by pytest-tom at ffd460d (format
`pytest-tom-report/1`): the bundled suites with `--tom-limit=4`, answered by
`tests/demo_answerers.py`'s weak and strong answerers, and the weak run again cut in two
shards (`--tom-shard 1/2`, `2/2`). Our own output, kept as it was written.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_tom.cli import main
from pytest_tom.compare.paired import compare_runs
from pytest_tom.compare.runs import load_runs
from pytest_tom.metrics.accuracy import judged
from pytest_tom.metrics.mcnemar import mcnemar_exact
from pytest_tom.report.json_report import report_text
from pytest_tom.results.aggregate import aggregate
from pytest_tom.results.results import Results, intervals_json
from pytest_tom.results.run_report import FORMAT, RunReport
from pytest_tom.results.saved_report import SavedReportError, read_saved_report

SAVED = Path(__file__).parent / "data" / "saved-ffd460d"
SUITES = ["bigtom-everyday", "classic-false-belief", "fantom-smalltalk", "opentom-bundled",
          "robustness"]
HTML = all(importlib.util.find_spec(n) for n in ("jinja2", "matplotlib"))


def raw(name: str) -> dict[str, Any]:
    return json.loads((SAVED / name).read_text(encoding="utf-8"))


# core counts added since ffd460d (0 in a run without them): a figure computed now has
# them, the reports saved then do not, and every other key must be equal
ADDED_SINCE = ("cut_off",)


def one_group(value: Any) -> bool:
    """An interval of a bootstrap over one group, with null bounds: a report written since
    ffd460d keeps it (`(no interval: 1 group)`), the reports saved then left it out."""
    return isinstance(value, dict) and value.get("method") == "bootstrap" \
        and value.get("low") is None and value.get("n", 2) < 2 and "level" in value


def as_saved(value: Any) -> Any:
    """`value` (results computed now) without the counts added since ffd460d when they are
    0 and without the one-group intervals, to compare with what a report saved then holds."""
    if isinstance(value, dict):
        return {k: as_saved(v) for k, v in value.items()
                if not (k in ADDED_SINCE and v == 0) and not one_group(v)}
    if isinstance(value, list):
        return [as_saved(v) for v in value]
    return value


def read(name: str) -> RunReport:
    return read_saved_report(SAVED / name, label=name, how_to_write="--tom-report")


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    """The saved reports, copied (the commands name their paths in what they write)."""
    out = tmp_path / "saved"
    shutil.copytree(SAVED, out)
    return out


@pytest.mark.parametrize("name", ["weak.json", "strong.json", "weak-shard1.json",
                                  "weak-shard2.json"])
def test_an_old_report_reads_through_the_typed_model(name: str) -> None:
    report = read(name)
    data = raw(name)
    assert report.version == 1 and report.complete
    assert report.model == "python:tests/demo_answerers.py:" + name.split("-")[0].split(".")[0]
    results = report.results
    assert results.suite_names == sorted({r["item"]["suite"] for r in data["items"]})
    assert set(results.suite_names) <= set(SUITES)
    for suite in results.suites.values():
        block = data["suites"][suite.name]
        assert suite.family == block["family"] and suite.metrics == block["metrics"]
        # typed intervals, written back: the same blocks, key for key in the same order
        written = intervals_json(suite.intervals)
        assert written == block["intervals"]
        assert [list(iv) for iv in written.values()] == [list(iv) for iv in
                                                          block["intervals"].values()]
        assert [t.to_dict() for t in suite.tables] == block["tables"]
        assert suite.counts.items == len([r for r in report.records
                                          if r["item"]["suite"] == suite.name])
    assert results.totals.turn == data["totals"]["turn"]
    assert intervals_json(results.totals_intervals) == data["totals_intervals"]
    # read and written again: the same report, key for key, in the same order
    assert json.loads(report_text(report.data)) == data
    assert list(report.data) == list(data)


def test_settings_are_rebuilt_one_way() -> None:
    shard = read("weak-shard1.json").settings
    assert shard.shard is not None and (shard.shard.index, shard.shard.total) == (1, 2)
    s = shard.to_settings()
    assert (s.method, s.seed, dict(s.options)) == ("vanilla", 0, {})
    # the method is kept (compare once dropped it), family options too
    data = raw("weak.json")
    data["settings"] |= {"method": "cot", "seed": 7, "options": {"fantom_context": "full"}}
    s = RunReport(data).settings.to_settings()
    assert (s.method, s.seed, dict(s.options)) == ("cot", 7, {"fantom_context": "full"})
    assert load_runs.__module__ == "pytest_tom.compare.runs"  # compare reads through it too


def test_the_two_shards_merge_into_the_unsharded_run(saved: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    merged = tmp_path / "merged.json"
    md = tmp_path / "merged.md"
    args = ["merge", str(saved / "weak-shard1.json"), str(saved / "weak-shard2.json"),
            "-o", str(merged), "--markdown", str(md)]
    if HTML:
        args += ["--html", str(tmp_path / "merged.html")]
    assert main(args) == 0
    assert "2 part(s), 82 items, 5 suite(s)" in capsys.readouterr().out
    data, whole = json.loads(merged.read_text()), raw("weak.json")
    assert data["format"] == FORMAT and data["status"] == "complete"
    for key in ("suites", "totals", "totals_intervals"):  # every figure, interval, table
        assert as_saved(data[key]) == whole[key], key
    def items(report: dict[str, Any]) -> list[Any]:  # all but the time each took
        return [{k: v for k, v in r.items() if k != "seconds"} for r in report["items"]]

    assert items(data) == items(whole)
    assert data["settings"]["shard"]["merged"] == [1, 2]
    assert data["versions"] == raw("weak-shard1.json")["versions"]  # the runs', not ours
    assert "bigtom-everyday" in md.read_text()
    if HTML:
        page = (tmp_path / "merged.html").read_text()
        assert page.startswith("<!DOCTYPE html>") and "fantom-smalltalk" in page


def test_weak_and_strong_compare(saved: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cmp.json"
    assert main(["compare", str(saved / "strong.json"), str(saved / "weak.json"),
                 "--labels", "strong,weak", "--json", str(out), "--resamples", "200"]) == 0
    text = capsys.readouterr().out
    for name in SUITES:
        assert f"{name}  (family" in text
    turn = next(x for x in text.splitlines() if x.startswith("turn accuracy"))
    assert " M" in turn  # the exact McNemar test on the shared items
    data = json.loads(out.read_text())
    assert data["format"] == "pytest-tom-compare/1" and len(data["suites"]) == len(SUITES)

    runs = load_runs([saved / "strong.json", saved / "weak.json"])
    cmp = compare_runs(runs, resamples=200)
    suite = next(s for s in cmp.suites if s.name == "bigtom-everyday")
    row = next(r for r in suite.rows if r.metric == "turn")
    a = {r["item"]["id"]: r["outcome"]["correct"] for r in runs[0].records(suite.name)}
    b = {r["item"]["id"]: r["outcome"]["correct"] for r in runs[1].records(suite.name)}
    worse = sum(1 for k in a if a[k] and not b[k])
    better = sum(1 for k in a if b[k] and not a[k])
    d = row.diffs[1]
    assert d is not None and (d.worse, d.better) == (worse, better) and worse > 0
    assert d.p_value == mcnemar_exact(worse, better)
    assert row.values == [runs[0].results.figure(suite.name, "turn"),
                          runs[1].results.figure(suite.name, "turn")]
    before = {(r["item"]["suite"], r["item"]["id"]): r for r in judged(runs[0].report.records)}
    after = {(r["item"]["suite"], r["item"]["id"]): r for r in judged(runs[1].report.records)}
    newly_wrong = [k for k in before.keys() & after.keys()
                   if before[k]["outcome"]["correct"] and not after[k]["outcome"]["correct"]]
    assert cmp.flips[0].worse == len(newly_wrong) > 0


def test_gates_on_old_reports(saved: Path, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    weak, strong = str(saved / "weak.json"), str(saved / "strong.json")
    assert main(["gate", strong, "--tom-fail-under=turn=0.8,fantom.all_star<=1"]) == 0
    assert "tom gates: all 2 passed" in capsys.readouterr().out
    assert main(["gate", weak, "--tom-fail-under=turn=0.8"]) == 1
    assert "below the required 0.8" in capsys.readouterr().out
    md, xml = tmp_path / "gate.md", tmp_path / "gate.xml"
    assert main(["gate", weak, f"--tom-baseline={strong}", "--markdown", str(md),
                 "--junitxml", str(xml)]) == 1
    out = capsys.readouterr().out
    assert "FAILED totals:turn  baseline 0.877  current 0.704" in out
    assert "drop larger than allowed and significant" in out
    assert "Items changed since the baseline" in md.read_text()
    assert 'name="totals:turn"' in xml.read_text()
    # a shard alone is judged with a note
    assert main(["gate", str(saved / "weak-shard2.json"), "--tom-fail-under=turn=0"]) == 0
    assert "the gates judged a subset" in capsys.readouterr().out


@pytest.mark.skipif(not HTML, reason="the html extra (jinja2, matplotlib) is not installed")
def test_old_reports_render_as_html(saved: Path, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    assert main(["html", str(saved / "weak.json"), str(saved / "strong.json"), "-o", str(page),
                 "--resamples", "200"]) == 0
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and 'id="comparison"' in text
    for name in SUITES:
        assert f">{name} <span" in text
    # the run cards read the totals through the model: 82 items, the right/wrong counts
    totals = raw("weak.json")["totals"]
    assert re.search(rf"{totals['items']} · {totals['correct']} right · {totals['wrong']} wrong",
                     text)


def test_aggregation_gives_the_typed_results() -> None:
    report = read("weak.json")
    results = aggregate(report.records, report.settings.to_settings())
    assert isinstance(results, Results)
    # what the run computed, computed again from its records
    assert as_saved(dict(results)) == dict(report.results)
    assert results.figure(None, "turn") == results.totals.turn
    assert results.figure("fantom-smalltalk", "all_star") == \
        raw("weak.json")["suites"]["fantom-smalltalk"]["metrics"]["all_star"]
    assert results.figure("no-such-suite", "turn") is None


def test_versions_are_checked(tmp_path: Path) -> None:
    newer = raw("weak.json") | {"format": "pytest-tom-report/2"}
    (tmp_path / "newer.json").write_text(json.dumps(newer))
    with pytest.raises(SavedReportError, match=r"newer\.json: written by a newer pytest-tom "
                                               r".*pip install -U pytest-tom"):
        read_saved_report(tmp_path / "newer.json", label="newer.json", how_to_write="x")
    broken = raw("weak.json")
    broken["suites"]["robustness"] = {"metrics": {}}
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    with pytest.raises(SavedReportError, match=r"broken\.json: suites\.robustness is not a "
                                               r"suite's figures"):
        read_saved_report(tmp_path / "broken.json", label="broken.json", how_to_write="x")
